// Package apierr holds the error kinds of the API. Packages that know why a
// request failed return an *Error with a Kind and a human-readable Detail; the
// HTTP layer maps the Kind to a status code in exactly one place (httpapi).
package apierr

import (
	"errors"
	"fmt"
)

// Kind classifies a failure the client can act on.
type Kind int

// The kinds, one per HTTP status the API documents.
const (
	BadRequest      Kind = iota + 1 // 400 malformed body, failed verification
	Unauthenticated                 // 401
	Forbidden                       // 403 plan or role restriction
	NotFound                        // 404 unknown id or someone else's
	Conflict                        // 409 state conflict
	Gone                            // 410 expired report
	TooLarge                        // 413 body over the limit
	Unprocessable                   // 422 field-level problem
	RateLimited                     // 429
	Unavailable                     // 503 a dependency is down
)

// Error is a failure meant for the client. Detail is shown verbatim, so it must
// never carry internal names, AWS request ids or secrets; Err (optional) is the
// internal cause, logged but never sent.
type Error struct {
	Kind       Kind
	Detail     string
	RetryAfter int // seconds; set for RateLimited and Unavailable
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Detail, e.Err)
	}
	return e.Detail
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error of kind with a formatted detail.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Field returns the 422 for a field-level problem; the detail names the field.
func Field(field, format string, args ...any) *Error {
	return &Error{Kind: Unprocessable, Detail: field + ": " + fmt.Sprintf(format, args...)}
}

// As extracts an *Error from err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// InvalidToken is the one answer to every authentication failure, so a client
// cannot tell a malformed token from an expired or revoked one.
const InvalidToken = "Invalid or expired token"

// ErrUnauthenticated is the 401 every authentication failure becomes.
var ErrUnauthenticated = &Error{Kind: Unauthenticated, Detail: InvalidToken}

// Package apierr holds the error kinds of the API. Packages that know why a
// request failed return an *Error with a Kind and a human-readable Detail, or
// an error of their own that is Classified (the store's not-found, conflict
// and refusal errors, typed where they arise); As is the one translation of
// any error into what the client is told, and the HTTP layer maps the Kind to
// a status code in exactly one place (httpapi).
package apierr

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
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

// Classify makes an *Error Classified: it is its own answer.
func (e *Error) Classify() *Error { return e }

// Classified is an error that knows what the client is told about it. An
// *Error is one; so are the typed errors of the packages below the HTTP
// layer (store.NotFoundError, store.ConflictError, …), which a handler
// returns as they are instead of translating them by hand.
type Classified interface {
	error
	Classify() *Error
}

// New returns an *Error of kind with a formatted detail.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Field returns the 422 for a field-level problem; the detail names the field.
func Field(field, format string, args ...any) *Error {
	return &Error{Kind: Unprocessable, Detail: field + ": " + fmt.Sprintf(format, args...)}
}

// As is what the client is told about err: the answer of the outermost
// Classified error of err's chain (an *Error or a typed error of a lower
// layer). It is false for an error nothing classified, an internal one.
func As(err error) (*Error, bool) {
	var c Classified
	if !errors.As(err, &c) {
		return nil, false
	}
	e := c.Classify()
	return e, e != nil
}

// Missing is the 404 of the thing of kind (a noun, "scan") named id:
// "Scan scn_… not found". Every not-found answer is worded here.
func Missing(kind, id string) *Error {
	return New(NotFound, "%s %s not found", capitalize(kind), id)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Quote renders free text taken from a request (an issue key) for a detail:
// at most 60 characters, in double quotes, control characters and quotes
// replaced, so that it cannot forge or break the surrounding message.
func Quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' {
			return '?'
		}
		return r
	}, s) + `"`
}

// InvalidToken is the one answer to every authentication failure, so a client
// cannot tell a malformed token from an expired or revoked one.
const InvalidToken = "Invalid or expired token"

// ErrUnauthenticated is the 401 every authentication failure becomes.
var ErrUnauthenticated = &Error{Kind: Unauthenticated, Detail: InvalidToken}

package store

import (
	"errors"
	"fmt"

	"secscan/shared/apierr"
	"secscan/shared/dependency"
)

// The errors of the store are typed where they arise and say what they are
// about; each is apierr.Classified, so a handler returns it as it is and the
// HTTP layer answers it (apierr.As, then httpapi's one status table). The
// sentinels stay for the callers that only ask what kind of failure it was:
// errors.Is(err, ErrNotFound) holds for every *NotFoundError.
var (
	// ErrNotFound: the record does not exist (or is another user's).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the record exists already, or a concurrent write won.
	ErrConflict = errors.New("already exists")
	// ErrUnavailable: DynamoDB did not answer in time or kept throttling.
	ErrUnavailable = errors.New("database unavailable")
)

// IsNotFound reports whether err means a record does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsConflict reports whether err means a record exists already.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsUnavailable reports whether err means DynamoDB was unavailable.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// NotFoundError is a missing record: the user's Kind ("scan", "target",
// "schedule", …) named ID does not exist, or it is another user's, which
// reads the same. Its answer is the 404 "Scan scn_… not found".
type NotFoundError struct {
	Kind string
	ID   string
	// Text marks an ID that is free text from the request (an issue key),
	// quoted in the answer; ids of the ids package are shown as they are.
	Text bool
}

func notFound(kind, id string) *NotFoundError { return &NotFoundError{Kind: kind, ID: id} }

func (e *NotFoundError) Error() string { return e.Kind + " " + e.ID + " not found" }

// Is makes every *NotFoundError an ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Classify is the 404 naming the record.
func (e *NotFoundError) Classify() *apierr.Error {
	if e.Text {
		return apierr.Missing(e.Kind, apierr.Quote(e.ID))
	}
	return apierr.Missing(e.Kind, e.ID)
}

// ConflictError is a write refused because of the state it found: a record
// that exists already, or a concurrent write that won. Detail is the 409's
// detail, said where the conflict is known.
type ConflictError struct {
	Kind   string
	ID     string
	Detail string
}

func (e *ConflictError) Error() string { return e.Kind + " " + e.ID + ": " + e.Detail }

// Is makes every *ConflictError an ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Classify is the 409 with Detail.
func (e *ConflictError) Classify() *apierr.Error { return apierr.New(apierr.Conflict, "%s", e.Detail) }

// UnavailableError is an operation DynamoDB did not answer in time, or kept
// throttling, within the client's budget (dependency.Default). Its chain
// holds dependency's 503 ("The database is unavailable; retry shortly",
// Retry-After), which is what the client is told.
type UnavailableError struct {
	Op  string
	Err error
}

func (e *UnavailableError) Error() string { return "dynamodb " + e.Op + ": " + e.Err.Error() }
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is makes every *UnavailableError an ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// dbError names the operation that failed. The client (NewClient) has
// already turned a DynamoDB that did not answer, or kept failing, into the
// 503 of dependency.Unavailable; that becomes an *UnavailableError, which
// keeps it in its chain.
func dbError(op string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := dependency.Failed(err); ok {
		return &UnavailableError{Op: op, Err: err}
	}
	return fmt.Errorf("dynamodb %s: %w", op, err)
}

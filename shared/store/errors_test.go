package store_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"secscan/shared/apierr"
	"secscan/shared/dependency"
	"secscan/shared/httpapi"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// answer is what a client is told about err: status and body, through the
// HTTP layer's one mapping.
func answer(err error) (int, string) {
	rec := httptest.NewRecorder()
	httpapi.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// The store's typed errors keep their sentinels (callers that only ask what
// kind of failure it was keep working) and carry their own answer, however
// deeply they are wrapped.
func TestTypedErrorsAnswerOnce(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("operation error DynamoDB: GetItem: %w", dependency.Unavailable(dependency.Database, errors.New("timeout")))
	for _, tc := range []struct {
		name     string
		err      error
		sentinel error
		status   int
		body     string
	}{
		{"missing scan", &store.NotFoundError{Kind: "scan", ID: "scn_1"}, store.ErrNotFound, 404,
			`{"detail":"Scan scn_1 not found"}`},
		{"wrapped missing target", fmt.Errorf("load: %w", &store.NotFoundError{Kind: "target", ID: "tgt_1"}), store.ErrNotFound, 404,
			`{"detail":"Target tgt_1 not found"}`},
		{"issue key is quoted and defused", &store.NotFoundError{Kind: "issue", ID: "x\"\ny", Text: true}, store.ErrNotFound, 404,
			`{"detail":"Issue \"x??y\" not found"}`},
		{"concurrent write", &store.ConflictError{Kind: "webhook secret", ID: "usr_1", Detail: "Rotated meanwhile"}, store.ErrConflict, 409,
			`{"detail":"Rotated meanwhile"}`},
		{"duplicate domain", &store.DuplicateTargetError{Domain: "example.com", ExistingID: "tgt_2"}, store.ErrConflict, 409,
			`{"detail":"Target example.com is already registered as tgt_2"}`},
		{"ended scan", &store.ErrTerminal{ID: "scn_3", Status: scans.Completed}, store.ErrConflict, 409,
			`{"detail":"Scan scn_3 has already ended (completed); only queued or running scans can be cancelled"}`},
		{"bad cursor", fmt.Errorf("list: %w", store.ErrBadCursor), store.ErrBadCursor, 422,
			`{"detail":"cursor: is not a cursor this API returned"}`},
		{"allowance", &store.AllowanceError{Month: "2026-02", Used: 90, Reserved: 5, Allowance: 100}, nil, 403,
			`{"detail":"Monthly credit allowance exhausted: 90 of 100 credits used; it renews on 2026-03-01"}`},
		{"database down", &store.UnavailableError{Op: "get item", Err: down}, store.ErrUnavailable, 503,
			`{"detail":"The database is unavailable; retry shortly"}`},
		{"a handler's explicit answer wins over what it wraps",
			&apierr.Error{Kind: apierr.Conflict, Detail: "Target example.com was deleted", Err: &store.NotFoundError{Kind: "target", ID: "tgt_1"}},
			store.ErrNotFound, 409, `{"detail":"Target example.com was deleted"}`},
		{"plain sentinel stays internal", store.ErrNotFound, store.ErrNotFound, 500,
			`{"detail":"Internal server error"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.sentinel != nil && !errors.Is(tc.err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", tc.err, tc.sentinel)
			}
			status, body := answer(tc.err)
			if status != tc.status || body != tc.body {
				t.Errorf("answer = %d %s, want %d %s", status, body, tc.status, tc.body)
			}
		})
	}
}

// A not-found is never a conflict nor the reverse: a handler's explicit
// branch (a deleted target is a 409 for a retest) can rely on the kind.
func TestSentinelsAreDistinct(t *testing.T) {
	t.Parallel()
	nf := &store.NotFoundError{Kind: "scan", ID: "scn_1"}
	if store.IsConflict(nf) || store.IsUnavailable(nf) {
		t.Error("a not-found reads as another kind")
	}
	if store.IsNotFound(&store.ConflictError{Kind: "x", ID: "y"}) {
		t.Error("a conflict reads as a not-found")
	}
	if e, ok := apierr.As(fmt.Errorf("outer: %w", apierr.New(apierr.Conflict, "explicit"))); !ok || e.Detail != "explicit" {
		t.Errorf("an explicit *apierr.Error wrapping nothing typed: %v %v", e, ok)
	}
}

// Package api holds the endpoint handlers of the service. Each handler is
// what one Lambda serves on AWS and what the local stack mounts: the
// exported methods of endpoints.go, one per function of template.yaml, are
// what each functions/<name>/main.go serves, and shared/app keeps the table
// of all of them for the local stack. A handler uses only the fields of API
// it needs, so a function's main fills in only those and links nothing else.
//
// API is where the dependencies are wired, not what handlers depend on: a
// handler is built from the few things it calls (createTarget(st, now)),
// each store dependency a small interface declared beside the handler that
// consumes it (targetCreator, scanLister, …; *store.Store satisfies them
// all), so its decisions are unit-tested on in-memory fakes
// (fakes_test.go) and end to end on DynamoDB Local (infra/local). Building
// an endpoint checks what it needs (require): a function whose main left a
// dependency out fails at cold start, not on a request. Errors are
// returned as they arise (the store's are typed) and answered in one place
// (apierr.As, then httpapi.WriteError).
package api

import (
	"context"
	"log/slog"
	"time"

	"secscan/shared/auth"
	"secscan/shared/store"
)

// Verifier proves control of a domain (verification.Verifier).
type Verifier interface {
	Verify(ctx context.Context, method, domain, token string) error
}

// API is the set of endpoint handlers and what they need.
type API struct {
	Store    *store.Store
	Auth     *auth.Authenticator
	Verifier Verifier
	// Scans starts scan executions; Callbacks says where webhooks may go.
	Scans     ScanStarter
	Callbacks CallbackPolicy
	// Retests launches retest runs (RetestLauncher).
	Retests RetestLauncher
	// Schedules keeps the deployed schedules (EventBridge Scheduler); nil
	// locally, where the local stack's ticker fires due schedules.
	Schedules ScheduleService
	Now       func() time.Time
	Version   string
	Logger    *slog.Logger
}

// timestamp renders t as RFC 3339 UTC, seconds precision.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// optionalTimestamp renders nil as JSON null.
func optionalTimestamp(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := timestamp(*t)
	return &s
}

// optional renders "" as JSON null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

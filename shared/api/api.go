// Package api holds the endpoint handlers of the service. Each handler is
// what one Lambda serves on AWS and what the local stack mounts; Endpoints maps
// the template's function logical ids to them, so routes come from
// template.yaml alone.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"secscan/shared/auth"
	"secscan/shared/httpapi"
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
	Now       func() time.Time
	Version   string
	Logger    *slog.Logger
}

// Endpoints returns every handler keyed by its function's logical id in
// template.yaml, each wrapped with request ids, logging and recovery.
func (a *API) Endpoints() map[string]http.Handler {
	authed := func(h httpapi.AuthedHandler) http.Handler { return httpapi.Authenticated(a.Auth, h) }
	endpoints := map[string]http.Handler{
		"HealthFunction":              httpapi.Public(a.health),
		"MeFunction":                  authed(a.me),
		"ListTargetsFunction":         authed(a.listTargets),
		"CreateTargetFunction":        authed(a.createTarget),
		"VerifyTargetFunction":        authed(a.verifyTarget),
		"DeleteTargetFunction":        authed(a.deleteTarget),
		"CreateTokenFunction":         authed(accountAction(a.createToken)),
		"ListTokensFunction":          authed(accountAction(a.listTokens)),
		"DeleteTokenFunction":         authed(accountAction(a.deleteToken)),
		"GetWebhookSecretFunction":    authed(accountAction(a.getWebhookSecret)),
		"RotateWebhookSecretFunction": authed(accountAction(a.rotateWebhookSecret)),
		"AdminCreateUserFunction":     authed(adminOnly(a.adminCreateUser)),
		"AdminUpdateUserFunction":     authed(adminOnly(a.adminUpdateUser)),
		"CreateScanFunction":          authed(a.createScan),
		"ListScansFunction":           authed(a.listScans),
		"GetScanFunction":             authed(a.getScan),
		"CancelScanFunction":          authed(a.cancelScan),
		"ReportMarkdownFunction":      authed(a.report(markdownReport)),
		"ReportHTMLFunction":          authed(a.report(htmlReport)),
		"ReportPDFFunction":           authed(a.report(pdfReport)),
		"FindingsCSVFunction":         authed(a.report(csvReport)),
	}
	for name, h := range endpoints {
		endpoints[name] = httpapi.Observe(a.Logger, h)
	}
	return endpoints
}

func (a *API) health(w http.ResponseWriter, _ *http.Request) error {
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": a.Version})
	return nil
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

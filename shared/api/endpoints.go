package api

import (
	"net/http"
	"time"

	"secscan/shared/api/health"
	"secscan/shared/httpapi"
)

// The endpoints, one per API function of template.yaml (its logical id is
// the method's name plus "Function"), each wrapped with request ids, logging
// and recovery. Each names the handler it serves and the checks in front of
// it, and uses only the fields of API that handler needs: the converted
// handlers take them as arguments, each store dependency a small interface
// declared beside the handler (*store.Store satisfies them all), and a
// missing one stops the process when the endpoint is built (require).

// Health is HealthFunction, GET /health and /api/health: public, and needs Version only.
func (a *API) Health() http.Handler { return health.Handler(a.Version, a.Logger) }

// Me is MeFunction, GET /api/auth/me.
func (a *API) Me() http.Handler { return a.authed(me(a.Store, a.Now)) }

// ListTargets is ListTargetsFunction, GET /api/targets.
func (a *API) ListTargets() http.Handler { return a.authed(listTargets(a.Store)) }

// CreateTarget is CreateTargetFunction, POST /api/targets.
func (a *API) CreateTarget() http.Handler { return a.authed(createTarget(a.Store, a.Now)) }

// VerifyTarget is VerifyTargetFunction, POST /api/targets/{id}/verify: needs Verifier.
func (a *API) VerifyTarget() http.Handler {
	require("VerifyTarget", needed{"Verifier", a.Verifier != nil})
	return a.authed(verifyTarget(a.Store, a.Verifier, a.Now))
}

// DeleteTarget is DeleteTargetFunction, DELETE /api/targets/{id}: uses
// Schedules (nil locally), as it deletes the target's schedules.
func (a *API) DeleteTarget() http.Handler {
	return a.authed(deleteTarget(a.Store, a.scheduleService))
}

// CreateToken is CreateTokenFunction, POST /api/tokens: an account action.
func (a *API) CreateToken() http.Handler { return a.authed(accountAction(createToken(a.Store, a.Now))) }

// ListTokens is ListTokensFunction, GET /api/tokens: an account action.
func (a *API) ListTokens() http.Handler { return a.authed(accountAction(listTokens(a.Store))) }

// DeleteToken is DeleteTokenFunction, DELETE /api/tokens/{id}: an account action.
func (a *API) DeleteToken() http.Handler { return a.authed(accountAction(deleteToken(a.Store))) }

// GetWebhookSecret is GetWebhookSecretFunction, GET /api/webhook-secret: an account action.
func (a *API) GetWebhookSecret() http.Handler {
	return a.authed(accountAction(getWebhookSecret(a.Store, a.Now)))
}

// RotateWebhookSecret is RotateWebhookSecretFunction, POST
// /api/webhook-secret/rotate: an account action.
func (a *API) RotateWebhookSecret() http.Handler {
	return a.authed(accountAction(rotateWebhookSecret(a.Store, a.Now)))
}

// AdminCreateUser is AdminCreateUserFunction, POST /api/admin/users: admins only.
func (a *API) AdminCreateUser() http.Handler {
	return a.authed(adminOnly(adminCreateUser(a.Store, a.Now)))
}

// AdminUpdateUser is AdminUpdateUserFunction, PATCH /api/admin/users/{id}: admins only.
func (a *API) AdminUpdateUser() http.Handler { return a.authed(adminOnly(adminUpdateUser(a.Store))) }

// CreateScan is CreateScanFunction, POST /api/scans: needs Scans and Callbacks.
func (a *API) CreateScan() http.Handler {
	require("CreateScan", needed{"Scans", a.Scans != nil}, needed{"Auth", a.Auth != nil})
	return a.authed(createScan(a.creation()))
}

// ListScans is ListScansFunction, GET /api/scans.
func (a *API) ListScans() http.Handler { return a.authed(listScans(a.Store)) }

// GetScan is GetScanFunction, GET /api/scans/{id}.
func (a *API) GetScan() http.Handler { return a.authed(getScan(a.Store)) }

// CancelScan is CancelScanFunction, DELETE /api/scans/{id}.
func (a *API) CancelScan() http.Handler { return a.authed(cancelScan(a.Store, a.Now)) }

// The report downloads (ReportMarkdown, ReportHTML, ReportPDF, FindingsCSV)
// are package reports, so that only their functions link the renderers.

// ListChecks is ListChecksFunction, GET /api/checks: the check catalogue.
func (a *API) ListChecks() http.Handler { return a.authed(a.listChecks) }

// ListTargetIssues is ListTargetIssuesFunction, GET /api/targets/{id}/issues:
// the target's issue ledger.
func (a *API) ListTargetIssues() http.Handler { return a.authed(listTargetIssues(a.Store, a.Now)) }

// PutTargetIssue is PutTargetIssueFunction, PUT /api/targets/{id}/issues/{key}:
// the triage of one issue.
func (a *API) PutTargetIssue() http.Handler { return a.authed(putTargetIssue(a.Store, a.Now)) }

// ListTargetAssets is ListTargetAssetsFunction, GET /api/targets/{id}/assets:
// the target's asset inventory.
func (a *API) ListTargetAssets() http.Handler { return a.authed(listTargetAssets(a.Store)) }

// CreateSchedule is CreateScheduleFunction, POST /api/schedules: uses
// Schedules (EventBridge Scheduler; nil locally) and Callbacks.
func (a *API) CreateSchedule() http.Handler {
	return a.authed(createSchedule(a.Store, a.Callbacks, a.scheduleService, a.Now))
}

// ListSchedules is ListSchedulesFunction, GET /api/schedules.
func (a *API) ListSchedules() http.Handler { return a.authed(listSchedules(a.Store)) }

// GetSchedule is GetScheduleFunction, GET /api/schedules/{id}.
func (a *API) GetSchedule() http.Handler { return a.authed(getSchedule(a.Store)) }

// UpdateSchedule is UpdateScheduleFunction, PATCH /api/schedules/{id}: uses
// Schedules and Callbacks.
func (a *API) UpdateSchedule() http.Handler {
	return a.authed(updateSchedule(a.Store, a.Callbacks, a.scheduleService, a.Now))
}

// DeleteSchedule is DeleteScheduleFunction, DELETE /api/schedules/{id}: uses Schedules.
func (a *API) DeleteSchedule() http.Handler {
	return a.authed(deleteSchedule(a.Store, a.scheduleService))
}

// RunSchedule is RunScheduleFunction, POST /api/schedules/{id}/run: needs
// Scans and Callbacks, as POST /api/scans does.
func (a *API) RunSchedule() http.Handler {
	require("RunSchedule", needed{"Scans", a.Scans != nil}, needed{"Auth", a.Auth != nil})
	return a.authed(runScheduleNow(a.scheduleRuns()))
}

// CreateRetest is CreateRetestFunction, POST /api/scans/{id}/issues/{key}/retest:
// needs Retests, which launches the run.
func (a *API) CreateRetest() http.Handler {
	require("CreateRetest", needed{"Retests", a.Retests != nil}, needed{"Auth", a.Auth != nil})
	return a.authed(createRetest(a.Store, a.Auth.Limiter, a.retestLauncher, a.clock))
}

// GetRetest is GetRetestFunction, GET /api/retests/{id}.
func (a *API) GetRetest() http.Handler { return a.authed(getRetest(a.Store, a.reap, a.clock)) }

// CancelRetest is CancelRetestFunction, DELETE /api/retests/{id}.
func (a *API) CancelRetest() http.Handler { return a.authed(cancelRetest(a.Store, a.reap, a.clock)) }

// clock is Now when a handler calls it: the local stack's tests move the
// retests' clock after the endpoints are built.
func (a *API) clock() time.Time { return a.Now() }

// scheduleService is Schedules when a handler is called: the local stack's
// tests set it after the endpoints are built.
func (a *API) scheduleService() ScheduleService { return a.Schedules }

// authed authenticates the caller (Store and Auth) before h. Every
// authenticated endpoint needs Store, Auth and Now.
func (a *API) authed(h AuthedHandler) http.Handler {
	require("an authenticated endpoint", needed{"Store", a.Store != nil}, needed{"Auth", a.Auth != nil}, needed{"Now", a.Now != nil})
	return httpapi.Observe(a.Logger, Authenticated(a.Auth, h))
}

// needed is a dependency of an endpoint and whether it is there.
type needed struct {
	name    string
	present bool
}

// require stops the process when a dependency of endpoint is missing. A
// function's main builds its endpoint before it serves anything, so a
// missing dependency fails the cold start (and the local stack's start),
// never a request: no handler checks an optional field at request time.
func require(endpoint string, deps ...needed) {
	for _, d := range deps {
		if !d.present {
			panic("api: " + endpoint + " needs " + d.name)
		}
	}
}

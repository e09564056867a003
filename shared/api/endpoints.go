package api

import (
	"net/http"

	"secscan/shared/api/health"
	"secscan/shared/httpapi"
)

// The endpoints, one per API function of template.yaml (its logical id is
// the method's name plus "Function"), each wrapped with request ids, logging
// and recovery. Each names the handler it serves and the checks in front of
// it, and uses only the fields of API that handler needs.

// Health is HealthFunction, GET /health and /api/health: public, and needs Version only.
func (a *API) Health() http.Handler { return health.Handler(a.Version, a.Logger) }

// Me is MeFunction, GET /api/auth/me.
func (a *API) Me() http.Handler { return a.authed(a.me) }

// ListTargets is ListTargetsFunction, GET /api/targets.
func (a *API) ListTargets() http.Handler { return a.authed(a.listTargets) }

// CreateTarget is CreateTargetFunction, POST /api/targets.
func (a *API) CreateTarget() http.Handler { return a.authed(a.createTarget) }

// VerifyTarget is VerifyTargetFunction, POST /api/targets/{id}/verify: needs Verifier.
func (a *API) VerifyTarget() http.Handler { return a.authed(a.verifyTarget) }

// DeleteTarget is DeleteTargetFunction, DELETE /api/targets/{id}: needs
// Schedules, as it deletes the target's schedules.
func (a *API) DeleteTarget() http.Handler { return a.authed(a.deleteTarget) }

// CreateToken is CreateTokenFunction, POST /api/tokens: an account action.
func (a *API) CreateToken() http.Handler { return a.authed(accountAction(a.createToken)) }

// ListTokens is ListTokensFunction, GET /api/tokens: an account action.
func (a *API) ListTokens() http.Handler { return a.authed(accountAction(a.listTokens)) }

// DeleteToken is DeleteTokenFunction, DELETE /api/tokens/{id}: an account action.
func (a *API) DeleteToken() http.Handler { return a.authed(accountAction(a.deleteToken)) }

// GetWebhookSecret is GetWebhookSecretFunction, GET /api/webhook-secret: an account action.
func (a *API) GetWebhookSecret() http.Handler { return a.authed(accountAction(a.getWebhookSecret)) }

// RotateWebhookSecret is RotateWebhookSecretFunction, POST
// /api/webhook-secret/rotate: an account action.
func (a *API) RotateWebhookSecret() http.Handler {
	return a.authed(accountAction(a.rotateWebhookSecret))
}

// AdminCreateUser is AdminCreateUserFunction, POST /api/admin/users: admins only.
func (a *API) AdminCreateUser() http.Handler { return a.authed(adminOnly(a.adminCreateUser)) }

// AdminUpdateUser is AdminUpdateUserFunction, PATCH /api/admin/users/{id}: admins only.
func (a *API) AdminUpdateUser() http.Handler { return a.authed(adminOnly(a.adminUpdateUser)) }

// CreateScan is CreateScanFunction, POST /api/scans: needs Scans and Callbacks.
func (a *API) CreateScan() http.Handler { return a.authed(a.createScan) }

// ListScans is ListScansFunction, GET /api/scans.
func (a *API) ListScans() http.Handler { return a.authed(a.listScans) }

// GetScan is GetScanFunction, GET /api/scans/{id}.
func (a *API) GetScan() http.Handler { return a.authed(a.getScan) }

// CancelScan is CancelScanFunction, DELETE /api/scans/{id}.
func (a *API) CancelScan() http.Handler { return a.authed(a.cancelScan) }

// The report downloads (ReportMarkdown, ReportHTML, ReportPDF, FindingsCSV)
// are package reports, so that only their functions link the renderers.

// ListChecks is ListChecksFunction, GET /api/checks: the check catalogue.
func (a *API) ListChecks() http.Handler { return a.authed(a.listChecks) }

// ListTargetIssues is ListTargetIssuesFunction, GET /api/targets/{id}/issues:
// the target's issue ledger.
func (a *API) ListTargetIssues() http.Handler { return a.authed(a.listTargetIssues) }

// PutTargetIssue is PutTargetIssueFunction, PUT /api/targets/{id}/issues/{key}:
// the triage of one issue.
func (a *API) PutTargetIssue() http.Handler { return a.authed(a.putTargetIssue) }

// ListTargetAssets is ListTargetAssetsFunction, GET /api/targets/{id}/assets:
// the target's asset inventory.
func (a *API) ListTargetAssets() http.Handler { return a.authed(a.listTargetAssets) }

// CreateSchedule is CreateScheduleFunction, POST /api/schedules: needs
// Schedules (EventBridge Scheduler) and Callbacks.
func (a *API) CreateSchedule() http.Handler { return a.authed(a.createSchedule) }

// ListSchedules is ListSchedulesFunction, GET /api/schedules.
func (a *API) ListSchedules() http.Handler { return a.authed(a.listSchedules) }

// GetSchedule is GetScheduleFunction, GET /api/schedules/{id}.
func (a *API) GetSchedule() http.Handler { return a.authed(a.getSchedule) }

// UpdateSchedule is UpdateScheduleFunction, PATCH /api/schedules/{id}: needs
// Schedules and Callbacks.
func (a *API) UpdateSchedule() http.Handler { return a.authed(a.updateSchedule) }

// DeleteSchedule is DeleteScheduleFunction, DELETE /api/schedules/{id}: needs Schedules.
func (a *API) DeleteSchedule() http.Handler { return a.authed(a.deleteSchedule) }

// RunSchedule is RunScheduleFunction, POST /api/schedules/{id}/run: needs
// Scans and Callbacks, as POST /api/scans does.
func (a *API) RunSchedule() http.Handler { return a.authed(a.runScheduleNow) }

// CreateRetest is CreateRetestFunction, POST /api/scans/{id}/issues/{key}/retest:
// needs Retests, which launches the run.
func (a *API) CreateRetest() http.Handler { return a.authed(a.createRetest) }

// GetRetest is GetRetestFunction, GET /api/retests/{id}.
func (a *API) GetRetest() http.Handler { return a.authed(a.getRetest) }

// CancelRetest is CancelRetestFunction, DELETE /api/retests/{id}.
func (a *API) CancelRetest() http.Handler { return a.authed(a.cancelRetest) }

// authed authenticates the caller (Store and Auth) before h.
func (a *API) authed(h AuthedHandler) http.Handler {
	return httpapi.Observe(a.Logger, Authenticated(a.Auth, h))
}

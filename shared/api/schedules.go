package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/schedules"
	"secscan/shared/store"
)

// ScheduleService keeps the deployed schedule of each schedule record
// (schedules/eventbridge: one EventBridge Scheduler schedule per record).
// A nil ScheduleService is the local stack, whose ticker fires due
// schedules itself (FireSchedule).
type ScheduleService interface {
	// PutSchedule creates (create) or replaces the deployed schedule of sch.
	PutSchedule(ctx context.Context, sch store.Schedule, create bool) error
	// DeleteSchedule removes the deployed schedule id; one already gone is no error.
	DeleteSchedule(ctx context.Context, id string) error
}

// earlyFire is how early a scheduled delivery may come before the stored
// next run and still take it (clocks of EventBridge and the function differ).
const earlyFire = 5 * time.Minute

type scheduleJSON struct {
	ID          string  `json:"id"`
	Target      string  `json:"target"`
	TargetID    string  `json:"target_id"`
	ScanType    string  `json:"scan_type"`
	Tier        string  `json:"tier"`
	Cadence     string  `json:"cadence"`
	CallbackURL *string `json:"callback_url"`
	MaxCredits  int     `json:"max_credits"`
	Enabled     bool    `json:"enabled"`
	NextRunAt   *string `json:"next_run_at"`
	LastScanID  *string `json:"last_scan_id"`
	LastError   *string `json:"last_error"`
	CreatedAt   string  `json:"created_at"`
}

// effectiveCredits is the max_credits a run of sch reserves: what was asked,
// capped at the tier's ceiling, or the ceiling.
func effectiveCredits(sch store.Schedule) int {
	ceiling := plans.CreditCeiling[plans.Tier(sch.Tier)]
	if sch.MaxCredits > 0 && sch.MaxCredits < ceiling {
		return sch.MaxCredits
	}
	return ceiling
}

func renderSchedule(sch store.Schedule) scheduleJSON {
	out := scheduleJSON{
		ID: sch.ID, Target: sch.Target, TargetID: sch.TargetID, ScanType: sch.ScanType, Tier: sch.Tier,
		Cadence: sch.Cadence, CallbackURL: optional(sch.CallbackURL), MaxCredits: effectiveCredits(sch),
		Enabled: sch.Enabled, LastScanID: optional(sch.LastScanID), LastError: optional(sch.LastError),
		CreatedAt: timestamp(sch.CreatedAt),
	}
	if sch.Enabled {
		next := sch.NextRun()
		out.NextRunAt = optionalTimestamp(&next)
	}
	return out
}

type scheduleCreate struct {
	Target      *string `json:"target"`
	ScanType    *string `json:"scan_type"`
	Tier        *string `json:"tier"`
	Cadence     *string `json:"cadence"`
	CallbackURL *string `json:"callback_url"`
	MaxCredits  *int    `json:"max_credits"`
}

// checkCadence validates a cadence field (422) and the plan's schedules (403).
func checkCadence(raw *string, plan plans.Plan) (plans.Cadence, error) {
	if raw == nil {
		return "", apierr.Field("cadence", "is required (daily, weekly or monthly)")
	}
	if !plans.ValidCadence(*raw) {
		return "", apierr.Field("cadence", "must be one of daily, weekly, monthly")
	}
	c := plans.Cadence(*raw)
	if plan.MaxSchedules() == 0 {
		return c, apierr.New(apierr.Forbidden, "Schedules are not available on the %s plan; they need the %s plan or higher",
			plan, plans.CheapestAllowingSchedules(1))
	}
	if !plan.AllowsCadence(c) {
		return c, apierr.New(apierr.Forbidden, "Cadence %s is not available on the %s plan; it needs the %s plan or higher",
			c, plan, plans.CheapestAllowingCadence(c))
	}
	return c, nil
}

// createSchedule creates a schedule (CONTRACT "Monitoring"): the body as
// POST /api/scans checks it (422, 403), the cadence (422) and the plan's
// cadences and count (403), the target (422). The deployed schedule is
// created first and the record second; when the record cannot be written,
// the schedule is deleted again: nothing is left half-created (503).
func (a *API) createSchedule(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	var in scheduleCreate
	if err := httpapi.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	plan := plans.Plan(p.User.Plan)
	req, err := a.creation().checkScanRequest(scanCreate{Target: in.Target, ScanType: in.ScanType, Tier: in.Tier,
		CallbackURL: in.CallbackURL, MaxCredits: in.MaxCredits}, plan)
	if err != nil {
		return err
	}
	cadence, err := checkCadence(in.Cadence, plan)
	if err != nil {
		return err
	}
	target, err := a.creation().scannableTarget(r.Context(), p.User.ID, *in.Target)
	if err != nil {
		return err
	}
	n, err := a.Store.CountSchedules(r.Context(), p.User.ID)
	if err != nil {
		return err
	}
	if n >= plan.MaxSchedules() {
		return scheduleLimit(plan, n)
	}
	now := a.Now().UTC()
	anchor := schedules.Anchor(now)
	sch := store.Schedule{
		ID: ids.New(ids.Schedule, now), UserID: p.User.ID, TargetID: target.ID, Target: target.Domain,
		ScanType: string(req.scanType), Tier: string(req.tier), Cadence: string(cadence), CallbackURL: req.callbackURL,
		Enabled: true, Anchor: anchor, NextRunAt: schedules.Next(cadence, anchor, anchor).Unix(),
		CreatedAt: now, UpdatedAt: now,
	}
	if in.MaxCredits != nil {
		sch.MaxCredits = req.maxCredits
	}
	if a.Schedules != nil {
		if err := a.Schedules.PutSchedule(r.Context(), sch, true); err != nil {
			return schedulerUnavailable(err)
		}
	}
	if err := a.Store.CreateSchedule(r.Context(), sch, plan.MaxSchedules()); err != nil {
		if errors.Is(err, store.ErrScheduleLimit) {
			// Another creation took the last place since the count above.
			err = scheduleLimit(plan, plan.MaxSchedules())
		}
		if a.Schedules != nil {
			a.compensate(r.Context(), "delete schedule", sch.ID, func(ctx context.Context) error {
				return a.Schedules.DeleteSchedule(ctx, sch.ID)
			})
		}
		return err
	}
	httpapi.Logger(r.Context()).InfoContext(r.Context(), "schedule created", "schedule_id", sch.ID, "cadence", sch.Cadence)
	w.Header().Set("Location", "/api/schedules/"+sch.ID)
	httpapi.WriteJSON(w, http.StatusCreated, renderSchedule(sch))
	return nil
}

// scheduleLimit is the 403 of a user who holds n schedules, the plan's limit.
func scheduleLimit(plan plans.Plan, n int) error {
	limit := plan.MaxSchedules()
	if plan == plans.Enterprise {
		return apierr.New(apierr.Forbidden, "The %s plan allows %d schedules; delete one first", plan, limit)
	}
	return apierr.New(apierr.Forbidden, "The %s plan allows %d schedules; %d need the %s plan or higher",
		plan, limit, n+1, plans.CheapestAllowingSchedules(n+1))
}

// schedulerUnavailable is the 503 of a failed EventBridge Scheduler call
// (the client's budget has made most of them one already).
func schedulerUnavailable(err error) error {
	if _, ok := apierr.As(err); ok {
		return err
	}
	return dependency.Unavailable(dependency.Scheduler, err)
}

// compensate undoes a step of a request that failed later, after the
// request's own deadline if need be; a failed undo is logged.
func (a *API) compensate(reqCtx context.Context, what, id string, undo func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), 5*time.Second)
	defer cancel()
	if err := undo(ctx); err != nil {
		httpapi.Logger(ctx).ErrorContext(ctx, "compensation failed: "+what, "schedule_id", id, "error", err.Error())
	}
}

func scheduleID(r *http.Request) (string, error) {
	return httpapi.PathID(r, ids.Schedule, ids.Valid, "Schedule")
}

// ownSchedule reads the caller's schedule of the path (404 otherwise).
func (a *API) ownSchedule(r *http.Request, p auth.Principal) (store.Schedule, error) {
	id, err := scheduleID(r)
	if err != nil {
		return store.Schedule{}, err
	}
	return a.Store.GetSchedule(r.Context(), p.User.ID, id)
}

func (a *API) listSchedules(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	page, err := PageOf(r)
	if err != nil {
		return err
	}
	list, next, err := a.Store.ListSchedules(r.Context(), p.User.ID, page)
	if err != nil {
		return err
	}
	out := make([]scheduleJSON, len(list))
	for i, sch := range list {
		out[i] = renderSchedule(sch)
	}
	SetNextLink(w, r, page, next)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) getSchedule(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	sch, err := a.ownSchedule(r, p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, renderSchedule(sch))
	return nil
}

type scheduleUpdate struct {
	Cadence  *string `json:"cadence"`
	Enabled  *bool   `json:"enabled"`
	Tier     *string `json:"tier"`
	ScanType *string `json:"scan_type"`
	// CallbackURL is raw so that null (remove it) differs from absent.
	CallbackURL json.RawMessage `json:"callback_url"`
	MaxCredits  *int            `json:"max_credits"`
}

// updateSchedule applies a PATCH: the merged schedule is checked as a
// creation is (422, 403); the deployed schedule is replaced first and the
// record second, and put back when the record cannot be written (503).
// A new cadence re-anchors the grid at now; enabling again takes the next
// run of the grid after now.
func (a *API) updateSchedule(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	var in scheduleUpdate
	if err := httpapi.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	old, err := a.ownSchedule(r, p)
	if err != nil {
		return err
	}
	plan := plans.Plan(p.User.Plan)
	body, err := in.merged(old)
	if err != nil {
		return err
	}
	req, err := a.creation().checkScanRequest(body, plan)
	if err != nil {
		return err
	}
	cadence := old.Cadence
	if in.Cadence != nil {
		cadence = *in.Cadence
	}
	c, err := checkCadence(&cadence, plan)
	if err != nil {
		return err
	}
	sch := in.apply(old, req, body.MaxCredits != nil, c, a.Now().UTC())
	if err := a.replaceSchedule(r.Context(), old, sch); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, renderSchedule(sch))
	return nil
}

// merged is the body of a scan request the schedule old becomes with the
// PATCH in, checked as a creation is.
func (in scheduleUpdate) merged(old store.Schedule) (scanCreate, error) {
	out := scanCreate{Target: &old.TargetID, ScanType: &old.ScanType, Tier: &old.Tier,
		CallbackURL: optional(old.CallbackURL), MaxCredits: in.MaxCredits}
	if in.ScanType != nil {
		out.ScanType = in.ScanType
	}
	if in.Tier != nil {
		out.Tier = in.Tier
	}
	if len(in.CallbackURL) > 0 {
		out.CallbackURL = nil
		if string(in.CallbackURL) != "null" {
			var u string
			if err := json.Unmarshal(in.CallbackURL, &u); err != nil {
				return out, apierr.Field("callback_url", "must be a string or null")
			}
			out.CallbackURL = &u
		}
	}
	if out.MaxCredits == nil && old.MaxCredits > 0 {
		out.MaxCredits = &old.MaxCredits
	}
	return out, nil
}

// apply returns old changed by the checked request req and cadence c at now;
// hasMaxCredits says whether the merged request set max_credits.
func (in scheduleUpdate) apply(old store.Schedule, req scanRequest, hasMaxCredits bool, c plans.Cadence, now time.Time) store.Schedule {
	sch := old
	sch.ScanType, sch.Tier, sch.CallbackURL, sch.UpdatedAt = string(req.scanType), string(req.tier), req.callbackURL, now
	if hasMaxCredits {
		sch.MaxCredits = req.maxCredits
	}
	if in.Enabled != nil {
		sch.Enabled = *in.Enabled
	}
	switch {
	case string(c) != old.Cadence:
		sch.Cadence, sch.Anchor = string(c), schedules.Anchor(now)
		sch.NextRunAt = schedules.Next(c, sch.Anchor, now).Unix()
	case sch.Enabled && !old.Enabled:
		sch.NextRunAt = schedules.Next(c, sch.Anchor, now).Unix()
	}
	return sch
}

// replaceSchedule replaces the deployed schedule old with sch, then the
// record; when the record cannot be written the deployed one is put back
// (or deleted, when the record was deleted meanwhile: its 404 is returned).
func (a *API) replaceSchedule(ctx context.Context, old, sch store.Schedule) error {
	if a.Schedules != nil {
		if err := a.Schedules.PutSchedule(ctx, sch, false); err != nil {
			return schedulerUnavailable(err)
		}
	}
	err := a.Store.PutSchedule(ctx, sch)
	if err != nil && a.Schedules != nil {
		a.compensate(ctx, "restore schedule", sch.ID, func(ctx context.Context) error {
			if store.IsNotFound(err) {
				return a.Schedules.DeleteSchedule(ctx, sch.ID) // deleted meanwhile
			}
			return a.Schedules.PutSchedule(ctx, old, false)
		})
	}
	return err
}

// deleteSchedule removes the deployed schedule, then the record (204). The
// scans it started are kept.
func (a *API) deleteSchedule(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	sch, err := a.ownSchedule(r, p)
	if err != nil {
		return err
	}
	if err := removeSchedule(r.Context(), a.Store, a.Schedules, sch); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// scheduleDeleter deletes a schedule's record (*store.Store).
type scheduleDeleter interface {
	DeleteSchedule(ctx context.Context, userID, id string) error
}

// removeSchedule deletes the deployed schedule (schedules is nil locally)
// and then the record: a failure leaves the record, so the request can be
// retried.
func removeSchedule(ctx context.Context, st scheduleDeleter, schedules ScheduleService, sch store.Schedule) error {
	if schedules != nil {
		if err := schedules.DeleteSchedule(ctx, sch.ID); err != nil {
			return schedulerUnavailable(err)
		}
	}
	return st.DeleteSchedule(ctx, sch.UserID, sch.ID)
}

// runScheduleNow is POST /api/schedules/<id>/run: 202 with the scan it
// started, counted like any creation; the errors of a creation otherwise,
// and 409 while the schedule's previous scan runs. Either way the outcome is
// the schedule's last_scan_id or last_error.
func (a *API) runScheduleNow(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	sch, err := a.ownSchedule(r, p)
	if err != nil {
		return err
	}
	sc, err := a.runSchedule(r.Context(), sch, plans.Plan(p.User.Plan), false)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/scans/"+sc.ID)
	httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
	return nil
}

// runSchedule starts a run of sch through startScan, as POST /api/scans
// would with the schedule's body, and records the outcome on the schedule:
// the scan started, or why none did (the schedule stays enabled). A run
// while the previous scan is still queued or running is skipped.
func (a *API) runSchedule(ctx context.Context, sch store.Schedule, plan plans.Plan, scheduled bool) (scans.Scan, error) {
	now := a.Now().UTC()
	fail := func(err error) (scans.Scan, error) {
		reason := "The scan could not be started; it will be tried again at the next run"
		if e, ok := apierr.As(err); ok {
			reason = e.Detail
		}
		if scheduled {
			reason = "Run of " + timestamp(now) + " not started: " + reason
		}
		if _, rerr := a.Store.RecordScheduleRun(context.WithoutCancel(ctx), sch.UserID, sch.ID, "", reason, now); rerr != nil {
			httpapi.Logger(ctx).ErrorContext(ctx, "record schedule run", "schedule_id", sch.ID, "error", rerr.Error())
		}
		return scans.Scan{}, err
	}
	if sch.LastScanID != "" {
		prev, err := a.Store.GetScan(ctx, sch.UserID, sch.LastScanID)
		if err != nil && !store.IsNotFound(err) {
			return scans.Scan{}, err
		}
		if err == nil && !prev.Status.Terminal() {
			return fail(apierr.New(apierr.Conflict, "Skipped: the previous scan %s of this schedule is still %s", prev.ID, prev.Status))
		}
	}
	if scheduled {
		// The plan may have changed since the schedule was made.
		if _, err := checkCadence(&sch.Cadence, plan); err != nil {
			return fail(err)
		}
	}
	maxCredits := effectiveCredits(sch)
	callback := optional(sch.CallbackURL)
	req, err := a.creation().checkScanRequest(scanCreate{Target: &sch.TargetID, ScanType: &sch.ScanType, Tier: &sch.Tier,
		CallbackURL: callback, MaxCredits: &maxCredits}, plan)
	if err != nil {
		return fail(err)
	}
	sc, _, err := a.creation().startScan(ctx, scanStart{
		userID: sch.UserID, plan: plan, target: sch.TargetID, req: req,
		slot: ids.New("run_", now), scheduleID: sch.ID,
	})
	if err != nil {
		return fail(err)
	}
	if _, err := a.Store.RecordScheduleRun(context.WithoutCancel(ctx), sch.UserID, sch.ID, sc.ID, "", now); err != nil && !store.IsNotFound(err) {
		// The scan runs; only the schedule's note of it is lost.
		httpapi.Logger(ctx).ErrorContext(ctx, "record schedule run", "schedule_id", sch.ID, "scan_id", sc.ID, "error", err.Error())
	}
	httpapi.Logger(ctx).InfoContext(ctx, "schedule run started", "schedule_id", sch.ID, "scan_id", sc.ID, "scheduled", scheduled)
	return sc, nil
}

// ScheduledRun is the input EventBridge Scheduler gives ScheduledScanFunction.
type ScheduledRun struct {
	ScheduleID string `json:"schedule_id"`
}

// FireSchedule is a scheduled run of schedule id: EventBridge Scheduler's
// invocation of ScheduledScanFunction, or the local stack's ticker. It takes
// the due run (a second delivery of it, or a schedule not yet due, does
// nothing), moves next_run_at along the grid and runs the schedule. A run
// that cannot start is recorded on the schedule and is no error of the
// invocation; only a dependency that fails before anything was recorded is.
func (a *API) FireSchedule(ctx context.Context, in ScheduledRun) error {
	id := strings.TrimSpace(in.ScheduleID)
	log := a.Logger
	if log == nil {
		log = httpapi.Logger(ctx)
	}
	if !ids.Valid(ids.Schedule, id) {
		log.WarnContext(ctx, "scheduled run without a valid schedule id", "schedule_id", id)
		return nil
	}
	owner, err := a.Store.ScheduleOwner(ctx, id)
	if store.IsNotFound(err) {
		log.WarnContext(ctx, "scheduled run of a deleted schedule", "schedule_id", id)
		return nil
	}
	if err != nil {
		return err
	}
	sch, err := a.Store.GetSchedule(ctx, owner, id)
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	now := a.Now().UTC()
	next := schedules.Next(plans.Cadence(sch.Cadence), sch.Anchor, now)
	claimed, err := a.Store.ClaimScheduledRun(ctx, owner, id, now.Add(earlyFire), next)
	if err != nil || !claimed {
		return err
	}
	user, err := a.Store.GetUser(ctx, owner)
	if err != nil {
		return err
	}
	if _, err := a.runSchedule(ctx, sch, plans.Plan(user.Plan), true); err != nil {
		log.InfoContext(ctx, "scheduled run not started", "schedule_id", id, "reason", err.Error())
	}
	return nil
}

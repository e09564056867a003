package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
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

// The schedule endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	scheduleGetter interface {
		GetSchedule(ctx context.Context, userID, id string) (store.Schedule, error)
	}
	scheduleLister interface {
		ListSchedules(ctx context.Context, userID string, page store.Page) ([]store.Schedule, string, error)
	}
	// scheduleCreator finds the schedule's target and counts and writes schedules.
	scheduleCreator interface {
		targetFinder
		CountSchedules(ctx context.Context, userID string) (int, error)
		CreateSchedule(ctx context.Context, sch store.Schedule, limit int) error
	}
	scheduleUpdater interface {
		scheduleGetter
		UpdateSchedule(ctx context.Context, old, sch store.Schedule) (store.Schedule, error)
	}
	scheduleRemover interface {
		scheduleGetter
		scheduleDeleter
	}
)

// createSchedule creates a schedule (CONTRACT "Monitoring"): the body as
// POST /api/scans checks it (422, 403), the cadence (422) and the plan's
// cadences and count (403), the target (422). The deployed schedule is
// created first and the record second; when the record cannot be written,
// the schedule is deleted again: nothing is left half-created (503).
// schedules gives the ScheduleService (nil locally) when called, as
// deleteTarget's does.
func createSchedule(st scheduleCreator, callbacks CallbackPolicy, schedules func() ScheduleService, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		var in scheduleCreate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		plan := plans.Plan(p.User.Plan)
		sch, err := newSchedule(r.Context(), st, in, plan, callbacks, p.User.ID, now().UTC())
		if err != nil {
			return err
		}
		if err := deploySchedule(r.Context(), st, schedules(), sch, plan); err != nil {
			return err
		}
		httpapi.Logger(r.Context()).InfoContext(r.Context(), "schedule created", "schedule_id", sch.ID, "cadence", sch.Cadence)
		w.Header().Set("Location", "/api/schedules/"+sch.ID)
		httpapi.WriteJSON(w, http.StatusCreated, renderSchedule(sch))
		return nil
	}
}

// newSchedule is the schedule of userID the body in asks for at now, once
// the body, the plan, the target and the count of the user's schedules
// allow it.
func newSchedule(ctx context.Context, st scheduleCreator, in scheduleCreate, plan plans.Plan, callbacks CallbackPolicy, userID string, now time.Time) (store.Schedule, error) {
	req, err := checkScanRequest(scanCreate{Target: in.Target, ScanType: in.ScanType, Tier: in.Tier,
		CallbackURL: in.CallbackURL, MaxCredits: in.MaxCredits}, plan, callbacks)
	if err != nil {
		return store.Schedule{}, err
	}
	cadence, err := checkCadence(in.Cadence, plan)
	if err != nil {
		return store.Schedule{}, err
	}
	target, err := scannableTarget(ctx, st, userID, *in.Target)
	if err != nil {
		return store.Schedule{}, err
	}
	n, err := st.CountSchedules(ctx, userID)
	if err != nil {
		return store.Schedule{}, err
	}
	if n >= plan.MaxSchedules() {
		return store.Schedule{}, scheduleLimit(plan, n)
	}
	anchor := schedules.Anchor(now)
	sch := store.Schedule{
		ID: ids.New(ids.Schedule, now), UserID: userID, TargetID: target.ID, Target: target.Domain,
		ScanType: string(req.scanType), Tier: string(req.tier), Cadence: string(cadence), CallbackURL: req.callbackURL,
		Enabled: true, Anchor: anchor, NextRunAt: schedules.Next(cadence, anchor, anchor).Unix(),
		CreatedAt: now, UpdatedAt: now,
	}
	if in.MaxCredits != nil {
		sch.MaxCredits = req.maxCredits
	}
	return sch, nil
}

// deploySchedule creates the deployed schedule of sch (service is nil
// locally), then its record, within the plan's count; when the record
// cannot be written the deployed schedule is deleted again.
func deploySchedule(ctx context.Context, st scheduleCreator, service ScheduleService, sch store.Schedule, plan plans.Plan) error {
	if service != nil {
		if err := service.PutSchedule(ctx, sch, true); err != nil {
			return schedulerUnavailable(err)
		}
	}
	err := st.CreateSchedule(ctx, sch, plan.MaxSchedules())
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrScheduleLimit) {
		// Another creation took the last place since the count.
		err = scheduleLimit(plan, plan.MaxSchedules())
	}
	if service != nil {
		compensate(ctx, "delete schedule", sch.ID, func(ctx context.Context) error {
			return service.DeleteSchedule(ctx, sch.ID)
		})
	}
	return err
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
func compensate(reqCtx context.Context, what, id string, undo func(context.Context) error) {
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
func ownSchedule(r *http.Request, p auth.Principal, st scheduleGetter) (store.Schedule, error) {
	id, err := scheduleID(r)
	if err != nil {
		return store.Schedule{}, err
	}
	return st.GetSchedule(r.Context(), p.User.ID, id)
}

// listSchedules is a page of the caller's schedules.
func listSchedules(st scheduleLister) AuthedHandler { return listOwn(st.ListSchedules, renderSchedule) }

// getSchedule is the caller's schedule of the path.
func getSchedule(st scheduleGetter) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		sch, err := ownSchedule(r, p, st)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, renderSchedule(sch))
		return nil
	}
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
// run of the grid after now. The record is written on the version read, so
// a run between the read and the write (its claim of next_run_at, its
// last_scan_id or last_error) is never undone: the PATCH is then applied
// again to a fresh read, once; a second conflict is the 409.
func updateSchedule(st scheduleUpdater, callbacks CallbackPolicy, schedules func() ScheduleService, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		var in scheduleUpdate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		var sch store.Schedule
		var err error
		for range patchAttempts {
			sch, err = patchSchedule(r, p, st, in, callbacks, schedules(), now().UTC())
			if !store.IsConflict(err) {
				break
			}
		}
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, renderSchedule(sch))
		return nil
	}
}

// patchAttempts is how many times a PATCH is applied to a fresh read when
// the record changed under it.
const patchAttempts = 2

// patchSchedule reads the caller's schedule of the path, applies the PATCH
// in at now and writes it on the version read: a *store.ConflictError when
// the record changed meanwhile.
func patchSchedule(r *http.Request, p auth.Principal, st scheduleUpdater, in scheduleUpdate, callbacks CallbackPolicy,
	service ScheduleService, now time.Time) (store.Schedule, error) {
	old, err := ownSchedule(r, p, st)
	if err != nil {
		return old, err
	}
	sch, err := in.changed(old, plans.Plan(p.User.Plan), callbacks, now)
	if err != nil {
		return old, err
	}
	return replaceSchedule(r.Context(), st, service, old, sch)
}

// changed is the schedule old becomes with the PATCH in at now, checked as
// a creation is (422, 403).
func (in scheduleUpdate) changed(old store.Schedule, plan plans.Plan, callbacks CallbackPolicy, now time.Time) (store.Schedule, error) {
	body, err := in.merged(old)
	if err != nil {
		return old, err
	}
	req, err := checkScanRequest(body, plan, callbacks)
	if err != nil {
		return old, err
	}
	cadence := old.Cadence
	if in.Cadence != nil {
		cadence = *in.Cadence
	}
	c, err := checkCadence(&cadence, plan)
	if err != nil {
		return old, err
	}
	return in.apply(old, req, body.MaxCredits != nil, c, now), nil
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

// replaceSchedule replaces the deployed schedule old with sch (service is
// nil locally), then the record, on old's version; when the record cannot
// be written the deployed one is put back (or deleted, when the record was
// deleted meanwhile: its 404 is returned). It returns the record written.
func replaceSchedule(ctx context.Context, st scheduleUpdater, service ScheduleService, old, sch store.Schedule) (store.Schedule, error) {
	if service != nil {
		if err := service.PutSchedule(ctx, sch, false); err != nil {
			return old, schedulerUnavailable(err)
		}
	}
	written, err := st.UpdateSchedule(ctx, old, sch)
	if err != nil && service != nil {
		compensate(ctx, "restore schedule", sch.ID, func(ctx context.Context) error {
			if store.IsNotFound(err) {
				return service.DeleteSchedule(ctx, sch.ID) // deleted meanwhile
			}
			return service.PutSchedule(ctx, old, false)
		})
	}
	return written, err
}

// deleteSchedule removes the deployed schedule, then the record (204). The
// scans it started are kept.
func deleteSchedule(st scheduleRemover, schedules func() ScheduleService) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		sch, err := ownSchedule(r, p, st)
		if err != nil {
			return err
		}
		if err := removeSchedule(r.Context(), st, schedules(), sch); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
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

// Running a schedule: POST /api/schedules/{id}/run now, and EventBridge
// Scheduler's (or the local ticker's) runs when due, both through runs.start.

package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/schedules"
	"secscan/shared/store"
)

// The dependencies of a schedule's runs (*store.Store).
type (
	// scheduleRunStore reads the schedule and its previous scan and records
	// the outcome of a run.
	scheduleRunStore interface {
		scheduleGetter
		GetScan(ctx context.Context, userID, id string) (scans.Scan, error)
		ScheduleRank(ctx context.Context, sch store.Schedule) (int, error)
		RecordScheduleRun(ctx context.Context, userID, id, scanID, lastError string, at time.Time) (store.Schedule, error)
	}
	// scheduleFireStore also finds a schedule's owner and plan and claims a
	// due run.
	scheduleFireStore interface {
		scheduleRunStore
		ScheduleOwner(ctx context.Context, id string) (string, error)
		ClaimScheduledRun(ctx context.Context, userID, id string, due, next time.Time) (bool, error)
		GetUser(ctx context.Context, id string) (store.User, error)
	}
)

// scheduleRuns starts the runs of schedules: the record of each run in
// store, the scan through creation (as POST /api/scans starts it).
type scheduleRuns struct {
	store    scheduleRunStore
	creation scanCreation
}

// scheduleRuns is the scheduleRuns of a's dependencies.
func (a *API) scheduleRuns() scheduleRuns {
	return scheduleRuns{store: a.Store, creation: a.creation()}
}

// runScheduleNow is POST /api/schedules/<id>/run: 202 with the scan it
// started, counted like any creation; the errors of a creation otherwise,
// and 409 while the schedule's previous scan runs. Either way the outcome is
// the schedule's last_scan_id or last_error.
func runScheduleNow(runs scheduleRuns) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		sch, err := ownSchedule(r, p, runs.store)
		if err != nil {
			return err
		}
		sc, err := runs.start(r.Context(), sch, plans.Plan(p.User.Plan), false)
		if err != nil {
			return err
		}
		w.Header().Set("Location", "/api/scans/"+sc.ID)
		httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
		return nil
	}
}

// start starts a run of sch through startScan, as POST /api/scans would
// with the schedule's body, and records the outcome on the schedule: the
// scan started, or why none did (the schedule stays enabled). A run while
// the previous scan is still queued or running is skipped.
func (runs scheduleRuns) start(ctx context.Context, sch store.Schedule, plan plans.Plan, scheduled bool) (scans.Scan, error) {
	now := runs.creation.now().UTC()
	prev, err := runs.previousRunning(ctx, sch)
	if err != nil {
		return scans.Scan{}, err // nothing is recorded: the store failed
	}
	var sc scans.Scan
	if prev != nil {
		err = apierr.New(apierr.Conflict, "Skipped: the previous scan %s of this schedule is still %s", prev.ID, prev.Status)
	} else {
		sc, err = runs.startScan(ctx, sch, plan, scheduled, now)
	}
	if err != nil {
		runs.record(ctx, sch, "", notStarted(err, scheduled, now), now)
		return scans.Scan{}, err
	}
	runs.record(ctx, sch, sc.ID, "", now)
	httpapi.Logger(ctx).InfoContext(ctx, "schedule run started", "schedule_id", sch.ID, "scan_id", sc.ID, "scheduled", scheduled)
	return sc, nil
}

// previousRunning is the previous scan of sch while it is still queued or
// running; nil when there is none, it has ended or it was deleted since.
func (runs scheduleRuns) previousRunning(ctx context.Context, sch store.Schedule) (*scans.Scan, error) {
	if sch.LastScanID == "" {
		return nil, nil
	}
	prev, err := runs.store.GetScan(ctx, sch.UserID, sch.LastScanID)
	if store.IsNotFound(err) || (err == nil && prev.Status.Terminal()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &prev, nil
}

// startScan checks the run (the plan's count of schedules, the plan's
// cadence for a scheduled run, the body) and starts its scan.
func (runs scheduleRuns) startScan(ctx context.Context, sch store.Schedule, plan plans.Plan, scheduled bool, now time.Time) (scans.Scan, error) {
	if err := runs.withinCount(ctx, sch, plan); err != nil {
		return scans.Scan{}, err
	}
	if scheduled {
		// The plan may have changed since the schedule was made.
		if _, err := checkCadence(&sch.Cadence, plan); err != nil {
			return scans.Scan{}, err
		}
	}
	maxCredits := effectiveCredits(sch)
	req, err := checkScanRequest(scanCreate{Target: &sch.TargetID, ScanType: &sch.ScanType, Tier: &sch.Tier,
		CallbackURL: optional(sch.CallbackURL), MaxCredits: &maxCredits}, plan, runs.creation.callbacks)
	if err != nil {
		return scans.Scan{}, err
	}
	sc, _, err := runs.creation.startScan(ctx, scanStart{
		userID: sch.UserID, plan: plan, target: sch.TargetID, req: req,
		slot: ids.New("run_", now), scheduleID: sch.ID,
	})
	return sc, err
}

// withinCount refuses the run of a schedule beyond the plan's count (403):
// after a downgrade the user may hold more schedules than the plan runs;
// the oldest enabled ones run and the others stay enabled but do not start,
// so an upgrade, or pausing or deleting older ones, resumes them. Every run
// (EventBridge Scheduler's, the local ticker's, run now) checks it here.
func (runs scheduleRuns) withinCount(ctx context.Context, sch store.Schedule, plan plans.Plan) error {
	limit := plan.MaxSchedules()
	rank, err := runs.store.ScheduleRank(ctx, sch)
	if err != nil {
		return err
	}
	if rank <= limit {
		return nil
	}
	if limit == 0 {
		return apierr.New(apierr.Forbidden, "Schedules are not available on the %s plan; they need the %s plan or higher",
			plan, plans.CheapestAllowingSchedules(1))
	}
	more := plans.CheapestAllowingSchedules(rank)
	if more.MaxSchedules() < rank {
		return apierr.New(apierr.Forbidden, "The %s plan runs its %d oldest schedules and this is number %d; pause or delete an older one",
			plan, limit, rank)
	}
	return apierr.New(apierr.Forbidden, "The %s plan runs its %d oldest schedules and this is number %d; "+
		"the %s plan runs %d (or pause or delete an older one)", plan, limit, rank, more, more.MaxSchedules())
}

// notStarted is the last_error of a run refused with err at now.
func notStarted(err error, scheduled bool, now time.Time) string {
	reason := "The scan could not be started; it will be tried again at the next run"
	if e, ok := apierr.As(err); ok {
		reason = e.Detail
	}
	if scheduled {
		reason = "Run of " + timestamp(now) + " not started: " + reason
	}
	return reason
}

// record writes the outcome of a run on the schedule, even when the
// request has ended: a lost note is logged (the scan, if any, runs), and a
// schedule deleted meanwhile has nothing to note.
func (runs scheduleRuns) record(ctx context.Context, sch store.Schedule, scanID, lastError string, now time.Time) {
	_, err := runs.store.RecordScheduleRun(context.WithoutCancel(ctx), sch.UserID, sch.ID, scanID, lastError, now)
	if err != nil && (scanID == "" || !store.IsNotFound(err)) {
		httpapi.Logger(ctx).ErrorContext(ctx, "record schedule run", "schedule_id", sch.ID, "scan_id", scanID, "error", err.Error())
	}
}

// ScheduledRun is the input EventBridge Scheduler gives ScheduledScanFunction.
type ScheduledRun struct {
	ScheduleID string `json:"schedule_id"`
}

// ScheduledScan is ScheduledScanFunction, what EventBridge Scheduler
// invokes: FireSchedule, once its dependencies are there (Store, Scans and
// Auth's limiter; a missing one stops the process at cold start).
func (a *API) ScheduledScan() func(context.Context, ScheduledRun) error {
	require("ScheduledScan", needed{"Store", a.Store != nil}, needed{"Scans", a.Scans != nil},
		needed{"Auth", a.Auth != nil}, needed{"Now", a.Now != nil})
	return a.FireSchedule
}

// FireSchedule is a scheduled run of schedule id: EventBridge Scheduler's
// invocation of ScheduledScanFunction, or the local stack's ticker. It takes
// the due run (a second delivery of it, or a schedule not yet due, does
// nothing), moves next_run_at along the grid and runs the schedule. A run
// that cannot start is recorded on the schedule and is no error of the
// invocation; only a dependency that fails before anything was recorded is.
func (a *API) FireSchedule(ctx context.Context, in ScheduledRun) error {
	log := a.Logger
	if log == nil {
		log = httpapi.Logger(ctx)
	}
	return fireSchedule(ctx, a.Store, a.scheduleRuns(), log, in)
}

// fireSchedule is FireSchedule on st, starting the run through runs.
func fireSchedule(ctx context.Context, st scheduleFireStore, runs scheduleRuns, log *slog.Logger, in ScheduledRun) error {
	id := strings.TrimSpace(in.ScheduleID)
	if !ids.Valid(ids.Schedule, id) {
		log.WarnContext(ctx, "scheduled run without a valid schedule id", "schedule_id", id)
		return nil
	}
	owner, err := st.ScheduleOwner(ctx, id)
	if store.IsNotFound(err) {
		log.WarnContext(ctx, "scheduled run of a deleted schedule", "schedule_id", id)
		return nil
	}
	if err != nil {
		return err
	}
	sch, claimed, err := claimDueRun(ctx, st, owner, id, runs.creation.now().UTC())
	if err != nil || !claimed {
		return err
	}
	user, err := st.GetUser(ctx, owner)
	if err != nil {
		return err
	}
	if _, err := runs.start(ctx, sch, plans.Plan(user.Plan), true); err != nil {
		log.InfoContext(ctx, "scheduled run not started", "schedule_id", id, "reason", err.Error())
	}
	return nil
}

// claimDueRun reads owner's schedule id and takes its run due at now, moving
// next_run_at along the grid; claimed is false when the schedule is gone,
// not due or its run already taken.
func claimDueRun(ctx context.Context, st scheduleFireStore, owner, id string, now time.Time) (store.Schedule, bool, error) {
	sch, err := st.GetSchedule(ctx, owner, id)
	if store.IsNotFound(err) {
		return sch, false, nil
	}
	if err != nil {
		return sch, false, err
	}
	next := schedules.Next(plans.Cadence(sch.Cadence), sch.Anchor, now)
	claimed, err := st.ClaimScheduledRun(ctx, owner, id, now.Add(earlyFire), next)
	return sch, claimed, err
}

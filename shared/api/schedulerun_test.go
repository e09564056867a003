package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"secscan/shared/plans"
	"secscan/shared/schedules"
	"secscan/shared/store"
)

// runs is the rig's scheduleRuns: scans start on starter within limit.
func (rig *scheduleRig) runs(limit int) (scheduleRuns, *machine) {
	starter := &machine{}
	return scheduleRuns{store: rig.m, creation: scanCreation{store: rig.m, limiter: &window{limit: limit}, starter: starter, now: clock}}, starter
}

func TestRunScheduleNow(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	theirs := schedule(rig.m, rig.bob.ID, rig.bobT)
	runs, starter := rig.runs(5)
	run := runScheduleNow(runs)
	alice := principal(rig.alice)

	w := serve(run, alice, at(http.MethodPost, mine.ID, ""))
	want(t, w, http.StatusAccepted, "")
	sc := decode[map[string]any](t, w)
	if rec := rig.m.schedules[mine.ID]; rec.LastScanID != sc["id"] || rec.LastError != "" || len(starter.started) != 1 ||
		w.Header().Get("Location") != "/api/scans/"+rec.LastScanID || rig.m.scans[rec.LastScanID].ScheduleID != mine.ID {
		t.Errorf("schedule %+v after a run; scan %v; started %v", rec, sc, starter.started)
	}

	// The previous scan still queued: 409, noted on the schedule.
	want(t, serve(run, alice, at(http.MethodPost, mine.ID, "")), http.StatusConflict,
		"Skipped: the previous scan "+sc["id"].(string)+" of this schedule is still queued")
	if rec := rig.m.schedules[mine.ID]; rec.LastError == "" || rec.LastScanID != sc["id"] {
		t.Errorf("a skipped run left %+v", rec)
	}
	want(t, serve(run, alice, at(http.MethodPost, theirs.ID, "")), http.StatusNotFound, "Schedule "+theirs.ID+" not found")

	// The store cannot read the previous scan: 503, and nothing is noted.
	rig.m.down["GetScan"] = dbDown
	noted := len(rig.m.runs)
	want(t, serve(run, alice, at(http.MethodPost, mine.ID, "")), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
	if len(rig.m.runs) != noted {
		t.Errorf("a failed read noted %v", rig.m.runs[noted:])
	}
}

func TestRunScheduleRefusals(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	pending := target(rig.m, rig.alice.ID, "pending.example", false)
	sch := schedule(rig.m, rig.alice.ID, pending)
	runs, starter := rig.runs(0)
	run := runScheduleNow(runs)
	alice := principal(rig.alice)

	// A creation's refusal is the answer and the schedule's last_error.
	detail := "Target pending.example is not verified; complete its dns_txt challenge and call POST /api/targets/" + pending.ID + "/verify"
	want(t, serve(run, alice, at(http.MethodPost, sch.ID, "")), http.StatusUnprocessableEntity, detail)
	if rec := rig.m.schedules[sch.ID]; rec.LastError != detail || len(starter.started) != 0 {
		t.Errorf("last_error %q", rec.LastError)
	}
	// The hourly limit, as POST /api/scans counts it.
	ok := schedule(rig.m, rig.alice.ID, rig.aliceT)
	want(t, serve(run, alice, at(http.MethodPost, ok.ID, "")), http.StatusTooManyRequests, "Rate limit exceeded: 20 scans per hour")
}

func TestFireSchedule(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	sch := schedule(rig.m, rig.alice.ID, rig.aliceT)
	runs, starter := rig.runs(5)
	log := slog.New(slog.DiscardHandler)
	fire := func(id string) error {
		return fireSchedule(context.Background(), rig.m, runs, log, ScheduledRun{ScheduleID: id})
	}

	// Not due yet, malformed or unknown: nothing happens, and no error.
	for _, id := range []string{sch.ID, "nope", "sch_01ARZ3NDEKTSV4RRFFQ69G5FAV"} {
		if err := fire(id); err != nil || len(starter.started) != 0 {
			t.Fatalf("fire %q: %v; started %v", id, err, starter.started)
		}
	}

	// Due (within earlyFire): the run is taken, next_run_at moves along the grid.
	due := rig.m.schedules[sch.ID]
	due.NextRunAt = clockNow.Add(earlyFire).Unix()
	rig.m.schedules[sch.ID] = due
	if err := fire(" " + sch.ID + " "); err != nil || len(starter.started) != 1 {
		t.Fatalf("a due run: %v; started %v", err, starter.started)
	}
	rec := rig.m.schedules[sch.ID]
	if rec.NextRunAt != schedules.Next(plans.Weekly, sch.Anchor, clockNow).Unix() || rec.LastScanID != starter.started[0] {
		t.Errorf("after the run: %+v", rec)
	}
	// A second delivery of the same run finds it taken.
	if err := fire(sch.ID); err != nil || len(starter.started) != 1 {
		t.Errorf("a second delivery: %v; started %v", err, starter.started)
	}
}

func TestFireScheduleRefusalsAndFailures(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	sch := schedule(rig.m, rig.alice.ID, rig.aliceT)
	sch.NextRunAt = clockNow.Unix()
	rig.m.schedules[sch.ID] = sch
	runs, starter := rig.runs(5)
	ctx, log := context.Background(), slog.New(slog.DiscardHandler)

	// The owner's plan lost schedules since: noted on the schedule, no error.
	free := rig.alice
	free.Plan = "free"
	rig.m.users[free.ID] = free
	if err := fireSchedule(ctx, rig.m, runs, log, ScheduledRun{ScheduleID: sch.ID}); err != nil || len(starter.started) != 0 {
		t.Fatalf("a refused run: %v; started %v", err, starter.started)
	}
	want := "Run of 2026-03-04T05:06:07Z not started: Schedules are not available on the free plan; they need the starter plan or higher"
	if got := rig.m.schedules[sch.ID].LastError; got != want {
		t.Errorf("last_error %q, want %q", got, want)
	}

	// A store that fails before anything was recorded is the invocation's error.
	rig.m.down["ScheduleOwner"] = dbDown
	if err := fireSchedule(ctx, rig.m, runs, log, ScheduledRun{ScheduleID: sch.ID}); !store.IsUnavailable(err) {
		t.Errorf("ScheduleOwner down: %v", err)
	}
	delete(rig.m.down, "ScheduleOwner")
	rig.m.down["GetSchedule"] = dbDown
	if err := fireSchedule(ctx, rig.m, runs, log, ScheduledRun{ScheduleID: sch.ID}); !store.IsUnavailable(err) {
		t.Errorf("GetSchedule down: %v", err)
	}
}

// After a downgrade from pro to starter, a user's 5 schedules do not all
// keep running: each run checks the plan's count, the 3 oldest enabled
// schedules start and the 2 newest note why not and stay enabled; pausing
// an older one, or an upgrade, lets them run again. Run now checks the same.
func TestScheduleRunsAfterADowngrade(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	runs, starter := rig.runs(20)
	ctx, log := context.Background(), slog.New(slog.DiscardHandler)
	owned := make([]store.Schedule, 5) // oldest first
	for i := range owned {
		sch := schedule(rig.m, rig.bob.ID, rig.bobT)
		sch.CreatedAt, sch.NextRunAt = clockNow.Add(time.Duration(i-5)*time.Hour), clockNow.Unix()
		rig.m.schedules[sch.ID] = sch
		owned[i] = sch
	}
	bob := rig.bob
	bob.Plan = "starter"
	rig.m.users[bob.ID] = bob
	fire := func(sch store.Schedule) {
		t.Helper()
		due := rig.m.schedules[sch.ID]
		due.NextRunAt = clockNow.Unix()
		rig.m.schedules[sch.ID] = due
		if err := fireSchedule(ctx, rig.m, runs, log, ScheduledRun{ScheduleID: sch.ID}); err != nil {
			t.Fatal(err)
		}
	}
	for i := len(owned) - 1; i >= 0; i-- { // newest first: the order of firing does not matter
		fire(owned[i])
	}
	if len(starter.started) != 3 {
		t.Fatalf("started %d scans, want 3 (the starter plan's count)", len(starter.started))
	}
	for i, sch := range owned {
		rec := rig.m.schedules[sch.ID]
		if i < 3 {
			if rec.LastScanID == "" || rec.LastError != "" {
				t.Errorf("schedule %d (among the 3 oldest) did not start: %+v", i, rec)
			}
			continue
		}
		want := fmt.Sprintf("Run of 2026-03-04T05:06:07Z not started: The starter plan runs its 3 oldest schedules and this is number %d; "+
			"the pro plan runs 20 (or pause or delete an older one)", i+1)
		if rec.LastScanID != "" || rec.LastError != want || !rec.Enabled {
			t.Errorf("schedule %d: last_scan_id %q, enabled %v, last_error %q; want %q", i, rec.LastScanID, rec.Enabled, rec.LastError, want)
		}
	}
	// Run now is refused the same way (403).
	want(t, serve(runScheduleNow(runs), principal(bob), at(http.MethodPost, owned[4].ID, "")), http.StatusForbidden,
		"The starter plan runs its 3 oldest schedules and this is number 5; the pro plan runs 20 (or pause or delete an older one)")

	// Pausing the oldest makes room for the fourth.
	paused := rig.m.schedules[owned[0].ID]
	paused.Enabled = false
	rig.m.schedules[paused.ID] = paused
	fire(owned[3])
	if rec := rig.m.schedules[owned[3].ID]; rec.LastScanID == "" || rec.LastError != "" || len(starter.started) != 4 {
		t.Errorf("the fourth, once the oldest is paused: %+v", rec)
	}
	// Back on pro, the fifth runs again.
	rig.m.users[bob.ID] = rig.bob
	fire(owned[4])
	if rec := rig.m.schedules[owned[4].ID]; rec.LastScanID == "" || rec.LastError != "" || len(starter.started) != 5 {
		t.Errorf("the fifth, after an upgrade: %+v", rec)
	}
}

// effectiveCredits caps what a schedule asked for at its tier's ceiling.
func TestEffectiveCredits(t *testing.T) {
	t.Parallel()
	ceiling := plans.CreditCeiling[plans.Standard]
	for asked, want := range map[int]int{0: ceiling, 7: 7, ceiling + 1: ceiling} {
		if got := effectiveCredits(store.Schedule{Tier: "standard", MaxCredits: asked}); got != want {
			t.Errorf("max_credits %d: %d, want %d", asked, got, want)
		}
	}
}

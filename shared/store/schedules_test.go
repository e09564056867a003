package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/store"
)

func newSchedule(userID, targetID string, now time.Time, next time.Time) store.Schedule {
	return store.Schedule{ID: ids.New(ids.Schedule, now), UserID: userID, TargetID: targetID, Target: "example.com",
		ScanType: "web", Tier: "quick", Cadence: "daily", Enabled: true, Anchor: now.Truncate(time.Minute),
		NextRunAt: next.Unix(), CreatedAt: now, UpdatedAt: now}
}

func TestSchedulesStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	u := newUser(t, st, "sched@example.com")
	other := newUser(t, st, "other-sched@example.com")
	now := time.Now().UTC()
	a := newSchedule(u.ID, "tgt_A", now, now.Add(24*time.Hour))
	b := newSchedule(u.ID, "tgt_B", now.Add(time.Millisecond), now.Add(-time.Minute)) // due
	for _, s := range []store.Schedule{a, b} {
		if err := st.CreateSchedule(ctx, s, 10); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.CountSchedules(ctx, u.ID); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2", n, err)
	}
	if n, _ := st.CountSchedules(ctx, other.ID); n != 0 {
		t.Fatalf("other user's count = %d", n)
	}
	if _, err := st.GetSchedule(ctx, other.ID, a.ID); !store.IsNotFound(err) {
		t.Fatalf("another user's schedule: %v, want not found", err)
	}
	if owner, err := st.ScheduleOwner(ctx, a.ID); err != nil || owner != u.ID {
		t.Fatalf("owner = %q, %v", owner, err)
	}
	list, next, err := st.ListSchedules(ctx, u.ID, store.Page{Limit: 1})
	if err != nil || len(list) != 1 || list[0].ID != b.ID || next == "" {
		t.Fatalf("first page = %v, %q, %v; want the newest (b) and a cursor", list, next, err)
	}
	ofA, err := st.SchedulesOfTarget(ctx, u.ID, "tgt_A")
	if err != nil || len(ofA) != 1 || ofA[0].ID != a.ID {
		t.Fatalf("schedules of tgt_A = %v, %v", ofA, err)
	}

	due, err := st.DueSchedules(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range due {
		if d.ID == a.ID {
			t.Errorf("a is not due")
		}
		found = found || (d.ID == b.ID && d.UserID == u.ID)
	}
	if !found {
		t.Fatalf("due = %v, want b", due)
	}
	// Claims: the due run is taken once; a second delivery finds it moved.
	nextRun := now.Add(24 * time.Hour)
	if ok, err := st.ClaimScheduledRun(ctx, u.ID, b.ID, now, nextRun); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	if ok, err := st.ClaimScheduledRun(ctx, u.ID, b.ID, now, nextRun); err != nil || ok {
		t.Fatalf("second claim = %v, %v; want false", ok, err)
	}
	if ok, _ := st.ClaimScheduledRun(ctx, u.ID, a.ID, now, nextRun); ok {
		t.Fatal("claimed a run that is not due")
	}
	got, err := st.RecordScheduleRun(ctx, u.ID, b.ID, "", "Skipped: the previous scan is still running", now)
	if err != nil || got.LastError == "" || got.NextRunAt != nextRun.Unix() {
		t.Fatalf("record error = %+v, %v", got, err)
	}
	got, err = st.RecordScheduleRun(ctx, u.ID, b.ID, "scn_X", "", now)
	if err != nil || got.LastError != "" || got.LastScanID != "scn_X" {
		t.Fatalf("record scan = %+v, %v", got, err)
	}
	// A paused schedule is never claimed nor due.
	paused := got
	paused.Enabled = false
	paused.NextRunAt = now.Add(-time.Hour).Unix()
	if _, err := st.UpdateSchedule(ctx, got, paused); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.ClaimScheduledRun(ctx, u.ID, b.ID, now, nextRun); ok {
		t.Fatal("claimed a paused schedule")
	}
	if err := st.DeleteSchedule(ctx, u.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSchedule(ctx, u.ID, b.ID); !store.IsNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := st.ScheduleOwner(ctx, b.ID); !store.IsNotFound(err) {
		t.Fatalf("pointer kept: %v", err)
	}
	if _, err := st.UpdateSchedule(ctx, got, paused); !store.IsNotFound(err) {
		t.Fatalf("update of a deleted schedule: %v", err)
	}
	if _, err := st.RecordScheduleRun(ctx, u.ID, b.ID, "scn_Y", "", now); !store.IsNotFound(err) {
		t.Fatalf("record on a deleted schedule: %v", err)
	}
}

// A PATCH writes only on the version it read: a run's claim and note made
// between its read and its write refuse it (409, so the API reads again and
// re-applies), and the write made on the fresh read keeps what the run
// wrote (next_run_at, last_scan_id, last_error) while changing what the
// PATCH asked for.
func TestScheduleUpdateKeepsARunsWrites(t *testing.T) {
	t.Parallel()
	ctx, st := context.Background(), newStore(t)
	u := newUser(t, st, "sched-race@example.com")
	now := time.Now().UTC()
	sch := newSchedule(u.ID, "tgt_A", now, now.Add(-time.Minute)) // due
	if err := st.CreateSchedule(ctx, sch, 10); err != nil {
		t.Fatal(err)
	}
	read, err := st.GetSchedule(ctx, u.ID, sch.ID) // the PATCH's read
	if err != nil {
		t.Fatal(err)
	}
	// The run, between the PATCH's read and its write.
	next := now.Add(24 * time.Hour)
	if ok, err := st.ClaimScheduledRun(ctx, u.ID, sch.ID, now, next); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	if _, err := st.RecordScheduleRun(ctx, u.ID, sch.ID, "scn_RUN", "", now); err != nil {
		t.Fatal(err)
	}
	patch := func(s store.Schedule) store.Schedule {
		s.Tier, s.CallbackURL, s.UpdatedAt = "standard", "https://hooks.example.com/x", now.Add(time.Second)
		return s
	}
	_, err = st.UpdateSchedule(ctx, read, patch(read))
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) || conflict.Detail != store.ScheduleChanged {
		t.Fatalf("PATCH on a stale read: %v, want the 409 %q", err, store.ScheduleChanged)
	}
	if got, _ := st.GetSchedule(ctx, u.ID, sch.ID); got.LastScanID != "scn_RUN" || got.NextRunAt != next.Unix() || got.Tier != "quick" {
		t.Fatalf("a refused PATCH wrote: %+v", got)
	}
	fresh, err := st.GetSchedule(ctx, u.ID, sch.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.UpdateSchedule(ctx, fresh, patch(fresh))
	if err != nil {
		t.Fatal(err)
	}
	if got.LastScanID != "scn_RUN" || got.NextRunAt != next.Unix() || got.LastRunAt == nil ||
		got.Tier != "standard" || got.CallbackURL != "https://hooks.example.com/x" || got.Version != fresh.Version+1 {
		t.Fatalf("after the PATCH: %+v", got)
	}
	// A note of a refused run after the PATCH's read is kept too.
	read = got
	if _, err := st.RecordScheduleRun(ctx, u.ID, sch.ID, "", "Skipped: still running", now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSchedule(ctx, read, patch(read)); !errors.As(err, &conflict) {
		t.Fatalf("PATCH after a run's note: %v, want a conflict", err)
	}
	if got, _ := st.GetSchedule(ctx, u.ID, sch.ID); got.LastError != "Skipped: still running" {
		t.Fatalf("the run's note was lost: %+v", got)
	}
	// Removing an optional attribute removes it.
	fresh, _ = st.GetSchedule(ctx, u.ID, sch.ID)
	cleared := fresh
	cleared.CallbackURL = ""
	if got, err := st.UpdateSchedule(ctx, fresh, cleared); err != nil || got.CallbackURL != "" || got.LastError == "" {
		t.Fatalf("clearing callback_url: %+v, %v", got, err)
	}
}

// A schedule's rank among its user's enabled schedules is by creation,
// oldest first; paused ones do not count, another user's neither.
func TestScheduleRank(t *testing.T) {
	t.Parallel()
	ctx, st := context.Background(), newStore(t)
	u := newUser(t, st, "sched-rank@example.com")
	other := newUser(t, st, "sched-rank-other@example.com")
	now := time.Now().UTC()
	var made []store.Schedule
	for i := range 5 {
		s := newSchedule(u.ID, "tgt_A", now.Add(time.Duration(i)*time.Second), now.Add(time.Hour))
		s.Enabled = i != 1 // the second oldest is paused
		if err := st.CreateSchedule(ctx, s, 10); err != nil {
			t.Fatal(err)
		}
		made = append(made, s)
	}
	if err := st.CreateSchedule(ctx, newSchedule(other.ID, "tgt_B", now.Add(-time.Hour), now.Add(time.Hour)), 10); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 2, 2, 3, 4} {
		if got, err := st.ScheduleRank(ctx, made[i]); err != nil || got != want {
			t.Errorf("rank of schedule %d = %d, %v; want %d", i, got, err, want)
		}
	}
}

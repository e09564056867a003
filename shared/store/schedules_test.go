package store_test

import (
	"context"
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
	got.Enabled = false
	got.NextRunAt = now.Add(-time.Hour).Unix()
	if err := st.PutSchedule(ctx, got); err != nil {
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
	if err := st.PutSchedule(ctx, got); !store.IsNotFound(err) {
		t.Fatalf("put of a deleted schedule: %v", err)
	}
	if _, err := st.RecordScheduleRun(ctx, u.ID, b.ID, "scn_Y", "", now); !store.IsNotFound(err) {
		t.Fatalf("record on a deleted schedule: %v", err)
	}
}

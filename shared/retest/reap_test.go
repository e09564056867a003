package retest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"secscan/infra/local/dynamotest"
	"secscan/shared/ids"
	"secscan/shared/retest"
	"secscan/shared/scans"
	"secscan/shared/store"
)

func newStore(t *testing.T) *store.Store {
	db, table := dynamotest.NewTable(t)
	return store.New(db, table)
}

// queued writes a queued retest of userID created at created, reserving
// reserved credits of the current month.
func queued(t *testing.T, st *store.Store, userID string, created time.Time, reserved int) scans.Retest {
	t.Helper()
	rt := scans.Retest{ID: ids.New(ids.Retest, created), UserID: userID, ScanID: ids.New(ids.Scan, created),
		TargetID: ids.New(ids.Target, created), IssueKey: "web.header.csp", Status: scans.RetestQueued,
		Reserved: reserved, CreditMonth: store.CreditMonth(time.Now()), CreatedAt: created.UTC()}
	if err := st.CreateRetest(context.Background(), rt, 2000, true); err != nil {
		t.Fatal(err)
	}
	return rt
}

// A retest whose run was lost (running, or still queued, long past every
// bound of a run) is reaped when read: it ends failed with an error in
// plain words and its reservation is given back, exactly once however many
// readers race; a fresh retest is left alone, and a runner finishing after
// the reap writes nothing.
func TestReapStaleRetests(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	userID := ids.New(ids.User, now)
	month := store.CreditMonth(now)

	stale := queued(t, st, userID, now.Add(-retest.StaleAfter-time.Minute), 15)
	if _, err := st.StartRetest(ctx, userID, stale.ID); err != nil {
		t.Fatal(err)
	}
	fresh := queued(t, st, userID, now.Add(-time.Minute), 10)
	if _, err := st.StartRetest(ctx, userID, fresh.ID); err != nil {
		t.Fatal(err)
	}
	lost := queued(t, st, userID, now.Add(-retest.StaleAfter-time.Second), 5) // never started
	if c, err := st.Credits(ctx, userID, month); err != nil || c.Reserved != 30 || c.Used != 0 {
		t.Fatalf("credits before %+v %v, want 30 reserved", c, err)
	}

	reapRacing(t, st, userID, now, 20, stale.ID, lost.ID)
	for _, id := range []string{stale.ID, lost.ID} {
		wantReaped(t, st, userID, id)
	}
	if c, err := st.Credits(ctx, userID, month); err != nil || c.Reserved != 10 || c.Used != 0 {
		t.Errorf("credits after 40 concurrent reaps %+v %v, want the fresh retest's 10 reserved only", c, err)
	}

	wantRunning(t, st, userID, fresh.ID, now)

	// The lost run comes back and tries to finish: nothing is written.
	fin := now.UTC()
	stale.Status, stale.CreditsUsed, stale.FinishedAt = scans.RetestCompleted, 15, &fin
	if err := st.FinishRetest(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Errorf("finishing a reaped retest: %v, want ErrConflict", err)
	}
	if c, _ := st.Credits(ctx, userID, month); c.Reserved != 10 || c.Used != 0 {
		t.Errorf("credits after a late finish %+v, want unchanged", c)
	}
}

// reapRacing reads and reaps each retest of ids from n goroutines at once
// and fails unless every reader sees it failed.
func reapRacing(t *testing.T, st *store.Store, userID string, now time.Time, n int, retests ...string) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, n*len(retests))
	for range n {
		for _, id := range retests {
			wg.Go(func() {
				rt, err := st.GetRetest(ctx, userID, id)
				if err == nil {
					rt, err = retest.Reap(ctx, st, rt, now)
				}
				if err == nil && (rt.Status != scans.RetestFailed || rt.FinishedAt == nil || rt.Error == "") {
					err = errors.New("reaped retest is " + string(rt.Status) + ": " + rt.Error)
				}
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// wantReaped fails unless the stored retest id ended failed, reaped,
// charging nothing.
func wantReaped(t *testing.T, st *store.Store, userID, id string) {
	t.Helper()
	rt, err := st.GetRetest(context.Background(), userID, id)
	const why = "The retest did not finish: its run stopped without a result. No credits were used; please retry."
	if err != nil || rt.Status != scans.RetestFailed || rt.CreditsUsed != 0 || rt.Error != why {
		t.Errorf("stored reaped retest %+v %v", rt, err)
	}
}

// wantRunning fails unless reading and reaping the retest id leaves it
// running.
func wantRunning(t *testing.T, st *store.Store, userID, id string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	got, err := st.GetRetest(ctx, userID, id)
	if err == nil {
		got, err = retest.Reap(ctx, st, got, now)
	}
	if err != nil || got.Status != scans.RetestRunning {
		t.Errorf("fresh retest after Reap: %s %v, want still running", got.Status, err)
	}
}

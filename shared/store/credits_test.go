package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// reservingScan is a scan that reserves its max_credits in month on plan.
func reservingScan(userID string, plan plans.Plan, month string, maxCredits int, at time.Time) scans.Scan {
	return scans.Scan{
		ID: ids.New(ids.Scan, at), UserID: userID, TargetID: ids.New(ids.Target, at), Target: "example.com",
		Type: scans.Web, Tier: plans.Standard, Plan: plan, Status: scans.Queued, MaxCredits: maxCredits,
		CreditMonth: month, CreatedAt: at.UTC(),
	}
}

// 20 concurrent creations near the free allowance: exactly as many succeed
// as the allowance holds, the others get an *AllowanceError, and the
// counters never pass the allowance.
func TestConcurrentReservationsNeverOverspend(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "credits@example.com")
	month := store.CreditMonth(now)

	// 1,300 of 2,000 committed first: room for exactly 3 more scans of 200.
	for i := range 2 {
		sc := reservingScan(u.ID, plans.Free, month, 650, now.Add(time.Duration(i)*time.Millisecond))
		if _, _, err := st.CreateScan(ctx, sc, nil, now); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		created, refused int
		unexpected       []error
	)
	for i := range 20 {
		wg.Go(func() {
			sc := reservingScan(u.ID, plans.Free, month, 200, now.Add(time.Duration(10+i)*time.Millisecond))
			_, ok, err := st.CreateScan(ctx, sc, nil, now)
			var ae *store.AllowanceError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && ok:
				created++
			case errors.As(err, &ae):
				refused++
				if ae.Allowance != 2000 || ae.Used+ae.Reserved+200 <= 2000 {
					unexpected = append(unexpected, err)
				}
			default:
				unexpected = append(unexpected, err)
			}
		})
	}
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatalf("unexpected outcomes: %v", unexpected)
	}
	if created != 3 || refused != 17 {
		t.Fatalf("created %d, refused %d; want exactly 3 and 17", created, refused)
	}
	c, err := st.Credits(ctx, u.ID, month)
	if err != nil || c.Used != 0 || c.Reserved != 1900 {
		t.Fatalf("credits = %+v %v, want 0 used, 1900 reserved", c, err)
	}
}

// Every terminal path settles the reservation once: completed (used moves
// over, the rest comes back), a cancelled queued scan (all back), failed;
// a second end changes nothing; an enterprise month has no limit but counts.
func TestReservationReleasedOnEveryEnd(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "release@example.com")
	month := "2026-10"
	at := time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC)

	done := reservingScan(u.ID, plans.Free, month, 200, at)
	cancelled := reservingScan(u.ID, plans.Free, month, 200, at.Add(time.Millisecond))
	failed := reservingScan(u.ID, plans.Free, month, 50, at.Add(2*time.Millisecond))
	for _, sc := range []scans.Scan{done, cancelled, failed} {
		if _, _, err := st.CreateScan(ctx, sc, nil, at); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := st.Credits(ctx, u.ID, month); c.Reserved != 450 || c.Used != 0 {
		t.Fatalf("after creation: %+v", c)
	}

	// Completed after the month ended: settled against the month it reserved in.
	if _, err := st.StartScan(ctx, u.ID, done.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChargeStep(ctx, u.ID, done.ID, 1, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChargeStep(ctx, u.ID, done.ID, 2, 12); err != nil {
		t.Fatal(err)
	}
	if sc, err := st.EndScan(ctx, u.ID, done.ID, scans.Completed, "", nil, now); err != nil || sc.Status != scans.Completed || sc.CreditsUsed != 42 {
		t.Fatalf("complete: %+v %v", sc, err)
	}
	if _, err := st.EndScan(ctx, u.ID, done.ID, scans.Failed, "late", nil, now); err == nil {
		t.Fatal("a second end was accepted")
	}
	if c, _ := st.Credits(ctx, u.ID, month); c.Used != 42 || c.Reserved != 250 {
		t.Fatalf("after completion: %+v, want 42 used, 250 reserved", c)
	}
	if c, _ := st.Credits(ctx, u.ID, store.CreditMonth(now)); store.CreditMonth(now) != month && (c.Used != 0 || c.Reserved != 0) {
		t.Fatalf("the current month was charged: %+v", c)
	}

	// Cancel of a queued scan, and a failed start.
	if sc, err := st.RequestCancel(ctx, u.ID, cancelled.ID, now); err != nil || sc.Status != scans.Cancelled {
		t.Fatalf("cancel queued: %+v %v", sc, err)
	}
	if _, err := st.EndScan(ctx, u.ID, failed.ID, scans.Failed, "could not start", nil, now); err != nil {
		t.Fatal(err)
	}
	if c, _ := st.Credits(ctx, u.ID, month); c.Used != 42 || c.Reserved != 0 {
		t.Fatalf("after every end: %+v, want 42 used, 0 reserved", c)
	}

	// The room given back is usable: 2,000 - 42 holds nine more scans of 200.
	for i := range 9 {
		if _, _, err := st.CreateScan(ctx, reservingScan(u.ID, plans.Free, month, 200, at.Add(time.Duration(10+i)*time.Millisecond)), nil, at); err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
	}
	_, _, err := st.CreateScan(ctx, reservingScan(u.ID, plans.Free, month, 200, at.Add(time.Second)), nil, at)
	var ae *store.AllowanceError
	if !errors.As(err, &ae) || ae.Used != 42 || ae.Reserved != 1800 || ae.Allowance != 2000 || ae.Month != month {
		t.Fatalf("the tenth: %v", err)
	}

	// Enterprise: no limit, still counted.
	ent := newUser(t, st, "enterprise@example.com")
	for i := range 3 {
		if _, _, err := st.CreateScan(ctx, reservingScan(ent.ID, plans.Enterprise, month, 1000, at.Add(time.Duration(i)*time.Millisecond)), nil, at); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := st.Credits(ctx, ent.ID, month); c.Reserved != 3000 {
		t.Fatalf("enterprise: %+v", c)
	}
}

// An idempotent replay reserves nothing; a refused creation writes no scan.
func TestReservationWithIdempotencyKey(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "idem-credits@example.com")
	month := store.CreditMonth(now)
	idem := &store.Idempotency{KeyHash: "k1", Until: now.Add(time.Hour)}
	first := reservingScan(u.ID, plans.Starter, month, 200, now)
	if _, created, err := st.CreateScan(ctx, first, idem, now); err != nil || !created {
		t.Fatal(created, err)
	}
	again := reservingScan(u.ID, plans.Starter, month, 200, now.Add(time.Millisecond))
	if orig, created, err := st.CreateScan(ctx, again, idem, now); err != nil || created || orig.ID != first.ID {
		t.Fatalf("replay: %v %v %v", orig.ID, created, err)
	}
	if c, _ := st.Credits(ctx, u.ID, month); c.Reserved != 200 {
		t.Fatalf("replay reserved again: %+v", c)
	}

	// A scan bigger than a whole (empty) month.
	other := newUser(t, st, "tiny@example.com")
	big := reservingScan(other.ID, plans.Free, month, 2001, now)
	var ae *store.AllowanceError
	if _, _, err := st.CreateScan(ctx, big, nil, now); !errors.As(err, &ae) || ae.Used != 0 {
		t.Fatalf("over a month: %v", err)
	}
	if _, err := st.GetScan(ctx, other.ID, big.ID); !store.IsNotFound(err) {
		t.Fatalf("a refused scan was written: %v", err)
	}
}

func TestRenewsAt(t *testing.T) {
	t.Parallel()
	if got := store.RenewsAt("2026-12"); !got.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("RenewsAt(2026-12) = %v", got)
	}
	if got := store.CreditMonth(time.Date(2026, 11, 30, 23, 59, 59, 0, time.FixedZone("x", -3600))); got != "2026-12" {
		t.Fatalf("CreditMonth in UTC = %s", got)
	}
}

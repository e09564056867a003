package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

func queuedScan(t *testing.T, st *store.Store, userID string, at time.Time) scans.Scan {
	t.Helper()
	sc := scans.Scan{
		ID: ids.New(ids.Scan, at), UserID: userID, TargetID: ids.New(ids.Target, at), Target: "example.com",
		Type: scans.Web, Tier: plans.Quick, Status: scans.Queued, MaxCredits: 50, CreatedAt: at.UTC(),
	}
	if _, created, err := st.CreateScan(context.Background(), sc, nil, at); err != nil || !created {
		t.Fatalf("create scan: created=%v %v", created, err)
	}
	return sc
}

func port(p int) *int { return &p }

// The lifecycle is a set of conditional writes: a terminal status is written
// once, whoever comes second sees the scan as it is.
func TestScanTransitions(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "scans@example.com")

	sc := queuedScan(t, st, u.ID, now)
	got, err := st.StartScan(ctx, u.ID, sc.ID, now)
	if err != nil || got.Status != scans.Running || got.StartedAt.IsZero() {
		t.Fatalf("start: %+v %v", got, err)
	}
	if again, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil || again.Status != scans.Running {
		t.Fatalf("re-delivered start: %+v %v", again, err)
	}
	sum := &scans.Summary{RiskRating: scans.RiskLow, Summary: "fine", AttackChains: []string{}}
	if done, err := st.EndScan(ctx, u.ID, sc.ID, scans.Completed, "", sum, now); err != nil || done.Status != scans.Completed || done.Summary == nil {
		t.Fatalf("complete: %+v %v", done, err)
	}
	_, err = st.EndScan(ctx, u.ID, sc.ID, scans.Failed, "late", nil, now)
	if cur, ended := store.IsRefused(err); !ended || cur.Status != scans.Completed {
		t.Fatalf("a second terminal write: %v, want refused with the scan completed", err)
	}
	var terminal *store.ErrTerminal
	if _, err := st.RequestCancel(ctx, u.ID, sc.ID, now); !errors.As(err, &terminal) || terminal.Status != scans.Completed {
		t.Fatalf("cancel a completed scan: %v", err)
	}

	// A queued scan is cancelled at once; its start then finds it cancelled.
	q := queuedScan(t, st, u.ID, now)
	if c, err := st.RequestCancel(ctx, u.ID, q.ID, now); err != nil || c.Status != scans.Cancelled || !c.CancelRequested {
		t.Fatalf("cancel queued: %+v %v", c, err)
	}
	if s, err := st.StartScan(ctx, u.ID, q.ID, now); err != nil || s.Status != scans.Cancelled {
		t.Fatalf("start after cancel: %+v %v", s, err)
	}

	// A running scan only gets the flag; the agent ends it.
	r := queuedScan(t, st, u.ID, now)
	if _, err := st.StartScan(ctx, u.ID, r.ID, now); err != nil {
		t.Fatal(err)
	}
	if c, err := st.RequestCancel(ctx, u.ID, r.ID, now); err != nil || c.Status != scans.Running || !c.CancelRequested {
		t.Fatalf("cancel running: %+v %v", c, err)
	}

	// Another user's scan does not exist.
	other := newUser(t, st, "other@example.com")
	if _, err := st.RequestCancel(ctx, other.ID, r.ID, now); !store.IsNotFound(err) {
		t.Fatalf("cancel someone else's scan: %v", err)
	}
	if _, err := st.GetScanDetail(ctx, other.ID, r.ID); !store.IsNotFound(err) {
		t.Fatalf("read someone else's scan: %v", err)
	}
}

// Charges are made once per step, only while running, never past the cap —
// also when many deliveries of the same step race.
func TestChargeStep(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "credits@example.com")
	sc := queuedScan(t, st, u.ID, now) // max 50
	if _, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 10 {
		wg.Go(func() {
			if _, err := st.ChargeStep(ctx, u.ID, sc.ID, 1, 20); err == nil {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	got, _ := st.GetScan(ctx, u.ID, sc.ID)
	if got.CreditsUsed != 20 || got.ChargedSeq != 1 {
		t.Fatalf("after 10 deliveries of step 1: credits %d, charged seq %d; want 20 and 1", got.CreditsUsed, got.ChargedSeq)
	}
	if _, err := st.ChargeStep(ctx, u.ID, sc.ID, 2, 20); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChargeStep(ctx, u.ID, sc.ID, 3, 20); !errors.Is(err, store.ErrBudget) {
		t.Fatalf("step past the cap: %v, want ErrBudget", err)
	}
	if got, _ := st.GetScan(ctx, u.ID, sc.ID); got.CreditsUsed != 40 {
		t.Fatalf("credits %d after a refused charge, want 40", got.CreditsUsed)
	}
	if _, err := st.EndScan(ctx, u.ID, sc.ID, scans.Cancelled, "", nil, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChargeStep(ctx, u.ID, sc.ID, 3, 1); !errors.Is(err, store.ErrScanNotRunning) {
		t.Fatalf("charge on a cancelled scan: %v", err)
	}
}

// Steps and findings are written once: a re-delivered step adds nothing, the
// same issue found by two steps is one finding, the counts stay exact.
func TestRecordStepOnce(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "steps@example.com")
	sc := queuedScan(t, st, u.ID, now)
	if _, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil {
		t.Fatal(err)
	}
	hsts := scans.Finding{Title: "Missing HSTS", Severity: scans.Medium, Category: scans.CategoryWeb, Host: "example.com", Port: port(443), Evidence: "no header"}
	csp := scans.Finding{Title: "Missing CSP", Severity: scans.Low, Category: scans.CategoryWeb, Host: "example.com", Port: port(443), Evidence: "no header"}
	git := scans.Finding{Title: "Exposed .git", Severity: scans.High, Category: scans.CategoryWeb, Host: "example.com", Port: port(443), Evidence: "ref: refs/heads/main"}
	step := func(seq int) scans.Step {
		return scans.Step{Seq: seq, Tool: "http_check", Input: []byte(`{}`), Outcome: "ok", Credits: 5, StartedAt: now}
	}
	added, err := st.RecordStep(ctx, u.ID, sc.ID, step(1), []scans.Finding{hsts, csp, hsts}, now)
	if err != nil || len(added) != 2 {
		t.Fatalf("step 1: %d added, %v; want 2 (a duplicate within the step is dropped)", len(added), err)
	}
	if again, err := st.RecordStep(ctx, u.ID, sc.ID, step(1), []scans.Finding{hsts, csp}, now); err != nil || len(again) != 0 {
		t.Fatalf("re-delivered step 1: %d added, %v", len(again), err)
	}
	if added, err = st.RecordStep(ctx, u.ID, sc.ID, step(2), []scans.Finding{csp, git}, now.Add(time.Second)); err != nil || len(added) != 1 {
		t.Fatalf("step 2: %d added, %v; want 1 (the CSP finding exists)", len(added), err)
	}
	if _, err := st.RecordStep(ctx, u.ID, sc.ID, step(4), nil, now); err == nil {
		t.Fatal("a step out of order was recorded")
	}
	d, err := st.GetScanDetail(ctx, u.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Scan.StepsCount != 2 || d.Scan.FindingsCount != 3 || len(d.Steps) != 2 || len(d.Findings) != 3 {
		t.Fatalf("steps %d/%d findings %d/%d, want 2 and 3", d.Scan.StepsCount, len(d.Steps), d.Scan.FindingsCount, len(d.Findings))
	}
	if d.Findings[0].Title != "Exposed .git" || d.Findings[2].Title != "Missing CSP" {
		t.Fatalf("findings not most severe first: %s, %s, %s", d.Findings[0].Title, d.Findings[1].Title, d.Findings[2].Title)
	}
	if d.Steps[0].FindingsAdded != 2 || d.Steps[1].FindingsAdded != 1 || d.Steps[1].Seq != 2 {
		t.Fatalf("steps %+v", d.Steps)
	}
	for _, f := range d.Findings {
		if !ids.Valid(ids.Finding, f.ID) {
			t.Fatalf("finding id %q", f.ID)
		}
	}
}

// The same Idempotency-Key returns the original scan within its window and
// creates a new one after it.
func TestCreateScanIdempotency(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "idem@example.com")
	idem := &store.Idempotency{KeyHash: "abc", Until: now.Add(24 * time.Hour)}
	first := scans.Scan{ID: ids.New(ids.Scan, now), UserID: u.ID, Target: "example.com", Type: scans.Web, Tier: plans.Quick,
		Status: scans.Queued, MaxCredits: 50, CreatedAt: now.UTC()}
	if _, created, err := st.CreateScan(ctx, first, idem, now); err != nil || !created {
		t.Fatal(created, err)
	}
	second := first
	second.ID = ids.New(ids.Scan, now.Add(time.Millisecond))
	got, created, err := st.CreateScan(ctx, second, idem, now.Add(time.Hour))
	if err != nil || created || got.ID != first.ID {
		t.Fatalf("replay: created=%v id=%s %v; want the original %s", created, got.ID, err, first.ID)
	}
	if _, err := st.GetScan(ctx, u.ID, second.ID); !store.IsNotFound(err) {
		t.Fatal("a replay wrote a second scan")
	}
	got, created, err = st.CreateScan(ctx, second, idem, now.Add(25*time.Hour))
	if err != nil || !created || got.ID != second.ID {
		t.Fatalf("after 24 h: created=%v %v", created, err)
	}
	// Another user's identical key is theirs alone.
	other := newUser(t, st, "idem2@example.com")
	third := second
	third.ID, third.UserID = ids.New(ids.Scan, now.Add(2*time.Millisecond)), other.ID
	if _, created, err := st.CreateScan(ctx, third, idem, now); err != nil || !created {
		t.Fatalf("another user's key: created=%v %v", created, err)
	}
}

// Lists are newest first, paginate without gaps or repeats, and filter.
func TestListScans(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "list@example.com")
	t0 := time.Now().Add(-time.Hour)
	var made []string
	for i := range 7 {
		sc := queuedScan(t, st, u.ID, t0.Add(time.Duration(i)*time.Second))
		if i%2 == 0 {
			if _, err := st.RequestCancel(ctx, u.ID, sc.ID, t0); err != nil {
				t.Fatal(err)
			}
		}
		made = append(made, sc.ID)
	}
	var seen []string
	cursor := ""
	for range 10 {
		page, next, err := st.ListScans(ctx, u.ID, store.Page{Limit: 3, Cursor: cursor}, store.ScanFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			seen = append(seen, s.ID)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	if fmt.Sprint(seen) != fmt.Sprint(reverse(made)) {
		t.Fatalf("paged list %v, want newest first %v", seen, reverse(made))
	}
	cancelled, _, err := st.ListScans(ctx, u.ID, store.Page{Limit: 50}, store.ScanFilter{Status: scans.Cancelled})
	if err != nil || len(cancelled) != 4 {
		t.Fatalf("status filter: %d scans, %v; want 4", len(cancelled), err)
	}
	// A filtered page that needs several queries still fills up and pages on.
	page, next, err := st.ListScans(ctx, u.ID, store.Page{Limit: 2}, store.ScanFilter{Status: scans.Queued, Target: "example.com"})
	if err != nil || len(page) != 2 || next == "" || page[0].ID != made[5] || page[1].ID != made[3] {
		t.Fatalf("filtered page %v next=%q %v", page, next, err)
	}
	if _, _, err := st.ListScans(ctx, u.ID, store.Page{Limit: 2, Cursor: "bm90LWEtc2Nhbg"}, store.ScanFilter{}); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("foreign cursor: %v", err)
	}
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// BeginStep charges a step and names it in the same write: while it runs,
// the scan says which tool runs since when; once recorded, or on a scan
// that ended, no step is running.
func TestBeginStepNamesTheRunningStep(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now().UTC().Truncate(time.Millisecond)
	u := newUser(t, st, "running@example.com")
	sc := queuedScan(t, st, u.ID, now)
	if _, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil {
		t.Fatal(err)
	}
	got, _ := st.GetScan(ctx, u.ID, sc.ID)
	if _, ok := got.Running(); ok {
		t.Fatal("a scan that charged no step runs none")
	}
	at := now.Add(2 * time.Second)
	charged, err := st.BeginStep(ctx, u.ID, sc.ID, 1, 5, store.StepStart{Tool: "dns_enum", At: at})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = st.GetScan(ctx, u.ID, sc.ID)
	run, ok := got.Running()
	if !ok || run.Seq != 1 || run.Tool != "dns_enum" || !run.StartedAt.Equal(at) || got.CreditsUsed != 5 || charged.CurrentTool != "dns_enum" {
		t.Fatalf("running %+v %v, credits %d", run, ok, got.CreditsUsed)
	}
	step := scans.Step{Seq: 1, Tool: "dns_enum", Input: []byte("{}"), Status: scans.StepOK, Outcome: "ok", Credits: 5, StartedAt: at}
	if _, err := st.RecordStep(ctx, u.ID, sc.ID, step, nil, at); err != nil {
		t.Fatal(err)
	}
	if got, _ = st.GetScan(ctx, u.ID, sc.ID); func() bool { _, ok := got.Running(); return ok }() {
		t.Fatal("a recorded step is no longer running")
	}
	if _, err := st.BeginStep(ctx, u.ID, sc.ID, 2, 5, store.StepStart{Tool: "port_scan", At: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndScan(ctx, u.ID, sc.ID, scans.Cancelled, "", nil, at); err != nil {
		t.Fatal(err)
	}
	if got, _ = st.GetScan(ctx, u.ID, sc.ID); func() bool { _, ok := got.Running(); return ok }() {
		t.Fatal("an ended scan runs no step")
	}
}

package localstack_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

type meView struct {
	ID      string `json:"id"`
	Plan    string `json:"plan"`
	Credits struct {
		Used      int    `json:"used"`
		Reserved  int    `json:"reserved"`
		Allowance *int   `json:"allowance"`
		RenewsAt  string `json:"renews_at"`
	} `json:"credits"`
}

// The monthly allowance through the API (CONTRACT "Plans"): /api/auth/me
// shows the month's counters, a creation the month cannot hold is a 403
// with the exact wording (and writes nothing), and cancelling a queued scan
// gives its reservation back.
func TestMonthlyCreditAllowance(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	s.verifiedTarget(a, "allowance.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.allowance.test. 60 IN TXT %q", token))
	})
	now := time.Now().UTC()
	month := store.CreditMonth(now)
	renews := store.RenewsAt(month)

	me := func() meView {
		t.Helper()
		r := s.call(http.MethodGet, "/api/auth/me", a.token, nil)
		return decoded[meView](t, r, http.StatusOK)
	}
	m := me()
	if m.Credits.Used != 0 || m.Credits.Reserved != 0 || m.Credits.Allowance == nil || *m.Credits.Allowance != 2000 ||
		m.Credits.RenewsAt != renews.Format(time.RFC3339) {
		t.Fatalf("a new free account's credits: %+v", m.Credits)
	}

	// Setup through the store: 1,000 credits used by an ended scan, 900
	// reserved by a queued one (its execution is never started).
	ctx := context.Background()
	seed := func(maxCredits int, at time.Time) scans.Scan {
		sc := scans.Scan{ID: ids.New(ids.Scan, at), UserID: a.user.ID, TargetID: ids.New(ids.Target, at), Target: "allowance.test",
			Type: scans.Web, Tier: plans.Standard, Plan: plans.Free, Status: scans.Queued, MaxCredits: maxCredits,
			CreditMonth: month, CreatedAt: at}
		if _, _, err := s.api.Store.CreateScan(ctx, sc, nil, at); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	done := seed(1000, now)
	if _, err := s.api.Store.StartScan(ctx, a.user.ID, done.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.api.Store.ChargeStep(ctx, a.user.ID, done.ID, 1, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := s.api.Store.EndScan(ctx, a.user.ID, done.ID, scans.Completed, "", nil, now); err != nil {
		t.Fatal(err)
	}
	queued := seed(900, now.Add(time.Millisecond))
	if m := me(); m.Credits.Used != 1000 || m.Credits.Reserved != 900 {
		t.Fatalf("after setup: %+v", m.Credits)
	}

	// 1,000 + 900 + 200 > 2,000.
	r := s.call(http.MethodPost, "/api/scans", a.token, map[string]any{"target": "allowance.test", "scan_type": "web", "tier": "standard"})
	expect(t, r, http.StatusForbidden)
	want := fmt.Sprintf("Monthly credit allowance exhausted: 1000 of 2000 credits used; it renews on %s", renews.Format("2006-01-02"))
	if got := r.detail(t); got != want {
		t.Fatalf("detail %q, want %q", got, want)
	}
	if m := me(); m.Credits.Used != 1000 || m.Credits.Reserved != 900 {
		t.Fatalf("a refused creation reserved: %+v", m.Credits)
	}
	list := s.call(http.MethodGet, "/api/scans", a.token, nil)
	all := decoded[[]scanView](t, list, http.StatusOK)
	if len(all) != 2 {
		t.Fatalf("%d scans listed, want the 2 of the setup", len(all))
	}

	// Cancelling the queued scan gives its 900 back.
	expect(t, s.call(http.MethodDelete, "/api/scans/"+queued.ID, a.token, nil), http.StatusAccepted)
	if m := me(); m.Credits.Used != 1000 || m.Credits.Reserved != 0 {
		t.Fatalf("after the cancel: %+v", m.Credits)
	}

	// Enterprise: no limit, allowance null.
	e := s.newAccount("enterprise", false)
	r = s.call(http.MethodGet, "/api/auth/me", e.token, nil)
	em := decoded[meView](t, r, http.StatusOK)
	if em.Credits.Allowance != nil || em.Plan != "enterprise" {
		t.Fatalf("enterprise credits: %+v", em.Credits)
	}
}

package localstack_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/ratelimit"
	"secscan/shared/retest"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// retestView is a retest as the API answers it.
type retestView struct {
	ID          string `json:"id"`
	ScanID      string `json:"scan_id"`
	TargetID    string `json:"target_id"`
	IssueKey    string `json:"issue_key"`
	Status      string `json:"status"`
	CreditsUsed int    `json:"credits_used"`
	Results     []struct {
		FindingID string       `json:"finding_id"`
		Host      string       `json:"host"`
		Port      *int         `json:"port"`
		Outcome   string       `json:"outcome"`
		Detail    string       `json:"detail"`
		Proof     *scans.Proof `json:"proof"`
	} `json:"results"`
	LedgerNote *string `json:"ledger_note"`
	FinishedAt *string `json:"finished_at"`
}

// retest asks for a retest of key and waits for its end.
func (s *stack) retest(a account, scanID, key string) (retestView, time.Duration) {
	s.t.Helper()
	started := time.Now()
	r := s.patient(http.MethodPost, "/api/scans/"+scanID+"/issues/"+key+"/retest", a.token, nil)
	v := decoded[retestView](s.t, r, http.StatusAccepted)
	if !ids.Valid(ids.Retest, v.ID) || v.Status != "queued" || v.ScanID != scanID || v.IssueKey != key || r.header.Get("Location") != "/api/retests/"+v.ID {
		s.t.Fatalf("retest answer %s (Location %q)", r.body, r.header.Get("Location"))
	}
	deadline := time.Now().Add(2 * time.Minute)
	for v.Status == "queued" || v.Status == "running" {
		if time.Now().After(deadline) {
			s.t.Fatalf("retest %s still %s", v.ID, v.Status)
		}
		time.Sleep(200 * time.Millisecond)
		r = s.patient(http.MethodGet, "/api/retests/"+v.ID, a.token, nil)
		expect(s.t, r, http.StatusOK)
		r.json(s.t, &v)
	}
	return v, time.Since(started)
}

// Retest end to end on the local stack, against a real site whose missing
// CSP header (web.header.csp) can be switched off: while weak the issue is
// reproduced with a fresh proof; once fixed it is not reproduced and the
// ledger marks it fixed; with the site down every location is an error,
// never not_reproduced.
func TestRetestEndToEnd(t *testing.T) {
	t.Parallel()
	weak, srv := cspSite(t)
	s, a, target := cspStack(t, srv, "retest.test")
	const csp = "web.header.csp"
	weak.Store(true)
	sc := s.monitoredScan(a, "retest.test")
	if issueChange(sc, csp) == "absent" {
		t.Fatalf("the scan did not find %s: %+v", csp, sc.Issues)
	}
	before := s.credits(a)

	v, wall := s.retest(a, sc.ID, csp)
	t.Logf("retest of a web issue: %v wall time, %d credits, %d location(s)", wall, v.CreditsUsed, len(v.Results))
	if v.Status != "completed" || v.TargetID != target || v.FinishedAt == nil || v.CreditsUsed < 1 || len(v.Results) == 0 {
		t.Fatalf("retest while weak: %+v", v)
	}
	for _, res := range v.Results {
		if res.Outcome != "reproduced" || res.Proof == nil || res.Proof.Kind != scans.ProofHTTP || !strings.HasPrefix(res.Proof.Response, "HTTP/1.1 200 OK") {
			t.Errorf("location %s: %s (%s), proof %+v; want reproduced with an HTTP proof", res.FindingID, res.Outcome, res.Detail, res.Proof)
		}
	}
	if after := s.credits(a); after != before+v.CreditsUsed {
		t.Errorf("month's used credits %d → %d, the retest used %d", before, after, v.CreditsUsed)
	}

	weak.Store(false)
	v, _ = s.retest(a, sc.ID, csp)
	for _, res := range v.Results {
		if res.Outcome != "not_reproduced" || !strings.Contains(res.Detail, "Not found again") {
			t.Errorf("fixed site, location %s: %s (%s)", res.FindingID, res.Outcome, res.Detail)
		}
	}
	if e := s.ledger(a, target, "")[csp]; e.Status != "fixed" || e.FixedAt == nil {
		t.Errorf("ledger after a retest that reproduced nothing: %+v, want fixed", e)
	}

	weak.Store(true)
	srv.Close()
	v, _ = s.retest(a, sc.ID, csp)
	for _, res := range v.Results {
		if res.Outcome != "error" || !strings.Contains(res.Detail, "refused") && !strings.Contains(res.Detail, "did not answer") {
			t.Errorf("site down, location %s: %s (%s); want an error in plain words", res.FindingID, res.Outcome, res.Detail)
		}
	}
}

// A retest of an older scan does not fix the ledger: with two completed
// scans that found the missing CSP, a retest of the first, once the site is
// fixed, reports every location not reproduced and leaves the issue open,
// saying why (the newer scan); the retest of the latest scan fixes it.
func TestRetestOfAnOlderScanLeavesTheLedgerAlone(t *testing.T) {
	t.Parallel()
	weak, srv := cspSite(t)
	s, a, target := cspStack(t, srv, "older.test")
	const csp = "web.header.csp"
	weak.Store(true)
	older := s.monitoredScan(a, "older.test")
	latest := s.monitoredScan(a, "older.test")
	if issueChange(older, csp) == "absent" || issueChange(latest, csp) == "absent" {
		t.Fatalf("the scans did not both find %s", csp)
	}
	weak.Store(false)

	v, _ := s.retest(a, older.ID, csp)
	if v.Status != "completed" || len(v.Results) == 0 {
		t.Fatalf("retest of the older scan: %+v", v)
	}
	for _, res := range v.Results {
		if res.Outcome != "not_reproduced" {
			t.Errorf("older scan, location %s: %s (%s); want not_reproduced", res.FindingID, res.Outcome, res.Detail)
		}
	}
	if v.LedgerNote == nil || !strings.Contains(*v.LedgerNote, "the target has a newer web scan, "+latest.ID) {
		t.Errorf("ledger_note of the older scan's retest: %v, want it to name %s", v.LedgerNote, latest.ID)
	}
	if e := s.ledger(a, target, "")[csp]; e.Status != "open" || e.FixedAt != nil {
		t.Errorf("ledger after a retest of an older scan: %+v, want open", e)
	}

	v, _ = s.retest(a, latest.ID, csp)
	if v.Status != "completed" || v.LedgerNote != nil || !scans.AllNotReproduced(resultsOf(v)) {
		t.Fatalf("retest of the latest scan: %+v", v)
	}
	if e := s.ledger(a, target, "")[csp]; e.Status != "fixed" || e.FixedAt == nil {
		t.Errorf("ledger after a retest of the latest scan: %+v, want fixed", e)
	}
}

// resultsOf are v's outcomes as the runner judges them.
func resultsOf(v retestView) []scans.RetestResult {
	out := make([]scans.RetestResult, 0, len(v.Results))
	for _, r := range v.Results {
		out = append(out, scans.RetestResult{FindingID: r.FindingID, Outcome: scans.RetestOutcome(r.Outcome)})
	}
	return out
}

// credits is the month's used credits of a's user.
func (s *stack) credits(a account) int {
	s.t.Helper()
	c, err := s.api.Store.Credits(context.Background(), a.user.ID, store.CreditMonth(time.Now()))
	if err != nil {
		s.t.Fatal(err)
	}
	return c.Used
}

// The refusals of POST …/retest and GET /api/retests/{id}, on DynamoDB
// Local: another user's scan, issue or retest is 404; a scan that is not
// completed is 409; a deleted or unverified target is 409 naming why; the
// 61st retest of the hour is 429.
func TestRetestRefusals(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	owner, other := s.newAccount("starter", false), s.newAccount("starter", false)
	ctx, now := context.Background(), time.Now().UTC()
	st := s.api.Store

	seed := func(a account, domain string, status scans.Status) (scanID, targetID string) {
		t.Helper()
		tgt := s.storedTarget(a, domain, now)
		sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: a.user.ID, Target: domain, TargetID: tgt.ID, Type: scans.Web,
			Tier: "quick", Status: scans.Queued, MaxCredits: 50, CreditMonth: store.CreditMonth(now), CreatedAt: now}
		if _, _, err := st.CreateScan(ctx, sc, nil, now); err != nil {
			t.Fatal(err)
		}
		if status == scans.Queued {
			return sc.ID, tgt.ID
		}
		if _, err := st.StartScan(ctx, a.user.ID, sc.ID, now); err != nil {
			t.Fatal(err)
		}
		port := 443
		f := scans.Finding{Check: "web.header.csp", Title: "t", Severity: scans.Low, Category: scans.CategoryWeb, Host: domain, Port: &port, Evidence: "e"}
		step := scans.Step{Seq: 1, Tool: "http_check", Input: []byte(`{}`), Status: scans.StepOK, Outcome: "ok", Credits: 5, StartedAt: now}
		if _, err := st.RecordStep(ctx, a.user.ID, sc.ID, step, []scans.Finding{f}, now); err != nil {
			t.Fatal(err)
		}
		if status != scans.Running {
			if _, err := st.EndScan(ctx, a.user.ID, sc.ID, status, "", nil, now); err != nil {
				t.Fatal(err)
			}
		}
		return sc.ID, tgt.ID
	}
	post := func(a account, scanID, key string) response {
		return s.patient(http.MethodPost, "/api/scans/"+scanID+"/issues/"+key+"/retest", a.token, nil)
	}

	done, _ := seed(owner, "done.test", scans.Completed)
	expect(t, post(other, done, "web.header.csp"), http.StatusNotFound)
	expect(t, post(owner, done, "web.header.nosniff"), http.StatusNotFound)
	expect(t, post(owner, "scn_nope", "web.header.csp"), http.StatusNotFound)
	expect(t, s.patient(http.MethodGet, "/api/retests/rt_01JAAAAAAAAAAAAAAAAAAAAAAA", owner.token, nil), http.StatusNotFound)

	for _, status := range []scans.Status{scans.Queued, scans.Running, scans.Failed, scans.Cancelled} {
		id, _ := seed(owner, string(status)+".test", status)
		r := post(owner, id, "web.header.csp")
		expect(t, r, http.StatusConflict)
		if !strings.Contains(r.detail(t), string(status)) {
			t.Errorf("%s scan: detail %q does not name the status", status, r.detail(t))
		}
	}

	gone, goneTarget := seed(owner, "gone.test", scans.Completed)
	expect(t, s.call(http.MethodDelete, "/api/targets/"+goneTarget, owner.token, nil), http.StatusNoContent)
	if r := post(owner, gone, "web.header.csp"); r.status != http.StatusConflict || !strings.Contains(r.detail(t), "deleted") {
		t.Errorf("deleted target: %d %s", r.status, r.body)
	}
	lapsed, lapsedTarget := seed(owner, "lapsed.test", scans.Completed)
	if err := st.RecordOwnershipCheck(ctx, owner.user.ID, lapsedTarget, now, "no TXT record at _service-challenge.lapsed.test"); err != nil {
		t.Fatal(err)
	}
	if r := post(owner, lapsed, "web.header.csp"); r.status != http.StatusConflict || !strings.Contains(r.detail(t), "no longer verified") ||
		!strings.Contains(r.detail(t), "no TXT record") {
		t.Errorf("unverified target: %d %s", r.status, r.body)
	}

	// The hour's 60 retests taken (directly on the limiter), the next is 429.
	limit := ratelimit.Target{Key: store.UserKey(owner.user.ID), MustExist: true}
	for i := range ratelimit.Retests.Limit {
		if d, err := s.api.Auth.Limiter.Take(ctx, limit, ratelimit.Retests, fmt.Sprintf("seed-%d", i), now); err != nil || !d.Allowed {
			t.Fatalf("seed slot %d: %v %+v", i, err, d)
		}
	}
	r := s.call(http.MethodPost, "/api/scans/"+done+"/issues/web.header.csp/retest", owner.token, nil)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(r.detail(t), "60 retests per hour") {
		t.Errorf("61st retest: %d %s (Retry-After %q)", r.status, r.body, r.header.Get("Retry-After"))
	}
}

// failingLauncher cannot start retests (the retest function unavailable).
type failingLauncher struct{}

func (failingLauncher) LaunchRetest(context.Context, retest.Request) error {
	return errors.New("lambda invoke: connection refused")
}

// A retest whose run cannot be launched is answered 503 with Retry-After,
// recorded failed with nothing charged, and its reservation given back.
func TestRetestLaunchFailure(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	ctx, now := context.Background(), time.Now().UTC()
	st := s.api.Store
	tgt := s.storedTarget(a, "down.test", now)
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: a.user.ID, Target: tgt.Domain, TargetID: tgt.ID, Type: scans.Web,
		Tier: "quick", Status: scans.Queued, MaxCredits: 50, CreditMonth: store.CreditMonth(now), CreatedAt: now}
	s.runningScan(sc)
	port := 443
	f := scans.Finding{Check: "web.header.csp", Title: "t", Severity: scans.Low, Category: scans.CategoryWeb, Host: tgt.Domain, Port: &port, Evidence: "e"}
	step := scans.Step{Seq: 1, Tool: "http_check", Input: []byte(`{}`), Status: scans.StepOK, Outcome: "ok", Credits: 5, StartedAt: now}
	if _, err := st.RecordStep(ctx, a.user.ID, sc.ID, step, []scans.Finding{f}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndScan(ctx, a.user.ID, sc.ID, scans.Completed, "", nil, now); err != nil {
		t.Fatal(err)
	}
	month := store.CreditMonth(now)
	before, err := st.Credits(ctx, a.user.ID, month)
	if err != nil {
		t.Fatal(err)
	}
	s.api.Retests = failingLauncher{}
	r := s.call(http.MethodPost, "/api/scans/"+sc.ID+"/issues/web.header.csp/retest", a.token, nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || strings.Contains(string(r.body), "connection refused") {
		t.Fatalf("launch failure: %d %s (Retry-After %q)", r.status, r.body, r.header.Get("Retry-After"))
	}
	after, err := st.Credits(ctx, a.user.ID, month)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("credits %+v → %+v: a retest that never ran must cost and hold nothing", before, after)
	}
}

// cspSite is a real site whose Content-Security-Policy header is missing
// while weak is set (the missing CSP, web.header.csp, a retest can see
// fixed).
func cspSite(t *testing.T) (weak *atomic.Bool, srv *httptest.Server) {
	t.Helper()
	weak = new(atomic.Bool)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !weak.Load() {
			w.Header().Set("Content-Security-Policy", "default-src 'self'")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>retest</title></head><body>retest</body></html>")
	}))
	t.Cleanup(srv.Close)
	return weak, srv
}

// cspStack is a stack whose web ports are srv's, with a starter account
// that verified domain (served at 127.0.0.1 by the stack's DNS).
func cspStack(t *testing.T, srv *httptest.Server, domain string) (*stack, account, string) {
	t.Helper()
	s := startStack(t, withWebPorts(portOf(t, srv.URL), closedPort(t)))
	s.dns.Add(t, domain+". 60 IN A 127.0.0.1")
	a := s.newAccount("starter", false)
	target := s.verifiedTarget(a, domain, func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.%s. 60 IN TXT %q", domain, token))
	})
	return s, a, target
}

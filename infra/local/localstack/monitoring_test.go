package localstack_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/scans"
)

// toggleSite is a web site whose Content-Security-Policy header can be
// switched off (the weakness web.header.csp) and on between scans.
type toggleSite struct {
	port int
	weak atomic.Bool
}

func newToggleSite(t *testing.T) *toggleSite {
	t.Helper()
	ts := &toggleSite{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ts.weak.Load() {
			w.Header().Set("Content-Security-Policy", "default-src 'self'")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>toggle</title></head><body>toggle</body></html>")
	}))
	t.Cleanup(srv.Close)
	ts.port = portOf(t, srv.URL)
	return ts
}

// monitorView is the part of a scan record the monitoring tests read.
type monitorView struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	BaselineScanID *string `json:"baseline_scan_id"`
	Error          *string `json:"error"`
	Issues         []struct {
		Key      string        `json:"key"`
		Severity string        `json:"severity"`
		Change   *string       `json:"change"`
		Triage   *scans.Triage `json:"triage"`
	} `json:"issues"`
	FixedIssues []struct {
		Key            string `json:"key"`
		LastSeenScanID string `json:"last_seen_scan_id"`
	} `json:"fixed_issues"`
	Summary *struct {
		RiskRating string `json:"risk_rating"`
		Summary    string `json:"summary"`
	} `json:"summary"`
}

type ledgerView struct {
	Key        string        `json:"key"`
	Severity   string        `json:"severity"`
	Status     string        `json:"status"`
	FirstSeen  string        `json:"first_seen_at"`
	LastSeen   string        `json:"last_seen_at"`
	LastScanID string        `json:"last_scan_id"`
	FixedAt    *string       `json:"fixed_at"`
	Triage     *scans.Triage `json:"triage"`
}

// patient calls the API, waiting out the per-user rate limit.
func (s *stack) patient(method, path, bearer string, body any) response {
	s.t.Helper()
	for {
		r := s.call(method, path, bearer, body)
		if r.status != http.StatusTooManyRequests {
			return r
		}
		wait, _ := strconv.Atoi(r.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
}

func (s *stack) monitoredScan(a account, domain string) monitorView {
	s.t.Helper()
	sc := s.createScan(a, map[string]any{"target": domain, "scan_type": "web", "tier": "quick"})
	s.awaitScan(a, sc.ID, terminal)
	r := s.patient(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil)
	v := decoded[monitorView](s.t, r, http.StatusOK)
	if v.Status != "completed" {
		s.t.Fatalf("scan %s ended %s (%v), want completed", v.ID, v.Status, v.Error)
	}
	return v
}

func (s *stack) ledger(a account, target, query string) map[string]ledgerView {
	s.t.Helper()
	r := s.patient(http.MethodGet, "/api/targets/"+target+"/issues"+query, a.token, nil)
	list := decoded[[]ledgerView](s.t, r, http.StatusOK)
	out := map[string]ledgerView{}
	for _, e := range list {
		out[e.Key] = e
	}
	return out
}

func issueChange(v monitorView, key string) string {
	for _, is := range v.Issues {
		if is.Key == key {
			if is.Change == nil {
				return "null"
			}
			return *is.Change
		}
	}
	return "absent"
}

// Continuous monitoring end to end, on the real state machine: three quick
// web scans of a site whose CSP header is switched off, on, off again. The
// first has no baseline; the second finds web.header.csp fixed (in its
// fixed_issues and the ledger); the third finds it regressed. An issue
// marked false positive after the first scan is carried by the later
// scans' issues and left out of their risk rating. The asset inventory
// has first and last seen.
func TestMonitoringAcrossScans(t *testing.T) {
	t.Parallel()
	site := newToggleSite(t)
	s := startStack(t, withWebPorts(site.port, closedPort(t)))
	s.dns.Add(t, "toggle.test. 60 IN A 127.0.0.1")
	a := s.newAccount("starter", false)
	target := s.verifiedTarget(a, "toggle.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.toggle.test. 60 IN TXT %q", token))
	})
	const csp = "web.header.csp"

	site.weak.Store(true)
	first := s.monitoredScan(a, "toggle.test")
	if first.BaselineScanID != nil || issueChange(first, csp) != "null" || len(first.FixedIssues) != 0 {
		t.Fatalf("scan 1: baseline %v, csp change %s, fixed %v; want none, null, none", first.BaselineScanID,
			issueChange(first, csp), first.FixedIssues)
	}
	l := s.ledger(a, target, "")
	if e, ok := l[csp]; !ok || e.Status != "open" || e.LastScanID != first.ID || e.FixedAt != nil || e.Triage != nil {
		t.Fatalf("ledger after scan 1: %+v, want csp open, last seen in %s", l, first.ID)
	}
	// The most severe other issue is marked a false positive.
	fp := ""
	for _, is := range first.Issues {
		if is.Key != csp && (fp == "" || scans.Severity(is.Severity).Rank() < scans.Severity(l[fp].Severity).Rank()) {
			fp = is.Key
		}
	}
	if fp != "" {
		r := s.patient(http.MethodPut, "/api/targets/"+target+"/issues/"+fp, a.token,
			map[string]any{"state": "false_positive", "reason": "The header is set by the CDN in production"})
		e := decoded[ledgerView](t, r, http.StatusOK)
		if e.Triage == nil || e.Triage.State != "false_positive" || e.Triage.UpdatedBy != a.user.ID || e.Triage.ExpiresAt != nil {
			t.Fatalf("triage answer %s", r.body)
		}
		if fps := s.ledger(a, target, "?state=false_positive"); len(fps) != 1 {
			t.Errorf("?state=false_positive lists %d issues, want 1", len(fps))
		}
	}

	site.weak.Store(false)
	second := s.monitoredScan(a, "toggle.test")
	if second.BaselineScanID == nil || *second.BaselineScanID != first.ID {
		t.Fatalf("scan 2 baseline %v, want %s", second.BaselineScanID, first.ID)
	}
	fixed := false
	for _, f := range second.FixedIssues {
		fixed = fixed || (f.Key == csp && f.LastSeenScanID == first.ID)
	}
	if !fixed || issueChange(second, csp) != "absent" {
		t.Fatalf("scan 2 fixed_issues %+v (csp %s), want csp fixed, last seen in scan 1", second.FixedIssues, issueChange(second, csp))
	}
	if e := s.ledger(a, target, "?status=fixed")[csp]; e.Status != "fixed" || e.FixedAt == nil {
		t.Errorf("ledger csp after scan 2: %+v, want fixed", e)
	}
	// The risk rating counts only issues not triaged away.
	want := scans.RiskNone
	for _, is := range second.Issues {
		if is.Key == fp {
			if is.Triage == nil || is.Triage.State != "false_positive" {
				t.Errorf("scan 2 issue %s triage %+v, want the false positive", fp, is.Triage)
			}
			continue
		}
		if sev := scans.Severity(is.Severity); sev != scans.Info && (want == scans.RiskNone || sev.Rank() < scans.Severity(want).Rank()) {
			want = scans.RiskRating(sev)
		}
	}
	if second.Summary == nil || second.Summary.RiskRating != string(want) {
		t.Errorf("scan 2 risk rating %+v, want %s (without the false positive %s)", second.Summary, want, fp)
	}
	if !strings.Contains(second.Summary.Summary, "1 fixed") {
		t.Errorf("scan 2 summary does not say what was fixed: %q", second.Summary.Summary)
	}

	site.weak.Store(true)
	third := s.monitoredScan(a, "toggle.test")
	if third.BaselineScanID == nil || *third.BaselineScanID != second.ID || issueChange(third, csp) != "regressed" {
		t.Fatalf("scan 3 baseline %v, csp change %s; want %s, regressed", third.BaselineScanID, issueChange(third, csp), second.ID)
	}
	if !strings.Contains(third.Summary.Summary, "1 regressed") {
		t.Errorf("scan 3 summary does not call out the regression: %q", third.Summary.Summary)
	}
	if e := s.ledger(a, target, "")[csp]; e.Status != "open" || e.FixedAt != nil || e.LastScanID != third.ID || e.FirstSeen > e.LastSeen {
		t.Errorf("ledger csp after scan 3: %+v, want open again, last seen in scan 3", e)
	}

	checkListCounts(t, s, a, fp, second, third)

	r := s.patient(http.MethodGet, "/api/targets/"+target+"/assets", a.token, nil)
	expect(t, r, http.StatusOK)
	var assets struct {
		Hosts []struct {
			Name      string `json:"name"`
			FirstSeen string `json:"first_seen_at"`
			LastSeen  string `json:"last_seen_at"`
		} `json:"hosts"`
	}
	r.json(t, &assets)
	found := false
	for _, h := range assets.Hosts {
		if h.Name == "toggle.test" {
			found = true
			if h.FirstSeen == "" || h.FirstSeen > h.LastSeen {
				t.Errorf("asset %+v: first seen after last seen", h)
			}
		}
	}
	if !found {
		t.Errorf("assets %s: no toggle.test", r.body)
	}
	t.Logf("scan 2 summary: %s", second.Summary.Summary)
	t.Logf("scan 3 summary: %s", third.Summary.Summary)
}

// listView is a scans list record's counts.
type listView struct {
	ID               string         `json:"id"`
	Status           string         `json:"status"`
	RiskRating       *string        `json:"risk_rating"`
	IssuesBySeverity map[string]int `json:"issues_by_severity"`
	NewIssuesCount   *int           `json:"new_issues_count"`
	FixedIssuesCount *int           `json:"fixed_issues_count"`
}

// checkListCounts checks the scans list against the scans' records: the
// issues not triaged away by severity, and the new and fixed counts of the
// comparison (scan 2 fixed the CSP issue, scan 3 brought it back).
func checkListCounts(t *testing.T, s *stack, a account, fp string, second, third monitorView) {
	t.Helper()
	r := s.patient(http.MethodGet, "/api/scans?status=completed", a.token, nil)
	list := decoded[[]listView](t, r, http.StatusOK)
	byID := map[string]listView{}
	for _, v := range list {
		byID[v.ID] = v
	}
	for n, sc := range map[int]monitorView{2: second, 3: third} {
		v := byID[sc.ID]
		want := map[string]int{"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 0}
		for _, is := range sc.Issues {
			if is.Key != fp {
				want[is.Severity]++
			}
		}
		if fmt.Sprint(v.IssuesBySeverity) != fmt.Sprint(want) || v.RiskRating == nil || *v.RiskRating != sc.Summary.RiskRating {
			t.Errorf("scan %d listed with %v, risk %v; want %v (without the false positive), risk %s", n, v.IssuesBySeverity, v.RiskRating, want, sc.Summary.RiskRating)
		}
		wantNew, wantFixed := 0, len(sc.FixedIssues)
		if n == 3 {
			wantNew = 1 // the regressed CSP issue
		}
		if v.NewIssuesCount == nil || v.FixedIssuesCount == nil || *v.NewIssuesCount != wantNew || *v.FixedIssuesCount != wantFixed || (n == 2 && wantFixed == 0) {
			t.Errorf("scan %d listed with new %v, fixed %v; want %d, %d", n, v.NewIssuesCount, v.FixedIssuesCount, wantNew, wantFixed)
		}
	}
}

// Bad triage bodies are 422 naming the field; an unknown key, and another
// user's target, are 404.
func TestTriageBadInput(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	other := s.newAccount("starter", false)
	r := s.patient(http.MethodPost, "/api/targets", a.token, map[string]string{"target": "triage.test", "method": "dns_txt"})
	tgt := decoded[struct{ ID string }](t, r, http.StatusCreated)
	// One ledger issue, as a completed scan would leave it.
	if _, err := s.api.Store.SetTriage(t.Context(), tgt.ID, "web.header.csp", scans.Triage{}); err == nil {
		t.Fatal("triage of an issue the ledger does not have succeeded")
	}
	base := "/api/targets/" + tgt.ID + "/issues/"
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no state", map[string]any{"reason": "x"}, "state"},
		{"unknown state", map[string]any{"state": "ignored", "reason": "x"}, "state"},
		{"no reason", map[string]any{"state": "false_positive"}, "reason"},
		{"empty reason", map[string]any{"state": "accepted_risk", "reason": "  "}, "reason"},
		{"long reason", map[string]any{"state": "accepted_risk", "reason": strings.Repeat("é", 501)}, "reason"},
		{"expiry in the past", map[string]any{"state": "accepted_risk", "reason": "x", "expires_at": past}, "expires_at"},
		{"expiry on a false positive", map[string]any{"state": "false_positive", "reason": "x", "expires_at": future}, "expires_at"},
		{"expiry not a time", map[string]any{"state": "accepted_risk", "reason": "x", "expires_at": "tomorrow"}, "expires_at"},
		{"unknown field", map[string]any{"state": "open", "note": "x"}, "note"},
		{"reason of the wrong type", map[string]any{"state": "accepted_risk", "reason": 5}, "reason"},
	}
	for _, tc := range cases {
		r := s.patient(http.MethodPut, base+"web.header.csp", a.token, tc.body)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.detail(t), tc.field) {
			t.Errorf("%s: %d %s, want 422 naming %s", tc.name, r.status, r.body, tc.field)
		}
	}
	// A valid body on a key the ledger does not hold.
	r = s.patient(http.MethodPut, base+"web.header.csp", a.token, map[string]any{"state": "accepted_risk", "reason": "x", "expires_at": future})
	expect(t, r, http.StatusNotFound)
	r = s.patient(http.MethodGet, "/api/targets/"+tgt.ID+"/issues?status=closed", a.token, nil)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.detail(t), "status") {
		t.Errorf("?status=closed: %d %s, want 422 naming status", r.status, r.body)
	}
	// Another user's target does not exist for them.
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/targets/" + tgt.ID + "/issues"},
		{http.MethodGet, "/api/targets/" + tgt.ID + "/assets"},
		{http.MethodPut, base + "web.header.csp"},
	} {
		r := s.patient(c.method, c.path, other.token, map[string]any{"state": "open"})
		if r.status != http.StatusNotFound {
			t.Errorf("%s %s as another user: %d, want 404", c.method, c.path, r.status)
		}
	}
	// The owner's empty ledger and inventory.
	r = s.patient(http.MethodGet, "/api/targets/"+tgt.ID+"/issues", a.token, nil)
	expect(t, r, http.StatusOK)
	if strings.TrimSpace(string(r.body)) != "[]" {
		t.Errorf("empty ledger: %s", r.body)
	}
	r = s.patient(http.MethodGet, "/api/targets/"+tgt.ID+"/assets", a.token, nil)
	expect(t, r, http.StatusOK)
	if strings.TrimSpace(string(r.body)) != `{"hosts":[],"services":[]}` {
		t.Errorf("empty inventory: %s", r.body)
	}
}

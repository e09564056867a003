package monitor

import (
	"encoding/json"
	"testing"
	"time"

	"secscan/shared/scans"
)

func p(n int) *int { return &n }

// Coverage follows the steps' inputs: the host of a url, base_url or host,
// the ports named (none: every port), the scan's domain when the input names
// nothing; steps that did not end ok and tools that do not declare the
// check cover nothing.
func TestCoverage(t *testing.T) {
	tools := map[string][]scans.CheckCode{"http_check": {"web.header.csp"}, "tls_check": {"tls.protocol.tls10"}}
	steps := []scans.Step{
		{Tool: "http_check", Input: json.RawMessage(`{}`), Status: scans.StepOK},
		{Tool: "http_check", Input: json.RawMessage(`{"url":"https://WWW.example.com:8443/x"}`), Status: scans.StepOK},
		{Tool: "tls_check", Input: json.RawMessage(`{"host":"mail.example.com","port":465}`), Status: scans.StepOK},
		{Tool: "tls_check", Input: json.RawMessage(`{"host":"down.example.com"}`), Status: scans.StepFailed},
		{Tool: "write_summary", Input: json.RawMessage(`{}`), Status: scans.StepOK},
	}
	c := NewCoverage("example.com", steps, tools)
	for _, tc := range []struct {
		check scans.CheckCode
		host  string
		port  *int
		want  bool
	}{
		{"web.header.csp", "example.com", p(443), true},
		{"web.header.csp", "www.example.com.", p(8443), true},
		{"web.header.csp", "api.example.com", p(443), false},
		{"tls.protocol.tls10", "mail.example.com", p(465), true},
		{"tls.protocol.tls10", "mail.example.com", p(993), false},
		{"tls.protocol.tls10", "mail.example.com", nil, true},
		{"tls.protocol.tls10", "down.example.com", p(443), false},
		{"tls.protocol.tls10", "example.com", p(443), false},
	} {
		if got := c.Covers(tc.check, tc.host, tc.port); got != tc.want {
			t.Errorf("Covers(%s, %s, %v) = %v, want %v", tc.check, tc.host, tc.port, got, tc.want)
		}
	}
}

// Compare: new, recurring, regressed; fixed only where covered; triage
// carried (an expired acceptance is not); new hosts only once an inventory
// exists; the counts leave triaged issues out.
func TestCompare(t *testing.T) {
	now := time.Now().UTC()
	issue := func(key string, check scans.CheckCode, host string) scans.Issue {
		return scans.Issue{Key: key, Check: check, Title: key, Severity: scans.Low, Locations: []scans.Location{{Host: host, Port: p(443)}}}
	}
	past, future := now.Add(-time.Hour).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339)
	cur := []scans.Issue{issue("a", "web.a", "example.com"), issue("b", "web.b", "example.com"), issue("c", "web.c", "example.com"),
		issue("d", "web.d", "example.com")}
	base := &Baseline{ScanID: "scn_1", FinishedAt: now.Add(-24 * time.Hour), Issues: []scans.Issue{
		issue("a", "web.a", "example.com"), issue("f", "web.a", "example.com"), issue("g", "web.a", "other.example.com")}}
	ledger := map[string]scans.LedgerEntry{
		"a": {Key: "a", Status: scans.IssueOpen, LastScanID: "scn_1",
			Triage: &scans.Triage{State: scans.TriageFalsePositive, Reason: "x"}},
		"b": {Key: "b", Status: scans.IssueFixed, Triage: &scans.Triage{State: scans.TriageAcceptedRisk, Reason: "x", ExpiresAt: &past}},
		"c": {Key: "c", Status: scans.IssueOpen, Triage: &scans.Triage{State: scans.TriageAcceptedRisk, Reason: "x", ExpiresAt: &future}},
	}
	cov := NewCoverage("example.com", []scans.Step{{Tool: "t", Input: json.RawMessage(`{}`), Status: scans.StepOK}},
		map[string][]scans.CheckCode{"t": {"web.a"}})
	got := Compare(Input{Now: now, Issues: cur, Baseline: base, Ledger: ledger, Coverage: cov,
		Surface:    scans.Surface{Hosts: []scans.Host{{Name: "example.com"}, {Name: "new.example.com"}}},
		KnownHosts: map[string]bool{"example.com": true}})
	want := map[string]scans.IssueChange{"a": scans.ChangeRecurring, "b": scans.ChangeRegressed, "c": scans.ChangeRecurring, "d": scans.ChangeNew}
	for k, v := range want {
		if got.Changes[k] != v {
			t.Errorf("change of %s = %s, want %s", k, got.Changes[k], v)
		}
	}
	if len(got.Fixed) != 1 || got.Fixed[0].Key != "f" || got.Fixed[0].LastSeenScanID != "scn_1" {
		t.Errorf("fixed %+v, want f (g's host was not tested again)", got.Fixed)
	}
	if len(got.NotRetested) != 1 || got.NotRetested[0] != "g" {
		t.Errorf("not retested %v, want g", got.NotRetested)
	}
	if _, ok := got.Triage["b"]; ok || len(got.Triage) != 2 {
		t.Errorf("triage %v: want a (false positive) and c (unexpired acceptance); b's acceptance expired", got.Triage)
	}
	if len(got.NewHosts) != 1 || got.NewHosts[0] != "new.example.com" {
		t.Errorf("new hosts %v", got.NewHosts)
	}
	if c := Counts(cur, got); c.ActiveIssues != 2 || c.NewIssues != 2 || c.FixedIssues != 1 || c.BySeverity[scans.Low] != 2 || len(c.BySeverity) != 1 {
		t.Errorf("counts %+v, want 2 active (b, d, both low), both new or regressed, 1 fixed", c)
	}
	first := Compare(Input{Now: now, Issues: cur, Ledger: map[string]scans.LedgerEntry{}, Coverage: cov,
		Surface: scans.Surface{Hosts: []scans.Host{{Name: "example.com"}}}})
	if len(first.Changes) != 0 || len(first.NewHosts) != 0 || first.BaselineScanID != "" {
		t.Errorf("first scan: %+v, want no changes and nothing new", first)
	}
}

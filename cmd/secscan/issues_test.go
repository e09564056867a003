package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"secscan/shared/scans"
)

// fakeRecord is a completed scan as the service records it since issues:
// findings with check codes and new fingerprints, grouped into issues by
// the server's own rule. withIssues false makes it an older server's
// record (no issues, no issues_count).
func fakeRecord(t *testing.T, id string, withIssues bool) []byte {
	t.Helper()
	port := func(p int) *int { return &p }
	str := func(s string) *string { return &s }
	var fs []scans.Finding
	add := func(f scans.Finding) {
		f.ID = fmt.Sprintf("fnd_%02d", len(fs)+1)
		f.Issue = scans.IssueKey(f.Check, f.CVE)
		f.Fingerprint = f.StableFingerprint()
		if f.References == nil {
			f.References = []string{}
		}
		fs = append(fs, f)
	}
	for _, host := range []string{"demo.test", "www.demo.test", "ns1.demo.test", "api.demo.test", "mail.demo.test"} {
		add(scans.Finding{Check: "web.header.csp", Title: "Missing Content-Security-Policy header", Severity: scans.Low,
			Category: scans.CategoryWeb, Host: host, Port: port(8443), Confidence: scans.Certain,
			Evidence: "GET https://" + host + ":8443/ → no Content-Security-Policy", Remediation: "Send a CSP."})
	}
	add(scans.Finding{Check: "vuln.known-cve", Title: "Apache HTTP Server 2.4.49: path traversal and remote code execution when mod_cgi is enabled (CVE-2021-41773)",
		Severity: scans.Critical, Category: scans.CategoryVuln, Host: "demo.test", Port: port(8080), CVE: str("CVE-2021-41773"),
		CVSS: func() *float64 { v := 9.8; return &v }(), Confidence: scans.Certain, Evidence: "GET /cgi-bin/.%2e/%2e%2e/etc/passwd → 200 root:x:0:0"})
	add(scans.Finding{Check: "vuln.known-cve", Title: "Apache HTTP Server: path traversal (CVE-2021-42013)",
		Severity: scans.Critical, Category: scans.CategoryVuln, Host: "demo.test", Port: port(8080), CVE: str("CVE-2021-42013"),
		Confidence: scans.Tentative, Evidence: "Server: Apache/2.4.49"})
	add(scans.Finding{Check: "web.exposed-git", Title: "Exposed Git repository (/.git/HEAD)", Severity: scans.High,
		Category: scans.CategoryWeb, Host: "demo.test", Port: port(8443), Confidence: scans.Certain,
		Evidence: "GET https://demo.test:8443/.git/HEAD → 200: ref: refs/heads/main"})
	add(scans.Finding{Check: "dns.spf.permissive", Title: "SPF record allows any sender (+all)", Severity: scans.Medium,
		Category: scans.CategoryDNS, Host: "demo.test", Confidence: scans.Certain, Evidence: `TXT "v=spf1 +all"`})
	scans.SortFindings(fs)
	rec := map[string]any{
		"id": id, "target": "demo.test", "target_id": "tgt_x", "scan_type": "full", "tier": "standard", "status": "completed",
		"cancel_requested": false, "credits_used": 40, "max_credits": 200, "callback_url": nil, "findings_count": len(fs),
		"risk_rating": "critical", "created_at": "2026-11-26T07:00:00Z", "started_at": "2026-11-26T07:00:01Z",
		"finished_at": "2026-11-26T07:00:09Z", "error": nil, "findings": fs, "agent_steps": []any{},
		"summary":  map[string]any{"risk_rating": "critical", "summary": "Critical.", "attack_chains": []string{}},
		"surface":  map[string]any{"hosts": []any{}, "services": []any{}, "web": []any{}},
		"schedule": nil,
	}
	if withIssues {
		issues := scans.GroupIssues(fs)
		rec["issues"], rec["issues_count"], rec["fixed_issues"] = issues, len(issues), []any{}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// issuesAPI serves POST /api/scans (queued) and GET /api/scans/<id> (the
// completed record).
func issuesAPI(t *testing.T, withIssues bool) *stack {
	t.Helper()
	const id = "scn_01J00000000000000000000001"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/scans":
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprintf(w, `{"id":%q,"target":"demo.test","scan_type":"full","tier":"standard","status":"queued","max_credits":200,"created_at":"2026-11-26T07:00:00Z"}`, id)
		case r.Method == http.MethodGet && r.URL.Path == "/api/scans/"+id:
			w.Write(fakeRecord(t, id, withIssues))
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return &stack{base: srv.URL}
}

const fakeID = "scn_01J00000000000000000000001"

// scan --wait --json prints the scan record, not a findings array: from a
// server with issues as sent (fields the CLI does not model included), from
// an older server with the issues the CLI grouped.
func TestScanWaitJSONIsTheRecord(t *testing.T) {
	t.Parallel()
	for _, withIssues := range []bool{true, false} {
		c := issuesAPI(t, withIssues).cli("pt_x")
		r := c.run(t, "scan", "demo.test", "--wait", "--json", "--fail-on", "critical")
		expectCode(t, r, 1)
		var rec struct {
			ID          string            `json:"id"`
			Status      string            `json:"status"`
			RiskRating  string            `json:"risk_rating"`
			Summary     map[string]any    `json:"summary"`
			Surface     map[string]any    `json:"surface"`
			IssuesCount int               `json:"issues_count"`
			Findings    []json.RawMessage `json:"findings"`
			Issues      []struct {
				Key       string `json:"key"`
				Check     string `json:"check"`
				Count     int    `json:"count"`
				Locations []struct {
					FindingID string `json:"finding_id"`
				} `json:"locations"`
			} `json:"issues"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
			t.Fatalf("issues %v: stdout is not a scan record: %v\n%s", withIssues, err, r.stdout)
		}
		if rec.ID != fakeID || rec.Status != "completed" || rec.RiskRating != "critical" || rec.Summary == nil ||
			len(rec.Findings) != 9 || len(rec.Issues) != 5 || rec.IssuesCount != 5 || rec.Surface == nil {
			t.Errorf("issues %v: record %+v", withIssues, rec)
		}
		if rec.Issues[0].Check != "vuln.known-cve" || rec.Issues[len(rec.Issues)-1].Key != "web.header.csp" ||
			rec.Issues[len(rec.Issues)-1].Count != 5 || len(rec.Issues[len(rec.Issues)-1].Locations) != 5 {
			t.Errorf("issues %v: issues %+v", withIssues, rec.Issues)
		}
		// --format json still means the findings array (a baseline file).
		r = c.run(t, "scan", "demo.test", "--wait", "--format", "json")
		var arr []findingView
		if err := json.Unmarshal([]byte(r.stdout), &arr); err != nil || len(arr) != 9 {
			t.Errorf("--format json: %v\n%.300s", err, r.stdout)
		}
	}
}

// The findings table has one line per issue and fits COLUMNS (80 or 120)
// when stdout is no terminal, 100 without; --by-finding lists findings.
func TestFindingsTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	s := issuesAPI(t, true)
	for _, width := range []int{80, 120, 0} {
		c := s.cli("pt_x")
		if width > 0 {
			c.env = map[string]string{"COLUMNS": fmt.Sprint(width)}
		}
		for _, byFinding := range []bool{false, true} {
			args := []string{"findings", fakeID, "--fail-on", "high"}
			if byFinding {
				args = append(args, "--by-finding")
			}
			r := c.run(t, args...)
			expectCode(t, r, 1)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			want, max := 1+5, width
			if byFinding {
				want = 1 + 9
			}
			if max == 0 {
				max = 100
			}
			if len(lines) != want {
				t.Errorf("width %d, by finding %v: %d lines, want %d:\n%s", width, byFinding, len(lines), want, r.stdout)
			}
			for _, l := range lines {
				if utf8.RuneCountInString(l) > max {
					t.Errorf("width %d: line of %d: %q", max, utf8.RuneCountInString(l), l)
				}
			}
			if !byFinding && (!strings.Contains(lines[0], "COUNT") || !strings.Contains(r.stdout, "…")) {
				t.Errorf("width %d: no count column or nothing truncated:\n%s", max, r.stdout)
			}
			if !byFinding && strings.Count(r.stdout, "FAIL") != 3 { // two CVEs and the Git repository
				t.Errorf("width %d: failing issues:\n%s", max, r.stdout)
			}
			t.Logf("COLUMNS=%d by-finding=%v:\n%s", width, byFinding, r.stdout)
		}
	}
}

// A baseline saved before this release (findings JSON with fingerprints
// of the old title rule) still passes the gate; the SARIF and JUnit of the
// same run are by issue.
func TestOldBaselineStillPasses(t *testing.T) {
	t.Parallel()
	s := issuesAPI(t, true)
	c := s.cli("pt_x")
	var rec struct {
		Findings []scans.Finding `json:"findings"`
	}
	if err := json.Unmarshal(fakeRecord(t, fakeID, true), &rec); err != nil {
		t.Fatal(err)
	}
	type oldFinding struct {
		Title       string `json:"title"`
		Severity    string `json:"severity"`
		Host        string `json:"host"`
		Port        *int   `json:"port"`
		Fingerprint string `json:"fingerprint"`
	}
	var old []oldFinding
	for _, f := range rec.Findings {
		if f.Fingerprint == f.LegacyFingerprint() {
			t.Fatalf("the new fingerprint of %q is the old one", f.Title)
		}
		old = append(old, oldFinding{f.Title, string(f.Severity), f.Host, f.Port, f.LegacyFingerprint()})
	}
	dir := t.TempDir()
	write := func(name string, v any) string {
		raw, _ := json.Marshal(v)
		path := filepath.Join(dir, name)
		os.WriteFile(path, raw, 0o600)
		return path
	}
	full := write("old.json", old)
	sarif, junit := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.xml")
	r := c.run(t, "scan", "demo.test", "--wait", "--baseline", full, "--fail-on", "low", "--sarif", sarif, "--junit", junit)
	expectCode(t, r, 0)
	if !strings.Contains(r.stderr, "Quality gate passed") || !strings.Contains(r.stderr, "9 findings in 5 issues") || !strings.Contains(r.stdout, "known") || strings.Contains(r.stdout, " new ") {
		t.Errorf("old baseline:\n%s\n%s", r.stdout, r.stderr)
	}
	raw, _ := os.ReadFile(sarif)
	validateSARIF(t, raw)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID        string `json:"ruleId"`
				BaselineState string `json:"baselineState"`
			} `json:"results"`
		} `json:"runs"`
	}
	json.Unmarshal(raw, &log)
	if n := len(log.Runs[0].Results); n != 5 {
		t.Errorf("%d SARIF results for 5 issues", n)
	}
	for _, res := range log.Runs[0].Results {
		if res.BaselineState != "unchanged" || !strings.Contains(res.RuleID, ".") {
			t.Errorf("result %+v", res)
		}
	}
	checkJUnit(t, junit, 0, 5)

	// Without one finding of the CSP issue (on mail.demo.test), exactly it
	// is new: the gate fails on one finding, the issue is "1 new".
	var part []oldFinding
	for _, f := range old {
		if !(f.Host == "mail.demo.test") {
			part = append(part, f)
		}
	}
	r = c.run(t, "findings", fakeID, "--baseline", write("part.json", part), "--fail-on", "low")
	expectCode(t, r, 1)
	if !strings.Contains(r.stderr, "Quality gate failed: 1 finding(s)") || !strings.Contains(r.stdout, "1 new") {
		t.Errorf("one new finding:\n%s\n%s", r.stdout, r.stderr)
	}
	// The new SARIF, used as a baseline, knows every finding.
	expectCode(t, c.run(t, "findings", fakeID, "--baseline", sarif, "--fail-on", "low"), 0)
}

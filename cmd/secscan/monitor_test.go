package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"secscan/cmd/secscan/internal/client"
	"secscan/shared/scans"
)

// verifiedDemo registers demo.test for the CLI's user and verifies it.
func verifiedDemo(t *testing.T, s *stack, c *cliRun) {
	t.Helper()
	expectCode(t, c.run(t, "targets", "add", "demo.test", "--method", "http_file"), 0)
	r := c.run(t, "targets", "list", "--json")
	var ts []struct {
		Token string `json:"verification_token"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ts); err != nil || len(ts) != 1 {
		t.Fatalf("targets list --json: %v %s", err, r.stdout)
	}
	if err := s.demo.PublishChallenge(ts[0].Token); err != nil {
		t.Fatal(err)
	}
	expectCode(t, c.run(t, "targets", "verify", "demo.test"), 0)
}

// TestMonitoringCLI drives schedules, the issue ledger, triage and the
// triage-aware gate against the local stack: a scan fails --fail-on high;
// its high issues are marked false_positive; the schedule's run (a later
// scan of the target) then passes the gate, and fails it again with
// --include-triaged.
func TestMonitoringCLI(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	c := s.cli(s.newUser(t, "starter", nil))
	verifiedDemo(t, s, c)

	// Schedules: bad input is a usage error naming the flag; a cadence
	// the plan does not allow is the API's 403 naming the plan.
	r := c.run(t, "schedules", "create", "demo.test", "--cadence", "hourly")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "--cadence must be daily, weekly or monthly") {
		t.Errorf("bad cadence: %s", r.stderr)
	}
	expectCode(t, c.run(t, "schedules", "create", "demo.test"), 2)
	r = c.run(t, "schedules", "create", "demo.test", "--cadence", "daily", "--type", "web", "--tier", "quick")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 403)") || !strings.Contains(r.stderr, "pro") {
		t.Errorf("daily on starter: %s", r.stderr)
	}
	r = c.run(t, "schedules", "create", "demo.test", "--cadence", "weekly", "--type", "web", "--tier", "quick", "--json")
	expectCode(t, r, 0)
	var sch client.Schedule
	if err := json.Unmarshal([]byte(r.stdout), &sch); err != nil || !strings.HasPrefix(sch.ID, "sch_") ||
		sch.Cadence != "weekly" || sch.ScanType != "web" || sch.Tier != "quick" || !sch.Enabled || sch.NextRunAt == nil {
		t.Fatalf("schedules create --json: %v %s", err, r.stdout)
	}
	r = c.run(t, "schedules", "list")
	expectCode(t, r, 0)
	if !strings.Contains(r.stdout, sch.ID) || !strings.Contains(r.stdout, "weekly") || !strings.HasPrefix(r.stdout, "ID ") {
		t.Errorf("schedules list:\n%s", r.stdout)
	}

	// Scan 1 fails the gate on its high findings.
	r = c.run(t, "scan", "demo.test", "--type", "web", "--tier", "quick", "--wait", "--fail-on", "high")
	expectCode(t, r, 1)
	first := showScan(t, c, scanIDPattern.FindString(r.stderr))
	var highKeys []string
	for _, is := range first.Issues {
		if is.Severity.Rank() <= scans.High.Rank() {
			highKeys = append(highKeys, is.Key)
		}
	}
	if len(highKeys) == 0 {
		t.Fatalf("scan 1 has no high issue: %+v", first.Issues)
	}

	// The ledger lists scan 1's issues, open and untriaged.
	r = c.run(t, "issues", "demo.test", "--status", "open", "--json")
	expectCode(t, r, 0)
	var ledger []client.LedgerEntry
	if err := json.Unmarshal([]byte(r.stdout), &ledger); err != nil || len(ledger) != len(first.Issues) {
		t.Fatalf("issues --json: %d entries for %d issues: %v\n%s", len(ledger), len(first.Issues), err, r.stdout)
	}
	for _, e := range ledger {
		if e.Status != "open" || e.Triage != nil || e.LastScanID != first.ID {
			t.Errorf("ledger entry %+v", e)
		}
	}
	expectCode(t, c.run(t, "issues", "demo.test", "--status", "closed"), 2)

	// Triage: bad input is refused before any request, an unknown key is
	// the API's 404, and each high issue is marked a false positive.
	for args, want := range map[string]string{
		"--state false_positive":                                      "--reason is required",
		"--state maybe --reason x":                                    "--state must be",
		"--state false_positive --reason x --expires 2099-01-01":      "--expires applies only to --state accepted_risk",
		"--state accepted_risk --reason x --expires 2001-01-01":       "--expires must be in the future",
		"--state accepted_risk --reason x --expires soon":             "--expires must be a date",
		"--state false_positive --reason " + strings.Repeat("x", 501): "at most 500 characters",
	} {
		r = c.run(t, append([]string{"triage", "demo.test", highKeys[0]}, strings.Fields(args)...)...)
		expectCode(t, r, 2)
		if !strings.Contains(r.stderr, want) {
			t.Errorf("triage %s: want %q in %s", args, want, r.stderr)
		}
	}
	r = c.run(t, "triage", "demo.test", "no.such-check", "--state", "false_positive", "--reason", "x")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 404)") {
		t.Errorf("unknown key: %s", r.stderr)
	}
	for _, key := range highKeys {
		r = c.run(t, "triage", "demo.test", key, "--state", "false_positive", "--reason", "the demo target's intended weakness")
		expectCode(t, r, 0)
		if !strings.Contains(r.stdout, key+" is false_positive") {
			t.Errorf("triage %s:\n%s", key, r.stdout)
		}
	}
	r = c.run(t, "issues", "demo.test", "--state", "false_positive")
	expectCode(t, r, 0)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 1+len(highKeys) || !strings.Contains(r.stdout, "false_positive") {
		t.Errorf("issues --state false_positive, %d keys:\n%s", len(highKeys), r.stdout)
	}

	// The schedule's run is a later scan of the target: its issues carry
	// the triage, and the gate ignores them unless --include-triaged.
	r = c.run(t, "schedules", "run", sch.ID)
	expectCode(t, r, 0)
	second := scanIDPattern.FindString(r.stdout)
	if second == "" || second == first.ID {
		t.Fatalf("schedules run:\n%s", r.stdout)
	}
	var rec client.Scan
	await(t, "the schedule's scan to end", func() bool {
		rec = showScan(t, c, second)
		return rec.Terminal()
	})
	if rec.Status != client.Completed {
		t.Fatalf("scan 2 %s", rec.Status)
	}
	triaged := 0
	for _, is := range rec.Issues {
		if is.Triage != nil && is.Triage.State == "false_positive" {
			triaged++
		}
	}
	if triaged != len(highKeys) {
		t.Errorf("scan 2 carries %d triaged issues, want %d", triaged, len(highKeys))
	}
	r = c.run(t, "findings", second, "--fail-on", "high")
	expectCode(t, r, 0)
	if !strings.Contains(r.stderr, "Quality gate passed") || !strings.Contains(r.stderr, "triaged finding(s) ignored") ||
		!strings.Contains(r.stdout, "triaged") {
		t.Errorf("gate with triage:\n%s\n%s", r.stdout, r.stderr)
	}
	r = c.run(t, "findings", second, "--fail-on", "high", "--include-triaged")
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("--include-triaged table:\n%s", r.stdout)
	}
	// As CI runs it: scan --wait with the gate passes (its JUnit says why).
	junit := t.TempDir() + "/junit.xml"
	r = c.run(t, "scan", "demo.test", "--type", "web", "--tier", "quick", "--wait", "--fail-on", "high", "--junit", junit)
	expectCode(t, r, 0)
	if raw, _ := os.ReadFile(junit); !strings.Contains(r.stderr, "triaged finding(s) ignored") ||
		!strings.Contains(string(raw), "triaged false_positive: the demo target") {
		t.Errorf("scan --wait --fail-on high with triage:\n%s\n%s", r.stderr, raw)
	}

	// Every table fits 60 and 120 columns; at 60 something is cut with "…".
	for _, width := range []int{60, 120} {
		c.env = map[string]string{"COLUMNS": fmt.Sprint(width)}
		for _, args := range [][]string{{"issues", "demo.test"}, {"schedules", "list"}, {"scans", "list"},
			{"targets", "list"}, {"findings", second}, {"scans", "show", second}} {
			r = c.run(t, args...)
			expectCode(t, r, 0)
			for _, l := range tableLines(args, r.stdout) {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%v at %d columns: line of %d: %q", args, width, n, l)
				}
			}
		}
		if r = c.run(t, "findings", second); width == 60 && !strings.Contains(r.stdout, "…") {
			t.Errorf("findings at %d columns, nothing cut:\n%s", width, r.stdout)
		}
		r = c.run(t, "issues", "demo.test")
		if !strings.Contains(r.stdout, "web.header.x-content-type-options") || !strings.Contains(r.stdout, "false_positive") {
			t.Errorf("issues at %d columns: the keys and the triage stay whole:\n%s", width, r.stdout)
		}
		t.Logf("issues at %d columns:\n%s", width, r.stdout)
	}
	c.env = nil

	// Removing the schedule keeps its scans.
	r = c.run(t, "schedules", "rm", sch.ID)
	expectCode(t, r, 0)
	if r = c.run(t, "schedules", "list"); !strings.Contains(r.stdout, "No schedules.") {
		t.Errorf("schedules list after rm:\n%s", r.stdout)
	}
	expectCode(t, c.run(t, "schedules", "rm", "demo.test"), 2)
	r = c.run(t, "schedules", "run", sch.ID)
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 404)") {
		t.Errorf("run of a removed schedule: %s", r.stderr)
	}
	showScan(t, c, second)
}

// tableLines are the lines of the tables in what a command printed: all of
// it, but for scans show, whose summary is prose, the steps and issues.
func tableLines(args []string, out string) []string {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if args[0] != "scans" || args[1] != "show" {
		return lines
	}
	var in bool
	var tables []string
	for _, l := range lines {
		switch {
		case l == "Agent steps:" || strings.HasPrefix(l, "Issues: "):
			in = true
		case l == "":
			in = false
		case in:
			tables = append(tables, l)
		}
	}
	return tables
}

// monitorAPI serves a target with long issue titles and a schedule with a
// long error, for the table layouts.
func monitorAPI(t *testing.T) *stack {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/targets":
			fmt.Fprint(w, `[{"id":"tgt_01J00000000000000000000001","target":"a-rather-long-subdomain.of.demo.test","method":"dns_txt","verified":true,"created_at":"2026-11-26T07:00:00Z"}]`)
		case "/api/targets/tgt_01J00000000000000000000001/issues":
			fmt.Fprint(w, `[{"key":"vuln.known-cve:CVE-2021-41773","check":"vuln.known-cve","cve":"CVE-2021-41773","title":"Apache HTTP Server 2.4.49: path traversal and remote code execution when mod_cgi is enabled","severity":"critical","status":"open","first_seen_at":"2026-11-20T07:00:00Z","last_seen_at":"2026-11-26T07:00:00Z","last_scan_id":"scn_01J00000000000000000000001","fixed_at":null,"triage":{"state":"accepted_risk","reason":"patched upstream","expires_at":"2099-01-01T00:00:00Z","updated_at":"2026-11-26T07:00:00Z","updated_by":"usr_x"}},
{"key":"web.header.csp","check":"web.header.csp","cve":null,"title":"Missing Content-Security-Policy header on every page of the site","severity":"low","status":"fixed","first_seen_at":"2026-11-20T07:00:00Z","last_seen_at":"2026-11-21T07:00:00Z","last_scan_id":"scn_01J00000000000000000000001","fixed_at":"2026-11-26T07:00:00Z","triage":{"state":"accepted_risk","reason":"old","expires_at":"2026-01-01T00:00:00Z","updated_at":"2025-11-26T07:00:00Z","updated_by":"usr_x"}}]`)
		case "/api/schedules":
			fmt.Fprint(w, `[{"id":"sch_01J00000000000000000000001","target":"a-rather-long-subdomain.of.demo.test","target_id":"tgt_01J00000000000000000000001","scan_type":"full","tier":"standard","cadence":"weekly","callback_url":null,"max_credits":200,"enabled":true,"next_run_at":"2026-12-03T07:00:00Z","last_scan_id":"scn_01J00000000000000000000001","last_error":"Monthly credit allowance exhausted: 1000 of 1000 credits used; it renews on 2026-12-01","created_at":"2026-11-26T07:00:00Z"}]`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return &stack{base: srv.URL}
}

// The issues and schedules tables fit 60 and 120 columns, cut long cells
// with "…", keep the issue keys and schedule ids whole, and show an
// expired acceptance as no triage.
func TestMonitoringTablesFitTheWidth(t *testing.T) {
	t.Parallel()
	c := monitorAPI(t).cli("pt_x")
	for _, width := range []int{60, 120} {
		c.env = map[string]string{"COLUMNS": fmt.Sprint(width)}
		for _, args := range [][]string{{"issues", "a-rather-long-subdomain.of.demo.test"}, {"schedules", "list"}, {"targets", "list"}} {
			r := c.run(t, args...)
			expectCode(t, r, 0)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%v at %d: line of %d: %q", args, width, n, l)
				}
			}
			if args[0] != "targets" && !strings.Contains(r.stdout, "…") {
				t.Errorf("%v at %d: nothing cut:\n%s", args, width, r.stdout)
			}
			for _, whole := range []string{"vuln.known-cve:CVE-2021-41773", "sch_01J00000000000000000000001", "tgt_01J00000000000000000000001"} {
				if strings.Contains(r.stdout, whole[:8]) && !strings.Contains(r.stdout, whole) {
					t.Errorf("%v at %d: %s cut:\n%s", args, width, whole, r.stdout)
				}
			}
			t.Logf("%v at %d columns:\n%s", args, width, r.stdout)
		}
	}
	c.env = map[string]string{"COLUMNS": "120"}
	r := c.run(t, "issues", "tgt_01J00000000000000000000001")
	var csp string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "web.header.csp") {
			csp = l
		}
	}
	if !strings.Contains(r.stdout, "accepted_risk until 2099-01-01") || strings.Contains(csp, "accepted") || !strings.Contains(csp, "fixed") {
		t.Errorf("triage column:\n%s", r.stdout)
	}
}

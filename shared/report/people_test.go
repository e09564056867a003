package report_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"secscan/shared/plainerr"
	"secscan/shared/report"
	"secscan/shared/scans"
)

// rawErrorSteps are steps recorded with Go's error strings in their
// outcomes, as outcomes were before the agent wrote them in plain words.
func rawErrorSteps(at time.Time) []scans.Step {
	outcomes := []string{
		"Tool error: dial tcp 127.0.0.2:53: connect: connection refused",
		"ns1.example.com: read udp 127.0.0.1:53124->127.0.0.2:53: i/o timeout; 0 findings",
		`Tool error: Get "https://shop.example.com:8443/": context deadline exceeded`,
		"lookup gone.shop.example.com on 127.0.0.53:53: no such host",
		"count %!d(string=three) of <nil>",
	}
	var steps []scans.Step
	for i, o := range outcomes {
		steps = append(steps, scans.Step{Seq: i + 1, Tool: "http_check", Input: json.RawMessage(`{}`), Status: scans.StepFailed, Outcome: o, StartedAt: at})
	}
	return steps
}

// TestReportsHaveNoGoErrors scans every rendered format of the test scans
// for Go error patterns: a report is read by people, not by Go programmers.
func TestReportsHaveNoGoErrors(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	withErrors := sample(false)
	in := report.Input{Scan: withErrors.Scan, Findings: withErrors.Findings, Steps: rawErrorSteps(at), Surface: withErrors.Surface, GeneratedAt: at}
	hr, _ := hostileReport(false)
	reports := map[string]report.Report{"sample": sample(true), "raw errors": report.Build(in), "hostile": hr}
	for name, r := range reports {
		for format, body := range map[string][]byte{"md": report.Markdown(r), "html": report.HTML(r), "csv": report.CSV(r)} {
			for _, p := range plainerr.GoErrorPatterns {
				if i := strings.Index(string(body), p); i >= 0 {
					t.Errorf("%s %s holds %q: …%s…", name, format, p, body[max(0, i-60):min(len(body), i+60)])
				}
			}
		}
	}
	md := string(report.Markdown(report.Build(in)))
	for _, plain := range []string{"connection refused", "timed out", "the name does not exist"} {
		if !strings.Contains(md, plain) {
			t.Errorf("Markdown lacks the plain words %q", plain)
		}
	}
}

// TestRemediationPlanGroupsByComponent: ten CVEs of one component are one
// upgrade, to the highest fixed release, naming where the findings are.
func TestRemediationPlanGroupsByComponent(t *testing.T) {
	t.Parallel()
	var findings []scans.Finding
	for i := range 10 {
		findings = append(findings, scans.Finding{
			ID: fmt.Sprintf("fnd_%02d", i), Title: fmt.Sprintf("Apache HTTP Server: issue %d (CVE-2021-%05d)", i, i), Severity: scans.High,
			Host: "demo.secscan.test", Port: ptr(8080), CVE: ptr(fmt.Sprintf("CVE-2021-%05d", i)), CVSS: ptr(7.0 + float64(i)/10),
			Remediation: fmt.Sprintf("Upgrade Apache HTTP Server to 2.4.%d or later (or a distribution package that includes the fix for CVE-2021-%05d).", 52+i, i),
		})
	}
	findings = append(findings,
		scans.Finding{ID: "fnd_eol", Title: "Apache HTTP Server 2.4 is end of life", Severity: scans.Medium, Host: "demo.secscan.test", Port: ptr(8443),
			Remediation: "Upgrade to a supported Apache HTTP Server release (or a vendor that still supports this branch)."},
		scans.Finding{ID: "fnd_git", Title: "Exposed Git repository", Severity: scans.Critical, Host: "demo.secscan.test", Port: ptr(8443), Confidence: scans.Certain,
			Remediation: "Block access to version-control directories at the web server (e.g. deny /.git). Then rotate what it held."},
		scans.Finding{ID: "fnd_hsts1", Title: "Missing HSTS", Severity: scans.Low, Host: "a.demo.secscan.test", Port: ptr(443), Remediation: "Send Strict-Transport-Security."},
		scans.Finding{ID: "fnd_hsts2", Title: "Missing HSTS", Severity: scans.Low, Host: "b.demo.secscan.test", Port: ptr(443), Remediation: "Send Strict-Transport-Security."},
		scans.Finding{ID: "fnd_none", Title: "Informational", Severity: scans.Info, Host: "demo.secscan.test"},
	)
	r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x", Target: "demo.secscan.test", Type: scans.Full}, Findings: findings})
	var got []string
	for _, a := range r.Plan {
		got = append(got, a.Text+" — "+a.Resolves())
	}
	want := []string{
		"Block access to version-control directories at the web server (e.g. deny /.git) — resolves 1 finding on demo.secscan.test:8443",
		"Upgrade Apache HTTP Server to 2.4.61 or later — resolves 11 findings on demo.secscan.test:8080, demo.secscan.test:8443",
		"Send Strict-Transport-Security — resolves 2 findings on a.demo.secscan.test:443, b.demo.secscan.test:443",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The plan names findings by their numbers in the one order.
	if r.Plan[0].Findings[0] != 1 || r.Findings[0].ID != "fnd_git" {
		t.Errorf("first action resolves #%d, first finding %s", r.Plan[0].Findings[0], r.Findings[0].ID)
	}
	md := mdVisible(t, report.Markdown(r))
	if !strings.Contains(md, "Upgrade Apache HTTP Server to 2.4.61 or later (High) — resolves 11 findings") {
		t.Errorf("Markdown lacks the grouped action:\n%s", md)
	}
}

// TestScopeAndMarkingInEveryFormat: the scope and authorisation statement
// and the confidentiality marking are in Markdown and HTML (the PDF's are
// checked in report/pdf).
func TestScopeAndMarkingInEveryFormat(t *testing.T) {
	t.Parallel()
	r := sample(false)
	want := []string{
		"Scope and authorisation", "The account holder proved control of shop.example.com with a DNS TXT record; last verified successfully 2026-11-20 08:30:00 UTC.",
		"2026-11-20 09:30:02 UTC to 2026-11-20 09:31:35 UTC", "37 of 200 credits used",
		"legacy.shop.example.com — it resolves only to a private address", "www.shop.example.com",
		"Confidential — prepared for the account holder of shop.example.com", "Remediation plan",
	}
	for name, text := range map[string]string{"md": mdVisible(t, report.Markdown(r)), "html": htmlVisible(t, report.HTML(r))} {
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
	page := string(report.HTML(r))
	if n := strings.Count(page, "Confidential — prepared for the account holder of shop.example.com"); n < 2 {
		t.Errorf("HTML carries the marking %d times, want header and footer", n)
	}
	if !strings.Contains(page, `@top-center { content: "Confidential — prepared for the account holder of shop.example.com";`) {
		t.Error("the printed HTML does not repeat the marking on every page")
	}
	// A target deleted since: the statement says the record is gone.
	gone := report.Build(report.Input{Scan: r.Scan})
	if !strings.Contains(gone.Scope.Ownership, "no longer on file") {
		t.Errorf("ownership without a record: %q", gone.Scope.Ownership)
	}
}

// TestConfidenceShownAndTentativeDistinct: every format shows confidence,
// and a tentative finding is marked apart from the others.
func TestConfidenceShownAndTentativeDistinct(t *testing.T) {
	t.Parallel()
	r := sample(false)
	md := string(report.Markdown(r))
	if !strings.Contains(md, "| ⚠ **tentative** |") || !strings.Contains(md, "| certain |") {
		t.Error("Markdown does not show confidence, tentative marked")
	}
	page := string(report.HTML(r))
	if !strings.Contains(page, `class="finding sev-high tentative"`) || !strings.Contains(page, `<span class="conf">tentative</span>`) {
		t.Error("HTML does not mark the tentative finding")
	}
	rows := readCSV(t, report.CSV(r))
	col := slices.Index(rows[0], "confidence")
	if col < 0 {
		t.Fatalf("no confidence column in %q", rows[0])
	}
	for _, row := range rows[1:] {
		if row[col] == "" {
			t.Errorf("CSV row %s has no confidence", row[0])
		}
	}
}

// TestRemediationPlanGroupsByCheck: one action per check, however its
// findings word the fix; two checks whose remediations start alike stay two
// actions (their fixes differ).
func TestRemediationPlanGroupsByCheck(t *testing.T) {
	t.Parallel()
	findings := []scans.Finding{
		{ID: "fnd_1", Check: "web.header.hsts", Title: "Missing HSTS", Severity: scans.Low, Host: "a.example.com", Port: ptr(443),
			Remediation: "Send Strict-Transport-Security with max-age of a year."},
		{ID: "fnd_2", Check: "web.header.hsts", Title: "HSTS header missing", Severity: scans.Low, Host: "b.example.com", Port: ptr(443),
			Remediation: "Add a Strict-Transport-Security header."},
		{ID: "fnd_3", Check: "web.header.csp", Title: "Missing CSP", Severity: scans.Low, Host: "a.example.com", Port: ptr(443),
			Remediation: "Configure the web server."},
		{ID: "fnd_4", Check: "web.header.x-frame-options", Title: "Missing X-Frame-Options", Severity: scans.Low, Host: "a.example.com", Port: ptr(443),
			Remediation: "Configure the web server."},
	}
	r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x", Target: "example.com", Type: scans.Web}, Findings: findings})
	if len(r.Plan) != 3 {
		var got []string
		for _, a := range r.Plan {
			got = append(got, a.Text+" — "+a.Resolves())
		}
		t.Fatalf("plan has %d actions, want 3 (one per check):\n%s", len(r.Plan), strings.Join(got, "\n"))
	}
	for _, a := range r.Plan {
		if strings.Contains(a.Text, "Strict-Transport-Security") && len(a.Findings) != 2 {
			t.Errorf("HSTS action resolves %d findings, want 2", len(a.Findings))
		}
	}
}

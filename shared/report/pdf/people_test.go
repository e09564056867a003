package pdf_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"secscan/shared/plainerr"
	"secscan/shared/report"
	"secscan/shared/scans"
)

// TestPDFForPeople: the PDF of a scan whose steps recorded Go error strings
// shows plain words, the scope and authorisation statement and the
// remediation plan, and a table's header never ends a page.
func TestPDFForPeople(t *testing.T) {
	t.Parallel()
	poppler(t)
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	s := sample(false)
	steps := []scans.Step{
		{Seq: 1, Tool: "dns_check", Input: json.RawMessage(`{}`), Status: scans.StepFailed, Outcome: "Tool error: dial tcp 127.0.0.2:53: connect: connection refused", StartedAt: at},
		{Seq: 2, Tool: "http_check", Input: json.RawMessage(`{}`), Status: scans.StepFailed, Outcome: `Tool error: Get "https://x.example/": context deadline exceeded`, StartedAt: at},
		{Seq: 3, Tool: "tls_check", Input: json.RawMessage(`{}`), Outcome: "n=%!d(string=x) <nil>", StartedAt: at},
	}
	r := report.Build(report.Input{Scan: s.Scan, Findings: s.Findings, Steps: steps, Surface: s.Surface, GeneratedAt: at,
		Verification: &report.Verification{Method: "dns_txt", VerifiedAt: at}})
	path, _ := renderPDF(t, r, report.A4, "people.pdf")
	text := squash(run(t, "pdftotext", "-enc", "UTF-8", path, "-"))
	for _, p := range plainerr.GoErrorPatterns {
		if strings.Contains(text, p) {
			t.Errorf("PDF holds %q", p)
		}
	}
	for _, w := range []string{"connection refused", "timed out", "Scope and authorisation", "with a DNS TXT record",
		"legacy.shop.example.com — it resolves only to a private address", "Remediation plan", "Block /.git at the web server", "? Tentative"} {
		if !strings.Contains(text, w) {
			t.Errorf("PDF lacks %q", w)
		}
	}
}

// TestPDFTableHeaderKeepsRows renders the issues table starting at many
// offsets down a page: wherever its header is drawn, at least three rows
// (or all that are left) follow it on the same page.
func TestPDFTableHeaderKeepsRows(t *testing.T) {
	t.Parallel()
	poppler(t)
	big := large(120, 0)
	total := len(big.Issues) // the rows of the issues table
	if total < 25 {
		t.Fatalf("large(120, 0) has %d issues, want a table of at least 25 rows", total)
	}
	for n := 20; n <= 60; n++ {
		// Attack chains of varying count move the findings table down the page.
		r := big
		r.Summary.AttackChains = make([]string, n)
		for i := range n {
			r.Summary.AttackChains[i] = "A chain sentence that takes about one line of the page, more or less."
		}
		path, _ := renderPDF(t, r, report.A4, "keep.pdf")
		pages := strings.Split(run(t, "pdftotext", "-layout", "-enc", "UTF-8", path, "-"), "\f")
		seen := 0 // the highest finding number drawn so far
		for i, pg := range pages {
			inTable, rows := false, 0
			for _, line := range strings.Split(pg, "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) > 3 && f[0] == "#" && f[1] == "Severity" && f[2] == "Confidence":
					inTable, rows = true, 0
				case len(f) > 0 && f[0] == "Issues" && len(f) > 2 && f[1] == "in" && f[2] == "detail":
					inTable = false // the rows of the issues table end here
				case inTable && len(f) > 1 && isNumber(f[0]) && seen < total:
					rows++
					seen++
				}
			}
			if inTable && rows < min(pdfKeep, rows+total-seen) {
				t.Errorf("%d chains: page %d: the issues header is followed by %d rows", n, i+1, rows)
			}
			if seen >= total {
				break
			}
		}
	}
}

const pdfKeep = 3

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func nonEmpty(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

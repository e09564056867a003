package report_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"secscan/shared/report"
	"secscan/shared/report/reporttest"
	"secscan/shared/scans"
)

// csvHeaderRow is the exact header of CONTRACT "Reports".
const csvHeaderRow = "id,severity,title,category,host,port,cve,cwe,cvss,evidence,remediation,references,description,confidence,check,issue"

func readCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	rd := csv.NewReader(bytes.NewReader(data))
	rd.FieldsPerRecord = 16
	rows, err := rd.ReadAll()
	if err != nil {
		t.Fatalf("read CSV: %v", err)
	}
	return rows
}

func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	r := sample(false)
	data := report.CSV(r)
	if !bytes.HasPrefix(data, []byte(csvHeaderRow+"\r\n")) {
		t.Fatalf("header row is not exactly %q: %q", csvHeaderRow, data[:min(len(data), 120)])
	}
	rows := readCSV(t, data)
	if len(rows) != 1+len(r.Findings) {
		t.Fatalf("%d rows, want header + %d findings", len(rows), len(r.Findings))
	}
	// Report order is most severe first: fnd_1 critical, fnd_2 high, fnd_3
	// and fnd_6 medium, fnd_4 low, fnd_5 info.
	want := map[string][]string{
		"fnd_1": {"fnd_1", "critical", "Exposed Git repository (/.git/HEAD)", "web", "shop.example.com", "443", "", "CWE-527", "",
			"GET https://shop.example.com/.git/HEAD → 200: ref: refs/heads/main", "Block /.git at the web server.",
			"https://owasp.org/www-project-web-security-testing-guide/"},
		"fnd_2": {"fnd_2", "high", "Apache HTTP Server: Path traversal (CVE-2021-41773)", "vuln", "shop.example.com", "443", "CVE-2021-41773", "CWE-22", "7.5",
			"Server: Apache/2.4.49 (Unix)", "Upgrade to 2.4.51 or later.", "https://nvd.nist.gov/vuln/detail/CVE-2021-41773"},
		"fnd_3": {"fnd_3", "medium", "Reflected banner " + hostile, "network", "shop.example.com", "2121", "", "", "",
			hostile, "'=cmd|' /C calc'!A0", "https://example.com/a?b=<c>"},
		"fnd_6": {"fnd_6", "medium", "Ünïcödé — “quotes” and emoji 🔥", "dns", "shop.example.com", "", "", "", "",
			"TXT \"v=spf1 +all\"", "'-all", ""},
		"fnd_4": {"fnd_4", "low", "Very long evidence", "web", "www.shop.example.com", "", "", "", "",
			findingByID(r, "fnd_4").Evidence, "Wrap.", ""},
		"fnd_5": {"fnd_5", "info", "Missing security.txt", "web", "shop.example.com", "443", "", "", "",
			"GET /.well-known/security.txt → 404", "Publish one.", "https://securitytxt.org/"},
	}
	if got := strings.Join(rows[0], ","); got != csvHeaderRow {
		t.Errorf("header %q", got)
	}
	for _, h := range reporttest.SampleCSPHosts {
		for _, f := range r.Findings {
			if f.Host == h && f.Check == "web.header.csp" {
				want[f.ID] = []string{f.ID, "low", "Missing Content-Security-Policy header", "web", h, "443", "", "CWE-693", "",
					"GET https://" + h + "/ → 200 text/html; no Content-Security-Policy header", reporttest.SampleCSPRemediation,
					"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP"}
			}
		}
	}
	issues := map[string]int{}
	for i, f := range r.Findings {
		row := rows[i+1]
		// The last two columns: the check code and the issue key.
		if row[14] != string(f.Check) || row[15] != scans.IssueKey(f.Check, f.CVE) || row[14] == "" {
			t.Errorf("row %d: check %q, issue %q", i+1, row[14], row[15])
		}
		issues[row[15]]++
		if !slices.Equal(row[:12], want[f.ID]) {
			t.Errorf("row %d:\n got %q\nwant %q", i+1, row, want[f.ID])
		}
		if row[13] != string(f.DefaultConfidence()) || (f.Description != "" && !strings.Contains(row[12], strings.TrimSpace(f.Description[:min(len(f.Description), 10)]))) {
			t.Errorf("row %d: description/confidence %q, %q; want %q, %q", i+1, row[12], row[13], f.Description, f.DefaultConfidence())
		}
	}
}

// TestCSVCheckAndIssueColumns: one row per finding still (nothing is grouped
// away), and the rows of one issue share its key: the CSP issue of the sample
// has eight rows, one per host name.
func TestCSVCheckAndIssueColumns(t *testing.T) {
	t.Parallel()
	r := sample(false)
	rows := readCSV(t, report.CSV(r))
	if len(rows) != 1+len(r.Findings) || len(r.Findings) != 14 {
		t.Fatalf("%d rows for %d findings", len(rows), len(r.Findings))
	}
	keys := map[string][]string{}
	for _, row := range rows[1:] {
		keys[row[15]] = append(keys[row[15]], row[4])
	}
	if len(keys) != len(r.Issues) || len(r.Issues) != 7 {
		t.Errorf("%d issue keys in the CSV, %d issues in the report, want 7", len(keys), len(r.Issues))
	}
	got := keys["web.header.csp"]
	slices.Sort(got)
	want := slices.Sorted(slices.Values(reporttest.SampleCSPHosts))
	if !slices.Equal(got, want) {
		t.Errorf("web.header.csp rows on %q, want %q", got, want)
	}
}

func TestCSVFormulaInjection(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"=1+1", "'=1+1"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\nx"}, // line breaks come back as LF (RFC 4180 with CRLF records)
		{"\nx", "'\nx"},
		{"\r\n=cmd", "'\n=cmd"},
		{"  =1+1", "'  =1+1"},
		{" \t@SUM(A1)", "' \t@SUM(A1)"},
		{"\n -2", "'\n -2"},
		{" plain", " plain"},
		{"plain =1", "plain =1"},
		{"a\r\nb\rc\nd", "a\nb\nc\nd"},
		{"", ""},
		{"'quoted", "'quoted"},
	}
	var findings []scans.Finding
	for _, c := range cases {
		findings = append(findings, scans.Finding{
			ID: c.in, Severity: scans.Severity(c.in), Title: c.in, Category: scans.Category(c.in), Host: c.in,
			CVE: ptr(c.in), CWE: ptr(c.in), Evidence: c.in, Remediation: c.in, References: []string{c.in},
			Description: c.in, Confidence: scans.Confidence(c.in), Check: scans.CheckCode(c.in), Issue: c.in,
		})
	}
	// Keep the input order: Build would sort them.
	r := report.Report{Scan: scans.Scan{ID: "scn_x"}, Findings: findings}
	rows := readCSV(t, report.CSV(r))
	for i, c := range cases {
		row := rows[i+1]
		for col, name := range strings.Split(csvHeaderRow, ",") {
			want := c.want
			if name == "port" || name == "cvss" {
				want = ""
			}
			if name == "confidence" && c.in == "" {
				want = "certain" // a finding without one is what its tool observed
			}
			if name == "issue" && c.in == "" {
				want = "unclassified" // recorded before check codes
			}
			if row[col] != want {
				t.Errorf("%s of %q = %q, want %q", name, c.in, row[col], want)
			}
		}
	}
}

func TestCSVLineEndingsAndNumbers(t *testing.T) {
	t.Parallel()
	r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x"}, Findings: []scans.Finding{
		{ID: "a", Severity: scans.Critical, Title: "ten", CVSS: ptr(10.0), Port: ptr(8443), Evidence: "two\nlines"},
		{ID: "b", Severity: scans.Low, Title: "negative", CVSS: ptr(-1.0)},
	}})
	data := report.CSV(r)
	for i, c := range data {
		if c == '\n' && (i == 0 || data[i-1] != '\r') {
			t.Fatalf("bare LF at byte %d: %q", i, data)
		}
	}
	rows := readCSV(t, data)
	if got := []string{rows[1][5], rows[1][8], rows[1][9], rows[2][8]}; !slices.Equal(got, []string{"8443", "10.0", "two\nlines", "'-1.0"}) {
		t.Errorf("port, cvss, evidence, cvss = %q", got)
	}
	if empty := report.CSV(report.Build(report.Input{})); string(empty) != csvHeaderRow+"\r\n" {
		t.Errorf("no findings: %q", empty)
	}
}

func BenchmarkCSV(b *testing.B) { benchRender(b, report.CSV) }

func findingByID(r report.Report, id string) scans.Finding {
	for _, f := range r.Findings {
		if f.ID == id {
			return f
		}
	}
	return scans.Finding{}
}

package findings_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/sariftest"
	"secscan/shared/scans"
)

// withIssues is sample() plus what makes issues: a missing CSP header on
// three names of one server (one issue, three locations), a second CVE of
// the same check (its own issue, the same SARIF rule) and a long title.
func withIssues() []client.Finding {
	fs := sample()
	for i, host := range []string{"demo.test", "www.demo.test", "ns1.demo.test"} {
		fs = append(fs, client.Finding{ID: fmt.Sprintf("fnd_csp%d", i), Check: "web.header.csp", Title: "Missing Content-Security-Policy header",
			Severity: "low", Category: "web", Host: host, Port: ptr(8443), Evidence: "GET https://" + host + ":8443/ → no Content-Security-Policy",
			Confidence: "certain", Fingerprint: fmt.Sprintf("fcsp%d0000000000000000000", i), Remediation: "Send a CSP."})
	}
	fs = append(fs,
		client.Finding{ID: "fnd_7", Check: "vuln.known-cve", Title: "Apache HTTP Server: Path traversal and file disclosure (CVE-2021-41773)",
			Severity: "high", Category: "vuln", Host: "demo.test", Port: ptr(8080), CVE: ptr("cve-2021-41773"), CVSS: ptr(7.5),
			Evidence: "Apache HTTP Server 2.4.49", Fingerprint: "f7000000000000000000000"},
		client.Finding{ID: "fnd_8", Check: "web.cookie.flags", Title: "Session cookie set without the Secure, HttpOnly and SameSite attributes on a page that also serves authentication forms over plain HTTP",
			Severity: "medium", Category: "web", Host: "a-very-long-host-name-for-the-table.demo.test", Port: ptr(443), Confidence: "firm", Fingerprint: "f8000000000000000000000"},
	)
	return fs
}

// A baseline saved before check codes holds the old fingerprints: the gate
// knows a finding by the server's old rule (scans.Finding.LegacyFingerprint),
// CVEs trimmed and upper-cased, an empty CVE as none.
func TestGateKnowsLegacyFingerprints(t *testing.T) {
	fs := withIssues()
	fs = append(fs, client.Finding{Host: "Demo.Test", Title: "x", CVE: ptr(" CVE-2020-1 "), Confidence: "certain"},
		client.Finding{Host: "demo.test", Title: "x", CVE: ptr(""), Confidence: "tentative"},
		client.Finding{Host: "demo.test", Title: "y"})
	for _, f := range fs {
		f.Fingerprint = "not-in-the-baseline"
		g := findings.Gate{Baseline: map[string]bool{f.LegacyFingerprint(): true}}
		if g.IsNew(f) {
			t.Errorf("%q on %s: new, but its legacy fingerprint %s is in the baseline", f.Title, f.Host, f.LegacyFingerprint())
		}
		if (findings.Gate{Baseline: map[string]bool{"other": true}}).IsNew(f) == false {
			t.Errorf("%q on %s: known to a baseline without it", f.Title, f.Host)
		}
	}
}

// Without issues in the record (an older server), the CLI groups the
// findings as the server does: the same keys, counts and order.
func TestGroupAgreesWithServer(t *testing.T) {
	fs := withIssues()
	want := scans.GroupIssues(fs)
	got := findings.Group(nil, fs)
	if len(got) != len(want) {
		t.Fatalf("%d issues, server %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Key != w.Key || g.Count != w.Count || g.Severity != w.Severity || g.Confidence != w.Confidence ||
			g.Title != w.Title || len(g.Findings) != w.Count {
			t.Errorf("issue %d: %s %d %s %s %q, server %s %d %s %s %q", i, g.Key, g.Count, g.Severity, g.Confidence, g.Title,
				w.Key, w.Count, w.Severity, w.Confidence, w.Title)
		}
	}
	// The server's issues, when sent, are kept as they are (order, wording)
	// and their findings found by id.
	rev := []client.Issue{}
	for i := len(got) - 1; i >= 0; i-- {
		is := got[i].Issue
		is.Title = "server: " + is.Title
		rev = append(rev, is)
	}
	kept := findings.Group(rev, fs)
	if len(kept) != len(rev) || kept[0].Key != rev[0].Key || kept[0].Title != rev[0].Title || len(kept[0].Findings) != rev[0].Count {
		t.Errorf("server issues not kept: %+v", kept[0])
	}
}

// The issues table fits 80 and 120 columns: no line wider, long titles and
// host lists shortened with "…" or "+N more", never inside a word.
func TestTableWidth(t *testing.T) {
	fs := withIssues()
	for _, width := range []int{80, 120} {
		var buf bytes.Buffer
		gate := findings.Gate{FailOn: "high", Baseline: map[string]bool{"fcsp00000000000000000000": true}}
		if err := findings.WriteTable(&buf, nil, fs, gate, findings.Table{Width: width}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 1+len(findings.Group(nil, fs)) || !strings.HasPrefix(lines[0], "SEVERITY") ||
			!strings.Contains(lines[0], "COUNT") || !strings.Contains(lines[0], "HOSTS") {
			t.Fatalf("width %d: header and one line per issue:\n%s", width, out)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line of %d columns: %q", width, n, l)
			}
		}
		if !strings.Contains(out, "…") {
			t.Errorf("width %d: nothing truncated:\n%s", width, out)
		}
		// Every truncated title ends where a word of the original ends.
		for _, f := range fs {
			for _, l := range lines {
				i := strings.Index(l, "…")
				if i < 0 {
					continue
				}
				field := strings.Fields(l[:i])
				if len(field) < 2 {
					continue
				}
				prefix := strings.Join(field[1:], " ")
				if strings.HasPrefix(f.Title, prefix) && len(prefix) < len(f.Title) {
					next := f.Title[len(prefix)]
					if next != ' ' && next != ':' && next != ',' && next != '-' {
						t.Errorf("width %d: %q cut inside a word (%q)", width, prefix, f.Title)
					}
				}
			}
		}
		csp := lineWith(lines, "Missing Content")
		if !strings.Contains(csp, " 3 ") || !strings.Contains(csp, "2 new") {
			t.Errorf("width %d: the CSP issue has 3 findings, 2 new: %q", width, csp)
		}
		if !strings.Contains(csp, "demo.test:8443 +2") {
			t.Errorf("width %d: CSP hosts: %q", width, csp)
		}
		t.Logf("width %d:\n%s", width, out)
	}
	var buf bytes.Buffer
	if err := findings.WriteTable(&buf, nil, sample(), findings.Gate{FailOn: "high"}, findings.Table{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "issues-table.golden", buf.Bytes())
}

func lineWith(lines []string, s string) string {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// A baseline saved before check codes holds fingerprints of the old
// (title) rule: the same findings, now with new fingerprints, are known.
func TestBaselineOldRule(t *testing.T) {
	fs := withIssues()
	var old []map[string]any
	for _, f := range fs {
		old = append(old, map[string]any{"title": f.Title, "host": f.Host, "fingerprint": f.LegacyFingerprint()})
	}
	raw, _ := json.Marshal(old)
	base, err := findings.ParseBaseline(raw)
	if err != nil {
		t.Fatal(err)
	}
	gate := findings.Gate{FailOn: "low", Baseline: base}
	if n := len(gate.Failures(fs)); n != 0 {
		t.Errorf("%d findings new against a baseline of the same findings under the old rule", n)
	}
	// A finding whose title, host or port changed is new.
	moved := fs[1]
	moved.Port = ptr(9443)
	moved.Fingerprint = "fmoved000000000000000000"
	if !gate.IsNew(moved) {
		t.Error("a finding on another port matched the old rule")
	}
	// And the new rule matches by itself.
	if (findings.Gate{Baseline: map[string]bool{fs[1].Fingerprint: true}}).IsNew(fs[1]) {
		t.Error("the new fingerprint does not match")
	}
}

// SARIF: valid against the 2.1.0 schema, one rule per check code, one
// result per issue with all its locations, the issue key and locations as
// the partial fingerprint, the findings' fingerprints readable as a baseline.
func TestSARIFByIssue(t *testing.T) {
	fs := withIssues()
	var buf bytes.Buffer
	gate := findings.Gate{Baseline: map[string]bool{"fcsp00000000000000000000": true}}
	if err := findings.WriteSARIF(&buf, findings.Meta{Scan: client.Scan{ID: "scn_x", Target: "demo.test", ScanType: "full",
		Tier: "standard", Status: "completed"}}, fs, gate); err != nil {
		t.Fatal(err)
	}
	run := sariftest.OneRun(t, buf.Bytes())
	groups := findings.Group(nil, fs)
	if len(run.Results) != len(groups) {
		t.Fatalf("%d results for %d issues", len(run.Results), len(groups))
	}
	checks := map[scans.CheckCode]bool{}
	for _, f := range fs {
		checks[f.Check] = true
	}
	if len(run.Tool.Driver.Rules) != len(checks) {
		t.Errorf("%d rules for %d check codes", len(run.Tool.Driver.Rules), len(checks))
	}
	for _, r := range run.Tool.Driver.Rules {
		if !checks[scans.CheckCode(r.ID)] {
			t.Errorf("rule %q is not a check code", r.ID)
		}
	}
	for i, res := range run.Results {
		g := groups[i]
		if res.RuleID != string(g.Check) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: rule %s (index %d), want %s", i, res.RuleID, res.RuleIndex, g.Check)
		}
		if len(res.Locations) != g.Count {
			t.Errorf("result %s: %d locations, want %d", g.Key, len(res.Locations), g.Count)
		}
		if fp := res.PartialFingerprints[findings.IssueFingerprintKey]; !strings.HasPrefix(fp, g.Key+"@") {
			t.Errorf("result %s: partial fingerprint %q", g.Key, fp)
		}
		wantState := "new"
		if g.Check == "web.header.csp" {
			wantState = "updated"
		}
		if res.BaselineState != wantState {
			t.Errorf("result %s: baselineState %s, want %s", g.Key, res.BaselineState, wantState)
		}
	}
	// Two CVEs of one check: two results, one rule.
	cve := 0
	for _, res := range run.Results {
		if res.RuleID == "vuln.known-cve" {
			cve++
		}
	}
	if cve != 2 {
		t.Errorf("%d results of vuln.known-cve, want 2", cve)
	}
	// The log is a baseline of every finding.
	base, err := findings.ParseBaseline(buf.Bytes())
	if err != nil || len(base) != len(fs) {
		t.Errorf("SARIF as a baseline: %d fingerprints of %d (%v)", len(base), len(fs), err)
	}
	// Locations change the partial fingerprint; the same locations keep it.
	a, b := groups[0], groups[0]
	b.Locations = append(append([]client.Location{}, b.Locations...), client.Location{Host: "other.demo.test", Port: ptr(1)})
	if findings.IssueFingerprint(a) == findings.IssueFingerprint(b) || findings.IssueFingerprint(a) != findings.IssueFingerprint(groups[0]) {
		t.Error("the partial fingerprint does not follow the locations")
	}
}

// JUnit: one test case per issue; the CSP issue (low) fails a low gate
// once, however many hosts it is on.
func TestJUnitOneCasePerIssue(t *testing.T) {
	fs := withIssues()
	var buf bytes.Buffer
	if err := findings.WriteJUnit(&buf, findings.Meta{}, fs, findings.Gate{FailOn: "low"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	groups := findings.Group(nil, fs)
	if doc.Tests != len(groups) || len(doc.Suites[0].Cases) != len(groups) {
		t.Fatalf("%d cases for %d issues", len(doc.Suites[0].Cases), len(groups))
	}
	for i, c := range doc.Suites[0].Cases {
		if !strings.HasPrefix(c.Name, groups[i].Key+": ") {
			t.Errorf("case %d: %q, want issue %s", i, c.Name, groups[i].Key)
		}
		if c.Failure == nil && groups[i].Severity != "info" {
			t.Errorf("case %s should fail a low gate", c.Name)
		}
	}
}

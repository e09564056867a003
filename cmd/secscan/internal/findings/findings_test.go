package findings_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func ptr[T any](v T) *T { return &v }

// sample is a small scan's findings, with hostile target text: a terminal
// escape sequence, a bidirectional override, Markdown and HTML.
func sample() []client.Finding {
	return []client.Finding{
		{ID: "fnd_1", Check: "vuln.known-cve", Title: "Apache HTTP Server: Path traversal (CVE-2021-42013)", Severity: "critical", Category: "vuln", Host: "demo.test",
			Port: ptr(8080), Evidence: "Apache HTTP Server 2.4.49 seen in banner of http on demo.test:8080", CVE: ptr("CVE-2021-42013"),
			CVSS: ptr(9.8), Confidence: "tentative", Fingerprint: "f1aaaaaaaaaaaaaaaaaaaaaa", Remediation: "Upgrade Apache.",
			References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2021-42013"}},
		{ID: "fnd_2", Check: "web.exposed-git", Title: "Exposed Git repository (/.git/HEAD)", Severity: "high", Category: "web", Host: "demo.test", Port: ptr(8443),
			Evidence: "GET https://demo.test:8443/.git/HEAD → 200 (text/plain, 21 bytes): ref: refs/heads/main", Confidence: "certain",
			Fingerprint: "f2bbbbbbbbbbbbbbbbbbbbbb", Remediation: "Remove .git from the web root.", CWE: ptr("CWE-538")},
		{ID: "fnd_3", Check: "network.banner", Title: "Banner \x1b[31mred\x1b[0m and \u202eevil | <b>*bold*</b> [x](javascript:alert(1))", Severity: "medium", Category: "network",
			Host: "demo.test", Port: ptr(2121), Evidence: "220 \x1b]0;pwned\x07 hello", Confidence: "firm",
			Fingerprint: "f3cccccccccccccccccccccc", Remediation: "Hide the banner."},
		{ID: "fnd_4", Check: "dns.spf.permissive", Title: "SPF record allows any sender (+all)", Severity: "high", Category: "dns", Host: "demo.test",
			Evidence: `TXT demo.test: "v=spf1 +all"`, Confidence: "certain", Fingerprint: "f4dddddddddddddddddddddd", Remediation: "Use -all."},
		{ID: "fnd_5", Check: "web.security-txt", Title: "Missing security.txt", Severity: "info", Category: "web", Host: "demo.test", Port: ptr(8443),
			Evidence: "GET https://demo.test:8443/.well-known/security.txt → 404", Confidence: "certain", Fingerprint: "f5eeeeeeeeeeeeeeeeeeeeee"},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestTableGolden(t *testing.T) {
	var buf bytes.Buffer
	gate := findings.Gate{FailOn: "high", Baseline: map[string]bool{"f2bbbbbbbbbbbbbbbbbbbbbb": true}}
	if err := findings.WriteTable(&buf, nil, sample(), gate, findings.Table{ByFinding: true}); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(buf.Bytes(), "\x1b\x07\u202e") {
		t.Fatalf("control characters reach the terminal: %q", buf.String())
	}
	golden(t, "table.golden", buf.Bytes())
}

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	m := findings.Meta{Scan: client.Scan{ID: "scn_01J00000000000000000000000", Target: "demo.test", ScanType: "full",
		Tier: "standard", Status: "completed", CreditsUsed: 48, MaxCredits: 200}}
	if err := findings.WriteMarkdown(&buf, m, sample(), findings.Gate{FailOn: "high", MinConfidence: "firm"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<b>", "\x1b", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("Markdown lets %q through", bad)
		}
	}
	if regexp.MustCompile(`[^\\]\]\(javascript`).MatchString(out) || strings.Contains(out, " *bold*") {
		t.Errorf("Markdown lets a link or emphasis through:\n%s", out)
	}
	golden(t, "markdown.golden", buf.Bytes())
}

func TestGate(t *testing.T) {
	fs := sample()
	fps := func(list []client.Finding) string {
		var out []string
		for _, f := range list {
			out = append(out, f.Fingerprint[:2])
		}
		return strings.Join(out, ",")
	}
	base := map[string]bool{"f1aaaaaaaaaaaaaaaaaaaaaa": true}
	for _, tc := range []struct {
		gate findings.Gate
		want string
	}{
		{findings.Gate{}, ""},
		{findings.Gate{FailOn: "critical"}, "f1"},
		{findings.Gate{FailOn: "high"}, "f1,f2,f4"},
		{findings.Gate{FailOn: "medium"}, "f1,f2,f3,f4"},
		{findings.Gate{FailOn: "low"}, "f1,f2,f3,f4"}, // info never fails
		{findings.Gate{FailOn: "critical", MinConfidence: "firm"}, ""},
		{findings.Gate{FailOn: "medium", MinConfidence: "certain"}, "f2,f4"},
		{findings.Gate{FailOn: "medium", MinConfidence: "firm"}, "f2,f3,f4"},
		{findings.Gate{FailOn: "critical", Baseline: base}, ""},
		{findings.Gate{FailOn: "high", Baseline: base}, "f2,f4"},
	} {
		if got := fps(tc.gate.Failures(fs)); got != tc.want {
			t.Errorf("%+v: failures %q, want %q", tc.gate, got, tc.want)
		}
	}
	for _, bad := range []findings.Gate{{FailOn: "info"}, {FailOn: "HIGH"}, {MinConfidence: "sure"}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestParseBaseline(t *testing.T) {
	var sarif bytes.Buffer
	if err := findings.WriteSARIF(&sarif, findings.Meta{}, sample()[:2], findings.Gate{}); err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string]string{
		"findings array": `[{"fingerprint":"f1aaaaaaaaaaaaaaaaaaaaaa"},{"fingerprint":"f2bbbbbbbbbbbbbbbbbbbbbb"}]`,
		"scan record":    `{"id":"scn_x","status":"completed","findings":[{"fingerprint":"f1aaaaaaaaaaaaaaaaaaaaaa"},{"fingerprint":"f2bbbbbbbbbbbbbbbbbbbbbb"}]}`,
		"sarif":          sarif.String(),
	} {
		set, err := findings.ParseBaseline([]byte(raw))
		if err != nil || len(set) != 2 || !set["f1aaaaaaaaaaaaaaaaaaaaaa"] || !set["f2bbbbbbbbbbbbbbbbbbbbbb"] {
			t.Errorf("%s: %v %v", name, set, err)
		}
	}
	for _, bad := range []string{``, `{}`, `{"x":1}`, `[1]`, `not json`} {
		if _, err := findings.ParseBaseline([]byte(bad)); err == nil {
			t.Errorf("baseline %q accepted", bad)
		}
	}
}

func TestLocationAndRules(t *testing.T) {
	fs := sample()
	for i, want := range []string{"demo.test:8080", "https://demo.test:8443/.git/HEAD", "demo.test:2121", "demo.test",
		"https://demo.test:8443/.well-known/security.txt"} {
		if got := findings.Location(fs[i]); got != want {
			t.Errorf("location of %q: %q, want %q", fs[i].Title, got, want)
		}
	}
	// A URL on another host is not the finding's location.
	f := client.Finding{Host: "a.test", Port: ptr(443), Evidence: "redirects to https://evil.test/x"}
	if got := findings.Location(f); got != "a.test:443" {
		t.Errorf("location %q", got)
	}
	if got := findings.RuleID(fs[0]); got != "CVE-2021-42013" {
		t.Errorf("rule of a CVE: %q", got)
	}
	if got := findings.RuleID(fs[1]); got != "web/exposed-git-repository-git-head" {
		t.Errorf("rule of a check: %q", got)
	}
}

func TestJUnitEscapesAndGroupsChecks(t *testing.T) {
	fs := append(sample(), client.Finding{Check: "web.exposed-git", Title: "Exposed Git repository (/.git/HEAD)", Severity: "high", Category: "web",
		Host: "www.demo.test", Port: ptr(443), Evidence: "x", Confidence: "certain", Fingerprint: "f6"})
	var buf bytes.Buffer
	if err := findings.WriteJUnit(&buf, findings.Meta{}, fs, findings.Gate{FailOn: "high"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, "<testcase "); n != 5 {
		t.Errorf("%d test cases for 5 issues:\n%s", n, out)
	}
	if n := strings.Count(out, "<failure "); n != 3 {
		t.Errorf("%d failures, want 3 (CVE, git, SPF):\n%s", n, out)
	}
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "<b>") {
		t.Errorf("JUnit lets target text through unescaped:\n%s", out)
	}
}

package checks

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"secscan/shared/scans"
)

var (
	codePattern = regexp.MustCompile(`^[a-z0-9]+(\.[a-z0-9-]+)+$`)
	cwePattern  = regexp.MustCompile(`^CWE-[1-9][0-9]*$`)
	update      = flag.Bool("update", false, "rewrite docs/design.md's severity table from the catalogue")
)

// families are the first segments a code may start with, and the category
// each family's checks belong to (ssh findings come from the port scan).
var families = map[string][]scans.Category{
	"web":     {scans.CategoryWeb},
	"tls":     {scans.CategorySSL},
	"dns":     {scans.CategoryDNS},
	"network": {scans.CategoryNetwork},
	"ssh":     {scans.CategoryNetwork},
	"ftp":     {scans.CategoryNetwork},
	"vuln":    {scans.CategoryVuln},
	"code":    {scans.CategoryCode},
}

var categories = []scans.Category{scans.CategoryNetwork, scans.CategorySSL, scans.CategoryWeb,
	scans.CategoryVuln, scans.CategoryCode, scans.CategoryDNS}

// TestCatalogue: every check is complete and well-formed.
func TestCatalogue(t *testing.T) {
	all := All()
	if len(all) < 50 {
		t.Fatalf("%d checks: the catalogue is not loaded", len(all))
	}
	titles := map[string]scans.CheckCode{}
	for i, c := range all {
		code := string(c.Code)
		if !codePattern.MatchString(code) {
			t.Errorf("%s: code does not match %s", code, codePattern)
		}
		if i > 0 && all[i-1].Code >= c.Code {
			t.Errorf("All() not ordered or not unique at %s", code)
		}
		if got, ok := Lookup(c.Code); !ok || got != c {
			t.Errorf("%s: Lookup does not return the check", code)
		}
		family, _, _ := strings.Cut(code, ".")
		if cats, ok := families[family]; !ok {
			t.Errorf("%s: unknown family %q", code, family)
		} else if !slices.Contains(cats, c.Category) {
			t.Errorf("%s: category %s, family %s is %v", code, c.Category, family, cats)
		}
		if !slices.Contains(categories, c.Category) {
			t.Errorf("%s: invalid category %q", code, c.Category)
		}
		if !slices.Contains(scans.Severities, c.Severity) {
			t.Errorf("%s: invalid severity %q", code, c.Severity)
		}
		for name, text := range map[string]string{"title": c.Title, "description": c.Description,
			"remediation": c.Remediation, "rationale": c.Rationale} {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s: empty %s", code, name)
			}
			if strings.ContainsAny(text, "\n\r") {
				t.Errorf("%s: %s spans lines", code, name)
			}
		}
		if prev, dup := titles[c.Title]; dup {
			t.Errorf("%s: title %q is also %s's", code, c.Title, prev)
		}
		titles[c.Title] = c.Code
		if c.CWE != "" && !cwePattern.MatchString(c.CWE) {
			t.Errorf("%s: CWE %q", code, c.CWE)
		}
		if len(c.References) == 0 {
			t.Errorf("%s: no references", code)
		}
		for _, ref := range c.References {
			u, err := url.Parse(ref)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("%s: reference %q is not an https URL", code, ref)
			}
		}
	}
}

// TestHardeningSeverities: the calibration issue 19 asks for.
func TestHardeningSeverities(t *testing.T) {
	for _, c := range []*Check{HeaderCSP, HeaderFrameOptions, HeaderHSTS, HeaderHSTSMaxAge, HeaderReferrerPolicy,
		HeaderPermissionsPolicy, HeaderNoSniff} {
		if c.Severity != scans.Low && c.Severity != scans.Info {
			t.Errorf("%s: %s, a missing hardening header is low or info", c.Code, c.Severity)
		}
	}
	for _, c := range []*Check{SecurityTxt, SecurityTxtExpired} {
		if c.Severity != scans.Info {
			t.Errorf("%s: %s, want info", c.Code, c.Severity)
		}
	}
	for _, c := range []*Check{VersionHeader, VersionPage} {
		if c.Severity != scans.Low {
			t.Errorf("%s: %s, version disclosure is low", c.Code, c.Severity)
		}
	}
}

func TestFinding(t *testing.T) {
	port := 443
	f := HeaderCSP.Finding("shop.test", &port, "GET / → 200")
	if f.Check != "web.header.csp" || f.Title != HeaderCSP.Title || f.Severity != scans.Low || f.Category != scans.CategoryWeb ||
		f.Host != "shop.test" || *f.Port != 443 || f.CWE == nil || *f.CWE != "CWE-693" || f.Evidence != "GET / → 200" {
		t.Errorf("finding %+v", f)
	}
	f.References[0] = "changed"
	if HeaderCSP.References[0] == "changed" {
		t.Error("the finding shares the catalogue's references")
	}
	if f := CAAMissing.Finding("shop.test", nil, "e"); f.CWE != nil || f.Port != nil || f.References == nil {
		t.Errorf("finding without CWE or port: %+v", f)
	}
}

func TestMerge(t *testing.T) {
	p80, p443 := 80, 443
	a := Secret.Finding("shop.test", &p443, "key in /a.js")
	a.Title, a.Severity = "AWS access key exposed in /a.js", scans.Critical
	b := Secret.Finding("shop.test", &p443, "token in /b.js")
	b.Title = "GitHub token exposed in /b.js"
	c := Secret.Finding("shop.test", &p80, "other port")
	d := HeaderCSP.Finding("shop.test", &p443, "csp")
	e := HeaderCSP.Finding("shop.test", &p443, "csp")
	got := Merge([]scans.Finding{b, c, d, a, e})
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3: %+v", len(got), got)
	}
	m := got[0]
	if m.Title != "AWS access key exposed in /a.js (and 1 more)" || m.Severity != scans.Critical ||
		m.Evidence != "GitHub token exposed in /b.js: token in /b.js | AWS access key exposed in /a.js: key in /a.js" {
		t.Errorf("merged %q [%s]: %q", m.Title, m.Severity, m.Evidence)
	}
	if got[1].Evidence != "other port" || got[2].Evidence != "csp" || got[2].Title != HeaderCSP.Title {
		t.Errorf("others %+v", got[1:])
	}
	long := make([]scans.Finding, 20)
	for i := range long {
		long[i] = HeaderCSP.Finding("shop.test", &p443, fmt.Sprintf("%d %s", i, strings.Repeat("é", 400)))
	}
	if m := Merge(long); len(m) != 1 || len(m[0].Evidence) > maxMergedEvidence || !strings.HasSuffix(m[0].Evidence, "…") {
		t.Errorf("long merge: %d findings, %d bytes", len(m), len(m[0].Evidence))
	}
}

// readmeTable is docs/design.md's severity table, generated from the catalogue.
func readmeTable() string {
	var b strings.Builder
	b.WriteString("| Check | Severity | Why |\n|---|---|---|\n")
	for _, c := range All() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Code, c.Severity, strings.ReplaceAll(c.Rationale, "|", `\|`))
	}
	return b.String()
}

const (
	tableBegin = "<!-- checks:begin (generated: go test ./shared/checks -run TestReadmeSeverityTable -update) -->\n"
	tableEnd   = "<!-- checks:end -->"
)

// TestReadmeSeverityTable: docs/design.md's table of checks and severities is
// the catalogue's; -update rewrites it.
func TestReadmeSeverityTable(t *testing.T) {
	const path = "../../docs/design.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	begin, end := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if begin < 0 || end < begin {
		t.Fatalf("docs/design.md has no %q … %q section", strings.TrimSpace(tableBegin), tableEnd)
	}
	have, want := text[begin+len(tableBegin):end], readmeTable()
	if have == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(text[:begin+len(tableBegin)]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/design.md's severity table differs from the catalogue; run go test ./shared/checks -run TestReadmeSeverityTable -update")
}

func TestTraitsAreOfCataloguedChecks(t *testing.T) {
	for code := range traits {
		if _, ok := Lookup(code); !ok {
			t.Errorf("traits: %q is not in the catalogue", code)
		}
	}
	for code := range databases {
		if _, ok := Lookup(code); !ok {
			t.Errorf("databases: %q is not in the catalogue", code)
		}
	}
	// A finding's own fields add to its check's traits.
	cve, xss := "CVE-2020-11022", "CWE-79"
	f := KnownCVE.Finding("www.example.com", nil, "jQuery 1.12.4")
	f.CVE, f.CWE = &cve, &xss
	if got := TraitsOf(&f); got&TraitVulnerableJS == 0 || got&TraitOutdated == 0 {
		t.Errorf("a known XSS CVE: traits %b, want outdated and vulnerable JS", got)
	}
	plain := HeaderCSP.Finding("www.example.com", nil, "")
	if got := TraitsOf(&plain); got != TraitNoCSP {
		t.Errorf("missing CSP: traits %b, want only NoCSP", got)
	}
}

package vuln

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEmbeddedDatasetIsValid(t *testing.T) {
	t.Parallel()
	d, err := builtinDataset()
	if err != nil {
		t.Fatal(err)
	}
	if d.Version == "" {
		t.Error("the dataset has no version")
	}
	if n := len(d.Vulnerabilities); n < 20 {
		t.Errorf("%d vulnerability entries, want at least 20", n)
	}
	cve := regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
	for _, v := range d.Vulnerabilities {
		if !cve.MatchString(v.CVE) {
			t.Errorf("%q: malformed CVE id", v.CVE)
		}
		if v.CVSS < 0 || v.CVSS > 10 {
			t.Errorf("%s: CVSS %v outside 0-10", v.CVE, v.CVSS)
		}
		if len(v.Affected) == 0 {
			t.Errorf("%s: no affected ranges", v.CVE)
		}
		for _, r := range v.Affected {
			for _, bound := range []string{r.Introduced, r.Fixed, r.LastAffected} {
				if bound == "" {
					continue
				}
				if _, err := ParseVersion(bound); err != nil {
					t.Errorf("%s: range bound %q: %v", v.CVE, bound, err)
				}
			}
		}
		if !slices.ContainsFunc(v.References, func(r string) bool { return strings.Contains(r, v.CVE) }) {
			t.Errorf("%s: no reference names the CVE (e.g. its NVD page)", v.CVE)
		}
	}
}

// TestDatasetMatches pins what real versions match, so an edit of the data
// cannot silently change it.
func TestDatasetMatches(t *testing.T) {
	t.Parallel()
	d, err := builtinDataset()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		product, version string
		want             []string
	}{
		{"apache_httpd", "2.4.48", []string{"CVE-2021-40438", "CVE-2021-44790", "CVE-2022-22720", "CVE-2023-25690"}},
		{"apache_httpd", "2.4.49", []string{"CVE-2021-41773", "CVE-2021-42013", "CVE-2021-44790", "CVE-2022-22720", "CVE-2023-25690"}},
		{"apache_httpd", "2.4.50", []string{"CVE-2021-42013", "CVE-2021-44790", "CVE-2022-22720", "CVE-2023-25690"}},
		{"apache_httpd", "2.4.56", nil},
		{"apache_httpd", "2.2.34", []string{"CVE-2017-9798"}},
		{"nginx", "1.20.0", []string{"CVE-2021-23017"}},
		{"nginx", "1.20.1", nil},
		{"nginx", "1.13.2", []string{"CVE-2017-7529", "CVE-2019-9513", "CVE-2021-23017"}},
		{"nginx", "1.12.1", []string{"CVE-2019-9513", "CVE-2021-23017"}},
		{"nginx", "1.4.0", []string{"CVE-2013-2028", "CVE-2017-7529", "CVE-2021-23017"}},
		{"php", "5.3.10", []string{"CVE-2012-1823"}},
		{"php", "5.6.40", nil},
		{"php", "7.3.10", []string{"CVE-2019-11043"}},
		{"php", "7.3.11", nil},
		{"openssl", "1.0.1f", []string{"CVE-2014-0160"}},
		{"openssl", "1.0.1g", nil},
		{"openssl", "3.0.6", []string{"CVE-2022-3602"}},
		{"openssh", "7.2p2", []string{"CVE-2016-6210", "CVE-2016-6515", "CVE-2018-15473", "CVE-2021-41617"}},
		{"openssh", "8.9p1", []string{"CVE-2024-6387"}},
		{"openssh", "9.8p1", nil},
		{"openssh", "4.3p2", []string{"CVE-2024-6387", "CVE-2016-6210", "CVE-2016-6515", "CVE-2018-15473"}},
		{"vsftpd", "2.3.4", []string{"CVE-2011-2523"}},
		{"vsftpd", "3.0.3", nil},
		{"exim", "4.89", []string{"CVE-2019-10149"}},
		{"mysql", "5.5.62", nil},
		{"mysql", "5.5.23", []string{"CVE-2012-2122"}},
		{"mariadb", "5.5.22", []string{"CVE-2012-2122"}},
		{"jquery", "1.12.4", []string{"CVE-2020-11022", "CVE-2020-11023", "CVE-2019-11358", "CVE-2015-9251"}},
		{"jquery", "1.8.3", []string{"CVE-2020-11022", "CVE-2020-11023", "CVE-2019-11358", "CVE-2015-9251", "CVE-2012-6708"}},
		{"jquery", "3.4.1", []string{"CVE-2020-11022", "CVE-2020-11023"}},
		{"jquery", "3.5.0", nil},
		{"jquery_ui", "1.12.1", []string{"CVE-2021-41184", "CVE-2022-31160"}},
		{"bootstrap", "3.3.7", []string{"CVE-2019-8331", "CVE-2018-20677"}},
		{"bootstrap", "4.1.1", []string{"CVE-2019-8331", "CVE-2018-14040"}},
		{"bootstrap", "4.3.1", nil},
		{"angularjs", "1.7.8", []string{"CVE-2020-7676", "CVE-2019-10768"}},
		{"lodash", "4.17.11", []string{"CVE-2019-10744", "CVE-2021-23337"}},
		{"lodash", "4.17.21", nil},
		{"moment", "2.29.1", []string{"CVE-2022-31129"}},
		{"moment", "2.17.0", nil},
		{"iis", "6.0", []string{"CVE-2017-7269"}},
		{"iis", "10.0", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, m := range d.Match(tc.product, MustParseVersion(tc.version)) {
			got = append(got, m.CVE)
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %s matches %v, want %v", tc.product, tc.version, got, want)
		}
	}
}

func TestEndOfLife(t *testing.T) {
	t.Parallel()
	d, err := builtinDataset()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		product, version string
		now              time.Time
		wantBranch       string
	}{
		{"php", "5.6.40", at, "5"},
		{"php", "7.4.33", at, "7.4"},
		{"php", "8.1.2", at, "8.1"},
		{"php", "8.1.2", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), ""},
		{"php", "8.3.0", at, ""},
		{"mysql", "5.5.62", at, "5.5"},
		{"openssl", "1.0.1f", at, "1.0.1"},
		{"openssl", "1.0.10", at, ""},
		{"apache_httpd", "2.4.49", at, ""},
		{"apache_httpd", "2.2.34", at, "2.2"},
		{"angularjs", "1.8.2", at, "1"},
		{"bootstrap", "5.3.0", at, ""},
	}
	for _, tc := range tests {
		e, ok := d.EndOfLifeAt(tc.product, MustParseVersion(tc.version), tc.now)
		if ok != (tc.wantBranch != "") || e.Branch != tc.wantBranch {
			t.Errorf("EndOfLifeAt(%s %s, %s) = %q, %v; want %q", tc.product, tc.version, tc.now.Format(time.DateOnly), e.Branch, ok, tc.wantBranch)
		}
	}
}

func TestParseDatasetRejects(t *testing.T) {
	t.Parallel()
	const products = `"products": [{"id": "x", "name": "X", "kind": "server"}]`
	entry := func(fields string) string {
		return `{"version": "t", ` + products + `, "vulnerabilities": [{` + fields + `}]}`
	}
	good := `"cve": "CVE-2020-1234", "product": "x", "affected": [{"fixed": "1.0"}], "cvss": 5, "cvss_version": "3.1", "title": "t", "summary": "s", "references": ["https://nvd.nist.gov/vuln/detail/CVE-2020-1234"]`
	if _, err := ParseDataset([]byte(entry(good))); err != nil {
		t.Fatalf("a good entry is refused: %v", err)
	}
	tests := map[string]string{
		"malformed CVE id":    strings.Replace(good, "CVE-2020-1234\"", "CVE-20-1\"", 1),
		"CVSS above 10":       strings.Replace(good, `"cvss": 5`, `"cvss": 11`, 1),
		"negative CVSS":       strings.Replace(good, `"cvss": 5`, `"cvss": -1`, 1),
		"unparseable bound":   strings.Replace(good, `"fixed": "1.0"`, `"fixed": "latest"`, 1),
		"empty range":         strings.Replace(good, `{"fixed": "1.0"}`, `{}`, 1),
		"inverted range":      strings.Replace(good, `{"fixed": "1.0"}`, `{"introduced": "2.0", "fixed": "1.0"}`, 1),
		"no ranges":           strings.Replace(good, `[{"fixed": "1.0"}]`, `[]`, 1),
		"unknown product":     strings.Replace(good, `"product": "x"`, `"product": "y"`, 1),
		"http reference":      strings.Replace(good, `https://nvd`, `http://nvd`, 1),
		"unknown field":       good + `, "severity": "high"`,
		"malformed CWE":       good + `, "cwe": "79"`,
		"fixed and last both": strings.Replace(good, `{"fixed": "1.0"}`, `{"fixed": "1.0", "last_affected": "0.9"}`, 1),
	}
	for name, fields := range tests {
		if _, err := ParseDataset([]byte(entry(fields))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	badKind := strings.Replace(entry(good), `"kind": "server"`, `"kind": "binary"`, 1)
	if _, err := ParseDataset([]byte(badKind)); err == nil {
		t.Error("unknown product kind: accepted")
	}
	noVersion := strings.Replace(entry(good), `"version": "t", `, ``, 1)
	if _, err := ParseDataset([]byte(noVersion)); err == nil {
		t.Error("missing dataset version: accepted")
	}
}

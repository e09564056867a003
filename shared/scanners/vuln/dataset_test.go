package vuln

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
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
	if n := len(d.Vulnerabilities); n < 60 {
		t.Errorf("%d vulnerability entries, want at least 60", n)
	}
	cve := regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
	seen := map[string]bool{}
	perProduct := map[string]int{}
	for _, v := range d.Vulnerabilities {
		where := v.CVE + "/" + v.Product
		if seen[where] {
			t.Errorf("%s: listed twice for the product", where)
		}
		seen[where] = true
		perProduct[v.Product]++
		if !cve.MatchString(v.CVE) {
			t.Errorf("%q: malformed CVE id", v.CVE)
		}
		if v.CVSS <= 0 || v.CVSS > 10 {
			t.Errorf("%s: CVSS %v outside (0, 10]", where, v.CVSS)
		}
		if len(v.Affected) == 0 {
			t.Errorf("%s: no affected ranges", where)
		}
		checkRanges(t, where, v.Affected)
		if !slices.Contains(v.References, "https://nvd.nist.gov/vuln/detail/"+v.CVE) {
			t.Errorf("%s: no NVD reference", where)
		}
		for _, r := range v.References {
			if !strings.HasPrefix(r, "https://") {
				t.Errorf("%s: reference %q is not https", where, r)
			}
		}
		if len(v.Title) > 90 || strings.HasSuffix(v.Title, ".") {
			t.Errorf("%s: the title %q should be a short phrase (it becomes the finding's title)", where, v.Title)
		}
		if open := slices.ContainsFunc(v.Affected, func(r Range) bool { return r.Fixed == "" && r.LastAffected == "" }); open && v.Remediation == "" {
			t.Errorf("%s: a range without a fix needs its own remediation (there is no release to upgrade to)", where)
		}
	}
	branches := map[string]bool{}
	for _, e := range d.EndOfLife {
		if branches[e.Product+" "+e.Branch] {
			t.Errorf("end of life %s %s: listed twice", e.Product, e.Branch)
		}
		branches[e.Product+" "+e.Branch] = true
	}
	// Every product can be fingerprinted and has something to match:
	// a product nothing can see, or with no entry, is dead weight.
	seeable := fingerprintedProducts()
	for _, p := range d.Products {
		if !seeable[p.ID] {
			t.Errorf("product %s: no fingerprint (header token, banner, page or script pattern) names it", p.ID)
		}
		if perProduct[p.ID] == 0 && !slices.ContainsFunc(d.EndOfLife, func(e EndOfLife) bool { return e.Product == p.ID }) {
			t.Errorf("product %s: no vulnerability or end-of-life entry", p.ID)
		}
	}
	for id := range seeable {
		if d.names[id] == "" {
			t.Errorf("a fingerprint names %q, which is not a dataset product", id)
		}
	}
	t.Logf("dataset %s: %d CVE entries %v, %d end-of-life branches", d.Version, len(d.Vulnerabilities), perProduct, len(d.EndOfLife))
}

// checkRanges checks that the ranges of one entry parse, are ordered and
// do not overlap (an overlap hides a typo in a bound).
func checkRanges(t *testing.T, where string, ranges []Range) {
	t.Helper()
	for i, r := range ranges {
		if err := r.validate(); err != nil {
			t.Errorf("%s: range %d: %v", where, i, err)
			return
		}
	}
	for i, a := range ranges {
		for _, b := range ranges[i+1:] {
			if rangesOverlap(a, b) {
				t.Errorf("%s: ranges %s and %s overlap", where, a, b)
			}
		}
	}
}

// rangesOverlap reports whether some version is in both a and b.
func rangesOverlap(a, b Range) bool {
	// a starts after b ends, or b starts after a ends.
	return !(endsBefore(b, a.Introduced) || endsBefore(a, b.Introduced))
}

// endsBefore reports whether every version of r is older than start (an
// empty start is the oldest version: nothing ends before it).
func endsBefore(r Range, start string) bool {
	if start == "" {
		return false
	}
	s := MustParseVersion(start)
	switch {
	case r.Fixed != "":
		return MustParseVersion(r.Fixed).Compare(s) <= 0
	case r.LastAffected != "":
		return MustParseVersion(r.LastAffected).Compare(s) < 0
	}
	return false
}

// fingerprintedProducts lists the products some fingerprint can name.
func fingerprintedProducts() map[string]bool {
	out := map[string]bool{"mysql": true} // MySQL greetings are read by service name
	for _, p := range headerTokens {
		out[p] = true
	}
	for _, p := range headerPatterns {
		out[p.product] = true
	}
	for _, p := range bannerPatterns {
		out[p.product] = true
	}
	out["elasticsearch"] = true // by service name, see bannerSightings
	for _, p := range scriptNamePatterns {
		out[p.product] = true
	}
	for _, p := range scriptBannerPatterns {
		out[p.product] = true
	}
	for _, p := range pagePatterns {
		out[p.product] = true
	}
	return out
}

func TestRangesOverlap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b Range
		want bool
	}{
		{Range{Fixed: "1.0"}, Range{Introduced: "1.0", Fixed: "2.0"}, false},
		{Range{Fixed: "1.1"}, Range{Introduced: "1.0", Fixed: "2.0"}, true},
		{Range{LastAffected: "1.0"}, Range{Introduced: "1.0", Fixed: "2.0"}, true},
		{Range{Introduced: "3.0"}, Range{Introduced: "1.0", Fixed: "2.0"}, false},
		{Range{Introduced: "1.5"}, Range{Introduced: "1.0", Fixed: "2.0"}, true},
		{Range{Introduced: "2.4.49", LastAffected: "2.4.49"}, Range{Introduced: "2.4.50", Fixed: "2.4.51"}, false},
	}
	for _, tc := range tests {
		if got := rangesOverlap(tc.a, tc.b); got != tc.want {
			t.Errorf("overlap(%s; %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := rangesOverlap(tc.b, tc.a); got != tc.want {
			t.Errorf("overlap(%s; %s) = %v, want %v (symmetry)", tc.b, tc.a, got, tc.want)
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
	apache2448 := []string{"CVE-2021-40438", "CVE-2021-44224", "CVE-2021-44790", "CVE-2022-22720", "CVE-2022-23943", "CVE-2022-31813", "CVE-2023-25690", "CVE-2024-38475", "CVE-2024-38476"}
	nginxHTTP2 := []string{"CVE-2018-16843", "CVE-2018-16844", "CVE-2019-9511", "CVE-2019-9513", "CVE-2019-9516"}
	tests := []struct {
		product, version string
		want             []string
	}{
		{"apache_httpd", "2.4.48", apache2448},
		{"apache_httpd", "2.4.49", append([]string{"CVE-2021-41773", "CVE-2021-42013"}, without(apache2448, "CVE-2021-40438")...)},
		{"apache_httpd", "2.4.50", append([]string{"CVE-2021-42013"}, without(apache2448, "CVE-2021-40438")...)},
		{"apache_httpd", "2.4.38", append([]string{"CVE-2019-0211", "CVE-2020-11984", "CVE-2021-26691"}, apache2448...)},
		{"apache_httpd", "2.4.29", append([]string{"CVE-2017-15715", "CVE-2019-0211", "CVE-2021-26691"}, apache2448...)},
		{"apache_httpd", "2.4.56", []string{"CVE-2024-38475", "CVE-2024-38476"}},
		{"apache_httpd", "2.4.60", nil},
		{"apache_httpd", "2.2.34", []string{"CVE-2017-9798"}},
		{"nginx", "1.20.0", []string{"CVE-2021-23017", "CVE-2022-41741"}},
		{"nginx", "1.20.1", []string{"CVE-2022-41741"}},
		{"nginx", "1.22.1", nil},
		{"nginx", "1.23.1", []string{"CVE-2022-41741"}},
		{"nginx", "1.23.2", nil},
		{"nginx", "1.13.2", append([]string{"CVE-2017-7529", "CVE-2021-23017", "CVE-2022-41741"}, nginxHTTP2...)},
		{"nginx", "1.12.1", append([]string{"CVE-2021-23017", "CVE-2022-41741"}, nginxHTTP2...)},
		{"nginx", "1.4.0", []string{"CVE-2013-2028", "CVE-2016-4450", "CVE-2017-7529", "CVE-2021-23017", "CVE-2022-41741"}},
		{"php", "5.3.10", []string{"CVE-2012-1823"}},
		{"php", "5.6.40", nil},
		{"php", "7.3.10", []string{"CVE-2019-11043", "CVE-2021-21703"}},
		{"php", "7.3.11", []string{"CVE-2021-21703"}},
		{"php", "7.4.33", nil},
		{"php", "8.1.28", []string{"CVE-2024-4577"}},
		{"php", "8.3.8", nil},
		{"openssl", "1.0.1f", []string{"CVE-2014-0160", "CVE-2016-0800", "CVE-2016-2107", "CVE-2016-2108"}},
		{"openssl", "1.0.1g", []string{"CVE-2016-0800", "CVE-2016-2107", "CVE-2016-2108"}},
		{"openssl", "1.0.2k", []string{"CVE-2022-0778", "CVE-2023-0286"}},
		{"openssl", "1.1.1k", []string{"CVE-2021-3711", "CVE-2022-0778", "CVE-2023-0286"}},
		{"openssl", "1.1.1w", nil},
		{"openssl", "3.0.6", []string{"CVE-2022-3602", "CVE-2023-0286"}},
		{"openssl", "3.0.8", nil},
		{"openssh", "7.2p2", []string{"CVE-2016-6210", "CVE-2016-6515", "CVE-2018-15473", "CVE-2021-41617", "CVE-2023-48795"}},
		{"openssh", "8.9p1", []string{"CVE-2023-48795", "CVE-2024-6387"}},
		{"openssh", "9.6p1", []string{"CVE-2024-6387", "CVE-2025-26466"}},
		{"openssh", "9.8p1", []string{"CVE-2025-26466"}},
		{"openssh", "9.9p2", nil},
		{"openssh", "4.3p2", []string{"CVE-2015-5600", "CVE-2016-6210", "CVE-2016-6515", "CVE-2018-15473", "CVE-2023-48795", "CVE-2024-6387"}},
		{"vsftpd", "2.3.4", []string{"CVE-2011-2523"}},
		{"vsftpd", "3.0.3", nil},
		{"exim", "4.89", []string{"CVE-2018-6789", "CVE-2019-10149", "CVE-2019-15846", "CVE-2020-28017", "CVE-2023-42115"}},
		{"exim", "4.92.2", []string{"CVE-2019-16928", "CVE-2020-28017", "CVE-2023-42115"}},
		{"exim", "4.96.1", nil},
		{"proftpd", "1.3.5", []string{"CVE-2015-3306"}},
		{"proftpd", "1.3.5a", nil},
		{"proftpd", "1.3.3b", []string{"CVE-2010-4221", "CVE-2011-4130"}},
		{"proftpd", "1.3.3c", []string{"CVE-2011-4130"}},
		{"proftpd", "1.3.6", nil},
		{"tomcat", "9.0.30", []string{"CVE-2020-1938", "CVE-2020-9484", "CVE-2024-50379", "CVE-2025-24813"}},
		{"tomcat", "9.0.0.M1", []string{"CVE-2017-12617", "CVE-2019-0232", "CVE-2020-1938", "CVE-2020-9484", "CVE-2024-50379", "CVE-2025-24813"}},
		{"tomcat", "8.5.50", []string{"CVE-2020-1938", "CVE-2020-9484"}},
		{"tomcat", "8.0.53", []string{"CVE-2020-1938"}},
		{"tomcat", "7.0.81", []string{"CVE-2017-12617", "CVE-2019-0232", "CVE-2020-1938", "CVE-2020-9484"}},
		{"tomcat", "10.1.34", []string{"CVE-2025-24813"}},
		{"tomcat", "9.0.99", nil},
		{"tomcat", "11.0.3", nil},
		{"jetty", "9.4.38", []string{"CVE-2021-28164", "CVE-2021-28165", "CVE-2021-34429"}},
		{"jetty", "9.4.43", nil},
		{"jetty", "10.0.5", []string{"CVE-2021-34429"}},
		{"jetty", "11.0.1", []string{"CVE-2021-28165", "CVE-2021-34429"}},
		{"elasticsearch", "1.1.1", []string{"CVE-2014-3120", "CVE-2015-1427", "CVE-2015-5531"}},
		{"elasticsearch", "1.4.2", []string{"CVE-2015-1427", "CVE-2015-5531"}},
		{"elasticsearch", "7.10.2", []string{"CVE-2021-22145"}},
		{"elasticsearch", "7.17.0", nil},
		{"mysql", "5.5.62", nil},
		{"mysql", "5.5.23", []string{"CVE-2012-2122", "CVE-2016-6662"}},
		{"mysql", "5.7.15", []string{"CVE-2016-6662"}},
		{"mysql", "5.7.16", nil},
		{"mariadb", "5.5.22", []string{"CVE-2012-2122", "CVE-2016-6662"}},
		{"mariadb", "10.3.27", []string{"CVE-2021-27928"}},
		{"mariadb", "10.5.9", nil},
		{"jquery", "1.12.4", []string{"CVE-2020-11022", "CVE-2020-11023", "CVE-2019-11358", "CVE-2015-9251"}},
		{"jquery", "1.8.3", []string{"CVE-2020-11022", "CVE-2020-11023", "CVE-2019-11358", "CVE-2015-9251", "CVE-2012-6708", "CVE-2020-7656"}},
		{"jquery", "1.6.2", []string{"CVE-2020-11022", "CVE-2020-11023", "CVE-2019-11358", "CVE-2015-9251", "CVE-2012-6708", "CVE-2020-7656", "CVE-2011-4969"}},
		{"jquery", "3.4.1", []string{"CVE-2020-11022", "CVE-2020-11023"}},
		{"jquery", "3.5.0", nil},
		{"jquery_ui", "1.12.1", []string{"CVE-2021-41183", "CVE-2021-41184", "CVE-2022-31160"}},
		{"jquery_ui", "1.9.2", []string{"CVE-2010-5312", "CVE-2016-7103", "CVE-2021-41183", "CVE-2021-41184", "CVE-2022-31160"}},
		{"jquery_ui", "1.13.2", nil},
		{"bootstrap", "3.3.7", []string{"CVE-2019-8331", "CVE-2018-20677"}},
		{"bootstrap", "4.1.1", []string{"CVE-2019-8331", "CVE-2018-14040", "CVE-2018-14041", "CVE-2018-14042"}},
		{"bootstrap", "4.3.1", nil},
		{"angularjs", "1.7.8", []string{"CVE-2020-7676", "CVE-2019-10768", "CVE-2023-26116", "CVE-2023-26117", "CVE-2023-26118"}},
		{"angularjs", "1.4.8", []string{"CVE-2020-7676", "CVE-2019-10768", "CVE-2019-14863", "CVE-2023-26116", "CVE-2023-26117"}},
		{"angularjs", "1.8.3", []string{"CVE-2023-26116", "CVE-2023-26117", "CVE-2023-26118"}},
		{"lodash", "4.17.4", []string{"CVE-2018-3721", "CVE-2019-1010266", "CVE-2019-10744", "CVE-2020-28500", "CVE-2021-23337"}},
		{"lodash", "4.17.11", []string{"CVE-2019-10744", "CVE-2020-28500", "CVE-2021-23337"}},
		{"lodash", "4.17.21", nil},
		{"moment", "2.29.1", []string{"CVE-2022-24785", "CVE-2022-31129"}},
		{"moment", "2.17.0", []string{"CVE-2017-18214", "CVE-2022-24785"}},
		{"moment", "2.10.6", []string{"CVE-2016-4055", "CVE-2017-18214", "CVE-2022-24785"}},
		{"moment", "2.29.4", nil},
		{"handlebars", "4.0.5", []string{"CVE-2019-19919", "CVE-2019-20920", "CVE-2019-20922", "CVE-2021-23369", "CVE-2021-23383"}},
		{"handlebars", "3.0.8", []string{"CVE-2019-19919", "CVE-2019-20922", "CVE-2021-23369", "CVE-2021-23383"}},
		{"handlebars", "4.5.3", []string{"CVE-2021-23369", "CVE-2021-23383"}},
		{"handlebars", "4.7.7", nil},
		{"dompurify", "2.0.0", []string{"CVE-2019-16728", "CVE-2020-26870"}},
		{"dompurify", "2.0.16", []string{"CVE-2020-26870"}},
		{"dompurify", "2.0.17", nil},
		{"iis", "6.0", []string{"CVE-2017-7269"}},
		{"iis", "10.0", nil},
		{"vue", "2.6.14", nil},
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

func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
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
		{"tomcat", "8.5.100", at, "8.5"},
		{"tomcat", "7.0.109", at, "7"},
		{"tomcat", "9.0.98", at, ""},
		{"mariadb", "10.3.39", at, "10.3"},
		{"mariadb", "10.11.6", at, ""},
		{"mariadb", "10.1.48", at, "10.1"},
		{"vue", "2.7.16", at, "2"},
		{"vue", "3.4.21", at, ""},
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

// TestEndOfLifeProductsCatalogued: every product with end-of-life branches
// in the dataset has its own end-of-life check in the catalogue.
func TestEndOfLifeProductsCatalogued(t *testing.T) {
	t.Parallel()
	data, err := builtinDataset()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range data.EndOfLife {
		if c, ok := checks.EndOfLifeOf(e.Product); !ok {
			t.Errorf("product %s has end-of-life branches but no check in the catalogue (it would report %s)", e.Product, c.Code)
		}
	}
}

// TestParseDatasetReportsEveryProblem: a bad dataset is refused with one
// line per problem, in entry order, naming the entry, duplicates and
// end-of-life branches included.
func TestParseDatasetReportsEveryProblem(t *testing.T) {
	t.Parallel()
	const entry = `{"cve": "CVE-2020-1234", "product": "x", "affected": [{"fixed": "1.0"}], "cvss": 5, "cvss_version": "3.1", "title": "t", "summary": "s", "references": ["https://nvd.nist.gov/"]}`
	data := `{"version": "t", "products": [{"id": "x", "name": "X", "kind": "server"}], "vulnerabilities": [` + entry + `, ` +
		strings.Replace(entry, `"cvss_version": "3.1", "title": "t"`, `"cvss_version": "4.0", "cwe": "79", "title": ""`, 1) + `, ` +
		`{"cve": "CVE-1", "product": "y", "affected": [], "cvss": 5, "cvss_version": "2.0", "title": "t", "summary": "s", "references": []}` +
		`], "end_of_life": [{"product": "z", "branch": "x.y", "eol": "2020-13-01", "severity": "dire", "references": ["http://a"]}, ` +
		`{"product": "x", "branch": "1", "eol": "2020-01-01", "severity": "high", "references": ["https://a"]}]}`
	_, err := ParseDataset([]byte(data))
	if err == nil {
		t.Fatal("accepted")
	}
	want := `vulnerability dataset t: CVE-2020-1234/x: duplicate entry
CVE-2020-1234/x: CVSS 5.0 (version "4.0") out of range
CVE-2020-1234/x: CWE "79" malformed
CVE-2020-1234/x: title and summary are required
CVE-1/y: CVE id does not match ^CVE-\d{4}-\d{4,}$
CVE-1/y: unknown product
CVE-1/y: no references
CVE-1/y: no affected range
end of life z x.y: unknown product
end of life z x.y: `
	if got := err.Error(); !strings.HasPrefix(got, want) || !strings.Contains(got, "end of life z x.y: date: ") ||
		!strings.Contains(got, `end of life z x.y: severity "dire"`) || !strings.HasSuffix(got, `end of life z x.y: reference "http://a" is not https`) {
		t.Errorf("error =\n%s\nwant it to start\n%s", got, want)
	}
}

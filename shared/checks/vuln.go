package checks

import (
	"slices"
	"strings"

	"secscan/shared/scans"
)

// Known vulnerabilities of identified software (version_check, confirm_cve)
// and the end-of-life template. A finding names its CVE (and sets its own
// title, e.g. "Apache HTTP Server: path traversal (CVE-2021-41773)"): the
// issue key is the code and the CVE.

const refCWE1104 = "https://cwe.mitre.org/data/definitions/1104.html"

var (
	KnownCVE     = define(Check{Code: "vuln.known-cve", Title: "Known vulnerability in an identified software version", Category: scans.CategoryVuln, Severity: scans.Medium, CWE: ""})
	ConfirmedCVE = define(Check{Code: "vuln.confirmed-cve", Title: "Known vulnerability confirmed", Category: scans.CategoryVuln, Severity: scans.Critical, CWE: ""})
	// DistributionBuild replaces upstream version-range CVE findings for a
	// build whose banner shows a distribution's package revision (Debian
	// "deb12u10", Ubuntu "ubuntu0.6", RHEL "el9", Alpine "-r2"): distributions
	// backport fixes without changing the upstream version, so the upstream
	// ranges are listed for reference only.
	DistributionBuild = define(Check{Code: "vuln.distribution-build", Title: "Distribution build: CVE status depends on the package version", Category: scans.CategoryVuln, Severity: scans.Info, CWE: ""})
	// EndOfLife is the end-of-life check of a product the catalogue has no
	// code for yet (a test fails while the dataset has such a product).
	EndOfLife = endOfLife("vuln.end-of-life", "software", scans.Medium)
)

// endOfLife is the check of one product's end-of-life release branches:
// one code per product, so PHP and Bootstrap on one port stay two findings
// and two issues (their fixes differ).
func endOfLife(code scans.CheckCode, product string, severity scans.Severity) *Check {
	return define(Check{
		Code: code, Title: "End-of-life " + product + " release",
		Category: scans.CategoryVuln, Severity: severity, CWE: "CWE-1104",
		Rationale: "No more security fixes, but no specific flaw proven (tentative); the dataset sets each branch's severity: " +
			"high for internet-facing servers and runtimes, medium or low for client-side libraries.",
		Description: "The announced release branch of " + product + " stopped receiving security fixes: vulnerabilities found since then stay unpatched, and scanners and advisories often no longer track them. This finding rests on the announced version.",
		Remediation: "Upgrade to a supported " + product + " release (or a vendor that still supports this branch, such as an extended-support distribution).",
		References:  []string{"https://endoflife.date/", refCWE1104},
	})
}

// endOfLifeByProduct are the end-of-life checks by the vulnerability
// dataset's product id.
var endOfLifeByProduct = map[string]*Check{
	"angularjs":    endOfLife("vuln.end-of-life.angularjs", "AngularJS", scans.Medium),
	"apache_httpd": endOfLife("vuln.end-of-life.apache-httpd", "Apache HTTP Server", scans.High),
	"bootstrap":    endOfLife("vuln.end-of-life.bootstrap", "Bootstrap", scans.Low),
	"iis":          endOfLife("vuln.end-of-life.iis", "Microsoft IIS", scans.High),
	"mariadb":      endOfLife("vuln.end-of-life.mariadb", "MariaDB", scans.High),
	"mysql":        endOfLife("vuln.end-of-life.mysql", "MySQL", scans.High),
	"openssl":      endOfLife("vuln.end-of-life.openssl", "OpenSSL", scans.High),
	"php":          endOfLife("vuln.end-of-life.php", "PHP", scans.High),
	"tomcat":       endOfLife("vuln.end-of-life.tomcat", "Apache Tomcat", scans.High),
	"vue":          endOfLife("vuln.end-of-life.vue", "Vue.js", scans.Low),
}

// EndOfLifeOf returns the end-of-life check of a dataset product id, and
// false (with the generic vuln.end-of-life) when the catalogue has none.
func EndOfLifeOf(product string) (*Check, bool) {
	if c, ok := endOfLifeByProduct[product]; ok {
		return c, true
	}
	return EndOfLife, false
}

// EndOfLifeChecks returns every end-of-life check, the generic one first.
func EndOfLifeChecks() []*Check {
	out := []*Check{EndOfLife}
	for _, c := range endOfLifeByProduct {
		out = append(out, c)
	}
	slices.SortFunc(out[1:], func(a, b *Check) int { return strings.Compare(string(a.Code), string(b.Code)) })
	return out
}

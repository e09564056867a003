package checks

import "secscan/shared/scans"

// Known vulnerabilities of identified software (vuln_scan, confirm_cve).
// A finding names its CVE (and sets its own title, e.g. "Apache HTTP Server:
// path traversal (CVE-2021-41773)"): the issue key is the code and the CVE.

var (
	KnownCVE = define(Check{
		Code: "vuln.known-cve", Title: "Known vulnerability in an identified software version",
		Category: scans.CategoryVuln, Severity: scans.Medium,
		Rationale: "Each finding takes the CVSS v3 qualitative rating of its CVE (9.0+ critical, 7.0+ high, 4.0+ medium, else low); medium is only the default. Confidence is tentative: the version was announced, not exploited.",
		Description: "The software version the service announces is in the affected range of a published vulnerability. " +
			"The finding rests on the announced version: distributions sometimes backport fixes without changing it.",
		Remediation: "Upgrade the component to a release that fixes the vulnerability (or a distribution package that includes the fix).",
		References:  []string{"https://nvd.nist.gov/vuln", "https://cwe.mitre.org/data/definitions/1395.html"},
	})
	ConfirmedCVE = define(Check{
		Code: "vuln.confirmed-cve", Title: "Known vulnerability confirmed",
		Category: scans.CategoryVuln, Severity: scans.Critical,
		Rationale:   "Confirmed with a harmless request (certain), and the confirmable CVEs read files or run code (CVSS 7.5-9.8): critical, whatever the CVSS, because exploitation was observed.",
		Description: "A read-only request proved the vulnerability: the server behaved as only a vulnerable version does (for path traversal, it returned a file from outside the document root).",
		Remediation: "Upgrade the component now to a release that fixes the vulnerability, then review the access logs for earlier exploitation.",
		References:  []string{"https://nvd.nist.gov/vuln", "https://httpd.apache.org/security/vulnerabilities_24.html"},
	})
	EndOfLife = define(Check{
		Code: "vuln.end-of-life", Title: "Software release branch is end of life",
		Category: scans.CategoryVuln, Severity: scans.Medium, CWE: "CWE-1104",
		Rationale:   "No more security fixes, but no specific flaw proven (tentative); the dataset may raise or lower it per branch.",
		Description: "The announced release branch stopped receiving security fixes: vulnerabilities found since then stay unpatched, and scanners and advisories often no longer track them. This finding rests on the announced version.",
		Remediation: "Upgrade to a supported release (or a vendor that still supports this branch, such as an extended-support distribution).",
		References:  []string{"https://endoflife.date/", refCWE1104},
	})
)

package checks

import "secscan/shared/scans"

// DistributionBuild replaces upstream version-range CVE findings for a
// build whose banner shows a distribution's package revision (Debian
// "deb12u10", Ubuntu "ubuntu0.6", RHEL "el9", Alpine "-r2"): distributions
// backport fixes without changing the upstream version, so the upstream
// ranges are listed for reference only.
var DistributionBuild = define(Check{
	Code: "vuln.distribution-build", Title: "Distribution build: CVE status depends on the package version",
	Category: scans.CategoryVuln, Severity: scans.Info,
	Rationale: "Informational: the upstream version is in the range of known CVEs, but distributions backport fixes " +
		"without changing it, so no flaw is shown; the package version decides.",
	Description: "The service announces an upstream version together with a distribution's package revision. The upstream " +
		"version falls in the affected range of the CVEs listed in the evidence, but distributions (Debian, Ubuntu, RHEL, " +
		"Alpine...) backport security fixes into their packages without changing the upstream version, so whether this " +
		"build is affected depends on the package revision, which the distribution's security tracker answers.",
	Remediation: "Keep the distribution's security updates installed (apt/dnf/apk upgrade) and check each listed CVE " +
		"against the distribution's tracker for the installed package version; upgrade the distribution release if it is " +
		"out of support.",
	References: []string{"https://security-tracker.debian.org/tracker/", "https://ubuntu.com/security/cves",
		"https://access.redhat.com/security/security-updates/cve", "https://security.alpinelinux.org/"},
})

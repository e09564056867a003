package network

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/safetext"
	"secscan/shared/scanners/internal/distro"
	"secscan/shared/scans"
)

// exposures are the services that should not be reachable from the
// internet, by service name.
var exposures = map[string]*checks.Check{
	"mysql":         checks.MySQLExposed,
	"postgresql":    checks.PostgreSQLExposed,
	"mongodb":       checks.MongoDBExposed,
	"mssql":         checks.MSSQLExposed,
	"oracle-tns":    checks.OracleExposed,
	"redis":         checks.RedisExposed,
	"memcached":     checks.MemcachedExposed,
	"elasticsearch": checks.ElasticsearchExposed,
	"telnet":        checks.TelnetExposed,
	"ftp":           checks.FTPExposed,
	"rdp":           checks.RDPExposed,
	"vnc":           checks.VNCExposed,
	"smb":           checks.SMBExposed,
}

// noAuthChecks are the findings for services that answered a command only
// an unauthenticated service answers. They replace the exposure finding.
var noAuthChecks = map[string]*checks.Check{
	"redis":         checks.RedisNoAuth,
	"memcached":     checks.MemcachedNoAuth,
	"elasticsearch": checks.ElasticsearchNoAuth,
	"docker":        checks.DockerNoAuth,
}

// outdatedRule flags a product version announced in a banner. The table is
// for versions that are end-of-life or known-bad as a whole; matching
// individual CVEs against versions belongs to the vulnerability scanner.
type outdatedRule struct {
	Product string // as identified, e.g. "OpenSSH" (case-insensitive)
	Below   []int  // versions lower than this are flagged
	Exact   string // or: exactly this version is flagged
	Check   *checks.Check
	// CVE and CVSS, when the version is one known vulnerability.
	CVE  string
	CVSS float64
	// Upstream is true for rules about the upstream release (outdated or
	// end-of-life versions): they do not apply to a distribution build,
	// whose package carries backported fixes and whose support the
	// distribution decides (the SSH audit judges SSH by its algorithms).
	Upstream bool
}

var outdatedRules = []outdatedRule{
	{Product: "OpenSSH", Below: []int{8, 0}, Check: checks.OpenSSHOutdated, Upstream: true},
	{Product: "vsFTPd", Exact: "2.3.4", Check: checks.VsftpdBackdoor, CVE: "CVE-2011-2523", CVSS: 9.8},
	{Product: "MySQL", Below: []int{8, 4}, Check: checks.MySQLEOL, Upstream: true},
	{Product: "MariaDB", Below: []int{10, 11}, Check: checks.MariaDBEOL, Upstream: true},
}

// emitted is every check the tool can report.
func emitted() []*checks.Check {
	var out []*checks.Check
	for _, m := range []map[string]*checks.Check{exposures, noAuthChecks} {
		for _, c := range m {
			out = append(out, c)
		}
	}
	for _, r := range outdatedRules {
		out = append(out, r.Check)
	}
	return out
}

// findingsFor returns the findings for one open port.
func findingsFor(host string, ip netip.Addr, port int, obs observation) []scans.Finding {
	where := fmt.Sprintf("%s:%d (%s) accepted a TCP connection", host, port, ip)
	var out []scans.Finding
	if f, ok := exposureFinding(host, port, where, obs); ok {
		out = append(out, f)
	}
	for _, rule := range outdatedRules {
		if rule.matches(obs) {
			out = append(out, rule.finding(host, port, where, obs))
		}
	}
	for i := range out {
		out[i].Proof = obs.proof(host, ip, port)
	}
	return out
}

// exposureFinding is the finding of a service that answered without
// authentication or should not be reachable at all.
func exposureFinding(host string, port int, where string, obs observation) (f scans.Finding, ok bool) {
	if c, ok := noAuthChecks[obs.Name]; ok && obs.NoAuth {
		return c.Finding(host, &port, fmt.Sprintf("%s; it %s: %s", where, obs.Answer, obs.Banner)), true
	}
	c, ok := exposures[obs.Name]
	if !ok {
		return f, false
	}
	f = c.Finding(host, &port, where+"; "+said(port, obs))
	if obs.ByPort || obs.Banner == "" {
		f.Confidence = scans.Firm // the port is open; what listens is assumed from its number
	}
	return f, true
}

// finding is the rule's finding for the version obs announced.
func (r outdatedRule) finding(host string, port int, where string, obs observation) scans.Finding {
	f := r.Check.Finding(host, &port, fmt.Sprintf("%s; it announced %s %s: %s",
		where, obs.Product, safetext.Line(obs.Version, 40), obs.Banner))
	f.Confidence = scans.Tentative // the announced version alone
	if r.CVE != "" {
		cve, cvss := r.CVE, r.CVSS
		f.CVE, f.CVSS = &cve, &cvss
	}
	return f
}

// said describes what the service said, for evidence.
func said(port int, obs observation) string {
	if obs.ByPort || obs.Banner == "" {
		return fmt.Sprintf("it sent nothing that identifies it; %s is assumed from the port number, %d, its default port",
			obs.Name, port)
	}
	return "it answered: " + obs.Banner
}

func (r outdatedRule) matches(obs observation) bool {
	if !strings.EqualFold(obs.Product, r.Product) || obs.Version == "" {
		return false
	}
	if _, dist := distro.Detect(obs.Banner); dist && r.Upstream {
		return false
	}
	if r.Exact != "" {
		return obs.Version == r.Exact
	}
	v := leadingVersion(obs.Version)
	return len(v) > 0 && compareVersions(v, r.Below) < 0
}

// leadingVersion parses the numeric dotted prefix of a version: "7.4p1" →
// [7 4], "5.5.62-log" → [5 5 62]. At most 4 components are kept.
func leadingVersion(s string) []int {
	var out []int
	for part := range strings.SplitSeq(s, ".") {
		digits := len(part) - len(strings.TrimLeft(part, "0123456789"))
		if digits == 0 || digits > 6 {
			break
		}
		n, _ := strconv.Atoi(part[:digits])
		out = append(out, n)
		if digits < len(part) || len(out) == 4 {
			break
		}
	}
	return out
}

// compareVersions compares component-wise; missing components are 0.
func compareVersions(a, b []int) int {
	for i := range max(len(a), len(b)) {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

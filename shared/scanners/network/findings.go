package network

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"secscan/shared/scans"
)

// check is one kind of finding: everything but the evidence. Its Title is
// fixed, so the agent recognises the same issue found twice.
type check struct {
	Title       string
	Severity    scans.Severity
	CWE         string
	CVE         string
	CVSS        float64
	Description string
	Remediation string
	References  []string
}

func (c check) finding(host string, port int, evidence string) scans.Finding {
	f := scans.Finding{
		Title:       c.Title,
		Severity:    c.Severity,
		Category:    scans.CategoryNetwork,
		Host:        host,
		Port:        &port,
		Evidence:    evidence,
		Description: c.Description,
		Remediation: c.Remediation,
		References:  append([]string(nil), c.References...),
	}
	if c.CWE != "" {
		f.CWE = &c.CWE
	}
	if c.CVE != "" {
		f.CVE = &c.CVE
	}
	if c.CVSS > 0 {
		f.CVSS = &c.CVSS
	}
	return f
}

const (
	refCWE284                 = "https://cwe.mitre.org/data/definitions/284.html"
	refCWE306                 = "https://cwe.mitre.org/data/definitions/306.html"
	refCWE319                 = "https://cwe.mitre.org/data/definitions/319.html"
	refCWE1104                = "https://cwe.mitre.org/data/definitions/1104.html"
	refOWASPInsecureTransport = "https://owasp.org/www-community/vulnerabilities/Insecure_Transport"
)

const firewallFix = "Block the port at the firewall or security group so only the hosts that need it " +
	"(application servers, a VPN or bastion) can connect; bind the service to a private interface " +
	"(e.g. 127.0.0.1 or the VPC address) when nothing outside the host needs it."

// databaseExposure is the finding for a database or cache whose port
// accepts connections from the scanner, i.e. from the internet.
func databaseExposure(name, title, docs string) check {
	return check{
		Title:    title,
		Severity: scans.High,
		CWE:      "CWE-284",
		Description: name + " accepts connections from the network the scan came from. Databases and caches " +
			"reachable from the internet are probed continuously for weak or default credentials and known " +
			"vulnerabilities; one mistake in authentication then exposes all the data.",
		Remediation: firewallFix + " Require authentication and TLS for every client that must connect remotely.",
		References:  []string{docs, refCWE284},
	}
}

// exposures are the services that should not be reachable from the
// internet, by service name.
var exposures = map[string]check{
	"mysql": databaseExposure("MySQL/MariaDB", "MySQL database exposed to the network",
		"https://dev.mysql.com/doc/refman/8.4/en/security-guidelines.html"),
	"postgresql": databaseExposure("PostgreSQL", "PostgreSQL database exposed to the network",
		"https://www.postgresql.org/docs/current/auth-pg-hba-conf.html"),
	"mongodb": databaseExposure("MongoDB", "MongoDB database exposed to the network",
		"https://www.mongodb.com/docs/manual/administration/security-checklist/"),
	"mssql": databaseExposure("Microsoft SQL Server", "Microsoft SQL Server exposed to the network",
		"https://learn.microsoft.com/en-us/sql/sql-server/install/configure-the-windows-firewall-to-allow-sql-server-access"),
	"oracle-tns": databaseExposure("The Oracle database listener", "Oracle database listener exposed to the network",
		"https://docs.oracle.com/en/database/oracle/oracle-database/19/dbseg/index.html"),
	"redis": databaseExposure("Redis", "Redis exposed to the network",
		"https://redis.io/docs/latest/operate/oss_and_stack/management/security/"),
	"memcached": databaseExposure("memcached", "Memcached exposed to the network",
		"https://github.com/memcached/memcached/wiki/SASLHowto"),
	"elasticsearch": databaseExposure("Elasticsearch", "Elasticsearch exposed to the network",
		"https://www.elastic.co/guide/en/elasticsearch/reference/current/secure-cluster.html"),
	"telnet": {
		Title:    "Telnet service exposed (cleartext remote login)",
		Severity: scans.High,
		CWE:      "CWE-319",
		Description: "A Telnet server accepts connections. Telnet sends the login, the password and the whole " +
			"session in cleartext, so anyone on the path can read or hijack it, and exposed Telnet logins are " +
			"a favourite target of credential-guessing botnets.",
		Remediation: "Disable the Telnet service and use SSH with key-based authentication instead; if a device " +
			"only offers Telnet, reach it only through a VPN or management network and block port 23 publicly.",
		References: []string{refCWE319, refOWASPInsecureTransport},
	},
	"ftp": {
		Title:    "FTP service exposed (cleartext credentials)",
		Severity: scans.Medium,
		CWE:      "CWE-319",
		Description: "An FTP server accepts connections. Plain FTP sends user names, passwords and files in " +
			"cleartext, so credentials can be captured by anyone on the network path.",
		Remediation: "Replace FTP with SFTP (over SSH) or require FTPS (explicit TLS, and refuse logins before " +
			"AUTH TLS); disable anonymous access; restrict the port to the clients that need it.",
		References: []string{refCWE319, "https://www.rfc-editor.org/rfc/rfc4217"},
	},
	"rdp": {
		Title:    "Remote Desktop (RDP) exposed to the network",
		Severity: scans.High,
		CWE:      "CWE-284",
		Description: "The Remote Desktop port accepts connections. Internet-facing RDP is one of the most common " +
			"initial access routes for ransomware: password spraying, stolen credentials and pre-authentication " +
			"vulnerabilities such as BlueKeep (CVE-2019-0708).",
		Remediation: "Do not expose RDP to the internet: put it behind a VPN or an RD Gateway with multi-factor " +
			"authentication, enable Network Level Authentication, and keep the hosts patched.",
		References: []string{refCWE284, "https://nvd.nist.gov/vuln/detail/CVE-2019-0708"},
	},
	"vnc": {
		Title:    "VNC remote desktop exposed to the network",
		Severity: scans.High,
		CWE:      "CWE-284",
		Description: "A VNC server accepts connections. VNC authentication is a single short password (often " +
			"none), the protocol is unencrypted by default, and exposed VNC servers are scanned for and taken over " +
			"routinely.",
		Remediation: "Stop exposing VNC: reach it only through a VPN or an SSH tunnel, set a strong password or " +
			"use a VNC server with system authentication and encryption, and block ports 5900-5903 publicly.",
		References: []string{refCWE284, refCWE319},
	},
	"smb": {
		Title:    "SMB file sharing exposed to the network",
		Severity: scans.High,
		CWE:      "CWE-284",
		Description: "The SMB port (445) accepts connections. SMB is meant for internal networks; exposed SMB was " +
			"the entry point of WannaCry and NotPetya (EternalBlue, CVE-2017-0144) and invites credential attacks.",
		Remediation: "Block TCP 445 (and 139) at the network edge; use a VPN for remote file access; disable SMBv1.",
		References:  []string{refCWE284, "https://nvd.nist.gov/vuln/detail/CVE-2017-0144"},
	},
}

// noAuthChecks are the findings for services that answered a command only
// an unauthenticated service answers. They replace the exposure finding.
var noAuthChecks = map[string]check{
	"redis": {
		Title:    "Redis accepts commands without authentication",
		Severity: scans.Critical,
		CWE:      "CWE-306",
		Description: "Redis answered PING with PONG without any credentials, so anyone who can reach the port can " +
			"read and change all keys, and with CONFIG SET write files on the server, which is a well-known path " +
			"to remote code execution.",
		Remediation: "Immediately block the port publicly; enable authentication (requirepass or ACL users with " +
			"strong passwords), keep protected-mode on, bind Redis to a private interface and rename or disable " +
			"CONFIG, then review the data and the server for compromise.",
		References: []string{"https://redis.io/docs/latest/operate/oss_and_stack/management/security/", refCWE306},
	},
	"memcached": {
		Title:    "Memcached answers without authentication",
		Severity: scans.High,
		CWE:      "CWE-306",
		Description: "Memcached answered a command without credentials: anyone who can reach it can read, change " +
			"or flush the cached data (sessions, tokens, query results), and an exposed memcached can be abused " +
			"for traffic amplification.",
		Remediation: "Bind memcached to 127.0.0.1 or a private interface (-l), disable UDP (-U 0), block port 11211 " +
			"publicly, and enable SASL authentication if remote clients are needed.",
		References: []string{"https://github.com/memcached/memcached/wiki/SASLHowto", refCWE306},
	},
	"elasticsearch": {
		Title:    "Elasticsearch API answers without authentication",
		Severity: scans.Critical,
		CWE:      "CWE-306",
		Description: "Elasticsearch returned its cluster information without credentials, which means the REST " +
			"API is open: anyone who can reach it can read, change and delete every index. Open Elasticsearch " +
			"clusters are a leading cause of large data leaks and are wiped by ransom bots.",
		Remediation: "Block the port publicly, enable Elasticsearch security (xpack.security.enabled: true) with " +
			"TLS and strong passwords or API keys, and check the indices for unknown changes.",
		References: []string{"https://www.elastic.co/guide/en/elasticsearch/reference/current/secure-cluster.html", refCWE306},
	},
	"docker": {
		Title:    "Docker Engine API exposed without authentication",
		Severity: scans.Critical,
		CWE:      "CWE-306",
		Description: "The Docker Engine API answers over plain HTTP. Anyone who can reach it can start a " +
			"privileged container that mounts the host's file system, i.e. take over the host; exposed Docker " +
			"APIs are hunted by cryptomining botnets.",
		Remediation: "Stop listening on tcp://0.0.0.0:2375: use the local Unix socket, or SSH (DOCKER_HOST=ssh://...), " +
			"or TLS with client-certificate verification on 2376; block the port publicly and check the host for " +
			"unknown containers.",
		References: []string{"https://docs.docker.com/engine/security/protect-access/", refCWE306},
	},
}

// outdatedRule flags a product version announced in a banner. The table is
// for versions that are end-of-life or known-bad as a whole; matching
// individual CVEs against versions belongs to the vulnerability scanner.
type outdatedRule struct {
	Product string // as identified, e.g. "OpenSSH" (case-insensitive)
	Below   []int  // versions lower than this are flagged
	Exact   string // or: exactly this version is flagged
	Check   check
}

var outdatedRules = []outdatedRule{
	{
		Product: "OpenSSH", Below: []int{8, 0},
		Check: check{
			Title:    "Outdated OpenSSH version (before 8.0)",
			Severity: scans.Medium,
			CWE:      "CWE-1104",
			Description: "The SSH banner announces an OpenSSH release older than 8.0 (2019). These releases have " +
				"known vulnerabilities, among them user enumeration (CVE-2018-15473) and scp client issues, and " +
				"usually come from an operating system that is itself out of support. Distributions sometimes " +
				"backport fixes without changing the version: check the package version before dismissing this.",
			Remediation: "Upgrade OpenSSH (normally by upgrading the operating system to a supported release), " +
				"and restrict SSH to known source addresses or a VPN.",
			References: []string{"https://www.openssh.com/releasenotes.html", refCWE1104},
		},
	},
	{
		Product: "vsFTPd", Exact: "2.3.4",
		Check: check{
			Title:    "vsFTPd 2.3.4 (backdoored release)",
			Severity: scans.Critical,
			CWE:      "CWE-506",
			CVE:      "CVE-2011-2523",
			CVSS:     9.8,
			Description: "The FTP banner announces vsFTPd 2.3.4. The source archive of this release was replaced " +
				"with a backdoored one in 2011: a user name ending in \":)\" opens a root shell on port 6200. The " +
				"scanner did not try the backdoor (it never exploits); the version alone warrants treating the " +
				"server as compromised until proven otherwise.",
			Remediation: "Take the service offline, reinstall vsFTPd from a trusted, current package (3.x), and " +
				"investigate the host for compromise; prefer SFTP over FTP.",
			References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2011-2523",
				"https://cwe.mitre.org/data/definitions/506.html"},
		},
	},
	{
		Product: "MySQL", Below: []int{8, 4},
		Check: check{
			Title:    "End-of-life MySQL version",
			Severity: scans.Medium,
			CWE:      "CWE-1104",
			Description: "The MySQL greeting announces a release series that Oracle no longer supports: 5.5 " +
				"(end of life 2018), 5.6 (2021), 5.7 (October 2023), 8.0 (April 2026) and the 8.1-8.3 innovation " +
				"releases. End-of-life servers get no security fixes.",
			Remediation: "Upgrade to a supported series (8.4 LTS or a current release) and keep the database " +
				"port closed to the internet.",
			References: []string{"https://www.mysql.com/support/eol-notice.html", refCWE1104},
		},
	},
	{
		Product: "MariaDB", Below: []int{10, 11},
		Check: check{
			Title:    "End-of-life MariaDB version",
			Severity: scans.Medium,
			CWE:      "CWE-1104",
			Description: "The MySQL-protocol greeting announces a MariaDB series older than 10.11; every such series " +
				"has reached end of life (10.6, the last of them, in July 2026) and gets no security fixes.",
			Remediation: "Upgrade to a maintained long-term series (10.11, 11.4 or later) and keep the database " +
				"port closed to the internet.",
			References: []string{"https://mariadb.org/about/#maintenance-policy", refCWE1104},
		},
	},
}

// findingsFor returns the findings for one open port.
func findingsFor(host string, ip netip.Addr, port int, obs observation) []scans.Finding {
	where := fmt.Sprintf("%s:%d (%s) accepted a TCP connection", host, port, ip)
	var out []scans.Finding
	if c, ok := noAuthChecks[obs.Name]; ok && obs.NoAuth {
		out = append(out, c.finding(host, port, fmt.Sprintf("%s; it %s: %s", where, obs.Answer, obs.Banner)))
	} else if c, ok := exposures[obs.Name]; ok {
		f := c.finding(host, port, where+"; "+said(port, obs))
		if obs.ByPort || obs.Banner == "" {
			f.Confidence = scans.Firm // the port is open; what listens is assumed from its number
		}
		out = append(out, f)
	}
	for _, rule := range outdatedRules {
		if rule.matches(obs) {
			f := rule.Check.finding(host, port, fmt.Sprintf("%s; it announced %s %s: %s",
				where, obs.Product, sanitize(obs.Version, 40), obs.Banner))
			f.Confidence = scans.Tentative // the announced version alone
			out = append(out, f)
		}
	}
	return out
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
		digits := 0
		for digits < len(part) && part[digits] >= '0' && part[digits] <= '9' {
			digits++
		}
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

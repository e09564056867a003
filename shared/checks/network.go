package checks

import "secscan/shared/scans"

// Services that answer from the internet (port_scan): exposed databases and
// remote-access services, services without authentication, and banners
// announcing outdated software.

const (
	refCWE284  = "https://cwe.mitre.org/data/definitions/284.html"
	refCWE306  = "https://cwe.mitre.org/data/definitions/306.html"
	refCWE1104 = "https://cwe.mitre.org/data/definitions/1104.html"
	refOWASPIT = "https://owasp.org/www-community/vulnerabilities/Insecure_Transport"

	firewallFix = "Block the port at the firewall or security group so only the hosts that need it " +
		"(application servers, a VPN or bastion) can connect; bind the service to a private interface " +
		"(e.g. 127.0.0.1 or the VPC address) when nothing outside the host needs it."
	exposedRationale = "Reachable from the internet, one weak credential or unpatched flaw away from all the data (CIS Controls 4.4, 12.2); authentication was not seen missing (that is the -unauthenticated check)."
	noAuthRationale  = "Anyone who reaches the port reads and changes everything, with no credentials (CWE-306; CVSS 3.1 9.8, AV:N/AC:L/PR:N)."
	eolRationale     = "End-of-life software gets no security fixes, but the version alone proves no exploitable flaw (tentative)."
)

func databaseExposure(code scans.CheckCode, name, title, docs string) *Check {
	return define(Check{
		Code: code, Title: title, Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284",
		Rationale: exposedRationale,
		Description: name + " accepts connections from the network the scan came from. Databases and caches " +
			"reachable from the internet are probed continuously for weak or default credentials and known " +
			"vulnerabilities; one mistake in authentication then exposes all the data.",
		Remediation: firewallFix + " Require authentication and TLS for every client that must connect remotely.",
		References:  []string{docs, refCWE284},
	})
}

// Exposed services.
var (
	MySQLExposed = databaseExposure("network.service.mysql-exposed", "MySQL/MariaDB", "MySQL database exposed to the network",
		"https://dev.mysql.com/doc/refman/8.4/en/security-guidelines.html")
	PostgreSQLExposed = databaseExposure("network.service.postgresql-exposed", "PostgreSQL", "PostgreSQL database exposed to the network",
		"https://www.postgresql.org/docs/current/auth-pg-hba-conf.html")
	MongoDBExposed = databaseExposure("network.service.mongodb-exposed", "MongoDB", "MongoDB database exposed to the network",
		"https://www.mongodb.com/docs/manual/administration/security-checklist/")
	MSSQLExposed = databaseExposure("network.service.mssql-exposed", "Microsoft SQL Server", "Microsoft SQL Server exposed to the network",
		"https://learn.microsoft.com/en-us/sql/sql-server/install/configure-the-windows-firewall-to-allow-sql-server-access")
	OracleExposed = databaseExposure("network.service.oracle-exposed", "The Oracle database listener", "Oracle database listener exposed to the network",
		"https://docs.oracle.com/en/database/oracle/oracle-database/19/dbseg/index.html")
	RedisExposed = databaseExposure("network.service.redis-exposed", "Redis", "Redis exposed to the network",
		"https://redis.io/docs/latest/operate/oss_and_stack/management/security/")
	MemcachedExposed = databaseExposure("network.service.memcached-exposed", "memcached", "Memcached exposed to the network",
		"https://github.com/memcached/memcached/wiki/SASLHowto")
	ElasticsearchExposed = databaseExposure("network.service.elasticsearch-exposed", "Elasticsearch", "Elasticsearch exposed to the network",
		"https://www.elastic.co/guide/en/elasticsearch/reference/current/secure-cluster.html")

	TelnetExposed = define(Check{
		Code: "network.service.telnet", Title: "Telnet service exposed (cleartext remote login)",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-319",
		Rationale: "Remote login whose password and session travel in cleartext, and a favourite target of credential-guessing botnets.",
		Description: "A Telnet server accepts connections. Telnet sends the login, the password and the whole " +
			"session in cleartext, so anyone on the path can read or hijack it, and exposed Telnet logins are " +
			"a favourite target of credential-guessing botnets.",
		Remediation: "Disable the Telnet service and use SSH with key-based authentication instead; if a device " +
			"only offers Telnet, reach it only through a VPN or management network and block port 23 publicly.",
		References: []string{refCWE319, refOWASPIT},
	})
	FTPExposed = define(Check{
		Code: "network.service.ftp", Title: "FTP service exposed (cleartext credentials)",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-319",
		Rationale: "Credentials travel in cleartext, but capturing them needs a position on the network path.",
		Description: "An FTP server accepts connections. Plain FTP sends user names, passwords and files in " +
			"cleartext, so credentials can be captured by anyone on the network path.",
		Remediation: "Replace FTP with SFTP (over SSH) or require FTPS (explicit TLS, and refuse logins before " +
			"AUTH TLS); disable anonymous access; restrict the port to the clients that need it.",
		References: []string{refCWE319, "https://www.rfc-editor.org/rfc/rfc4217"},
	})
	RDPExposed = define(Check{
		Code: "network.service.rdp-exposed", Title: "Remote Desktop (RDP) exposed to the network",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284",
		Rationale: "One of the most common ransomware entry points (CISA advisories): password spraying and pre-authentication flaws.",
		Description: "The Remote Desktop port accepts connections. Internet-facing RDP is one of the most common " +
			"initial access routes for ransomware: password spraying, stolen credentials and pre-authentication " +
			"vulnerabilities such as BlueKeep (CVE-2019-0708).",
		Remediation: "Do not expose RDP to the internet: put it behind a VPN or an RD Gateway with multi-factor " +
			"authentication, enable Network Level Authentication, and keep the hosts patched.",
		References: []string{refCWE284, "https://nvd.nist.gov/vuln/detail/CVE-2019-0708"},
	})
	VNCExposed = define(Check{
		Code: "network.service.vnc-exposed", Title: "VNC remote desktop exposed to the network",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284",
		Rationale: "Remote control guarded by a single short password (often none), over an unencrypted protocol.",
		Description: "A VNC server accepts connections. VNC authentication is a single short password (often " +
			"none), the protocol is unencrypted by default, and exposed VNC servers are scanned for and taken over " +
			"routinely.",
		Remediation: "Stop exposing VNC: reach it only through a VPN or an SSH tunnel, set a strong password or " +
			"use a VNC server with system authentication and encryption, and block ports 5900-5903 publicly.",
		References: []string{refCWE284, refCWE319},
	})
	SMBExposed = define(Check{
		Code: "network.service.smb-exposed", Title: "SMB file sharing exposed to the network",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284",
		Rationale: "Internal file sharing on the internet: the entry point of WannaCry and NotPetya (CVE-2017-0144).",
		Description: "The SMB port (445) accepts connections. SMB is meant for internal networks; exposed SMB was " +
			"the entry point of WannaCry and NotPetya (EternalBlue, CVE-2017-0144) and invites credential attacks.",
		Remediation: "Block TCP 445 (and 139) at the network edge; use a VPN for remote file access; disable SMBv1.",
		References:  []string{refCWE284, "https://nvd.nist.gov/vuln/detail/CVE-2017-0144"},
	})
)

// Services that answered without authentication.
var (
	RedisNoAuth = define(Check{
		Code: "network.service.redis-unauthenticated", Title: "Redis accepts commands without authentication",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " CONFIG SET also writes files: a known path to code execution.",
		Description: "Redis answered PING with PONG without any credentials, so anyone who can reach the port can " +
			"read and change all keys, and with CONFIG SET write files on the server, which is a well-known path " +
			"to remote code execution.",
		Remediation: "Immediately block the port publicly; enable authentication (requirepass or ACL users with " +
			"strong passwords), keep protected-mode on, bind Redis to a private interface and rename or disable " +
			"CONFIG, then review the data and the server for compromise.",
		References: []string{"https://redis.io/docs/latest/operate/oss_and_stack/management/security/", refCWE306},
	})
	MemcachedNoAuth = define(Check{
		Code: "network.service.memcached-unauthenticated", Title: "Memcached answers without authentication",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306",
		Rationale: "Cached data (sessions, tokens) is readable and writable without credentials, but it is a cache, not the system of record, and gives no code execution.",
		Description: "Memcached answered a command without credentials: anyone who can reach it can read, change " +
			"or flush the cached data (sessions, tokens, query results), and an exposed memcached can be abused " +
			"for traffic amplification.",
		Remediation: "Bind memcached to 127.0.0.1 or a private interface (-l), disable UDP (-U 0), block port 11211 " +
			"publicly, and enable SASL authentication if remote clients are needed.",
		References: []string{"https://github.com/memcached/memcached/wiki/SASLHowto", refCWE306},
	})
	ElasticsearchNoAuth = define(Check{
		Code: "network.service.elasticsearch-unauthenticated", Title: "Elasticsearch API answers without authentication",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " Open clusters are a leading cause of large data leaks.",
		Description: "Elasticsearch returned its cluster information without credentials, which means the REST " +
			"API is open: anyone who can reach it can read, change and delete every index. Open Elasticsearch " +
			"clusters are a leading cause of large data leaks and are wiped by ransom bots.",
		Remediation: "Block the port publicly, enable Elasticsearch security (xpack.security.enabled: true) with " +
			"TLS and strong passwords or API keys, and check the indices for unknown changes.",
		References: []string{"https://www.elastic.co/guide/en/elasticsearch/reference/current/secure-cluster.html", refCWE306},
	})
	DockerNoAuth = define(Check{
		Code: "network.service.docker-unauthenticated", Title: "Docker Engine API exposed without authentication",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " A privileged container takes over the host.",
		Description: "The Docker Engine API answers over plain HTTP. Anyone who can reach it can start a " +
			"privileged container that mounts the host's file system, i.e. take over the host; exposed Docker " +
			"APIs are hunted by cryptomining botnets.",
		Remediation: "Stop listening on tcp://0.0.0.0:2375: use the local Unix socket, or SSH (DOCKER_HOST=ssh://...), " +
			"or TLS with client-certificate verification on 2376; block the port publicly and check the host for " +
			"unknown containers.",
		References: []string{"https://docs.docker.com/engine/security/protect-access/", refCWE306},
	})
)

// Software versions announced in banners.
var (
	OpenSSHOutdated = define(Check{
		Code: "ssh.version.outdated", Title: "Outdated OpenSSH version (before 8.0)",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104",
		Rationale: "Known flaws (user enumeration CVE-2018-15473, CVSS 5.3) and an unsupported OS behind it; upstream builds only (a distribution build is judged by its algorithms).",
		Description: "The SSH banner announces an OpenSSH release older than 8.0 (2019). These releases have " +
			"known vulnerabilities, among them user enumeration (CVE-2018-15473) and scp client issues, and " +
			"usually come from an operating system that is itself out of support. A banner that names a " +
			"distribution build (Debian, Ubuntu, FreeBSD...) is not reported: distributions backport fixes " +
			"without changing the version, and ssh_audit judges the server by the algorithms it offers.",
		Remediation: "Upgrade OpenSSH (normally by upgrading the operating system to a supported release), " +
			"and restrict SSH to known source addresses or a VPN.",
		References: []string{"https://www.openssh.com/releasenotes.html", refCWE1104},
	})
	VsftpdBackdoor = define(Check{
		Code: "network.version.vsftpd-backdoor", Title: "vsFTPd 2.3.4 (backdoored release)",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-506",
		Rationale: "CVSS 9.8 (CVE-2011-2523): a root shell for anyone; the version alone warrants treating the host as compromised.",
		Description: "The FTP banner announces vsFTPd 2.3.4. The source archive of this release was replaced " +
			"with a backdoored one in 2011: a user name ending in \":)\" opens a root shell on port 6200. The " +
			"scanner did not try the backdoor (it never exploits); the version alone warrants treating the " +
			"server as compromised until proven otherwise.",
		Remediation: "Take the service offline, reinstall vsFTPd from a trusted, current package (3.x), and " +
			"investigate the host for compromise; prefer SFTP over FTP.",
		References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2011-2523",
			"https://cwe.mitre.org/data/definitions/506.html"},
	})
	MySQLEOL = define(Check{
		Code: "network.version.mysql-eol", Title: "End-of-life MySQL version",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104", Rationale: eolRationale,
		Description: "The MySQL greeting announces a release series that Oracle no longer supports: 5.5 " +
			"(end of life 2018), 5.6 (2021), 5.7 (October 2023), 8.0 (April 2026) and the 8.1-8.3 innovation " +
			"releases. End-of-life servers get no security fixes.",
		Remediation: "Upgrade to a supported series (8.4 LTS or a current release) and keep the database " +
			"port closed to the internet.",
		References: []string{"https://www.mysql.com/support/eol-notice.html", refCWE1104},
	})
	MariaDBEOL = define(Check{
		Code: "network.version.mariadb-eol", Title: "End-of-life MariaDB version",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104", Rationale: eolRationale,
		Description: "The MySQL-protocol greeting announces a MariaDB series older than 10.11; every such series " +
			"has reached end of life (10.6, the last of them, in July 2026) and gets no security fixes.",
		Remediation: "Upgrade to a maintained long-term series (10.11, 11.4 or later) and keep the database " +
			"port closed to the internet.",
		References: []string{"https://mariadb.org/about/#maintenance-policy", refCWE1104},
	})
)

package checks

import "secscan/shared/scans"

// The catalogue's checks by area: each one's code, title, category, default
// severity and CWE ("" when none fits), as the tools and tests use them.
// Their prose (rationale, description, remediation, references) is the
// entry of the same code in catalogue.json, loaded on first use (text.go).
// FTP's checks are in ftp.go, the vulnerability checks and the end-of-life
// template in vuln.go.
var (
	// Browser hardening headers (package web, and tls_check for HSTS).
	HeaderCSP               = define(Check{Code: "web.header.csp", Title: "Missing Content-Security-Policy header", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693"})
	HeaderHSTS              = define(Check{Code: "web.header.hsts", Title: "Missing Strict-Transport-Security header", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319"})
	HeaderHSTSMaxAge        = define(Check{Code: "web.header.hsts-max-age", Title: "Weak Strict-Transport-Security max-age", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319"})
	HeaderFrameOptions      = define(Check{Code: "web.header.x-frame-options", Title: "Missing X-Frame-Options header", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1021"})
	HeaderNoSniff           = define(Check{Code: "web.header.x-content-type-options", Title: "Missing X-Content-Type-Options header", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693"})
	HeaderReferrerPolicy    = define(Check{Code: "web.header.referrer-policy", Title: "Missing Referrer-Policy header", Category: scans.CategoryWeb, Severity: scans.Info, CWE: "CWE-200"})
	HeaderPermissionsPolicy = define(Check{Code: "web.header.permissions-policy", Title: "Missing Permissions-Policy header", Category: scans.CategoryWeb, Severity: scans.Info, CWE: "CWE-693"})

	// Version disclosure (web and crawl).
	VersionHeader = define(Check{Code: "web.version-disclosure.header", Title: "Server version disclosed in HTTP headers", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200"})
	VersionPage   = define(Check{Code: "web.version-disclosure.page", Title: "Software version disclosed in page content", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200"})

	// Cookies (package web).
	CookieSecure   = define(Check{Code: "web.cookie.secure", Title: "Cookie without Secure flag", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-614"})
	CookieHTTPOnly = define(Check{Code: "web.cookie.httponly", Title: "Cookie without HttpOnly flag", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1004"})
	CookieSameSite = define(Check{Code: "web.cookie.samesite", Title: "Cookie without SameSite attribute", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1275"})

	// Active probes of package web.
	CORSCredentials    = define(Check{Code: "web.cors.credentials", Title: "CORS reflects arbitrary origins with credentials", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-942"})
	CORSReflected      = define(Check{Code: "web.cors.reflected", Title: "CORS reflects arbitrary origins", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-942"})
	HTTPTrace          = define(Check{Code: "web.http-trace", Title: "HTTP TRACE method enabled", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693"})
	HTTPSRedirect      = define(Check{Code: "web.https-redirect", Title: "HTTP does not redirect to HTTPS", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319"})
	SecurityTxt        = define(Check{Code: "web.security-txt", Title: "Missing security.txt", Category: scans.CategoryWeb, Severity: scans.Info, CWE: ""})
	SecurityTxtExpired = define(Check{Code: "web.security-txt-expired", Title: "Expired security.txt", Category: scans.CategoryWeb, Severity: scans.Info, CWE: ""})
	OpenRedirect       = define(Check{Code: "web.open-redirect", Title: "Open redirect", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-601"})

	// Page checks of the web crawl.
	PasswordOverHTTP   = define(Check{Code: "web.password-over-http", Title: "Password field on a page served over HTTP", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-319"})
	PasswordFormToHTTP = define(Check{Code: "web.password-form-to-http", Title: "Form with a password field submits over plain HTTP", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-319"})
	FormToHTTP         = define(Check{Code: "web.form-to-http", Title: "Form submits over plain HTTP", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319"})
	MixedActive        = define(Check{Code: "web.mixed-content.active", Title: "Mixed content: scripts, styles or frames loaded over HTTP", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319"})
	MixedPassive       = define(Check{Code: "web.mixed-content.passive", Title: "Mixed content: images or media loaded over HTTP", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319"})
	DirectoryListing   = define(Check{Code: "web.directory-listing", Title: "Directory listing enabled", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-548"})
	ErrorDetails       = define(Check{Code: "web.error-details", Title: "Error page reveals stack trace or debug information", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-209"})

	// TLS certificates, protocols and cipher suites (tls_check). Severities
	// follow Mozilla's server-side TLS guidance (the "intermediate"
	// configuration is the bar), RFC 8996 for TLS 1.0/1.1, RFC 7465 for RC4 and
	// RFC 9325 for the rest; HSTS is web.header.hsts (shared with the web tool).

	// Certificates.
	CertExpired       = define(Check{Code: "tls.certificate.expired", Title: "TLS certificate expired", Category: scans.CategorySSL, Severity: scans.High, CWE: "CWE-324"})
	CertNotYetValid   = define(Check{Code: "tls.certificate.not-yet-valid", Title: "TLS certificate not yet valid", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295"})
	CertExpiringSoon  = define(Check{Code: "tls.certificate.expiring-soon", Title: "TLS certificate expires within 30 days", Category: scans.CategorySSL, Severity: scans.Low, CWE: ""})
	CertSelfSigned    = define(Check{Code: "tls.certificate.self-signed", Title: "Self-signed TLS certificate", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295"})
	CertUntrusted     = define(Check{Code: "tls.certificate.untrusted", Title: "TLS certificate chain not trusted", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295"})
	CertHostMismatch  = define(Check{Code: "tls.certificate.hostname-mismatch", Title: "TLS certificate does not match the host name", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-297"})
	CertWeakRSA       = define(Check{Code: "tls.certificate.weak-key", Title: "TLS certificate RSA key shorter than 2048 bits", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-326"})
	CertWeakSignature = define(Check{Code: "tls.certificate.weak-signature", Title: "TLS certificate signed with SHA-1 or MD5", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-328"})

	// Protocols and cipher suites.
	TLS10        = define(Check{Code: "tls.protocol.tls10", Title: "TLS 1.0 accepted", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327"})
	TLS11        = define(Check{Code: "tls.protocol.tls11", Title: "TLS 1.1 accepted", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327"})
	CipherRC4    = define(Check{Code: "tls.cipher.rc4", Title: "RC4 cipher suites accepted", Category: scans.CategorySSL, Severity: scans.High, CWE: "CWE-327"})
	Cipher3DES   = define(Check{Code: "tls.cipher.3des", Title: "3DES cipher suites accepted (SWEET32)", Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327"})
	CipherRSAKex = define(Check{Code: "tls.cipher.no-forward-secrecy", Title: "Cipher suites without forward secrecy accepted (RSA key exchange)", Category: scans.CategorySSL, Severity: scans.Low, CWE: "CWE-327"})
	CipherCBC    = define(Check{Code: "tls.cipher.cbc", Title: "CBC-mode cipher suites accepted", Category: scans.CategorySSL, Severity: scans.Low, CWE: "CWE-327"})

	// Mail authentication, CAA, DNSSEC, zone transfers and dangling aliases
	// (dns_check). Severities follow the RFCs' own verdicts: a record the RFC
	// makes a permanent error or that lets spoofed mail pass is medium (high
	// when it vouches for any sender), monitoring-only policies and optional
	// hardening are low.

	// SPF.
	SPFMissing        = define(Check{Code: "dns.spf.missing", Title: "No SPF record", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	SPFMultiple       = define(Check{Code: "dns.spf.multiple", Title: "Multiple SPF records", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	SPFPassAll        = define(Check{Code: "dns.spf.pass-all", Title: "SPF record allows any sender (+all)", Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-290"})
	SPFNeutral        = define(Check{Code: "dns.spf.neutral", Title: "SPF record ends in ?all (neutral)", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	SPFNoAll          = define(Check{Code: "dns.spf.no-all", Title: "SPF record has no all mechanism", Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290"})
	SPFTooManyLookups = define(Check{Code: "dns.spf.too-many-lookups", Title: "SPF record needs more than 10 DNS lookups", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})

	// DMARC.
	DMARCMissing  = define(Check{Code: "dns.dmarc.missing", Title: "No DMARC record", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	DMARCMultiple = define(Check{Code: "dns.dmarc.multiple", Title: "Multiple DMARC records", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	DMARCInvalid  = define(Check{Code: "dns.dmarc.invalid", Title: "DMARC record has no valid policy", Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290"})
	DMARCNone     = define(Check{Code: "dns.dmarc.none", Title: "DMARC policy is none (monitoring only)", Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290"})
	DMARCPartial  = define(Check{Code: "dns.dmarc.partial", Title: "DMARC policy applies to only part of the mail (pct below 100)", Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290"})

	// CAA, DNSSEC, zone transfers, dangling aliases.
	// No CWE describes a missing CAA record; the finding is hardening.
	CAAMissing    = define(Check{Code: "dns.caa.missing", Title: "No CAA record", Category: scans.CategoryDNS, Severity: scans.Low, CWE: ""})
	DNSSECMissing = define(Check{Code: "dns.dnssec.missing", Title: "DNSSEC not enabled", Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-345"})
	ZoneTransfer  = define(Check{Code: "dns.zone-transfer", Title: "Zone transfer (AXFR) allowed", Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-200"})
	// CWE-350 is the entry takeover reports commonly cite; no CWE names
	// dangling DNS records exactly.
	DanglingCNAME = define(Check{Code: "dns.dangling-cname", Title: "Dangling CNAME (possible subdomain takeover)", Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-350"})

	// DNSWildcard is a zone (the domain or a subzone) that answers for any
	// label (discover_hosts, which also keeps the wildcard's answers from
	// becoming hosts).
	DNSWildcard = define(Check{Code: "dns.wildcard", Title: "Wildcard DNS record answers for any name", Category: scans.CategoryDNS, Severity: scans.Low, CWE: ""})

	// Services that answer from the internet (port_scan): exposed databases and
	// remote-access services, services without authentication, and banners
	// announcing outdated software.

	// Exposed services.
	MySQLExposed         = define(Check{Code: "network.service.mysql-exposed", Title: "MySQL database exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	PostgreSQLExposed    = define(Check{Code: "network.service.postgresql-exposed", Title: "PostgreSQL database exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	MongoDBExposed       = define(Check{Code: "network.service.mongodb-exposed", Title: "MongoDB database exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	MSSQLExposed         = define(Check{Code: "network.service.mssql-exposed", Title: "Microsoft SQL Server exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	OracleExposed        = define(Check{Code: "network.service.oracle-exposed", Title: "Oracle database listener exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	RedisExposed         = define(Check{Code: "network.service.redis-exposed", Title: "Redis exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	MemcachedExposed     = define(Check{Code: "network.service.memcached-exposed", Title: "Memcached exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	ElasticsearchExposed = define(Check{Code: "network.service.elasticsearch-exposed", Title: "Elasticsearch exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})

	TelnetExposed = define(Check{Code: "network.service.telnet", Title: "Telnet service exposed (cleartext remote login)", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-319"})
	FTPExposed    = define(Check{Code: "network.service.ftp", Title: "FTP service exposed (cleartext credentials)", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-319"})
	RDPExposed    = define(Check{Code: "network.service.rdp-exposed", Title: "Remote Desktop (RDP) exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	VNCExposed    = define(Check{Code: "network.service.vnc-exposed", Title: "VNC remote desktop exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	SMBExposed    = define(Check{Code: "network.service.smb-exposed", Title: "SMB file sharing exposed to the network", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})

	// Services that answered without authentication.
	RedisNoAuth         = define(Check{Code: "network.service.redis-unauthenticated", Title: "Redis accepts commands without authentication", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})
	MemcachedNoAuth     = define(Check{Code: "network.service.memcached-unauthenticated", Title: "Memcached answers without authentication", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306"})
	ElasticsearchNoAuth = define(Check{Code: "network.service.elasticsearch-unauthenticated", Title: "Elasticsearch API answers without authentication", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})
	DockerNoAuth        = define(Check{Code: "network.service.docker-unauthenticated", Title: "Docker Engine API exposed without authentication", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})

	// Software versions announced in banners.
	OpenSSHOutdated = define(Check{Code: "ssh.version.outdated", Title: "Outdated OpenSSH version (before 8.0)", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104"})
	VsftpdBackdoor  = define(Check{Code: "network.version.vsftpd-backdoor", Title: "vsFTPd 2.3.4 (backdoored release)", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-506"})
	MySQLEOL        = define(Check{Code: "network.version.mysql-eol", Title: "End-of-life MySQL version", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104"})
	MariaDBEOL      = define(Check{Code: "network.version.mariadb-eol", Title: "End-of-life MariaDB version", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-1104"})

	// Admin, metrics and debug endpoints found on any HTTP port (http_fingerprint):
	// machine endpoints identified by what they answer (Prometheus exposition
	// format, Elasticsearch's cluster JSON, Consul's agent JSON…). The
	// Elasticsearch and Docker weaknesses, and Go's pprof/expvar and the Spring
	// actuator env endpoint, already have codes (network.go, exposure.go) that
	// http_fingerprint reuses: one weakness, one code, whichever tool saw it.
	// Products that answered 401 or 403 are no finding (the surface names them).
	ExposedMetrics  = define(Check{Code: "web.exposed-metrics", Title: "Prometheus metrics endpoint exposed without authentication", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})
	ExposedActuator = define(Check{Code: "web.exposed-actuator", Title: "Spring Boot actuator endpoints exposed without authentication", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})

	EtcdExposed         = define(Check{Code: "network.service.etcd-exposed", Title: "etcd client API exposed without client certificates", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284"})
	ConsulNoAuth        = define(Check{Code: "network.service.consul-unauthenticated", Title: "Consul agent API answers without an ACL token", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306"})
	KubeletNoAuth       = define(Check{Code: "network.service.kubelet-unauthenticated", Title: "Kubelet API answers without authentication", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})
	KubernetesAPINoAuth = define(Check{Code: "network.service.kubernetes-api-unauthenticated", Title: "Kubernetes API server grants anonymous requests more than public information", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306"})
	JenkinsNoAuth       = define(Check{Code: "network.service.jenkins-unauthenticated", Title: "Jenkins readable without authentication", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306"})
	GrafanaAnonymous    = define(Check{Code: "network.service.grafana-anonymous", Title: "Grafana allows anonymous access", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-284"})
	SolrNoAuth          = define(Check{Code: "network.service.solr-unauthenticated", Title: "Apache Solr admin API answers without authentication", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306"})
	CouchDBNoAuth       = define(Check{Code: "network.service.couchdb-unauthenticated", Title: "CouchDB lists databases without authentication", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})
	RabbitMQNoAuth      = define(Check{Code: "network.service.rabbitmq-unauthenticated", Title: "RabbitMQ management API answers without credentials", Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306"})

	// Sensitive files and endpoints a site serves (exposed_files, and the
	// listing_files follow-up).
	ExposedGit            = define(Check{Code: "web.exposed-git", Title: "Exposed Git repository", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527"})
	ExposedSVN            = define(Check{Code: "web.exposed-svn", Title: "Exposed Subversion metadata", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527"})
	ExposedHg             = define(Check{Code: "web.exposed-hg", Title: "Exposed Mercurial repository", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527"})
	ExposedEnv            = define(Check{Code: "web.exposed-env", Title: "Exposed environment file", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538"})
	ExposedAWSCredentials = define(Check{Code: "web.exposed-aws-credentials", Title: "Exposed AWS credentials file", Category: scans.CategoryWeb, Severity: scans.Critical, CWE: "CWE-538"})
	ExposedNpmrc          = define(Check{Code: "web.exposed-npmrc", Title: "Exposed npm configuration with auth token", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538"})
	ExposedHtpasswd       = define(Check{Code: "web.exposed-htpasswd", Title: "Exposed password file (.htpasswd)", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538"})
	ExposedDatabaseDump   = define(Check{Code: "web.exposed-database-dump", Title: "Exposed database dump", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530"})
	ExposedBackupArchive  = define(Check{Code: "web.exposed-backup-archive", Title: "Exposed backup archive", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530"})
	ExposedSourceBackup   = define(Check{Code: "web.exposed-source-backup", Title: "Exposed PHP source backup", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530"})
	ListedSensitiveFile   = define(Check{Code: "web.listed-sensitive-file", Title: "Sensitive file downloadable from a directory listing", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530"})
	ExposedServerStatus   = define(Check{Code: "web.exposed-server-status", Title: "Apache server-status page exposed", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})
	ExposedServerInfo     = define(Check{Code: "web.exposed-server-info", Title: "Apache server-info page exposed", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})
	ExposedPHPInfo        = define(Check{Code: "web.exposed-phpinfo", Title: "phpinfo() page exposed", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})
	DebugMode             = define(Check{Code: "web.debug-mode", Title: "Framework debug mode exposed", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-489"})
	ExposedPprof          = define(Check{Code: "web.exposed-pprof", Title: "Go pprof profiling endpoint exposed", Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200"})
	ExposedExpvar         = define(Check{Code: "web.exposed-expvar", Title: "Go expvar endpoint exposed", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200"})
	ExposedActuatorEnv    = define(Check{Code: "web.exposed-actuator-env", Title: "Spring Boot actuator env endpoint exposed", Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-200"})
	ExposedDSStore        = define(Check{Code: "web.exposed-ds-store", Title: "Exposed .DS_Store file", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-538"})
	ExposedSourceMap      = define(Check{Code: "web.exposed-source-map", Title: "JavaScript source map exposed", Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-540"})

	// SSH servers judged by what they offer (ssh_audit): the algorithms of
	// their KEXINIT against Mozilla's OpenSSH guidelines and RFC 9142, the
	// authentication methods they offer to a "none" request, and the Terrapin
	// condition read from the protocol, not from the version.

	// SSH audit findings.
	SSHKexWeak      = define(Check{Code: "ssh.kex.weak", Title: "SSH server offers weak key exchange algorithms", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-327"})
	SSHCipherWeak   = define(Check{Code: "ssh.cipher.weak", Title: "SSH server offers weak ciphers", Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327"})
	SSHMACWeak      = define(Check{Code: "ssh.mac.weak", Title: "SSH server offers weak MAC algorithms", Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327"})
	SSHHostKeyWeak  = define(Check{Code: "ssh.hostkey.weak", Title: "SSH server offers weak host key signature algorithms", Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327"})
	SSHPasswordAuth = define(Check{Code: "ssh.auth.password", Title: "SSH server accepts password logins", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-307"})
	SSHTerrapin     = define(Check{Code: "ssh.terrapin", Title: "SSH server vulnerable to the Terrapin prefix truncation attack (CVE-2023-48795)", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-354"})

	// Secrets in what a site serves (code_scan, file_secrets). One code for
	// every secret kind: a finding sets its own title ("AWS access key exposed in
	// /app.js") and severity (critical for a working key pair, low for a
	// generic high-entropy string).
	Secret = define(Check{Code: "code.secret", Title: "Secret exposed in served code or files", Category: scans.CategoryCode, Severity: scans.High, CWE: "CWE-798"})
)

package checks

import "secscan/shared/scans"

// Sensitive files and endpoints a site serves (exposed_files, and the
// listing_files follow-up).

const (
	refWSTGBackups = "https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information"
	refCWE527      = "https://cwe.mitre.org/data/definitions/527.html"
	refCWE530      = "https://cwe.mitre.org/data/definitions/530.html"
	refCWE538      = "https://cwe.mitre.org/data/definitions/538.html"

	vcsDescription = "Version-control metadata is downloadable from the web root. With it an attacker can reconstruct the site's source code and history, including credentials and internal URLs ever committed."
	vcsRemediation = "Block access to version-control directories at the web server (e.g. nginx: `location ~ /\\.(git|svn|hg) { deny all; }`), deploy from a build artifact instead of a checkout, and rotate any credential ever committed to the repository."
	vcsRationale   = "The source code and its history, often with committed credentials, can be downloaded by anyone (CWE-527; CVSS 3.1 about 7.5, C:H)."

	secretFileRemediation = "Remove the file from the web root (or deny dotfiles at the web server), then rotate every credential it contained: assume they are compromised."
	backupRemediation     = "Remove backups and dumps from the web root, store them outside it with access control, and rotate any credential they contain."
	backupRationale       = "The data or code the application protects is downloadable by anyone (CWE-530; CVSS 3.1 about 7.5, C:H)."
	debugInfoRationale    = "Discloses configuration, paths and versions that make other attacks easier, not the data itself (CWE-200)."
)

var (
	ExposedGit = define(Check{
		Code: "web.exposed-git", Title: "Exposed Git repository",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527", Rationale: vcsRationale,
		Description: vcsDescription, Remediation: vcsRemediation,
		References: []string{refWSTGBackups, refCWE527},
	})
	ExposedSVN = define(Check{
		Code: "web.exposed-svn", Title: "Exposed Subversion metadata",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527", Rationale: vcsRationale,
		Description: vcsDescription, Remediation: vcsRemediation,
		References: []string{refWSTGBackups, refCWE527},
	})
	ExposedHg = define(Check{
		Code: "web.exposed-hg", Title: "Exposed Mercurial repository",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-527", Rationale: vcsRationale,
		Description: vcsDescription, Remediation: vcsRemediation,
		References: []string{refWSTGBackups, refCWE527},
	})
	ExposedEnv = define(Check{
		Code: "web.exposed-env", Title: "Exposed environment file",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538",
		Rationale:   "Such files usually hold database passwords and API keys, readable by anyone (CWE-538; CVSS 3.1 about 7.5). Secrets found in it are reported as code.secret.",
		Description: "An environment file with configuration variables is downloadable. Such files usually hold database passwords, API keys and signing secrets.",
		Remediation: secretFileRemediation,
		References:  []string{refCWE538, "https://12factor.net/config"},
	})
	ExposedAWSCredentials = define(Check{
		Code: "web.exposed-aws-credentials", Title: "Exposed AWS credentials file",
		Category: scans.CategoryWeb, Severity: scans.Critical, CWE: "CWE-538",
		Rationale:   "Working cloud credentials give anyone control of AWS resources with the keys' permissions (CVSS 3.1 about 9.8).",
		Description: "An AWS shared credentials file is downloadable: its access keys let anyone act on the AWS account with the keys' permissions.",
		Remediation: "Deactivate and delete the exposed access keys in IAM at once, review CloudTrail for their use, and remove the file from the web root.",
		References:  []string{"https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html", refCWE538},
	})
	ExposedNpmrc = define(Check{
		Code: "web.exposed-npmrc", Title: "Exposed npm configuration with auth token",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538",
		Rationale:   "A registry token can publish packages (supply-chain compromise) or read private ones.",
		Description: "An .npmrc with a registry auth token is downloadable; the token can publish or read private packages.",
		Remediation: "Revoke the token in the registry, remove the file from the web root and inject tokens at build time instead.",
		References:  []string{"https://docs.npmjs.com/cli/v10/configuring-npm/npmrc", refCWE538},
	})
	ExposedHtpasswd = define(Check{
		Code: "web.exposed-htpasswd", Title: "Exposed password file (.htpasswd)",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-538",
		Rationale:   "Password hashes can be cracked offline and reused against the protected area (CVSS 3.1 about 7.5).",
		Description: "An Apache password file is downloadable: its user names and password hashes can be cracked offline.",
		Remediation: "Move the file out of the web root (Apache denies .ht* by default: restore that rule) and change every password it holds.",
		References:  []string{"https://httpd.apache.org/docs/2.4/programs/htpasswd.html", refCWE538},
	})
	ExposedDatabaseDump = define(Check{
		Code: "web.exposed-database-dump", Title: "Exposed database dump",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530", Rationale: backupRationale,
		Description: "A SQL dump is downloadable: it holds the database's structure and data, typically including user records and password hashes.",
		Remediation: backupRemediation, References: []string{refWSTGBackups, refCWE530},
	})
	ExposedBackupArchive = define(Check{
		Code: "web.exposed-backup-archive", Title: "Exposed backup archive",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530", Rationale: backupRationale,
		Description: "A backup archive is downloadable from the web root; such archives usually contain the site's source code and configuration.",
		Remediation: backupRemediation, References: []string{refWSTGBackups, refCWE530},
	})
	ExposedSourceBackup = define(Check{
		Code: "web.exposed-source-backup", Title: "Exposed PHP source backup",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530", Rationale: backupRationale,
		Description: "A backup copy of a PHP file is served as text instead of being executed, revealing source code and often database credentials.",
		Remediation: backupRemediation, References: []string{refWSTGBackups, refCWE530},
	})
	ListedSensitiveFile = define(Check{
		Code: "web.listed-sensitive-file", Title: "Sensitive file downloadable from a directory listing",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-530",
		Rationale:   backupRationale + " The tool raises it to critical for database dumps and private keys.",
		Description: "A directory listing shows a backup, dump or similar file and the server hands it to anyone who asks. Backups and dumps usually hold the data the application protects (customer records, password hashes, secrets).",
		Remediation: "Remove the file from the web root now, turn off directory listings (Options -Indexes, autoindex off), and treat what the file contains as disclosed: rotate credentials and assess the data exposed.",
		References:  []string{refCWE530, refWSTGBackups},
	})
	ExposedServerStatus = define(Check{
		Code: "web.exposed-server-status", Title: "Apache server-status page exposed",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200",
		Rationale:   "Shows client addresses and live request URLs, which may carry session tokens (CWE-200; CVSS 3.1 about 5.3).",
		Description: "mod_status is reachable from the internet: it shows the server version, uptime, client IP addresses and the URLs being requested right now (which may carry session tokens).",
		Remediation: "Restrict /server-status to localhost or an admin network (Require local / Require ip ...), or disable mod_status.",
		References:  []string{"https://httpd.apache.org/docs/2.4/mod/mod_status.html", refCWE200},
	})
	ExposedServerInfo = define(Check{
		Code: "web.exposed-server-info", Title: "Apache server-info page exposed",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200", Rationale: debugInfoRationale,
		Description: "mod_info is reachable from the internet: it shows the server's full configuration, modules and file paths.",
		Remediation: "Restrict /server-info to localhost or an admin network, or disable mod_info.",
		References:  []string{"https://httpd.apache.org/docs/2.4/mod/mod_info.html", refCWE200},
	})
	ExposedPHPInfo = define(Check{
		Code: "web.exposed-phpinfo", Title: "phpinfo() page exposed",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200", Rationale: debugInfoRationale,
		Description: "A phpinfo() page shows the PHP version, loaded modules, file paths and environment variables (sometimes secrets), which helps attackers target the server.",
		Remediation: "Delete phpinfo pages from production.",
		References:  []string{refWSTGFingerpr, refCWE200},
	})
	DebugMode = define(Check{
		Code: "web.debug-mode", Title: "Framework debug mode exposed",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-489",
		Rationale:   "Debug pages disclose settings and source; some debuggers also run code, which the tool reports apart when it sees it.",
		Description: "The application runs with its framework's debug mode on: error pages show stack traces, settings and source code, and some debuggers allow running code.",
		Remediation: "Turn debug mode off in production (DEBUG = False in Django, no Werkzeug debugger, APP_DEBUG=false in Laravel).",
		References:  []string{"https://cwe.mitre.org/data/definitions/489.html"},
	})
	ExposedPprof = define(Check{
		Code: "web.exposed-pprof", Title: "Go pprof profiling endpoint exposed",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200",
		Rationale:   "Discloses memory contents and command lines, and profiles can load the server (CWE-200).",
		Description: "net/http/pprof is reachable: anyone can read goroutine stacks, the command line and heap contents, and start CPU profiles that load the server.",
		Remediation: "Serve pprof on a separate, internal-only listener or remove the net/http/pprof import from the public server.",
		References:  []string{"https://pkg.go.dev/net/http/pprof", refCWE200},
	})
	ExposedExpvar = define(Check{
		Code: "web.exposed-expvar", Title: "Go expvar endpoint exposed",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200",
		Rationale:   "Discloses the command line and memory statistics only (CWE-200).",
		Description: "expvar is reachable: it shows the process command line (which may contain flags with secrets) and memory statistics.",
		Remediation: "Serve expvar on an internal-only listener.",
		References:  []string{"https://pkg.go.dev/expvar", refCWE200},
	})
	ExposedActuatorEnv = define(Check{
		Code: "web.exposed-actuator-env", Title: "Spring Boot actuator env endpoint exposed",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-200",
		Rationale:   "Lists configuration and environment variables, often with credentials, to anyone (CVSS 3.1 about 7.5).",
		Description: "The Spring Boot actuator env endpoint is reachable: it lists configuration properties and environment variables, often including credentials, and eases further attacks on the actuator.",
		Remediation: "Expose only health (and info) over HTTP: management.endpoints.web.exposure.include=health, and protect the actuator with authentication.",
		References:  []string{"https://docs.spring.io/spring-boot/reference/actuator/endpoints.html", refCWE200},
	})
	ExposedDSStore = define(Check{
		Code: "web.exposed-ds-store", Title: "Exposed .DS_Store file",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-538",
		Rationale:   "Reveals file names only, which helps find unlinked files.",
		Description: "A macOS Finder .DS_Store file is downloadable; it lists the names of files in the directory, including ones not linked anywhere.",
		Remediation: "Delete .DS_Store files from the web root, exclude them from deployments and deny dotfiles at the web server.",
		References:  []string{refCWE538},
	})
	ExposedSourceMap = define(Check{
		Code: "web.exposed-source-map", Title: "JavaScript source map exposed",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-540",
		Rationale:   "Client code is public anyway; maps make it readable. Secrets found in them are reported as code.secret.",
		Description: "Source maps of the site's scripts are public: they reveal the original, unminified source code, file layout and comments, and make finding flaws and embedded secrets easier.",
		Remediation: "Do not deploy .map files to production (or restrict them to internal networks), and remove sourceMappingURL comments from served bundles.",
		References:  []string{"https://developer.mozilla.org/en-US/docs/Glossary/Source_map", "https://cwe.mitre.org/data/definitions/540.html"},
	})
)

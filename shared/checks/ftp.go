package checks

import "secscan/shared/scans"

// What an FTP server lets anyone do (ftp_audit): log in anonymously, read
// files that look sensitive, and whether credentials can be protected with
// TLS at all. The exposure itself (cleartext FTP reachable from the network)
// is network.service.ftp, reported by port_scan.

const refFTPAnonymous = "https://www.rfc-editor.org/rfc/rfc1635"

// FTP.
var (
	FTPAnonymousLogin = define(Check{
		Code: "ftp.anonymous-login", Title: "FTP server accepts anonymous login",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-306",
		Rationale: "Anyone reads whatever the server publishes, with no credential (CWE-306); medium because public mirrors allow it on purpose and only what is published is exposed (sensitive files there are the separate high check).",
		Description: "The FTP server accepted `USER anonymous` with an e-mail address as the password and let the " +
			"session list its directories. Anyone on the network can read everything the anonymous account can " +
			"reach; servers set up for one partner or one transfer are often left open like this, and files put " +
			"there later are published without anyone deciding to.",
		Remediation: "Disable anonymous access (vsftpd: `anonymous_enable=NO`; ProFTPD: remove the `<Anonymous>` " +
			"section; Pure-FTPd: `NoAnonymous yes`) unless the server is a public mirror on purpose; give partners " +
			"their own accounts over SFTP or FTPS, and move files that are not public elsewhere.",
		References: []string{refFTPAnonymous, refCWE306, "https://www.rfc-editor.org/rfc/rfc2577"},
	})
	FTPAnonymousSensitiveFile = define(Check{
		Code: "ftp.anonymous.sensitive-file", Title: "Sensitive-looking files readable over anonymous FTP",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-552",
		Rationale: "Files named like customer data, database dumps, backups, environment files or private keys can be downloaded by anyone without credentials (CWE-552); high because one download is a data breach, the contents were not read to confirm it.",
		Description: "The anonymous FTP account can list files whose names look like customer data, database " +
			"dumps, backups, environment files, password files or private keys. Anyone can download them with " +
			"no credential. The scan read names only (no file was downloaded), so the contents are unconfirmed.",
		Remediation: "Remove the files from the FTP tree (and rotate any credential or key they may hold), disable " +
			"anonymous access, and treat the files as disclosed: check the server's transfer log for downloads.",
		References: []string{"https://cwe.mitre.org/data/definitions/552.html", refFTPAnonymous},
	})
	FTPNoTLS = define(Check{
		Code: "ftp.no-tls", Title: "FTP server offers no TLS (AUTH TLS refused)",
		Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-319",
		Rationale: "Adds to network.service.ftp (medium, which rates the cleartext risk): with no AUTH TLS no client can protect its login even if it wants to; low so the one weakness is not rated twice.",
		Description: "The FTP server neither lists `AUTH TLS` in its FEAT answer nor accepts the `AUTH TLS` " +
			"command (RFC 4217). Every login and file goes over the network in cleartext, whatever the client " +
			"is configured to do.",
		Remediation: "Enable explicit FTPS (vsftpd: `ssl_enable=YES`, `force_local_logins_ssl=YES`; ProFTPD: " +
			"`TLSEngine on`, `TLSRequired on`) with a valid certificate, or replace FTP with SFTP.",
		References: []string{"https://www.rfc-editor.org/rfc/rfc4217", refCWE319},
	})
)

func init() {
	traits[FTPAnonymousLogin.Code] = TraitNoAuth
	traits[FTPAnonymousSensitiveFile.Code] = TraitNoAuth
	traits[FTPNoTLS.Code] = TraitCleartextLogin
}

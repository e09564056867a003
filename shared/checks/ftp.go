package checks

import "secscan/shared/scans"

// What an FTP server lets anyone do (ftp_audit): log in anonymously, read
// files that look sensitive, and whether credentials can be protected with
// TLS at all. The exposure itself (cleartext FTP reachable from the network)
// is network.service.ftp, reported by port_scan.

// FTP.
var (
	FTPAnonymousLogin         = define(Check{Code: "ftp.anonymous-login", Title: "FTP server accepts anonymous login", Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-306"})
	FTPAnonymousSensitiveFile = define(Check{Code: "ftp.anonymous.sensitive-file", Title: "Sensitive-looking files readable over anonymous FTP", Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-552"})
	FTPNoTLS                  = define(Check{Code: "ftp.no-tls", Title: "FTP server offers no TLS (AUTH TLS refused)", Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-319"})
)

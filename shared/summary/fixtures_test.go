package summary

import (
	"encoding/json"
	"secscan/shared/checks"
	"strings"

	"secscan/shared/plans"
	"secscan/shared/scans"
)

func ptr[T any](v T) *T { return &v }

// finding is a finding of the check its title names in testChecks (a
// fixture's convenience: the summary itself reads only the check code).
func finding(sev scans.Severity, cat scans.Category, title, host string, port int) scans.Finding {
	f := scans.Finding{Title: title, Severity: sev, Category: cat, Host: host}
	if c, ok := testChecks[title]; ok {
		f.Check = c.check.Code
		if c.cwe != "" {
			f.CWE = ptr(c.cwe)
		}
	}
	if port > 0 {
		f.Port = ptr(port)
	}
	return f
}

// The web findings the chain tests combine, on www.example.com (the
// SameSite one on api.example.com).
var (
	noHSTS          = finding(scans.Medium, scans.CategoryWeb, "Missing Strict-Transport-Security header", "www.example.com", 443)
	noHTTPSRedirect = finding(scans.Medium, scans.CategoryWeb, "HTTP does not redirect to HTTPS", "www.example.com", 80)
	noCSP           = finding(scans.Medium, scans.CategoryWeb, "Missing Content-Security-Policy header", "www.example.com", 443)
	noSameSite      = finding(scans.Low, scans.CategoryWeb, "Cookie without SameSite attribute", "api.example.com", 443)
)

// insecureCookie is a cookie without the Secure flag on host:443.
func insecureCookie(host string) scans.Finding {
	return finding(scans.Low, scans.CategoryWeb, "Cookie without Secure flag", host, 443)
}

func withCVE(f scans.Finding, cve string) scans.Finding       { f.CVE = ptr(cve); return f }
func withCWE(f scans.Finding, cwe string) scans.Finding       { f.CWE = ptr(cwe); return f }
func withEvidence(f scans.Finding, ev string) scans.Finding   { f.Evidence = ev; return f }
func withRemediation(f scans.Finding, r string) scans.Finding { f.Remediation = r; return f }

// step is a recorded step; its status is read from the fixture's outcome
// text ("failed…", "error…", "input refused…", "refused"), a convenience
// of these fixtures only: the summary itself reads the typed status.
func step(seq int, tool, outcome string, services ...scans.Service) scans.Step {
	status := scans.StepOK
	switch {
	case strings.HasPrefix(outcome, "failed"), strings.HasPrefix(outcome, "error"):
		status = scans.StepFailed
	case strings.HasPrefix(outcome, "input refused"), outcome == "refused":
		status = scans.StepRefused
	}
	return scans.Step{Seq: seq, Tool: tool, Input: json.RawMessage(`{}`), Status: status, Outcome: outcome, Services: services}
}

func demoSteps() []scans.Step {
	return []scans.Step{
		step(1, "dns_records", "4 records"),
		step(2, "port_scan", "4 of 100 ports open", scans.Service{Host: "example.com", Port: 21, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"},
			scans.Service{Host: "db.example.com", Port: 3306, Name: "mysql"},
			scans.Service{Host: "www.example.com", Port: 80, Name: "http"},
			scans.Service{Host: "www.example.com", Port: 443, Name: "https"}),
		step(3, "http_headers", "6 headers checked"),
		step(4, "tls_check", "certificate checked"),
		step(5, "exposed_files", "2 files found"),
		step(6, "secret_scan", "1 secret"),
		step(7, "port_scan", "input refused: host out of scope"),
	}
}

func demoCritical() Input {
	return Input{
		Domain: "example.com", ScanType: scans.Full, Tier: plans.Standard, Steps: demoSteps(),
		Findings: []scans.Finding{
			withRemediation(withEvidence(finding(scans.Critical, scans.CategoryWeb, "Exposed Git repository", "www.example.com", 443), "GET /.git/HEAD -> 200 ref: refs/heads/main"),
				"Block public access to /.git/ in the web server configuration. Then rotate every secret that was ever committed."),
			withEvidence(finding(scans.Critical, scans.CategoryCode, "AWS access key in .env", "www.example.com", 443), "AWS_ACCESS_KEY_ID=AKIA…"),
			withCVE(finding(scans.High, scans.CategoryVuln, "Outdated MySQL 5.5.23", "db.example.com", 3306), "CVE-2012-2122"),
			finding(scans.Medium, scans.CategoryNetwork, "MySQL port 3306 exposed to the internet", "db.example.com", 3306),
			finding(scans.Medium, scans.CategoryWeb, "Missing Strict-Transport-Security header", "www.example.com", 443),
			finding(scans.Medium, scans.CategoryWeb, "HTTP does not redirect to HTTPS", "www.example.com", 80),
			finding(scans.Low, scans.CategoryWeb, "Cookie 'sid' without Secure flag", "www.example.com", 443),
			finding(scans.Info, scans.CategoryNetwork, "Open port 22 (ssh)", "example.com", 22),
		},
	}
}

func demoMedium() Input {
	return Input{
		Domain: "shop.example", ScanType: scans.Web, Tier: plans.Quick,
		Steps: []scans.Step{step(1, "http_headers", "ok"), step(2, "tls_check", "ok")},
		Findings: []scans.Finding{
			withRemediation(finding(scans.Medium, scans.CategoryWeb, "Missing Content-Security-Policy header", "www.shop.example", 443), "Send a Content-Security-Policy header that allows only your own scripts."),
			finding(scans.Medium, scans.CategoryWeb, "Missing Content-Security-Policy header", "api.shop.example", 443),
			withCVE(finding(scans.Medium, scans.CategoryWeb, "Vulnerable jQuery 1.12.4", "www.shop.example", 443), "CVE-2020-11022"),
			finding(scans.Low, scans.CategoryWeb, "Missing X-Content-Type-Options header", "www.shop.example", 443),
		},
		Partial: "the credit budget ran out after 48 of 50 credits",
	}
}

func demoClean() Input {
	return Input{Domain: "example.org", ScanType: scans.SSL, Tier: plans.Quick,
		Steps: []scans.Step{step(1, "tls_check", "certificate valid", scans.Service{Host: "example.org", Port: 443, Name: "https"})}}
}

func demoInfo() Input {
	return Input{Domain: "example.org", ScanType: scans.Network, Tier: plans.Deep, Steps: demoSteps()[:2],
		Findings: []scans.Finding{finding(scans.Info, scans.CategoryNetwork, "Open port 443 (https)", "example.org", 443), finding(scans.Info, scans.CategoryNetwork, "Open port 80 (http)", "example.org", 80)}}
}

func demoLow() Input {
	return Input{Domain: "example.net", ScanType: scans.Web, Tier: plans.Standard, Steps: demoSteps()[2:4],
		Findings: []scans.Finding{withRemediation(finding(scans.Low, scans.CategoryDNS, "No DMARC record", "example.net", 0), "Publish a DMARC record with p=quarantine or p=reject."),
			finding(scans.Low, scans.CategoryWeb, "Server header discloses nginx version", "www.example.net", 443)}}
}

type testCheck struct {
	check *checks.Check
	cwe   string // the CWE the tool would set from its data (a CVE's)
}

// testChecks are the checks of the fixtures' titles. Titles not listed have
// no check: they stand for what no tool reports (an informational "header
// present", an account-takeover bug), and have no traits.
var testChecks = map[string]testCheck{
	"Missing Content-Security-Policy header":           {check: checks.HeaderCSP},
	"Missing Strict-Transport-Security header":         {check: checks.HeaderHSTS},
	"HTTP does not redirect to HTTPS":                  {check: checks.HTTPSRedirect},
	"FTP service exposed (cleartext credentials)":      {check: checks.FTPExposed},
	"Cookie without Secure flag":                       {check: checks.CookieSecure},
	"Cookie 'sid' without Secure flag":                 {check: checks.CookieSecure},
	"Cookie without SameSite attribute":                {check: checks.CookieSameSite},
	"MySQL database exposed to the network":            {check: checks.MySQLExposed},
	"MySQL port 3306 exposed to the internet":          {check: checks.MySQLExposed},
	"PostgreSQL database exposed to the network":       {check: checks.PostgreSQLExposed},
	"Redis exposed to the network":                     {check: checks.RedisExposed},
	"Redis accepts commands without authentication":    {check: checks.RedisNoAuth},
	"Docker Engine API exposed without authentication": {check: checks.DockerNoAuth},
	"End-of-life MySQL version":                        {check: checks.MySQLEOL},
	"Open redirect":                                    {check: checks.OpenRedirect},
	"Exposed Git repository (/.git/HEAD)":              {check: checks.ExposedGit},
	"Exposed Git repository":                           {check: checks.ExposedGit},
	"Exposed .git directory":                           {check: checks.ExposedGit},
	"Exposed Subversion metadata (/.svn/entries)":      {check: checks.ExposedSVN},
	"Exposed environment file (/.env.production)":      {check: checks.ExposedEnv},
	"Exposed AWS credentials file":                     {check: checks.ExposedAWSCredentials},
	"Exposed .DS_Store file":                           {check: checks.ExposedDSStore},
	"JavaScript source map exposed":                    {check: checks.ExposedSourceMap},
	"CORS reflects arbitrary origins with credentials": {check: checks.CORSCredentials},
	"CORS reflects arbitrary origins":                  {check: checks.CORSReflected},
	"vsFTPd 2.3.4 (backdoored release)":                {check: checks.VsftpdBackdoor},
	"Missing security.txt":                             {check: checks.SecurityTxt},
	"Expired security.txt":                             {check: checks.SecurityTxtExpired},
	"Missing DMARC record":                             {check: checks.DMARCMissing},
	"No DMARC record":                                  {check: checks.DMARCMissing},
	"DMARC policy is p=none":                           {check: checks.DMARCNone},
	"No SPF record":                                    {check: checks.SPFMissing},
	"SPF record uses ~all (softfail)":                  {check: checks.SPFNeutral},
	"Hard-coded API key in app.js":                     {check: checks.Secret},
	"Secret key in .env":                               {check: checks.Secret},
	"AWS secret access key in config/.env":             {check: checks.Secret},
	"AWS access key in .env":                           {check: checks.Secret},
	"Telnet service exposed (cleartext remote login)":  {check: checks.TelnetExposed},
	"TLS certificate expires within 30 days":           {check: checks.CertExpiringSoon},
	"TLS certificate expired":                          {check: checks.CertExpired},
	"Certificate expired":                              {check: checks.CertExpired},
	"TLS certificate does not match the host name":     {check: checks.CertHostMismatch},
	"TLS certificate chain not trusted":                {check: checks.CertUntrusted},
	"TLS certificate RSA key shorter than 2048 bits":   {check: checks.CertWeakRSA},
	"Self-signed certificate":                          {check: checks.CertSelfSigned},
	"Subdomain takeover: dangling CNAME":               {check: checks.DanglingCNAME},
	"Dangling CNAME (possible subdomain takeover)":     {check: checks.DanglingCNAME},
	"Server version disclosed in HTTP headers":         {check: checks.VersionHeader},
	"Server header discloses nginx version":            {check: checks.VersionHeader},
	"Missing X-Content-Type-Options header":            {check: checks.HeaderNoSniff},
	"Outdated OpenSSH version (before 8.0)":            {check: checks.OpenSSHOutdated},
	"Outdated MySQL 5.5.23":                            {check: checks.KnownCVE},
	"MySQL 5.5.23 authentication bypass":               {check: checks.KnownCVE},
	"Outdated telnetd with known vulnerabilities":      {check: checks.KnownCVE},
	"Outdated lodash 4.17.4 (prototype pollution)":     {check: checks.KnownCVE, cwe: "CWE-1321"},
	"Vulnerable jQuery 1.12.4":                         {check: checks.KnownCVE, cwe: "CWE-79"},
	"Vulnerable JavaScript library: jQuery 1.12.4":     {check: checks.KnownCVE, cwe: "CWE-79"},
	"Outdated jQuery 1.8.1":                            {check: checks.KnownCVE, cwe: "CWE-79"},
	"Outdated nginx 1.14":                              {check: checks.EndOfLife},
	"Outdated ProFTPD 1.3.5":                           {check: checks.EndOfLife},
}

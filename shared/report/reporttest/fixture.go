// Package reporttest holds the report fixtures the renderers' tests share:
// a sample scan with hostile target text, a scan shaped like the demo's
// full/standard scan, and a large one for benchmarks.
package reporttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"secscan/shared/report"
	"secscan/shared/scans"
)

func ptr[T any](v T) *T { return &v }

// Hostile is target-supplied text that must render as text in every format.
const Hostile = `<script>alert(1)</script> [click](https://evil.example/x) **bold** | pipe ` + "`tick`" + ` =HYPERLINK("x")`

// SampleCSPHosts are the eight host names of one server that all lack a
// Content-Security-Policy header in Sample: one issue, eight locations.
var SampleCSPHosts = []string{"shop.example.com", "www.shop.example.com", "api.shop.example.com", "admin.shop.example.com",
	"cdn.shop.example.com", "static.shop.example.com", "m.shop.example.com", "beta.shop.example.com"}

// SampleCSPRemediation is the remediation of the CSP issue of Sample, with
// code spans as the catalogue writes them.
const SampleCSPRemediation = "Send a `Content-Security-Policy` header on every HTML response, e.g. `default-src 'self'; frame-ancestors 'none'`. " +
	"Roll it out with `Content-Security-Policy-Report-Only` first."

// Sample is a completed full scan with findings of every severity, Hostile
// and very long evidence, services, refused and failed steps. Its findings
// carry check codes; 14 findings make 7 issues, one of them (web.header.csp)
// on the eight SampleCSPHosts.
func Sample(watermarked bool) report.Report {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	sc := scans.Scan{
		ID: "scn_01JABCDEFGHJKMNPQRSTVWXYZ0", UserID: "usr_01JABCDEFGHJKMNPQRSTVWXYZ0", TargetID: "tgt_01JABCDEFGHJKMNPQRSTVWXYZ0",
		Target: "shop.example.com", Type: scans.Full, Tier: "standard", Status: scans.Completed,
		CreditsUsed: 37, MaxCredits: 200, FindingsCount: 14, StepsCount: 4,
		CreatedAt: at, StartedAt: at.Add(2 * time.Second), FinishedAt: at.Add(95 * time.Second),
		Summary: &scans.Summary{RiskRating: scans.RiskCritical,
			Summary:      "The full scan of shop.example.com (standard tier) found a critical issue: an exposed Git repository.",
			AttackChains: []string{"Credential theft: the exposed .git on shop.example.com:443 leaks the source, and the .env file holds credentials."}},
	}
	findings := []scans.Finding{
		{ID: "fnd_1", Check: "web.exposed-git", Title: "Exposed Git repository (/.git/HEAD)", Severity: scans.Critical, Category: scans.CategoryWeb, Host: "shop.example.com", Port: ptr(443),
			Evidence: "GET https://shop.example.com/.git/HEAD → 200: ref: refs/heads/main", Description: "The repository can be downloaded.",
			Remediation: "Block /.git at the web server.", References: []string{"https://owasp.org/www-project-web-security-testing-guide/"}, CWE: ptr("CWE-527"),
			Confidence: scans.Certain},
		{ID: "fnd_2", Check: "vuln.known-cve", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Severity: scans.High, Category: scans.CategoryVuln, Host: "shop.example.com", Port: ptr(443),
			Evidence: "Server: Apache/2.4.49 (Unix)", Description: "Path traversal and file disclosure.", Remediation: "Upgrade to 2.4.51 or later.",
			References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2021-41773"}, CWE: ptr("CWE-22"), CVE: ptr("CVE-2021-41773"), CVSS: ptr(7.5),
			Confidence: scans.Tentative},
		{ID: "fnd_3", Check: "network.service.ftp", Title: "Reflected banner " + Hostile, Severity: scans.Medium, Category: scans.CategoryNetwork, Host: "shop.example.com", Port: ptr(2121),
			Evidence: Hostile, Description: "A description with " + Hostile, Remediation: "=cmd|' /C calc'!A0", References: []string{"https://example.com/a?b=<c>"}},
		{ID: "fnd_4", Check: "web.error-details", Title: "Very long evidence", Severity: scans.Low, Category: scans.CategoryWeb, Host: "www.shop.example.com", Port: nil,
			Evidence: strings.Repeat("Set-Cookie: PHPSESSID; path=/; no-secure-flag-here-and-a-very-long-unbroken-token-", 40), Description: "Long.",
			Remediation: "Wrap.", References: []string{}},
		{ID: "fnd_5", Check: "web.security-txt", Title: "Missing security.txt", Severity: scans.Info, Category: scans.CategoryWeb, Host: "shop.example.com", Port: ptr(443),
			Evidence: "GET /.well-known/security.txt → 404", Description: "No contact.", Remediation: "Publish one.", References: []string{"https://securitytxt.org/"}},
		{ID: "fnd_6", Check: "dns.spf.missing", Title: "Ünïcödé — “quotes” and emoji 🔥", Severity: scans.Medium, Category: scans.CategoryDNS, Host: "shop.example.com",
			Evidence: "TXT \"v=spf1 +all\"", Description: "Tabs\tand\nnewlines\r\nin text.", Remediation: "-all", References: nil},
	}
	for i, h := range SampleCSPHosts {
		findings = append(findings, scans.Finding{ID: fmt.Sprintf("fnd_%d", 7+i), Check: "web.header.csp", Title: "Missing Content-Security-Policy header",
			Severity: scans.Low, Category: scans.CategoryWeb, Host: h, Port: ptr(443), CWE: ptr("CWE-693"), Confidence: scans.Certain,
			Evidence:    "GET https://" + h + "/ → 200 text/html; no Content-Security-Policy header",
			Description: "Without a Content-Security-Policy the browser runs any script an injection puts in the page.",
			Remediation: SampleCSPRemediation, References: []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP"}})
	}
	for i := range findings {
		findings[i].Issue = scans.IssueKey(findings[i].Check, findings[i].CVE)
	}
	steps := []scans.Step{
		{Seq: 1, Tool: "dns_check", Input: json.RawMessage(`{}`), Outcome: "SPF +all; 1 finding", FindingsAdded: 1, Credits: 2, StartedAt: at.Add(3 * time.Second), DurationMS: 40},
		{Seq: 2, Tool: "port_scan", Input: json.RawMessage(`{"preset":"top1000"}`), Outcome: "3 of 1000 ports open", Credits: 5, StartedAt: at.Add(4 * time.Second), DurationMS: 2600,
			Services: []scans.Service{{Host: "shop.example.com", Port: 443, Name: "https"}, {Host: "shop.example.com", Port: 2121, Name: "ftp", Banner: Hostile}}},
		{Seq: 3, Tool: "port_scan", Input: json.RawMessage(`{"host":"evil.example"}`), Outcome: "Refused: host evil.example is outside the scope of shop.example.com", Credits: 5, StartedAt: at.Add(7 * time.Second)},
		{Seq: 4, Tool: "http_check", Input: json.RawMessage(`{}`), Outcome: "Tool error: connection refused", Credits: 5, StartedAt: at.Add(8 * time.Second), DurationMS: 12},
	}
	surface := scans.Surface{Hosts: []scans.Host{{Name: "shop.example.com"}, {Name: "www.shop.example.com"},
		{Name: "legacy.shop.example.com", NotScanned: "it resolves only to a private address"}}}
	return report.Build(report.Input{Scan: sc, Findings: findings, Steps: steps, Surface: surface, Watermarked: watermarked, GeneratedAt: at.Add(24 * time.Hour),
		Verification: &report.Verification{Method: "dns_txt", VerifiedAt: at.Add(-time.Hour)}})
}

// DemoHosts are the host names of the demo's one server.
var DemoHosts = []string{"demo.secscan.test", "www.demo.secscan.test", "api.demo.secscan.test", "ns1.demo.secscan.test",
	"mail.demo.secscan.test", "dev.demo.secscan.test", "staging.demo.secscan.test", "shop.demo.secscan.test"}

// demoIssue is one weakness of the demo-shaped scan, found count times.
type demoIssue struct {
	check       scans.CheckCode
	title       string
	sev         scans.Severity
	cat         scans.Category
	cwe, cve    string
	cvss        float64
	conf        scans.Confidence
	count       int
	ports       []int // cycled over the locations
	evidence    func(host string, port int) string
	description string
	remediation string
	refs        []string
}

// demoCVE is one known CVE of a demo product.
type demoCVE struct {
	id      string
	cvss    float64
	summary string
}

const (
	demoApache = "Apache/2.4.49 (Unix) OpenSSL/1.1.1k"
	demoOWASP  = "https://owasp.org/www-project-secure-headers/"
)

func demoHeaders(header string) func(string, int) string {
	return func(h string, p int) string {
		return fmt.Sprintf("GET https://%s:%d/ → 200 OK\nDate: Fri, 20 Nov 2026 09:30:02 GMT\nServer: %s\nX-Powered-By: PHP/7.4.3\nLast-Modified: Mon, 02 Nov 2026 10:00:00 GMT\n"+
			"ETag: \"1400-5d3c2a1b\"\nAccept-Ranges: bytes\nContent-Length: 5120\nVary: Accept-Encoding\nContent-Type: text/html; charset=UTF-8\n(no %s header in the response)", h, p, demoApache, header)
	}
}

func demoVersion(product, cve, fixed string) func(string, int) string {
	return func(h string, p int) string {
		return fmt.Sprintf("%s:%d announces %s (Server header of GET / and the signature of the error pages).\n%s affects this version and is fixed in %s.\n"+
			"Not confirmed by a probe: inferred from the announced version; a distribution may have back-ported the fix.", h, p, product, cve, fixed)
	}
}

func demoText(what string) func(string, int) string {
	return func(h string, p int) string { return fmt.Sprintf("%s:%d — %s", h, p, what) }
}

// demoIssues is the weakness list of the demo's full/standard scan: 59
// issues, 157 findings (every hardening header missing on the eight names
// of the one server, Apache path traversal confirmed on three, the known
// CVEs of Apache 2.4.49 on both web ports, old OpenSSH, MySQL and vsftpd,
// exposed files, TLS, SSH, FTP, Redis and DNS weaknesses).
func demoIssues() []demoIssue {
	hdr := func(code scans.CheckCode, title, header string, sev scans.Severity, desc, rem string) demoIssue {
		return demoIssue{check: code, title: title, sev: sev, cat: scans.CategoryWeb, cwe: "CWE-693", conf: scans.Certain, count: 8, ports: []int{8443},
			evidence: demoHeaders(header), description: desc, remediation: rem, refs: []string{demoOWASP, "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/" + header}}
	}
	out := []demoIssue{
		hdr("web.header.csp", "Missing Content-Security-Policy header", "Content-Security-Policy", scans.Low,
			"The site sends no Content-Security-Policy. Without one, the browser runs any script an injection manages to put in a page, from any origin, and the page can be framed by any site.",
			"Send a `Content-Security-Policy` header on every HTML response, starting from `default-src 'self'; frame-ancestors 'none'`; roll it out with `Content-Security-Policy-Report-Only` first."),
		hdr("web.header.x-frame-options", "Missing X-Frame-Options header", "X-Frame-Options", scans.Low,
			"Pages can be framed by any other site, which makes clickjacking possible on forms and buttons.",
			"Send `X-Frame-Options: DENY` (or `SAMEORIGIN` when the site frames itself), or `frame-ancestors` in the Content-Security-Policy."),
		hdr("web.header.hsts", "Missing Strict-Transport-Security header", "Strict-Transport-Security", scans.Low,
			"Browsers are not told to use HTTPS only, so a first visit over HTTP can be intercepted and downgraded by anyone on the network path.",
			"Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS response once all subdomains serve HTTPS."),
		hdr("web.header.referrer-policy", "Missing Referrer-Policy header", "Referrer-Policy", scans.Info,
			"Without a Referrer-Policy, browsers send the full URL of a page, query string included, to the sites it links to.",
			"Send `Referrer-Policy: strict-origin-when-cross-origin` or stricter."),
		hdr("web.header.permissions-policy", "Missing Permissions-Policy header", "Permissions-Policy", scans.Info,
			"The site does not restrict the browser features (camera, microphone, geolocation) that its pages and frames may use.",
			"Send a `Permissions-Policy` header that disables the features the site does not use, e.g. `camera=(), microphone=(), geolocation=()`."),
		hdr("web.header.x-content-type-options", "Missing X-Content-Type-Options header", "X-Content-Type-Options", scans.Info,
			"Browsers may guess the type of a response, and render as HTML or script what was meant to be data.",
			"Send `X-Content-Type-Options: nosniff` on every response."),
		{check: "web.version-disclosure", title: "Web server discloses its version", sev: scans.Low, cat: scans.CategoryWeb, cwe: "CWE-200", conf: scans.Certain, count: 8, ports: []int{8443},
			evidence: func(h string, p int) string {
				return fmt.Sprintf("GET https://%s:%d/ → 200 OK\nServer: %s\nGET https://%s:%d/nonexistent → 404 Not Found\n<address>%s Server at %s Port %d</address>", h, p, demoApache, h, p, demoApache, h, p)
			},
			description: "The Server header names the software and its exact version, which tells an attacker which known vulnerabilities to try.",
			remediation: "Set `ServerTokens Prod` and `ServerSignature Off` in the Apache configuration.", refs: []string{demoOWASP}},
		{check: "web.header.x-powered-by", title: "X-Powered-By header discloses the application stack", sev: scans.Info, cat: scans.CategoryWeb, cwe: "CWE-200", conf: scans.Certain, count: 8, ports: []int{8443},
			evidence: func(h string, p int) string {
				return fmt.Sprintf("GET https://%s:%d/ → 200 OK\nX-Powered-By: PHP/7.4.3", h, p)
			},
			description: "The X-Powered-By header names the language runtime and its version.",
			remediation: "Set `expose_php = Off` in php.ini.", refs: []string{demoOWASP}},
		{check: "web.cleartext-http", title: "Site served over plain HTTP without a redirect to HTTPS", sev: scans.Medium, cat: scans.CategoryWeb, cwe: "CWE-319", conf: scans.Certain, count: 8, ports: []int{8080},
			evidence: func(h string, p int) string {
				return fmt.Sprintf("GET http://%s:%d/ → 200 OK (no redirect to https)\nDate: Fri, 20 Nov 2026 09:30:02 GMT\nServer: %s\nX-Powered-By: PHP/7.4.3\n"+
					"Set-Cookie: PHPSESSID=…; path=/\nContent-Length: 5120\nContent-Type: text/html; charset=UTF-8\nGET http://%s:%d/login → 200 OK (a password form posted over HTTP)", h, p, demoApache, h, p)
			},
			description: "The site answers over unencrypted HTTP with the full content instead of redirecting to HTTPS, so sessions and form data cross the network in clear text.",
			remediation: "Redirect every plain-HTTP request to HTTPS with a `301` and send HSTS.", refs: []string{"https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html"}},
	}
	tls := func(code scans.CheckCode, title string, sev scans.Severity, cwe string, count int, ev, desc, rem string) demoIssue {
		return demoIssue{check: code, title: title, sev: sev, cat: scans.CategorySSL, cwe: cwe, conf: scans.Certain, count: count, ports: []int{8443},
			evidence: demoText(ev), description: desc, remediation: rem, refs: []string{"https://wiki.mozilla.org/Security/Server_Side_TLS"}}
	}
	out = append(out,
		tls("tls.protocol.tls10", "TLS 1.0 is enabled", scans.Medium, "CWE-327", 1, "handshake with TLS 1.0 succeeded: TLS_RSA_WITH_AES_128_CBC_SHA",
			"TLS 1.0 is deprecated (RFC 8996): it lacks modern cipher suites and has known weaknesses (BEAST, POODLE variants).", "Disable TLS 1.0 and 1.1: `SSLProtocol -all +TLSv1.2 +TLSv1.3`."),
		tls("tls.protocol.tls11", "TLS 1.1 is enabled", scans.Medium, "CWE-327", 1, "handshake with TLS 1.1 succeeded: TLS_RSA_WITH_AES_256_CBC_SHA",
			"TLS 1.1 is deprecated (RFC 8996).", "Disable TLS 1.1: `SSLProtocol -all +TLSv1.2 +TLSv1.3`."),
		tls("tls.cipher.weak", "Weak TLS cipher suites accepted", scans.Medium, "CWE-327", 1,
			"accepted: TLS_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_AES_128_CBC_SHA, TLS_RSA_WITH_AES_256_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA (no forward secrecy, 64-bit block or broken stream ciphers)",
			"The server accepts cipher suites without forward secrecy and with broken algorithms (3DES, RC4).", "Offer only the Mozilla intermediate cipher list."),
		tls("tls.cert.self-signed", "Self-signed TLS certificate", scans.Medium, "CWE-295", 1, "certificate CN=demo.secscan.test issued by itself; not trusted by any public root",
			"Clients cannot authenticate the server, so users learn to click through warnings and an interceptor's certificate looks the same.", "Use a certificate from a public CA (e.g. Let's Encrypt)."),
		tls("tls.cert.weak-key", "TLS certificate with a 1024-bit RSA key", scans.Medium, "CWE-326", 1, "certificate public key: RSA 1024 bits",
			"A 1024-bit RSA key is below every current recommendation (2048 bits minimum).", "Issue a new certificate with an RSA 2048-bit or ECDSA P-256 key."),
		tls("tls.cert.name-mismatch", "TLS certificate does not match the host name", scans.Low, "CWE-297", 7, "certificate names demo.secscan.test only",
			"The certificate does not name this host, so browsers reject the connection or users click through a warning.", "Add every served name to the certificate's subject alternative names."),
	)
	out = append(out, demoIssue{check: "web.path-traversal", title: "Apache path traversal confirmed (CVE-2021-41773)", sev: scans.Critical, cat: scans.CategoryVuln, cwe: "CWE-22",
		cve: "CVE-2021-41773", cvss: 9.8, conf: scans.Certain, count: 3, ports: []int{8080, 8443},
		evidence: func(h string, p int) string {
			return fmt.Sprintf("GET http://%s:%d/cgi-bin/.%%2e/.%%2e/.%%2e/.%%2e/etc/passwd → 200 OK\nroot:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin", h, p)
		},
		description: "Apache HTTP Server 2.4.49 maps URLs outside the document root when path normalisation is bypassed with encoded dots; files readable by the server can be downloaded, and with CGI enabled commands run.",
		remediation: "Upgrade Apache HTTP Server to 2.4.51 or later. Until then, set `Require all denied` on `<Directory />`.",
		refs:        []string{"https://nvd.nist.gov/vuln/detail/CVE-2021-41773", "https://httpd.apache.org/security/vulnerabilities_24.html"}})
	cve := func(product, cve string, cvss float64, count int, ports []int, fixed, summary, rem string) demoIssue {
		sev := scans.Medium
		switch {
		case cvss >= 9:
			sev = scans.Critical
		case cvss >= 7:
			sev = scans.High
		}
		return demoIssue{check: "vuln.known-cve", title: product + ": " + summary + " (" + cve + ")", sev: sev, cat: scans.CategoryVuln, cve: cve, cvss: cvss,
			conf: scans.Tentative, count: count, ports: ports, evidence: demoVersion(product, cve, fixed),
			description: "The announced version of " + product + " is affected by " + cve + ": " + strings.ToLower(summary[:1]) + summary[1:] + ". " +
				"Its CVSS base score is " + fmt.Sprintf("%.1f", cvss) + "; the finding rests on the announced version, so confirm the installed build before planning around it.",
			remediation: rem, refs: []string{"https://nvd.nist.gov/vuln/detail/" + cve, "https://www.cve.org/CVERecord?id=" + cve}}
	}
	// cves is one product's known CVEs, found on the same ports.
	cves := func(product string, count int, ports []int, fixed, rem string, rows ...demoCVE) {
		for _, c := range rows {
			out = append(out, cve(product, c.id, c.cvss, count, ports, fixed, c.summary, rem))
		}
	}
	cves("Apache HTTP Server 2.4.49", 2, []int{8080, 8443}, "2.4.54", "Upgrade Apache HTTP Server to 2.4.54 or later (or a distribution package that includes the fix).",
		demoCVE{"CVE-2021-42013", 9.8, "Path traversal and remote code execution"}, demoCVE{"CVE-2021-40438", 9.0, "Server-side request forgery in mod_proxy"},
		demoCVE{"CVE-2022-22720", 9.8, "HTTP request smuggling"}, demoCVE{"CVE-2022-23943", 9.8, "Out-of-bounds write in mod_sed"},
		demoCVE{"CVE-2022-31813", 9.8, "X-Forwarded-For headers dropped by mod_proxy"}, demoCVE{"CVE-2021-44790", 9.8, "Buffer overflow in mod_lua"},
		demoCVE{"CVE-2022-22721", 9.1, "Out-of-bounds write with large request bodies"}, demoCVE{"CVE-2021-39275", 9.8, "Buffer overflow in ap_escape_quotes"},
		demoCVE{"CVE-2022-28615", 9.1, "Out-of-bounds read in ap_strcmp_match"}, demoCVE{"CVE-2021-44224", 8.2, "NULL dereference or SSRF in forward proxy"},
		demoCVE{"CVE-2022-26377", 7.5, "AJP request smuggling in mod_proxy_ajp"}, demoCVE{"CVE-2022-29404", 7.5, "Denial of service in mod_lua"},
		demoCVE{"CVE-2022-30556", 7.5, "Information disclosure in mod_lua"})
	cves("OpenSSH 7.4", 1, []int{2222}, "9.6", "Upgrade OpenSSH to 9.6 or later.",
		demoCVE{"CVE-2023-38408", 9.8, "Remote code execution through ssh-agent forwarding"}, demoCVE{"CVE-2020-15778", 7.8, "Command injection in scp"},
		demoCVE{"CVE-2021-41617", 7.0, "Privilege escalation with AuthorizedKeysCommand"}, demoCVE{"CVE-2023-51385", 6.5, "Command injection through user names"})
	cves("MySQL 5.5.62", 1, []int{3306}, "5.7.44", "Upgrade MySQL to 5.7.44 or later.",
		demoCVE{"CVE-2016-6662", 9.8, "Remote code execution through my.cnf"}, demoCVE{"CVE-2016-6663", 7.0, "Privilege escalation race condition"},
		demoCVE{"CVE-2017-3599", 7.5, "Denial of service in the pluggable authentication"})
	out = append(out, cve("vsftpd 2.3.4", "CVE-2011-2523", 9.8, 1, []int{2121}, "2.3.5", "Backdoor command shell", "Replace vsftpd 2.3.4 with a current release from a trusted source."))
	misc := func(code scans.CheckCode, title string, sev scans.Severity, cat scans.Category, cwe string, count int, ports []int, ev func(string, int) string, desc, rem string, refs ...string) demoIssue {
		if len(refs) == 0 {
			refs = []string{"https://owasp.org/www-project-web-security-testing-guide/"}
		}
		return demoIssue{check: code, title: title, sev: sev, cat: cat, cwe: cwe, conf: scans.Certain, count: count, ports: ports, evidence: ev, description: desc, remediation: rem, refs: refs}
	}
	out = append(out,
		misc("web.exposed-git", "Exposed Git repository", scans.Critical, scans.CategoryWeb, "CWE-527", 3, []int{8443}, func(h string, p int) string {
			return fmt.Sprintf("GET https://%s:%d/.git/HEAD → 200: ref: refs/heads/main\nGET https://%s:%d/.git/config → 200: [remote \"origin\"] url = git@github.com:demo/site.git\n6 objects downloaded, including config/database.php", h, p, h, p)
		}, "The web server serves the site's Git repository: its full history, source and any secret ever committed can be downloaded.",
			"Block access to version-control directories at the web server (e.g. `RedirectMatch 404 /\\.git`). Then rotate every secret the history held."),
		misc("code.secret", "Secret in a served file (AWS access key)", scans.Critical, scans.CategoryCode, "CWE-798", 2, []int{8443}, func(h string, p int) string {
			return fmt.Sprintf("GET https://%s:%d/.env → 200\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJal…(redacted)", h, p)
		}, "A served file holds cloud credentials that grant access to the account they belong to.", "Remove the file from the web root, revoke the key in IAM and issue a new one."),
		misc("web.exposed-env", "Exposed environment file (.env)", scans.High, scans.CategoryWeb, "CWE-538", 2, []int{8443}, demoText("GET /.env → 200 (1,204 bytes, 31 variables)"),
			"The application's environment file is served to anyone: database passwords, API keys and application secrets.", "Move `.env` out of the document root and deny dot-files: `<FilesMatch \"^\\.\">Require all denied</FilesMatch>`."),
		misc("web.phpinfo", "phpinfo() page exposed", scans.Medium, scans.CategoryWeb, "CWE-200", 1, []int{8443}, demoText("GET /phpinfo.php → 200: PHP Version 7.4.3, loaded modules, environment variables"),
			"A phpinfo page discloses the PHP configuration, paths, modules and environment variables.", "Delete `phpinfo.php`."),
		misc("web.backup-file", "Backup file served", scans.Medium, scans.CategoryWeb, "CWE-530", 2, []int{8443}, demoText("GET /index.php.bak → 200 (source code, 3,112 bytes)"),
			"A backup copy of a script is served as text, disclosing the application's source.", "Remove backup files from the web root and deny `*.bak`, `*.old` and `*~`."),
		misc("web.directory-listing", "Directory listing enabled", scans.Low, scans.CategoryWeb, "CWE-548", 3, []int{8443}, demoText("GET /uploads/ → 200: Index of /uploads (14 entries)"),
			"The server lists the files of directories without an index page.", "Set `Options -Indexes`."),
		misc("web.cors.reflected", "CORS reflects any origin with credentials", scans.Medium, scans.CategoryWeb, "CWE-942", 2, []int{8443}, demoText("Origin: https://evil.example → Access-Control-Allow-Origin: https://evil.example, Access-Control-Allow-Credentials: true"),
			"Any web site can read authenticated responses of this API in its visitors' browsers.", "Allow only the site's own origins in `Access-Control-Allow-Origin`."),
		misc("web.http-trace", "HTTP TRACE method enabled", scans.Low, scans.CategoryWeb, "CWE-693", 2, []int{8080, 8443}, demoText("TRACE / → 200 (request echoed)"),
			"TRACE echoes requests, which helps cross-site tracing attacks read cookies marked HttpOnly.", "Set `TraceEnable off`."),
		misc("web.open-redirect", "Open redirect", scans.Medium, scans.CategoryWeb, "CWE-601", 2, []int{8443}, demoText("GET /redirect?url=https://evil.example → 302 Location: https://evil.example"),
			"The site redirects to any address given in a parameter, which lends its name to phishing links.", "Redirect only to relative paths or an allow-list of hosts."),
		misc("web.cookie.insecure", "Session cookie without Secure and HttpOnly", scans.Low, scans.CategoryWeb, "CWE-614", 5, []int{8443}, func(h string, p int) string {
			return fmt.Sprintf("GET https://%s:%d/login → 200 OK\nSet-Cookie: PHPSESSID=…; path=/\n(no Secure, no HttpOnly, no SameSite attribute)\nGET https://%s:%d/account → 302 Location: /login\nSet-Cookie: remember_me=…; path=/; expires=Sat, 20 Nov 2027 09:30:02 GMT", h, p, h, p)
		},
			"The session cookie can be sent over plain HTTP and read by scripts.", "Set `session.cookie_secure`, `session.cookie_httponly` and `session.cookie_samesite=Lax`."),
		misc("web.security-txt", "No security.txt", scans.Info, scans.CategoryWeb, "", 1, []int{8443}, demoText("GET /.well-known/security.txt → 404"),
			"Researchers who find a vulnerability have no published way to report it.", "Publish `/.well-known/security.txt` (RFC 9116).", "https://securitytxt.org/"),
		misc("network.redis.unauthenticated", "Redis accepts commands without authentication", scans.Critical, scans.CategoryNetwork, "CWE-306", 1, []int{6379}, demoText("INFO → redis_version:6.0.9, 3 keys; CONFIG GET dir answered"),
			"Anyone who can reach the port can read and change the data and, through CONFIG SET, write files on the server.", "Bind Redis to 127.0.0.1, set `requirepass` and enable protected mode."),
		misc("network.mysql.exposed", "MySQL reachable from the Internet", scans.Medium, scans.CategoryNetwork, "CWE-668", 1, []int{3306}, demoText("banner: 5.5.62-0ubuntu0.14.04.1"),
			"The database accepts connections from any address, exposing it to password guessing and its known vulnerabilities.", "Firewall port 3306 to the application servers only."),
		misc("network.ftp.anonymous", "Anonymous FTP login allowed", scans.High, scans.CategoryNetwork, "CWE-284", 1, []int{2121}, demoText("USER anonymous → 230 Login successful; LIST → 4 entries"),
			"Anyone can log in to the FTP server and list or download its files.", "Set `anonymous_enable=NO`."),
		misc("network.ftp.cleartext", "FTP without TLS", scans.Medium, scans.CategoryNetwork, "CWE-319", 1, []int{2121}, demoText("AUTH TLS → 530 Please login with USER and PASS"),
			"Passwords and files cross the network unencrypted.", "Require FTPS (`ssl_enable=YES`) or replace FTP with SFTP."),
		misc("ssh.kex.weak", "SSH offers weak key exchange algorithms", scans.Medium, scans.CategoryNetwork, "CWE-327", 1, []int{2222}, demoText("kex: diffie-hellman-group1-sha1, diffie-hellman-group14-sha1"),
			"The server accepts key exchanges with 1024-bit groups and SHA-1.", "Remove `diffie-hellman-group1-sha1` and `diffie-hellman-group14-sha1` from `KexAlgorithms`."),
		misc("ssh.password-auth", "SSH accepts password authentication", scans.Low, scans.CategoryNetwork, "CWE-307", 1, []int{2222}, demoText("auth methods: publickey,password"),
			"Password logins can be guessed; keys cannot.", "Set `PasswordAuthentication no`."),
		misc("ssh.cipher.weak", "SSH offers CBC ciphers", scans.Low, scans.CategoryNetwork, "CWE-327", 1, []int{2222}, demoText("ciphers: aes128-cbc, 3des-cbc"),
			"CBC-mode ciphers in SSH are open to plaintext-recovery attacks.", "Offer only `chacha20-poly1305@openssh.com` and AES-GCM/CTR ciphers."),
		misc("dns.zone-transfer", "DNS zone transfer allowed", scans.High, scans.CategoryDNS, "CWE-200", 1, []int{53}, demoText("AXFR demo.secscan.test → 23 records"),
			"Anyone can download the whole zone, every host name included.", "Allow AXFR only to the secondary name servers (`allow-transfer`)."),
		misc("dns.spf.permissive", "SPF record allows any sender (+all)", scans.Medium, scans.CategoryDNS, "CWE-290", 1, []int{53}, demoText(`TXT "v=spf1 +all"`),
			"Any server may send mail as the domain.", "End the SPF record with `-all`."),
		misc("dns.dmarc.none", "DMARC policy is p=none", scans.Low, scans.CategoryDNS, "CWE-290", 1, []int{53}, demoText(`_dmarc TXT "v=DMARC1; p=none"`),
			"Receivers are told to deliver mail that fails SPF and DKIM.", "Move to `p=quarantine`, then `p=reject`."),
		misc("dns.dangling-cname", "Dangling CNAME (subdomain takeover)", scans.High, scans.CategoryDNS, "CWE-284", 1, []int{53}, demoText("old.demo.secscan.test CNAME demo-site.herokuapp.example → NXDOMAIN"),
			"The name points to a service that no longer exists; whoever claims it serves content under the domain.", "Delete the CNAME record."),
	)
	return out
}

// DemoFindings is n findings shaped like the demo's full/standard scan: its
// 59 issues with their locations (157 findings for n = 157); for larger n
// the same issues are found on more host names (an estate of several
// servers), so a report of 1,000 findings still has 59 issues.
func DemoFindings(n int) []scans.Finding {
	var out []scans.Finding
	list := demoIssues()
	for round := 0; len(out) < n; round++ {
		for _, is := range list {
			for k := range is.count {
				if len(out) == n {
					return out
				}
				out = append(out, is.finding(len(out)+1, round, k))
			}
		}
	}
	return out
}

// finding is the k-th location of the issue in round (round 0 on the
// demo's own names, further rounds on srvN- names), the n-th finding.
func (is demoIssue) finding(n, round, k int) scans.Finding {
	host := DemoHosts[k%len(DemoHosts)]
	if is.cat == scans.CategoryDNS {
		host = DemoHosts[3] // ns1
	}
	if round > 0 {
		host = fmt.Sprintf("srv%d-%s", round, host)
	}
	port := is.ports[k%len(is.ports)]
	f := scans.Finding{
		ID: fmt.Sprintf("fnd_%05d", n), Check: is.check, Title: is.title, Severity: is.sev, Category: is.cat,
		Host: host, Port: ptr(port), Evidence: is.evidence(host, port), Description: is.description, Remediation: is.remediation,
		References: append([]string(nil), is.refs...), Confidence: is.conf,
	}
	if is.cwe != "" {
		f.CWE = ptr(is.cwe)
	}
	if is.cve != "" {
		f.CVE = ptr(is.cve)
	}
	if is.cvss > 0 {
		f.CVSS = ptr(is.cvss)
	}
	f.Issue = scans.IssueKey(f.Check, f.CVE)
	return f
}

// demoSteps is m agent steps of a full/standard scan of the demo.
func demoSteps(at time.Time, m int) []scans.Step {
	tools := []struct {
		tool, input, outcome string
		services             []scans.Service
	}{
		{"dns_check", `{"domain":"demo.secscan.test"}`, "SPF +all, DMARC p=none, open zone transfer; 3 findings", nil},
		{"subdomain_discovery", `{"domain":"demo.secscan.test","sources":["axfr","certificate","wordlist"]}`, "8 host names of 1 address (127.0.0.2), 1 dangling CNAME", nil},
		{"port_scan", `{"host":"demo.secscan.test","preset":"top1000"}`, "6 of 1000 ports open", []scans.Service{
			{Host: "demo.secscan.test", Port: 2121, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"}, {Host: "demo.secscan.test", Port: 2222, Name: "ssh", Banner: "SSH-2.0-OpenSSH_7.4"},
			{Host: "demo.secscan.test", Port: 3306, Name: "mysql", Banner: "5.5.62-0ubuntu0.14.04.1"}, {Host: "demo.secscan.test", Port: 6379, Name: "redis"},
			{Host: "demo.secscan.test", Port: 8080, Name: "http", Banner: "Apache/2.4.49 (Unix)"}, {Host: "demo.secscan.test", Port: 8443, Name: "https", Banner: "Apache/2.4.49 (Unix) OpenSSL/1.1.1k"}}},
		{"tls_check", `{"host":"demo.secscan.test","port":8443}`, "TLS 1.0 and 1.1 enabled, weak ciphers, self-signed 1024-bit certificate; 5 findings", nil},
		{"http_check", `{"url":"https://demo.secscan.test:8443/"}`, "7 missing or disclosing headers; 9 findings", nil},
		{"web_files", `{"url":"https://demo.secscan.test:8443/","wordlist":"common"}`, "/.git, /.env, /phpinfo.php, /index.php.bak served; 5 findings", nil},
		{"vuln_lookup", `{"product":"Apache HTTP Server","version":"2.4.49"}`, "14 known CVEs; 27 findings", nil},
		{"ftp_check", `{"host":"demo.secscan.test","port":2121}`, "anonymous login, no TLS, vsftpd 2.3.4; 3 findings", nil},
		{"ssh_check", `{"host":"demo.secscan.test","port":2222}`, "weak kex and ciphers, password auth; 3 findings", nil},
		{"redis_check", `{"host":"demo.secscan.test","port":6379}`, "no authentication; 1 finding", nil},
		{"http_check", `{"url":"https://www.demo.secscan.test:8443/"}`, "7 missing or disclosing headers; 9 findings", nil},
		{"port_scan", `{"host":"evil.example"}`, "Refused: host evil.example is outside the scope of demo.secscan.test", nil},
	}
	steps := make([]scans.Step, 0, m)
	for i := range m {
		t := tools[i%len(tools)]
		st := scans.Step{Seq: i + 1, Tool: t.tool, Input: json.RawMessage(t.input), Outcome: t.outcome, Credits: 5, StartedAt: at.Add(time.Duration(i) * time.Second),
			DurationMS: int64(200 + 37*i), Services: t.services}
		if strings.HasPrefix(t.outcome, "Refused") {
			st.Status, st.Credits, st.DurationMS = scans.StepRefused, 0, 0
		}
		steps = append(steps, st)
	}
	return steps
}

// demoReport is a completed full/standard scan of the demo with n findings
// and m steps.
func demoReport(n, m int) report.Report {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	findings := DemoFindings(n)
	sc := scans.Scan{
		ID: "scn_01JDEMO0000000000000000000", UserID: "usr_01JABCDEFGHJKMNPQRSTVWXYZ0", TargetID: "tgt_01JDEMO0000000000000000000",
		Target: "demo.secscan.test", Type: scans.Full, Tier: "standard", Status: scans.Completed,
		CreditsUsed: 200, MaxCredits: 200, FindingsCount: len(findings), StepsCount: m,
		CreatedAt: at, StartedAt: at.Add(time.Second), FinishedAt: at.Add(5 * time.Second),
		Summary: &scans.Summary{RiskRating: scans.RiskCritical,
			Summary: "The full scan of demo.secscan.test found critical weaknesses: a confirmed path traversal in Apache 2.4.49, an exposed Git repository " +
				"and environment file holding cloud credentials, and a Redis server that accepts commands without authentication.",
			AttackChains: []string{
				"Source and credentials theft: the exposed .git and .env on demo.secscan.test:8443 leak the source and an AWS access key.",
				"Remote code execution: the Apache path traversal (CVE-2021-41773) reaches CGI scripts on demo.secscan.test:8080.",
				"Server takeover: the unauthenticated Redis on demo.secscan.test:6379 can write an SSH key through CONFIG SET.",
			}},
	}
	var surface scans.Surface
	for _, h := range DemoHosts {
		surface.Hosts = append(surface.Hosts, scans.Host{Name: h, Addresses: []string{"127.0.0.2"}, Sources: []scans.HostSource{scans.SourceAXFR}})
	}
	return report.Build(report.Input{Scan: sc, Findings: findings, Steps: demoSteps(at, m), Surface: surface, GeneratedAt: at.Add(time.Hour),
		Verification: &report.Verification{Method: "dns_txt", VerifiedAt: at.Add(-time.Hour)}})
}

// Demo is shaped like the demo's full/standard scan: 157 findings in 59
// issues, 38 agent steps (its PDF ran to 64 pages before reports were
// organised by issue).
func Demo() report.Report { return demoReport(157, 38) }

// Large is a demo-shaped report with n findings and m steps, for benchmarks.
func Large(n, m int) report.Report { return demoReport(n, m) }

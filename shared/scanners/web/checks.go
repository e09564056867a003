package web

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// check is one kind of finding: its title is fixed, so the agent's
// deduplication (category, title, host, port) merges repeats.
type check struct {
	title       string
	severity    scans.Severity
	cwe         string
	description string
	remediation string
	references  []string
}

func (c check) finding(u *url.URL, evidence string) scans.Finding {
	host, port := httpprobe.HostPort(u)
	f := scans.Finding{
		Title:       c.title,
		Severity:    c.severity,
		Category:    scans.CategoryWeb,
		Host:        host,
		Port:        &port,
		Evidence:    evidence,
		Description: c.description,
		Remediation: c.remediation,
		References:  slices.Clone(c.references),
	}
	if c.cwe != "" {
		cwe := c.cwe
		f.CWE = &cwe
	}
	return f
}

var (
	missingCSP = check{
		title:       "Missing Content-Security-Policy header",
		severity:    scans.Medium,
		cwe:         "CWE-693",
		description: "The page is served without a Content-Security-Policy header, so the browser has no second line of defence against cross-site scripting and injected third-party content.",
		remediation: "Send a Content-Security-Policy header on HTML responses; start with default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self' and tighten script-src (nonces or hashes instead of 'unsafe-inline').",
		references: []string{
			"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP",
			"https://cheatsheetseries.owasp.org/cheatsheets/Content_Security_Policy_Cheat_Sheet.html",
		},
	}
	missingHSTS = check{
		title:       "Missing Strict-Transport-Security header",
		severity:    scans.Medium,
		cwe:         "CWE-319",
		description: "The HTTPS response has no Strict-Transport-Security header, so browsers keep trying plain HTTP first and a network attacker can strip TLS (SSL stripping) on the first request.",
		remediation: "Send Strict-Transport-Security: max-age=31536000; includeSubDomains on every HTTPS response (add preload once every subdomain serves HTTPS).",
		references: []string{
			"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security",
			"https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html",
		},
	}
	weakHSTS = check{
		title:       "Weak Strict-Transport-Security max-age",
		severity:    scans.Low,
		cwe:         "CWE-319",
		description: "The Strict-Transport-Security header's max-age is shorter than 180 days (or missing), so browsers forget the HTTPS-only rule quickly.",
		remediation: "Use max-age=31536000 (one year) or more, with includeSubDomains.",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security"},
	}
	missingFrameOptions = check{
		title:       "Missing X-Frame-Options header",
		severity:    scans.Medium,
		cwe:         "CWE-1021",
		description: "The page sets neither X-Frame-Options nor a CSP frame-ancestors directive, so any site can frame it and trick users into clicking on it (clickjacking).",
		remediation: "Send Content-Security-Policy: frame-ancestors 'self' (or 'none'), and X-Frame-Options: DENY or SAMEORIGIN for older browsers.",
		references: []string{
			"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Frame-Options",
			"https://cheatsheetseries.owasp.org/cheatsheets/Clickjacking_Defense_Cheat_Sheet.html",
		},
	}
	missingNoSniff = check{
		title:       "Missing X-Content-Type-Options header",
		severity:    scans.Low,
		cwe:         "CWE-693",
		description: "Without X-Content-Type-Options: nosniff, browsers may guess (sniff) content types and run uploaded or user-controlled files as script or HTML.",
		remediation: "Send X-Content-Type-Options: nosniff on every response.",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Content-Type-Options"},
	}
	missingReferrerPolicy = check{
		title:       "Missing Referrer-Policy header",
		severity:    scans.Low,
		cwe:         "CWE-200",
		description: "Without a Referrer-Policy, the page relies on browser defaults to decide how much of its URL (paths, query strings with tokens) is sent to other sites.",
		remediation: "Send Referrer-Policy: strict-origin-when-cross-origin (or no-referrer).",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Referrer-Policy"},
	}
	missingPermissionsPolicy = check{
		title:       "Missing Permissions-Policy header",
		severity:    scans.Low,
		cwe:         "CWE-693",
		description: "Without a Permissions-Policy, any script or frame on the page may ask for powerful browser features (camera, microphone, geolocation, payment).",
		remediation: "Send a Permissions-Policy that disables what the site does not use, e.g. Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=().",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Permissions-Policy"},
	}
	versionDisclosure = check{
		title:       "Server version disclosed in HTTP headers",
		severity:    scans.Low,
		cwe:         "CWE-200",
		description: "Response headers name the server software and its exact version, which tells attackers which published vulnerabilities to try.",
		remediation: "Hide version numbers: ServerTokens Prod and ServerSignature Off (Apache), server_tokens off (nginx), expose_php = Off (PHP), and remove X-Powered-By / X-AspNet-Version headers.",
		references: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/02-Fingerprint_Web_Server",
		},
	}
	cookieNotSecure = check{
		title:       "Cookie without Secure flag",
		severity:    scans.Medium,
		cwe:         "CWE-614",
		description: "A cookie set over HTTPS lacks the Secure flag, so the browser also sends it over plain HTTP, where a network attacker can read it.",
		remediation: "Set the Secure flag on every cookie of an HTTPS site (and prefer the __Host- prefix for session cookies).",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies#restrict_access_to_cookies"},
	}
	cookieNotHTTPOnly = check{
		title:       "Cookie without HttpOnly flag",
		severity:    scans.Low,
		cwe:         "CWE-1004",
		description: "A cookie lacks the HttpOnly flag, so any script on the page (including injected script) can read it; for session cookies this turns an XSS into account takeover.",
		remediation: "Set HttpOnly on every cookie that scripts do not need to read, always on session cookies.",
		references:  []string{"https://owasp.org/www-community/HttpOnly"},
	}
	cookieNoSameSite = check{
		title:       "Cookie without SameSite attribute",
		severity:    scans.Low,
		cwe:         "CWE-1275",
		description: "A cookie has no SameSite attribute, leaving cross-site request forgery protection to browser defaults, which differ between browsers.",
		remediation: "Set SameSite=Lax (or Strict) on session cookies; use SameSite=None; Secure only for cookies that must be sent cross-site.",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Set-Cookie#samesitesamesite-value"},
	}
)

// isHTML reports whether the response is an HTML document, the only kind
// the browser-side headers (CSP, framing, referrer, permissions) protect.
func isHTML(r *httpprobe.Response) bool {
	ct := r.ContentType()
	return ct == "text/html" || ct == "application/xhtml+xml"
}

// headerFindings checks the security headers of one response.
func headerFindings(r *httpprobe.Response) []scans.Finding {
	evidence := headerEvidence(r)
	var out []scans.Finding
	h := r.Header
	csp := strings.Join(h.Values("Content-Security-Policy"), ", ")
	if isHTML(r) {
		if strings.TrimSpace(csp) == "" {
			out = append(out, missingCSP.finding(r.URL, evidence))
		}
		if !framingProtected(h.Get("X-Frame-Options"), csp) {
			out = append(out, missingFrameOptions.finding(r.URL, evidence))
		}
		if strings.TrimSpace(h.Get("Referrer-Policy")) == "" {
			out = append(out, missingReferrerPolicy.finding(r.URL, evidence))
		}
		if strings.TrimSpace(h.Get("Permissions-Policy")) == "" {
			out = append(out, missingPermissionsPolicy.finding(r.URL, evidence))
		}
	}
	if !strings.EqualFold(strings.TrimSpace(h.Get("X-Content-Type-Options")), "nosniff") {
		out = append(out, missingNoSniff.finding(r.URL, evidence))
	}
	if r.URL.Scheme == "https" {
		hsts := h.Get("Strict-Transport-Security")
		switch age, ok := hstsMaxAge(hsts); {
		case strings.TrimSpace(hsts) == "":
			out = append(out, missingHSTS.finding(r.URL, evidence))
		case !ok || age < 180*24*3600:
			out = append(out, weakHSTS.finding(r.URL, "Strict-Transport-Security: "+httpprobe.Clean(hsts, 200)+"; "+evidence))
		}
	}
	return out
}

// framingProtected reports whether X-Frame-Options or a CSP frame-ancestors
// directive restricts framing.
func framingProtected(xfo, csp string) bool {
	switch strings.ToUpper(strings.TrimSpace(xfo)) {
	case "DENY", "SAMEORIGIN":
		return true
	}
	for directive := range strings.SplitSeq(csp, ";") {
		name, _, _ := strings.Cut(strings.TrimSpace(directive), " ")
		if strings.EqualFold(name, "frame-ancestors") {
			return true
		}
	}
	return false
}

// hstsMaxAge parses the max-age directive of a Strict-Transport-Security
// value.
func hstsMaxAge(v string) (int64, bool) {
	for directive := range strings.SplitSeq(v, ";") {
		name, value, found := strings.Cut(strings.TrimSpace(directive), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "max-age") {
			continue
		}
		n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(value), `"`), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// sensitiveHeader matches response headers that may carry tokens; their
// values never go into evidence.
var sensitiveHeader = regexp.MustCompile(`(?i)token|csrf|xsrf|secret|session|auth|api-?key`)

// headerEvidence lists the response's headers, sorted by name, values
// cleaned and cut; cookie values are never shown.
func headerEvidence(r *httpprobe.Response) string {
	const budget = 1500
	names := make([]string, 0, len(r.Header))
	for name := range r.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	var lines []string
	for _, name := range names {
		for _, v := range r.Header[name] {
			switch {
			case name == "Set-Cookie":
				cookieName, _, _ := strings.Cut(v, "=")
				v = httpprobe.Clean(cookieName, 60) + "=(value not shown)"
			case sensitiveHeader.MatchString(name):
				v = "(value not shown)"
			}
			lines = append(lines, httpprobe.Clean(name, 60)+": "+httpprobe.Clean(v, 200))
		}
	}
	out := r.Summary() + "; response headers: " + strings.Join(lines, " | ")
	if len(lines) == 0 {
		out = r.Summary() + "; no response headers"
	}
	return httpprobe.Clean(out, budget)
}

// versionPattern matches a product token with a version number, e.g.
// "Apache/2.4.49" or "PHP/8.1.2"; a bare number counts too ("5.0.2").
var versionPattern = regexp.MustCompile(`\d+\.\d+`)

// VersionDisclosure reports Server / X-Powered-By style headers of r that
// carry a version number, as the finding http_check reports for the page
// it examines; the web crawl applies it to every page it fetches, so the
// same header seen by both tools is one finding (same title, host and
// port).
func VersionDisclosure(r *httpprobe.Response) []scans.Finding {
	var seen []string
	for _, name := range []string{"Server", "X-Powered-By", "X-AspNet-Version", "X-AspNetMvc-Version"} {
		for _, v := range r.Header.Values(name) {
			if versionPattern.MatchString(v) {
				seen = append(seen, name+": "+httpprobe.Clean(v, 120))
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	evidence := fmt.Sprintf("%s; %s", r.Summary(), strings.Join(seen, "; "))
	return []scans.Finding{versionDisclosure.finding(r.URL, evidence)}
}

// maxCookies bounds how many Set-Cookie lines are judged.
const maxCookies = 50

// cookieFindings checks the flags of every cookie the chain set; one
// finding per missing flag, listing the cookies (names and flags, never
// values) in its evidence.
func cookieFindings(chain []*httpprobe.Response) []scans.Finding {
	lacks := []*cookieLack{{check: cookieNotSecure}, {check: cookieNotHTTPOnly}, {check: cookieNoSameSite}}
	n := 0
	for _, r := range chain {
		for _, line := range r.Header.Values("Set-Cookie") {
			if n++; n > maxCookies {
				break
			}
			c, err := http.ParseSetCookie(line)
			if err != nil || c.MaxAge < 0 {
				continue // unparsable, or a deletion: nothing is stored
			}
			desc := fmt.Sprintf("cookie %s set by %s with flags: %s", httpprobe.Clean(c.Name, 60),
				httpprobe.Clean(r.URL.String(), 200), cookieFlags(c))
			if !c.Secure && r.URL.Scheme == "https" {
				lacks[0].add(r.URL, desc)
			}
			if !c.HttpOnly {
				lacks[1].add(r.URL, desc)
			}
			// Zero: no attribute; SameSiteDefaultMode: a value browsers do
			// not know, which they ignore.
			if c.SameSite == 0 || c.SameSite == http.SameSiteDefaultMode {
				lacks[2].add(r.URL, desc)
			}
		}
	}
	var out []scans.Finding
	for _, l := range lacks {
		if len(l.evidence) > 0 {
			out = append(out, l.check.finding(l.where, httpprobe.Clean(strings.Join(l.evidence, "; "), 1500)))
		}
	}
	return out
}

// cookieLack collects the cookies that miss one flag.
type cookieLack struct {
	check    check
	where    *url.URL
	evidence []string
}

func (l *cookieLack) add(where *url.URL, desc string) {
	if l.where == nil {
		l.where = where
	}
	if !slices.Contains(l.evidence, desc) {
		l.evidence = append(l.evidence, desc)
	}
}

// cookieFlags describes the attributes of c, never its value.
func cookieFlags(c *http.Cookie) string {
	var flags []string
	if c.Path != "" {
		flags = append(flags, "Path="+httpprobe.Clean(c.Path, 60))
	}
	if c.Domain != "" {
		flags = append(flags, "Domain="+httpprobe.Clean(c.Domain, 60))
	}
	if c.Secure {
		flags = append(flags, "Secure")
	}
	if c.HttpOnly {
		flags = append(flags, "HttpOnly")
	}
	switch c.SameSite {
	case http.SameSiteLaxMode:
		flags = append(flags, "SameSite=Lax")
	case http.SameSiteStrictMode:
		flags = append(flags, "SameSite=Strict")
	case http.SameSiteNoneMode:
		flags = append(flags, "SameSite=None")
	case http.SameSiteDefaultMode:
		flags = append(flags, "SameSite=(unrecognised value)")
	}
	if len(flags) == 0 {
		return "none"
	}
	return strings.Join(flags, "; ")
}

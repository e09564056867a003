package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// finding is a finding of check c on the page at u.
func finding(c *checks.Check, u *url.URL, evidence string) scans.Finding {
	host, port := httpprobe.HostPort(u)
	return c.Finding(host, &port, evidence)
}

// findingOf is a finding of check c on the page r answered, proven by r.
func findingOf(c *checks.Check, r *httpprobe.Response, evidence string) scans.Finding {
	f := finding(c, r.URL, evidence)
	f.Proof = r.Proof("")
	return f
}

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
	if isHTML(r) {
		out = browserHeaderFindings(r, evidence)
	}
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Content-Type-Options")), "nosniff") {
		out = append(out, findingOf(checks.HeaderNoSniff, r, evidence))
	}
	if r.URL.Scheme == "https" {
		out = append(out, hstsFindings(r, evidence)...)
	}
	return out
}

// browserHeaderFindings checks the headers that protect an HTML page in
// the browser: CSP, framing, referrer and permissions policies.
func browserHeaderFindings(r *httpprobe.Response, evidence string) []scans.Finding {
	h := r.Header
	csp := strings.Join(h.Values("Content-Security-Policy"), ", ")
	var out []scans.Finding
	for _, header := range []struct {
		check   *checks.Check
		missing bool
	}{
		{checks.HeaderCSP, strings.TrimSpace(csp) == ""},
		{checks.HeaderFrameOptions, !framingProtected(h.Get("X-Frame-Options"), csp)},
		{checks.HeaderReferrerPolicy, strings.TrimSpace(h.Get("Referrer-Policy")) == ""},
		{checks.HeaderPermissionsPolicy, strings.TrimSpace(h.Get("Permissions-Policy")) == ""},
	} {
		if header.missing {
			out = append(out, findingOf(header.check, r, evidence))
		}
	}
	return out
}

// hstsFindings checks the Strict-Transport-Security header of an HTTPS
// response: present, with a max-age of at least 180 days.
func hstsFindings(r *httpprobe.Response, evidence string) []scans.Finding {
	hsts := r.Header.Get("Strict-Transport-Security")
	switch age, ok := hstsMaxAge(hsts); {
	case strings.TrimSpace(hsts) == "":
		return []scans.Finding{findingOf(checks.HeaderHSTS, r, evidence)}
	case !ok || age < 180*24*3600:
		return []scans.Finding{findingOf(checks.HeaderHSTSMaxAge, r, "Strict-Transport-Security: "+httpprobe.Clean(hsts, 200)+"; "+evidence)}
	}
	return nil
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
var sensitiveHeader = lazyre.New(`(?i)token|csrf|xsrf|secret|session|auth|api-?key`)

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
var versionPattern = lazyre.New(`\d+\.\d+`)

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
	return []scans.Finding{findingOf(checks.VersionHeader, r, evidence)}
}

// maxCookies bounds how many Set-Cookie lines are judged.
const maxCookies = 50

// cookieRules are the flags every cookie should have: the check of each,
// and whether a cookie set by a page of scheme lacks it.
var cookieRules = []struct {
	check *checks.Check
	lacks func(c *http.Cookie, scheme string) bool
}{
	{checks.CookieSecure, func(c *http.Cookie, scheme string) bool { return !c.Secure && scheme == "https" }},
	{checks.CookieHTTPOnly, func(c *http.Cookie, _ string) bool { return !c.HttpOnly }},
	// Zero: no attribute; SameSiteDefaultMode: a value browsers do not
	// know, which they ignore.
	{checks.CookieSameSite, func(c *http.Cookie, _ string) bool {
		return c.SameSite == 0 || c.SameSite == http.SameSiteDefaultMode
	}},
}

// cookieFindings checks the flags of every cookie the chain set; one
// finding per missing flag, listing the cookies (names and flags, never
// values) in its evidence.
func cookieFindings(chain []*httpprobe.Response) []scans.Finding {
	lacks := make([]cookieLack, len(cookieRules))
	for _, sc := range setCookies(chain) {
		desc := fmt.Sprintf("cookie %s set by %s with flags: %s", httpprobe.Clean(sc.cookie.Name, 60),
			httpprobe.Clean(sc.by.String(), 200), cookieFlags(sc.cookie))
		for i, rule := range cookieRules {
			if rule.lacks(sc.cookie, sc.by.Scheme) {
				lacks[i].add(sc.by, desc)
			}
		}
	}
	var out []scans.Finding
	for i, l := range lacks {
		if len(l.evidence) > 0 {
			out = append(out, finding(cookieRules[i].check, l.where, httpprobe.Clean(strings.Join(l.evidence, "; "), 1500)))
		}
	}
	return out
}

// setCookie is a cookie the chain stored and the page that set it.
type setCookie struct {
	cookie *http.Cookie
	by     *url.URL
}

// setCookies are the cookies of the chain's first maxCookies Set-Cookie
// lines that a browser stores (parsable, and not a deletion).
func setCookies(chain []*httpprobe.Response) []setCookie {
	var out []setCookie
	n := 0
	for _, r := range chain {
		for _, line := range r.Header.Values("Set-Cookie") {
			if n++; n > maxCookies {
				return out
			}
			c, err := http.ParseSetCookie(line)
			if err != nil || c.MaxAge < 0 {
				continue // unparsable, or a deletion: nothing is stored
			}
			out = append(out, setCookie{c, r.URL})
		}
	}
	return out
}

// cookieLack collects the cookies that miss one flag.
type cookieLack struct {
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

// sameSiteValues shows a cookie's SameSite attribute; a cookie without
// one has none of these.
var sameSiteValues = map[http.SameSite]string{
	http.SameSiteLaxMode:     "Lax",
	http.SameSiteStrictMode:  "Strict",
	http.SameSiteNoneMode:    "None",
	http.SameSiteDefaultMode: "(unrecognised value)",
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
	if v, ok := sameSiteValues[c.SameSite]; ok {
		flags = append(flags, "SameSite="+v)
	}
	if len(flags) == 0 {
		return "none"
	}
	return strings.Join(flags, "; ")
}

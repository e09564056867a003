package crawl

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/vuln"
	"secscan/shared/scanners/web"
	"secscan/shared/scans"
)

// check is one kind of finding; its title is fixed so the agent's
// deduplication (title, host, port) merges what several pages show.
type check struct {
	title       string
	severity    scans.Severity
	cwe         string
	description string
	remediation string
	references  []string
}

var (
	passwordOverHTTP = check{
		title:       "Password field on a page served over HTTP",
		severity:    scans.High,
		cwe:         "CWE-319",
		description: "A page with a password field is served over plain HTTP: anyone on the network path (public Wi-Fi, a compromised router) can read or rewrite the page, so the typed password can be captured even when the form itself posts to HTTPS.",
		remediation: "Serve every page over HTTPS, redirect HTTP to HTTPS with a 301/308 and send Strict-Transport-Security so browsers never load the login page over HTTP.",
		references: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/04-Authentication_Testing/01-Testing_for_Credentials_Transported_over_an_Encrypted_Channel",
			"https://cwe.mitre.org/data/definitions/319.html",
		},
	}
	passwordFormToHTTP = check{
		title:       "Form with a password field submits over plain HTTP",
		severity:    scans.High,
		cwe:         "CWE-319",
		description: "A form with a password field on an HTTPS page posts to an http:// URL, so the credentials travel unencrypted and can be read by anyone on the network path.",
		remediation: "Point the form's action at an https:// URL (or a relative path) and redirect the HTTP endpoint to HTTPS.",
		references:  []string{"https://cwe.mitre.org/data/definitions/319.html"},
	}
	formToHTTP = check{
		title:       "Form submits over plain HTTP",
		severity:    scans.Medium,
		cwe:         "CWE-319",
		description: "A form sends its data to an http:// URL (from an HTTPS page, or with POST from an HTTP page), so what users type travels unencrypted and can be read or altered on the network path.",
		remediation: "Serve the form and its action over HTTPS: use https:// or relative action URLs and redirect HTTP to HTTPS.",
		references:  []string{"https://cwe.mitre.org/data/definitions/319.html"},
	}
	mixedActive = check{
		title:       "Mixed content: scripts, styles or frames loaded over HTTP",
		severity:    scans.Medium,
		cwe:         "CWE-319",
		description: "An HTTPS page loads scripts, stylesheets, frames or plugins over plain HTTP. A network attacker can replace them and take over the page; current browsers block such content, so the page is also broken for them.",
		remediation: "Load every subresource over HTTPS (or relative URLs), and add Content-Security-Policy: upgrade-insecure-requests while fixing the references.",
		references: []string{
			"https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content",
			"https://www.w3.org/TR/mixed-content/",
		},
	}
	mixedPassive = check{
		title:       "Mixed content: images or media loaded over HTTP",
		severity:    scans.Low,
		cwe:         "CWE-319",
		description: "An HTTPS page loads images, audio or video over plain HTTP, which a network attacker can read or replace (and which tells them what the user views); browsers show the page as not fully secure.",
		remediation: "Load images and media over HTTPS (or relative URLs); Content-Security-Policy: upgrade-insecure-requests helps while fixing the references.",
		references:  []string{"https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content"},
	}
	directoryListing = check{
		title:       "Directory listing enabled",
		severity:    scans.Medium,
		cwe:         "CWE-548",
		description: "The web server lists the files of a directory, so anyone can find files that are not linked anywhere (backups, configuration, private documents).",
		remediation: "Disable directory listings (Options -Indexes in Apache, autoindex off in nginx, directoryBrowse enabled=\"false\" in IIS).",
		references:  []string{"https://cwe.mitre.org/data/definitions/548.html"},
	}
	errorDetails = check{
		title:       "Error page reveals stack trace or debug information",
		severity:    scans.Medium,
		cwe:         "CWE-209",
		description: "A page shows a stack trace, a framework debug page or a raw database error. It reveals file paths, code structure, library versions and sometimes queries or configuration, and debug modes often offer more (interactive consoles, settings).",
		remediation: "Turn debug mode off in production (DEBUG = False in Django, no Werkzeug debugger, APP_DEBUG=false in Laravel, customErrors/ASPNETCORE_ENVIRONMENT=Production in .NET, display_errors = Off in PHP), log details server-side and show a generic error page.",
		references: []string{
			"https://cwe.mitre.org/data/definitions/209.html",
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/08-Testing_for_Error_Handling/01-Testing_For_Improper_Error_Handling",
		},
	}
	pageVersion = check{
		title:       "Software version disclosed in page content",
		severity:    scans.Low,
		cwe:         "CWE-200",
		description: "Pages print the exact version of the server or application software (default error page footers, a generator meta tag), which tells attackers which published vulnerabilities to try.",
		remediation: "Replace default error pages (ErrorDocument in Apache, error_page and server_tokens off in nginx, ErrorReportValve showServerInfo=\"false\" in Tomcat) and remove version numbers from generator meta tags.",
		references: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/02-Fingerprint_Web_Server",
		},
	}
)

// listingPattern matches the title or heading of Apache and nginx
// autoindex pages; IIS listings carry "[To Parent Directory]".
var listingPattern = regexp.MustCompile(`(?i)<(?:title|h1)>\s*(Index of /[^<]{0,100})</`)

// debugSignature is text only a stack trace, debug page or raw database
// error contains; each names what it shows.
type debugSignature struct {
	what string
	re   *regexp.Regexp
	// min is how many matches are needed (stack frames), 1 when zero.
	min int
	// requires must also occur in the body, when set.
	requires *regexp.Regexp
	// hints are literals of which one must occur for re to match: a cheap
	// filter, since patterns that start with \b or an alternation get no
	// literal-prefix speed-up and pages are up to 256 KiB.
	hints []string
}

var debugSignatures = []debugSignature{
	{what: "Java stack trace", re: regexp.MustCompile(`\bat (?:[\w$]+\.)+[\w$<>;&]+\([\w$]+\.(?:java|kt|scala|groovy):\d+\)`), min: 2,
		requires: regexp.MustCompile(`\b(?:[\w$]+\.)+[\w$]*(?:Exception|Error)\b`), hints: []string{".java:", ".kt:", ".scala:", ".groovy:"}},
	{what: "Python traceback", re: regexp.MustCompile(`Traceback \(most recent call last\):`),
		requires: regexp.MustCompile(`File (?:"|&quot;)[^"&]{1,300}(?:"|&quot;), line \d+`)},
	{what: "PHP error message", re: regexp.MustCompile(`(?:<b>)?(?:Fatal error|Parse error|Warning|Notice|Deprecated)(?:</b>)?:\s[^\n]{1,400}? in (?:<b>)?(?:/|[A-Za-z]:\\)[^<\n]{1,300}?(?:</b>)? on line (?:<b>)?\d+`), hints: []string{" on line "}},
	{what: "PHP stack trace", re: regexp.MustCompile(`Stack trace:\s*(?:<br\s*/?>\s*)?#0 [^\n<]{1,300}`),
		requires: regexp.MustCompile(`\.php\b`)},
	{what: "ASP.NET error page", re: regexp.MustCompile(`Server Error in '[^']{0,100}' Application`),
		requires: regexp.MustCompile(`Stack Trace:|Exception Details:`)},
	{what: "Node.js stack trace", re: regexp.MustCompile(`\bat [^()<>\n]{1,120}\((?:/|[A-Za-z]:\\)[^()\s<>]{1,300}\.(?:js|mjs|cjs|ts):\d+:\d+\)`), min: 2,
		requires: regexp.MustCompile(`\b\w*Error\b`), hints: []string{".js:", ".mjs:", ".cjs:", ".ts:"}},
	{what: "Go panic", re: regexp.MustCompile(`goroutine \d+ \[running\]:`),
		requires: regexp.MustCompile(`\.go:\d+`)},
	{what: "Ruby on Rails exception page", re: regexp.MustCompile(`Action Controller: Exception caught`)},
	{what: "Werkzeug (Flask) debugger", re: regexp.MustCompile(`Werkzeug Debugger`)},
	{what: "Django debug page", re: regexp.MustCompile(`You(?:'|&#39;|&#x27;)re seeing this error because you have <code>DEBUG = True</code>`)},
	{what: "Laravel (Whoops) debug page", re: regexp.MustCompile(`Whoops! There was an error\.`)},
	{what: "Symfony exception page", re: regexp.MustCompile(`Symfony Exception`)},
	{what: "MySQL error message", re: regexp.MustCompile(`You have an error in your SQL syntax; check the manual that corresponds to your (?:MySQL|MariaDB) server version`)},
	{what: "PDO database error", re: regexp.MustCompile(`SQLSTATE\[[0-9A-Z]{5}\]`)},
	{what: "Oracle database error", re: regexp.MustCompile(`\bORA-\d{5}: `), hints: []string{"ORA-"}},
	{what: "PostgreSQL error message", re: regexp.MustCompile(`\bERROR:\s+syntax error at or near "`), hints: []string{"syntax error at or near"}},
}

// matchDebug returns what a body shows and a short excerpt, or ok=false.
func matchDebug(body []byte) (what, excerpt string, ok bool) {
	for _, sig := range debugSignatures {
		if len(sig.hints) > 0 && !slices.ContainsFunc(sig.hints, func(h string) bool { return bytes.Contains(body, []byte(h)) }) {
			continue
		}
		need := max(sig.min, 1)
		matches := sig.re.FindAllIndex(body, need)
		if len(matches) < need {
			continue
		}
		if sig.requires != nil && !sig.requires.Match(body) {
			continue
		}
		first := matches[0]
		return sig.what, httpprobe.Clean(string(body[first[0]:first[1]]), 160), true
	}
	return "", "", false
}

// matchListing returns the listing's title, or ok=false.
func matchListing(body []byte) (string, bool) {
	if m := listingPattern.FindSubmatch(body); m != nil {
		return httpprobe.Clean(string(m[1]), 100), true
	}
	if iisListing.Match(body) {
		return "[To Parent Directory] (IIS directory browsing)", true
	}
	return "", false
}

var iisListing = regexp.MustCompile(`<A HREF="[^"]*">\[To Parent Directory\]</A>`)

// generatorVersion matches generator values that carry a version, e.g.
// "WordPress 6.4.2" or "Joomla! 3.9 - Open Source Content Management".
var generatorVersion = regexp.MustCompile(`\d+\.\d+`)

// textual reports whether a response's body is text worth reading for
// error details (pages, plain text, JSON and XML error bodies); scripts,
// styles and binaries are not.
func textual(r *httpprobe.Response) bool {
	switch ct := r.ContentType(); {
	case ct == "", ct == "text/html", ct == "application/xhtml+xml", ct == "text/plain",
		ct == "application/json", ct == "application/problem+json", ct == "application/xml", ct == "text/xml":
		return true
	}
	return false
}

// isHTML reports an HTML document.
func isHTML(r *httpprobe.Response) bool {
	ct := r.ContentType()
	return ct == "text/html" || ct == "application/xhtml+xml"
}

// pageChecks runs the per-page checks on one response (doc is nil when
// the response is not HTML) and records what they find.
func pageChecks(r *httpprobe.Response, doc *document, out *collector) {
	out.addFindings(web.VersionDisclosure(r))
	if !textual(r) {
		return
	}
	summary := r.Summary()
	if what, excerpt, ok := matchDebug(r.Body); ok {
		out.add(errorDetails, r.URL, fmt.Sprintf("%s: %s: %q", summary, what, excerpt))
	}
	for _, pv := range vuln.PageVersions(r.Body) {
		out.add(pageVersion, r.URL, fmt.Sprintf("%s: %q (%s %s)", summary, pv.Text, pv.Product, pv.Version))
	}
	if doc == nil {
		return
	}
	if r.Status == http.StatusOK {
		if title, ok := matchListing(r.Body); ok {
			out.add(directoryListing, r.URL, fmt.Sprintf("%s: %s", summary, title))
		}
	}
	if g := doc.generator; g != "" && generatorVersion.MatchString(g) {
		out.add(pageVersion, r.URL, fmt.Sprintf("%s: <meta name=\"generator\" content=%q>", summary, httpprobe.Clean(g, 80)))
	}
	pageHTTPS := r.URL.Scheme == "https"
	for _, f := range doc.forms {
		desc := fmt.Sprintf("%s: form %s %s (fields: %s)", summary, f.method, httpprobe.Clean(f.action.String(), 200), fieldList(f))
		switch {
		case f.password && !pageHTTPS:
			out.add(passwordOverHTTP, r.URL, desc+"; the page itself is served over plain HTTP")
		case f.action.Scheme != "http":
		case f.password:
			out.add(passwordFormToHTTP, r.URL, desc)
		case pageHTTPS || f.method == "POST":
			out.add(formToHTTP, r.URL, desc)
		}
	}
	if pageHTTPS {
		for _, res := range doc.resources {
			if res.url.Scheme != "http" {
				continue
			}
			c := mixedPassive
			if res.active {
				c = mixedActive
			}
			out.add(c, r.URL, fmt.Sprintf("%s loads %s (<%s>)", httpprobe.Clean(r.URL.String(), 200), httpprobe.Clean(res.url.String(), 200), res.tag))
		}
	}
}

func fieldList(f form) string {
	if len(f.fields) == 0 {
		return "none named"
	}
	names := make([]string, len(f.fields))
	for i, n := range f.fields {
		names[i] = httpprobe.Clean(n, 40)
	}
	s := strings.Join(names, ", ")
	if f.password {
		s += "; has a password field"
	}
	return s
}

// maxEvidenceItems bounds the places listed in one finding's evidence.
const maxEvidenceItems = 5

// collector merges findings by title, host and port: the same issue on
// several pages of one site is one finding listing where it was seen.
type collector struct {
	mu    sync.Mutex
	order []string
	byKey map[string]*merged
}

type merged struct {
	finding scans.Finding
	items   []string
	more    int
}

func newCollector() *collector { return &collector{byKey: map[string]*merged{}} }

// add records that check c applies to the page at u, with evidence.
func (c *collector) add(ch check, u *url.URL, evidence string) {
	host, port := httpprobe.HostPort(u)
	f := scans.Finding{
		Title:       ch.title,
		Severity:    ch.severity,
		Category:    scans.CategoryWeb,
		Host:        host,
		Port:        &port,
		Description: ch.description,
		Remediation: ch.remediation,
		References:  slices.Clone(ch.references),
	}
	if ch.cwe != "" {
		cwe := ch.cwe
		f.CWE = &cwe
	}
	c.merge(f, evidence)
}

// addFindings records findings built elsewhere (the web tool's checks).
func (c *collector) addFindings(fs []scans.Finding) {
	for _, f := range fs {
		c.merge(f, f.Evidence)
	}
}

func (c *collector) merge(f scans.Finding, evidence string) {
	port := ""
	if f.Port != nil {
		port = fmt.Sprint(*f.Port)
	}
	key := f.Title + "\x00" + f.Host + "\x00" + port
	evidence = httpprobe.Clean(evidence, 400)
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.byKey[key]
	if !ok {
		m = &merged{finding: f}
		c.byKey[key] = m
		c.order = append(c.order, key)
	}
	switch {
	case slices.Contains(m.items, evidence):
	case len(m.items) < maxEvidenceItems:
		m.items = append(m.items, evidence)
	default:
		m.more++
	}
}

// findings returns the merged findings, most severe first.
func (c *collector) findings() []scans.Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]scans.Finding, 0, len(c.order))
	for _, key := range c.order {
		m := c.byKey[key]
		f := m.finding
		f.Evidence = strings.Join(m.items, "; ")
		if m.more > 0 {
			f.Evidence += fmt.Sprintf("; and %d more", m.more)
		}
		f.Evidence = httpprobe.Clean(f.Evidence, 2000)
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b scans.Finding) int {
		return cmp.Compare(a.Severity.Rank(), b.Severity.Rank())
	})
	return out
}

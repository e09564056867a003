package crawl

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/vuln"
	"secscan/shared/scanners/web"
	"secscan/shared/scans"
)

// listingPattern matches the title or heading of Apache and nginx
// autoindex pages; IIS listings carry "[To Parent Directory]".
var listingPattern = lazyre.New(`(?i)<(?:title|h1)>\s*(Index of /[^<]{0,100})</`)

// debugSignature is text only a stack trace, debug page or raw database
// error contains; each names what it shows.
type debugSignature struct {
	what string
	re   *lazyre.Regexp
	// min is how many matches are needed (stack frames), 1 when zero.
	min int
	// requires must also occur in the body, when set.
	requires *lazyre.Regexp
	// hints are literals of which one must occur for re to match: a cheap
	// filter, since patterns that start with \b or an alternation get no
	// literal-prefix speed-up and pages are up to 256 KiB.
	hints []string
}

var debugSignatures = []debugSignature{
	{what: "Java stack trace", re: lazyre.New(`\bat (?:[\w$]+\.)+[\w$<>;&]+\([\w$]+\.(?:java|kt|scala|groovy):\d+\)`), min: 2,
		requires: lazyre.New(`\b(?:[\w$]+\.)+[\w$]*(?:Exception|Error)\b`), hints: []string{".java:", ".kt:", ".scala:", ".groovy:"}},
	{what: "Python traceback", re: lazyre.New(`Traceback \(most recent call last\):`),
		requires: lazyre.New(`File (?:"|&quot;)[^"&]{1,300}(?:"|&quot;), line \d+`)},
	{what: "PHP error message", re: lazyre.New(`(?:<b>)?(?:Fatal error|Parse error|Warning|Notice|Deprecated)(?:</b>)?:\s[^\n]{1,400}? in (?:<b>)?(?:/|[A-Za-z]:\\)[^<\n]{1,300}?(?:</b>)? on line (?:<b>)?\d+`), hints: []string{" on line "}},
	{what: "PHP stack trace", re: lazyre.New(`Stack trace:\s*(?:<br\s*/?>\s*)?#0 [^\n<]{1,300}`),
		requires: lazyre.New(`\.php\b`)},
	{what: "ASP.NET error page", re: lazyre.New(`Server Error in '[^']{0,100}' Application`),
		requires: lazyre.New(`Stack Trace:|Exception Details:`)},
	{what: "Node.js stack trace", re: lazyre.New(`\bat [^()<>\n]{1,120}\((?:/|[A-Za-z]:\\)[^()\s<>]{1,300}\.(?:js|mjs|cjs|ts):\d+:\d+\)`), min: 2,
		requires: lazyre.New(`\b\w*Error\b`), hints: []string{".js:", ".mjs:", ".cjs:", ".ts:"}},
	{what: "Go panic", re: lazyre.New(`goroutine \d+ \[running\]:`),
		requires: lazyre.New(`\.go:\d+`)},
	{what: "Ruby on Rails exception page", re: lazyre.New(`Action Controller: Exception caught`)},
	{what: "Werkzeug (Flask) debugger", re: lazyre.New(`Werkzeug Debugger`)},
	{what: "Django debug page", re: lazyre.New(`You(?:'|&#39;|&#x27;)re seeing this error because you have <code>DEBUG = True</code>`)},
	{what: "Laravel (Whoops) debug page", re: lazyre.New(`Whoops! There was an error\.`)},
	{what: "Symfony exception page", re: lazyre.New(`Symfony Exception`)},
	{what: "MySQL error message", re: lazyre.New(`You have an error in your SQL syntax; check the manual that corresponds to your (?:MySQL|MariaDB) server version`)},
	{what: "PDO database error", re: lazyre.New(`SQLSTATE\[[0-9A-Z]{5}\]`)},
	{what: "Oracle database error", re: lazyre.New(`\bORA-\d{5}: `), hints: []string{"ORA-"}},
	{what: "PostgreSQL error message", re: lazyre.New(`\bERROR:\s+syntax error at or near "`), hints: []string{"syntax error at or near"}},
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

var iisListing = lazyre.New(`<A HREF="[^"]*">\[To Parent Directory\]</A>`)

// generatorVersion matches generator values that carry a version, e.g.
// "WordPress 6.4.2" or "Joomla! 3.9 - Open Source Content Management".
var generatorVersion = lazyre.New(`\d+\.\d+`)

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
	textChecks(r, summary, out)
	if doc != nil {
		htmlChecks(r, doc, summary, out)
	}
}

// textChecks look for error details and product versions in a text body.
func textChecks(r *httpprobe.Response, summary string, out *collector) {
	if what, excerpt, ok := matchDebug(r.Body); ok {
		out.add(checks.ErrorDetails, r.URL, fmt.Sprintf("%s: %s: %q", summary, what, excerpt))
	}
	for _, pv := range vuln.PageVersions(r.Body) {
		out.add(checks.VersionPage, r.URL, fmt.Sprintf("%s: %q (%s %s)", summary, pv.Text, pv.Product, pv.Version))
	}
}

// htmlChecks run the checks of an HTML page: directory listing, the
// generator's version, its forms and, on HTTPS, mixed content.
func htmlChecks(r *httpprobe.Response, doc *document, summary string, out *collector) {
	if r.Status == http.StatusOK {
		if title, ok := matchListing(r.Body); ok {
			out.add(checks.DirectoryListing, r.URL, fmt.Sprintf("%s: %s", summary, title))
		}
	}
	if g := doc.generator; g != "" && generatorVersion.MatchString(g) {
		out.add(checks.VersionPage, r.URL, fmt.Sprintf("%s: <meta name=\"generator\" content=%q>", summary, httpprobe.Clean(g, 80)))
	}
	for _, f := range doc.forms {
		formCheck(r, f, summary, out)
	}
	if r.URL.Scheme == "https" {
		mixedContent(r, doc.resources, out)
	}
}

// formCheck reports a form that sends a password or data over plain HTTP.
func formCheck(r *httpprobe.Response, f form, summary string, out *collector) {
	pageHTTPS := r.URL.Scheme == "https"
	desc := fmt.Sprintf("%s: form %s %s (fields: %s)", summary, f.method, httpprobe.Clean(f.action.String(), 200), fieldList(f))
	switch {
	case f.password && !pageHTTPS:
		out.addProven(checks.PasswordOverHTTP, r, desc+"; the page itself is served over plain HTTP", "password")
	case f.action.Scheme != "http":
	case f.password:
		out.addProven(checks.PasswordFormToHTTP, r, desc, "password")
	case pageHTTPS || f.method == "POST":
		out.add(checks.FormToHTTP, r.URL, desc)
	}
}

// mixedContent reports the plain-HTTP subresources of an HTTPS page,
// active or passive.
func mixedContent(r *httpprobe.Response, resources []resource, out *collector) {
	for _, res := range resources {
		if res.url.Scheme != "http" {
			continue
		}
		c := checks.MixedPassive
		if res.active {
			c = checks.MixedActive
		}
		out.add(c, r.URL, fmt.Sprintf("%s loads %s (<%s>)", httpprobe.Clean(r.URL.String(), 200), httpprobe.Clean(res.url.String(), 200), res.tag))
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

// collector merges findings by check, host and port (their fingerprint):
// the same issue on several pages of one site is one finding listing where
// it was seen.
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

// add records that check ch applies to the page at u, with evidence.
func (c *collector) add(ch *checks.Check, u *url.URL, evidence string) {
	host, port := httpprobe.HostPort(u)
	c.merge(ch.Finding(host, &port, ""), evidence)
}

// addProven records that check ch applies to the page r answered, proven
// by r (its excerpt centred on needle) when it is the first sighting.
func (c *collector) addProven(ch *checks.Check, r *httpprobe.Response, evidence, needle string) {
	host, port := httpprobe.HostPort(r.URL)
	f := ch.Finding(host, &port, "")
	f.Proof = r.Proof(needle)
	c.merge(f, evidence)
}

// addFindings records findings built elsewhere (the web tool's checks).
func (c *collector) addFindings(fs []scans.Finding) {
	for _, f := range fs {
		c.merge(f, f.Evidence)
	}
}

func (c *collector) merge(f scans.Finding, evidence string) {
	key := f.StableFingerprint()
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

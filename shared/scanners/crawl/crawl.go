// Package crawl owns the web_crawl tool, the deep tier's bounded crawl of a
// site of the scan's domain: breadth-first from one page, following links
// that stay in scope (the domain and its subdomains, http and https, no
// user info), GET only, honouring robots.txt, with pages, depth and bytes
// capped. Every page it fetches gets the passive checks that make sense
// per page — login forms and forms posting over plain HTTP, mixed content,
// directory listings, error pages that leak stack traces or debug
// information, and software versions disclosed in headers or page
// footers — and the outcome lists the pages, forms and same-host scripts
// it discovered. Requests go through the guarded dialer (package
// httpprobe), at most four at a time; nothing is submitted or written.
package crawl

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name = "web_crawl"
	cost = 15
	// timeout leaves the agent margin under tools.MaxCallDuration.
	timeout = 18 * time.Second

	// DefaultMaxPages and MaxPages bound the pages fetched in one call
	// (redirect answers count: each is a request to the site).
	DefaultMaxPages = 30
	MaxPages        = 50
	// DefaultMaxDepth and MaxDepth bound how many links away from the
	// start page the crawl goes (0: the start page only).
	DefaultMaxDepth = 2
	MaxDepth        = 3

	// pageBytes bounds the body read of one page, totalBytes all bodies
	// of one call (robots.txt included).
	pageBytes  = 256 << 10
	totalBytes = 4 << 20
	// robotsBytes bounds one robots.txt.
	robotsBytes = 64 << 10
	// minReserve is the smallest body worth fetching: below it the byte
	// budget counts as spent.
	minReserve = 1 << 10
	// workers is how many pages are fetched at once (the client also caps
	// in-flight requests).
	workers = 4
	// maxQueryVariants bounds the URLs with a query string fetched per
	// path, so calendars and faceted search cannot trap the crawl.
	maxQueryVariants = 3
	// maxQueued bounds the URLs waiting for the next level.
	maxQueued = 1000
	// maxListed bounds the pages, forms and scripts named in the outcome.
	maxListed = 8
)

// robotsAgent is the product token robots.txt groups are matched against
// (the crawler's User-Agent is httpprobe.UserAgent).
var robotsAgent, _, _ = strings.Cut(httpprobe.UserAgent, "/")

// Option configures the tool (the options every web tool shares).
type Option = httpprobe.Option

// WithRootCAs verifies certificates with pool instead of the system pool.
var WithRootCAs = httpprobe.WithRootCAs

// Tool is the web_crawl tool.
type Tool struct {
	opts httpprobe.Options
}

// New returns the web_crawl tool.
func New(opts ...Option) tools.Tool {
	return &Tool{opts: httpprobe.NewOptions(opts)}
}

// Name implements tools.Tool.
func (*Tool) Name() string { return Name }

// Description implements tools.Tool.
func (*Tool) Description() string {
	return fmt.Sprintf("Crawls a site of the scan's domain breadth-first from one page (default: the domain's home page, "+
		"https then http), following only links that stay on the domain or its subdomains, GET only, honouring "+
		"robots.txt; at most %d pages (default %d), depth %d (default %d), %d KiB per page and %d MiB in all. "+
		"Checks every page for password fields and forms sent over plain HTTP, mixed content, directory listings, "+
		"error pages leaking stack traces or debug information, and software versions disclosed in headers or page "+
		"footers; lists the pages, forms and same-host scripts found.",
		MaxPages, DefaultMaxPages, MaxDepth, DefaultMaxDepth, pageBytes>>10, totalBytes>>20)
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "url": {
      "type": "string",
      "maxLength": %d,
      "description": "http(s) URL of the start page, on the scan's domain or a subdomain; default: https://<domain>/, falling back to http://<domain>/"
    },
    "max_pages": {
      "type": "integer",
      "minimum": 1,
      "maximum": %d,
      "default": %d,
      "description": "most pages to fetch, the start page and redirects included"
    },
    "max_depth": {
      "type": "integer",
      "minimum": 0,
      "maximum": %d,
      "default": %d,
      "description": "most links to follow away from the start page (0: the start page only)"
    }
  },
  "additionalProperties": false
}`, httpprobe.MaxURLLength, MaxPages, DefaultMaxPages, MaxDepth, DefaultMaxDepth))
}

// Cost implements tools.Tool.
func (*Tool) Cost() int { return cost }

// Timeout implements tools.Tool.
func (*Tool) Timeout() time.Duration { return timeout }

// Checks implements checks.Emitter: the page checks and the web tool's
// version-disclosure header check it applies to every page.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{
		checks.PasswordOverHTTP, checks.PasswordFormToHTTP, checks.FormToHTTP, checks.MixedActive, checks.MixedPassive,
		checks.DirectoryListing, checks.ErrorDetails, checks.VersionPage, checks.VersionHeader,
	}
}

type input struct {
	URL      string `json:"url"`
	MaxPages *int   `json:"max_pages"`
	MaxDepth *int   `json:"max_depth"`
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return tools.Result{}, err
	}
	maxPages, maxDepth := DefaultMaxPages, DefaultMaxDepth
	if in.MaxPages != nil {
		if *in.MaxPages < 1 || *in.MaxPages > MaxPages {
			return tools.Result{}, tools.Refuse("max_pages is %d; it must be between 1 and %d", *in.MaxPages, MaxPages)
		}
		maxPages = *in.MaxPages
	}
	if in.MaxDepth != nil {
		if *in.MaxDepth < 0 || *in.MaxDepth > MaxDepth {
			return tools.Result{}, tools.Refuse("max_depth is %d; it must be between 0 and %d", *in.MaxDepth, MaxDepth)
		}
		maxDepth = *in.MaxDepth
	}
	var start *url.URL
	if in.URL != "" {
		u, err := httpprobe.ParseTarget(env, in.URL)
		if err != nil {
			return tools.Result{}, err
		}
		start = u
	}
	client, err := httpprobe.NewClient(env, t.opts.RootCAs)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, httpprobe.CallBudget(timeout))
	defer cancel()

	c := &crawler{
		env: env, client: client, maxPages: maxPages, maxDepth: maxDepth,
		budget: byteBudget{left: totalBytes}, out: newCollector(),
		seen: map[string]bool{}, variants: map[string]int{}, robots: map[string]*robotsRules{},
	}
	if err := c.run(ctx, start); err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	return c.result(), nil
}

// target is a URL waiting to be fetched, depth links away from the start.
type target struct {
	url   *url.URL
	depth int
}

// crawler is the state of one call.
type crawler struct {
	env                tools.Env
	client             *httpprobe.Client
	maxPages, maxDepth int
	budget             byteBudget
	out                *collector

	// Touched only by the goroutine running run.
	seen     map[string]bool         // normalised URLs already queued or fetched
	variants map[string]int          // query-string URLs fetched per path
	robots   map[string]*robotsRules // per origin
	start    *url.URL
	pages    []*httpprobe.Response // in the order they were handled
	forms    []string
	scripts  []string
	services []scans.Service
	skipped  skipCounts
	notes    []string
	queued   int // URLs dropped because the queue was full

	mu        sync.Mutex // guards what the fetch workers update
	requests  int        // pages requested (answered or not)
	unfetched int        // selected, then not fetched because the crawl stopped
	failed    int
	lastError error
	stopped   string // why the crawl stopped before running out of links
	halt      bool   // no more requests at all (byte budget spent)
}

type skipCounts struct {
	robots, scope, static, actions, depth, variants, limit int
}

// run crawls breadth-first from start (nil: the domain's home page).
func (c *crawler) run(ctx context.Context, start *url.URL) error {
	seed, err := c.fetchSeed(ctx, start)
	if err != nil {
		return err
	}
	c.start = seed.URL
	queue := c.handle(seed, 0)
	for len(queue) > 0 && c.stopReason() == "" {
		if ctx.Err() != nil {
			c.stop("the call's time budget ran out")
			break
		}
		// One round is every queued URL of the lowest depth: links of the
		// next level, or redirects of the current one.
		slices.SortStableFunc(queue, func(a, b target) int { return cmp.Compare(a.depth, b.depth) })
		n := 1
		for n < len(queue) && queue[n].depth == queue[0].depth {
			n++
		}
		round := queue[:n]
		queue = slices.Clone(queue[n:])
		batch := c.selectBatch(ctx, round)
		responses := c.fetchAll(ctx, batch)
		for i, resp := range responses {
			if resp != nil {
				queue = append(queue, c.handle(resp, batch[i].depth)...)
			}
		}
		if len(queue) > maxQueued {
			c.queued += len(queue) - maxQueued
			queue = queue[:maxQueued]
		}
	}
	if ctx.Err() != nil {
		c.stop("the call's time budget ran out")
	}
	if c.stopReason() != "" {
		c.skipped.limit += len(queue) + c.unfetched
	}
	return nil
}

// fetchSeed fetches the start page: start, or the domain's https home page
// and, when https cannot be reached at all, the http one.
func (c *crawler) fetchSeed(ctx context.Context, start *url.URL) (*httpprobe.Response, error) {
	if start != nil {
		c.markSeen(start)
		resp, err := c.fetch(ctx, start)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %s", httpprobe.Clean(start.String(), 300), httpprobe.Describe(err))
		}
		return resp, nil
	}
	httpsURL, httpURL := httpprobe.DefaultURLs(c.env)
	c.markSeen(httpsURL)
	// https may use two thirds of the remaining time, so a port that
	// swallows packets leaves the http fallback a chance.
	httpsCtx, cancel := ctx, context.CancelFunc(func() {})
	if deadline, ok := ctx.Deadline(); ok {
		httpsCtx, cancel = context.WithTimeout(ctx, time.Until(deadline)*2/3)
	}
	resp, httpsErr := c.fetch(httpsCtx, httpsURL)
	cancel()
	if httpsErr == nil {
		return resp, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	c.markSeen(httpURL)
	resp, httpErr := c.fetch(ctx, httpURL)
	if httpErr == nil {
		return resp, nil
	}
	return nil, fmt.Errorf("%s: %s; %s: %s", httpsURL, httpprobe.Describe(httpsErr), httpURL, httpprobe.Describe(httpErr))
}

// handle records one fetched page, runs the per-page checks and returns
// the URLs it leads to: a redirect's target at the same depth, links one
// level deeper.
func (c *crawler) handle(resp *httpprobe.Response, depth int) []target {
	c.pages = append(c.pages, resp)
	c.addService(resp)
	var doc *document
	if isHTML(resp) {
		d := parseHTML(resp.Body, resp.URL)
		doc = &d
	}
	pageChecks(resp, doc, c.out)

	var next []target
	if resp.IsRedirect() {
		if t, ok := c.candidate(resp.Location, depth); ok {
			next = append(next, t)
		}
	}
	if doc == nil {
		return next
	}
	for _, f := range doc.forms {
		desc := f.method + " " + c.short(f.action)
		if f.password {
			desc += " [password]"
		}
		desc += " on " + c.short(resp.URL)
		if !slices.Contains(c.forms, desc) {
			c.forms = append(c.forms, desc)
		}
	}
	for _, s := range doc.scripts {
		if httpprobe.SameHost(s, resp.URL) && !slices.Contains(c.scripts, s.String()) {
			c.scripts = append(c.scripts, s.String())
		}
	}
	for _, link := range doc.links {
		if t, ok := c.candidate(link, depth+1); ok {
			next = append(next, t)
		}
	}
	return next
}

// staticFile matches paths of files that are not pages: fetching them
// spends the byte budget on nothing the checks read.
var staticFile = lazyre.New(`(?i)\.(?:png|jpe?g|gif|svg|ico|webp|avif|bmp|tiff?|css|js|mjs|map|woff2?|ttf|eot|otf|pdf|zip|gz|tgz|bz2|xz|rar|7z|tar|mp4|m4v|mp3|m4a|webm|ogg|ogv|wav|avi|mov|flv|docx?|xlsx?|pptx?|odt|ods|exe|msi|dmg|iso|bin|apk|jar|war|deb|rpm)$`)

// actionLike matches links that look like actions rather than pages
// (logging out, deleting, unsubscribing): GET should be safe, but some
// applications act on it, and a scan must not.
var actionLike = lazyre.New(`(?i)(?:^|[/_.?&=-])(?:log-?out|log-?off|sign-?out|delete|remove|destroy|unsubscribe|revoke)(?:$|[/_.?&=-])`)

// candidate decides whether a URL a page leads to is worth queueing; each
// URL is judged once.
func (c *crawler) candidate(u *url.URL, depth int) (target, bool) {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return target{}, false
	}
	key := normalize(u)
	if c.seen[key] {
		return target{}, false
	}
	c.seen[key] = true
	switch {
	case httpprobe.CheckURL(c.env, u) != nil:
		c.skipped.scope++
	case staticFile.MatchString(u.Path):
		c.skipped.static++
	case actionLike.MatchString(u.EscapedPath() + "?" + u.RawQuery):
		c.skipped.actions++
	case depth > c.maxDepth:
		c.skipped.depth++
	default:
		v := *u
		v.Fragment, v.RawFragment = "", ""
		return target{url: &v, depth: depth}, true
	}
	return target{}, false
}

func (c *crawler) markSeen(u *url.URL) { c.seen[normalize(u)] = true }

// selectBatch picks from one round the URLs to fetch: within the query
// variants per path, allowed by robots.txt, and within max_pages.
func (c *crawler) selectBatch(ctx context.Context, round []target) []target {
	var batch []target
	for i, t := range round {
		if c.requestCount()+len(batch) >= c.maxPages {
			c.stop(fmt.Sprintf("reached max_pages (%d)", c.maxPages))
			c.skipped.limit += len(round) - i
			break
		}
		if t.url.RawQuery != "" {
			key := pathKey(t.url)
			if c.variants[key] >= maxQueryVariants {
				c.skipped.variants++
				continue
			}
			c.variants[key]++
		}
		if !c.robotsFor(ctx, t.url).allowed(requestPath(t.url)) {
			c.skipped.robots++
			continue
		}
		batch = append(batch, t)
	}
	return batch
}

// fetchAll fetches a batch with at most workers requests at once and
// returns the responses in batch order (nil where the fetch failed or was
// not made).
func (c *crawler) fetchAll(ctx context.Context, batch []target) []*httpprobe.Response {
	out := make([]*httpprobe.Response, len(batch))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(batch)) {
		wg.Go(func() {
			for i := range jobs {
				if ctx.Err() != nil || c.halted() {
					c.mu.Lock()
					c.unfetched++
					c.mu.Unlock()
					continue
				}
				resp, err := c.fetch(ctx, batch[i].url)
				if errors.Is(err, errBudget) {
					c.mu.Lock()
					c.unfetched++
					c.mu.Unlock()
				}
				if err != nil {
					continue
				}
				out[i] = resp
			}
		})
	}
	for i := range batch {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// fetch GETs one page within the byte budget. A spent budget stops the
// crawl.
func (c *crawler) fetch(ctx context.Context, u *url.URL) (*httpprobe.Response, error) {
	reserved := c.budget.reserve(pageBytes)
	if reserved == 0 {
		c.stop(fmt.Sprintf("spent the byte budget (%d MiB)", totalBytes>>20))
		c.mu.Lock()
		c.halt = true
		c.mu.Unlock()
		return nil, errBudget
	}
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	resp, err := c.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: reserved})
	if err != nil {
		c.budget.refund(reserved)
		c.mu.Lock()
		c.failed++
		c.lastError = err
		c.mu.Unlock()
		return nil, err
	}
	c.budget.refund(reserved - int64(len(resp.Body)))
	return resp, nil
}

var errBudget = errors.New("byte budget spent")

// robotsFor returns the robots.txt rules of u's origin, fetching them the
// first time the origin is met.
func (c *crawler) robotsFor(ctx context.Context, u *url.URL) *robotsRules {
	origin := httpprobe.Origin(u)
	key := normalize(origin)
	if r, ok := c.robots[key]; ok {
		return r
	}
	rules := allowAll
	robotsURL := *origin
	robotsURL.Path = "/robots.txt"
	reserved := c.budget.reserve(robotsBytes)
	var resp *httpprobe.Response
	err := errBudget
	if reserved > 0 {
		resp, err = c.client.Do(ctx, httpprobe.Request{URL: &robotsURL, MaxBody: reserved})
		used := int64(0)
		if err == nil {
			used = int64(len(resp.Body))
		}
		c.budget.refund(reserved - used)
	}
	switch {
	case err != nil:
		// RFC 9309 2.3.1.4: an unreachable robots.txt means a complete
		// disallow.
		rules = &robotsRules{disallowAll: true}
		c.notes = append(c.notes, fmt.Sprintf("%s could not be read (%s): nothing more crawled there", robotsURL.String(), httpprobe.Describe(err)))
	case resp.Status >= 500:
		rules = &robotsRules{disallowAll: true}
		c.notes = append(c.notes, fmt.Sprintf("%s answered %d: nothing more crawled there", robotsURL.String(), resp.Status))
	case resp.Status >= 200 && resp.Status < 300:
		rules = parseRobots(resp.Body, robotsAgent)
	}
	c.robots[key] = rules
	return rules
}

func (c *crawler) stop(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped == "" {
		c.stopped = reason
	}
}

// halted reports that requests must stop at once (the byte budget is
// spent); a page limit only stops selecting more pages.
func (c *crawler) halted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.halt
}

func (c *crawler) stopReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

func (c *crawler) requestCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// addService records the web service that answered r, once per port.
func (c *crawler) addService(r *httpprobe.Response) {
	host, port := httpprobe.HostPort(r.URL)
	if slices.ContainsFunc(c.services, func(s scans.Service) bool { return s.Host == host && s.Port == port }) {
		return
	}
	c.services = append(c.services, scans.Service{Host: host, Port: port, Name: r.URL.Scheme,
		Banner: httpprobe.Clean(r.Header.Get("Server"), 120)})
}

// byteBudget is what may still be read in this call.
type byteBudget struct {
	mu   sync.Mutex
	left int64
	used int64
}

// reserve takes up to max bytes from the budget, or 0 when less than
// minReserve is left.
func (b *byteBudget) reserve(max int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(max, b.left)
	if n < minReserve {
		return 0
	}
	b.left -= n
	b.used += n
	return n
}

// refund gives back what a request reserved and did not read.
func (b *byteBudget) refund(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left += n
	b.used -= n
}

func (b *byteBudget) spent() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// normalize is the identity of a URL for the crawl: scheme and host
// lowercased, default port dropped, no fragment or user info, "/" for an
// empty path.
func normalize(u *url.URL) string {
	host, port := httpprobe.HostPort(u)
	site := httpprobe.SiteURL(strings.ToLower(u.Scheme), host, port)
	v := *u
	v.Scheme, v.Host, v.User = site.Scheme, site.Host, nil
	v.Fragment, v.RawFragment = "", ""
	if v.Path == "" {
		v.Path, v.RawPath = "/", ""
	}
	return v.String()
}

// pathKey is a URL without its query, for counting query variants.
func pathKey(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery = "", false
	return normalize(&v)
}

// requestPath is the path and query robots.txt rules are matched against.
func requestPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// short names u for the outcome: its path on the start page's origin,
// the full URL elsewhere.
func (c *crawler) short(u *url.URL) string {
	if c.start != nil && httpprobe.SameOrigin(u, c.start) {
		return httpprobe.Clean(requestPath(u), 120)
	}
	return httpprobe.Clean(u.String(), 160)
}

func (c *crawler) result() tools.Result {
	findings := c.out.findings()
	htmlPages := 0
	var listed []string
	for _, p := range c.pages {
		if isHTML(p) {
			htmlPages++
		}
		item := c.short(p.URL)
		if p.Status != http.StatusOK {
			item += fmt.Sprintf(" (%d)", p.Status)
		}
		listed = append(listed, item)
	}
	outcome := fmt.Sprintf("crawled %s (%d HTML) from %s, depth ≤ %d, %s read",
		plural(len(c.pages), "page"), htmlPages, httpprobe.Clean(c.start.String(), 200), c.maxDepth, kib(c.budget.spent()))
	if r := c.stopReason(); r != "" {
		outcome += "; stopped: " + r
	}
	if s := c.skipped.describe(); s != "" {
		outcome += "; not fetched: " + s
	}
	if len(findings) == 0 {
		outcome += "; no findings"
	} else {
		outcome += fmt.Sprintf("; %s: %s", plural(len(findings), "finding"), severityCounts(findings))
	}
	outcome += "; pages: " + list(listed)
	if len(c.forms) > 0 {
		outcome += fmt.Sprintf("; %s: %s", plural(len(c.forms), "form"), list(c.forms))
	}
	if len(c.scripts) > 0 {
		outcome += fmt.Sprintf("; %s: %s", plural(len(c.scripts), "same-host script"), list(c.scripts))
	}
	c.mu.Lock()
	if c.failed > 0 {
		outcome += fmt.Sprintf("; %s failed (last: %s)", plural(c.failed, "request"), httpprobe.Describe(c.lastError))
	}
	c.mu.Unlock()
	if c.queued > 0 {
		outcome += fmt.Sprintf("; %d links dropped (queue limit %d)", c.queued, maxQueued)
	}
	for _, n := range c.notes {
		outcome += "; " + n
	}
	return tools.Result{Outcome: httpprobe.Clean(outcome, 3000), Findings: findings, Services: c.services}
}

func (s skipCounts) describe() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{s.limit, "past the limits"},
		{s.robots, "disallowed by robots.txt"},
		{s.scope, "out of scope"},
		{s.depth, "past max_depth"},
		{s.static, "static files"},
		{s.actions, "action-like links (logout, delete…)"},
		{s.variants, "extra query variants"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

func severityCounts(fs []scans.Finding) string {
	counts := map[scans.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, sev := range scans.Severities {
		if counts[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[sev], sev))
		}
	}
	return strings.Join(parts, ", ")
}

// list names at most maxListed items.
func list(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" (+%d more)", len(items)-maxListed)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func kib(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

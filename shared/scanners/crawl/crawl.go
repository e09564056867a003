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
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/plans"
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

// Tool is the web_crawl tool.
type Tool struct{ httpprobe.Tool }

// New returns the web_crawl tool.
func New(opts ...httpprobe.Option) tools.Tool {
	return &Tool{httpprobe.NewTool(Name, cost, timeout, opts)}
}

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

// CheckTier implements tools.TierBound: a crawl beyond the tier's pages or
// depth (plans.Limits) is the deep tier's.
func (*Tool) CheckTier(tier plans.Tier, raw json.RawMessage) error {
	var in input
	if tier == "" || json.Unmarshal(raw, &in) != nil {
		return nil
	}
	lim := tier.Limits()
	if in.MaxPages != nil && *in.MaxPages > lim.CrawlPages {
		return tools.DeepOnly(tier, fmt.Sprintf("a crawl of %d pages (a %s scan crawls at most %d)", *in.MaxPages, tier, lim.CrawlPages))
	}
	if in.MaxDepth != nil && *in.MaxDepth > lim.CrawlDepth {
		return tools.DeepOnly(tier, fmt.Sprintf("a crawl of depth %d (a %s scan crawls at most depth %d)", *in.MaxDepth, tier, lim.CrawlDepth))
	}
	return nil
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return tools.Result{}, err
	}
	if err := t.CheckTier(env.Tier, raw); err != nil {
		return tools.Result{}, err
	}
	defPages, defDepth := DefaultMaxPages, DefaultMaxDepth
	if env.Tier != "" { // the defaults within the tier's bounds
		lim := env.Tier.Limits()
		defPages, defDepth = min(defPages, lim.CrawlPages), min(defDepth, lim.CrawlDepth)
	}
	maxPages, err := limit("max_pages", in.MaxPages, defPages, 1, MaxPages)
	if err != nil {
		return tools.Result{}, err
	}
	maxDepth, err := limit("max_depth", in.MaxDepth, defDepth, 0, MaxDepth)
	if err != nil {
		return tools.Result{}, err
	}
	start, err := startURL(env, in.URL)
	if err != nil {
		return tools.Result{}, err
	}
	// A crawl asks for more than the home page: a third party's name is
	// refused (and the client refuses its links to one, beyond "/").
	access, err := httpprobe.Admit(ctx, env, t, start)
	if err != nil {
		return tools.Result{}, err
	}
	client, err := httpprobe.NewClient(env, t.Opts.RootCAs)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	defer client.Close()
	client.Admitted(access)
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

// startURL is the crawl's start from the input's url, checked against the
// scope; nil (the domain's home page) when the input names none.
func startURL(env tools.Env, raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	return httpprobe.ParseTarget(env, raw)
}

// limit is the value of an optional numeric input: def when absent, a
// refusal when outside [lo, hi].
func limit(name string, v *int, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, tools.Refuse("%s is %d; it must be between %d and %d", name, *v, lo, hi)
	}
	return *v, nil
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

// short names u for the outcome: its path on the start page's origin,
// the full URL elsewhere.
func (c *crawler) short(u *url.URL) string {
	if c.start != nil && httpprobe.SameOrigin(u, c.start) {
		return httpprobe.Clean(requestPath(u), 120)
	}
	return httpprobe.Clean(u.String(), 160)
}

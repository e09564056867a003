package crawl

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
)

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
		round, rest := nextRound(queue)
		queue = append(rest, c.crawlRound(ctx, round)...)
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

// nextRound splits a queue into its next round, every queued URL of the
// lowest depth (links of the next level, or redirects of the current
// one), and the rest.
func nextRound(queue []target) (round, rest []target) {
	slices.SortStableFunc(queue, func(a, b target) int { return cmp.Compare(a.depth, b.depth) })
	n := 1
	for n < len(queue) && queue[n].depth == queue[0].depth {
		n++
	}
	return queue[:n], slices.Clone(queue[n:])
}

// crawlRound fetches what it selects of a round and returns the URLs the
// pages lead to.
func (c *crawler) crawlRound(ctx context.Context, round []target) []target {
	batch := c.selectBatch(ctx, round)
	var next []target
	for i, resp := range c.fetchAll(ctx, batch) {
		if resp != nil {
			next = append(next, c.handle(resp, batch[i].depth)...)
		}
	}
	return next
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
	c.listFormsAndScripts(doc, resp.URL)
	for _, link := range doc.links {
		if t, ok := c.candidate(link, depth+1); ok {
			next = append(next, t)
		}
	}
	return next
}

// listFormsAndScripts lists, once each, the forms of the page at page
// (method, action, whether it asks for a password) and its same-host
// scripts.
func (c *crawler) listFormsAndScripts(doc *document, page *url.URL) {
	for _, f := range doc.forms {
		desc := f.method + " " + c.short(f.action)
		if f.password {
			desc += " [password]"
		}
		desc += " on " + c.short(page)
		if !slices.Contains(c.forms, desc) {
			c.forms = append(c.forms, desc)
		}
	}
	for _, s := range doc.scripts {
		if httpprobe.SameHost(s, page) && !slices.Contains(c.scripts, s.String()) {
			c.scripts = append(c.scripts, s.String())
		}
	}
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
	if skipped := c.skipCount(u, depth); skipped != nil {
		*skipped++
		return target{}, false
	}
	v := *u
	v.Fragment, v.RawFragment = "", ""
	return target{url: &v, depth: depth}, true
}

// skipCount is the count of skipped URLs u, depth links away, adds to
// (out of scope, a static file, an action, too deep); nil when u is to be
// fetched.
func (c *crawler) skipCount(u *url.URL, depth int) *int {
	switch {
	case httpprobe.CheckURL(c.env, u) != nil:
		return &c.skipped.scope
	case staticFile.MatchString(u.Path):
		return &c.skipped.static
	case actionLike.MatchString(u.EscapedPath() + "?" + u.RawQuery):
		return &c.skipped.actions
	case depth > c.maxDepth:
		return &c.skipped.depth
	}
	return nil
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

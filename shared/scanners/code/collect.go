package code

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/detect"
	"golang.org/x/net/html"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/tools"
)

// fileKind is what a fetched file is to the site.
type fileKind int

const (
	kindPage fileKind = iota
	kindScript
	kindMap
	kindGit
	// kindConfig is an exposed configuration file (.env, .git/config),
	// read by ScanConfigFile.
	kindConfig
)

// file is one document read (or meant to be read) and what its scan saw.
// Each file is written by one task only.
type file struct {
	kind fileKind
	url  *url.URL
	// resp is the answer the file came in: the proof of its findings.
	resp *httpprobe.Response

	status    int
	read      int
	truncated bool
	// valid reports content that is what the kind says (a script, not
	// the site's HTML fallback; a source map; git metadata).
	valid bool
	// failed, limited and duplicate say why nothing was scanned.
	failed, limited, duplicate bool

	// mapURL is the source map a script announces (or its conventional
	// name); inlineMap a map embedded as a data: URL.
	mapURL    *url.URL
	sources   int // original sources read from this file's map
	inline    int // inline scripts read from a page
	sightings []sighting
	dropped   dropped
	// cut reports a scan stopped by the call's deadline.
	cut bool
}

// collector is the state of one call.
type collector struct {
	env    tools.Env
	client *httpprobe.Client
	det    *detect.Detector

	home  *httpprobe.Response
	files []*file // in a fixed order: page, scripts, git HEAD, git files, maps

	mu         sync.Mutex
	spentFiles int
	spentBytes int64
	seen       map[[32]byte]bool // content already scanned
	outOfScope []string          // hosts of scripts and maps not fetched
	extra      int               // scripts past maxScripts
	notRun     int               // tasks not started before the deadline
}

func newCollector(env tools.Env, client *httpprobe.Client, det *detect.Detector) *collector {
	return &collector{env: env, client: client, det: det, seen: map[[32]byte]bool{}}
}

// run fetches and scans everything; only a home page that cannot be read
// at all is an error.
func (c *collector) run(ctx context.Context, target *url.URL) error {
	page, err := c.readHome(ctx, target)
	if err != nil {
		return err
	}
	scripts, head := c.readScriptsAndHEAD(ctx, page)
	c.readMapsAndRepository(ctx, scripts, head)
	return nil
}

// readHome fetches the start page (target, or the domain's home page).
func (c *collector) readHome(ctx context.Context, target *url.URL) (*file, error) {
	n, _ := c.reserve(maxFileBytes)
	chain, err := c.client.Open(ctx, target, n)
	used := 0
	for _, hop := range chain {
		used += len(hop.Body)
	}
	c.refund(n, used)
	if err != nil {
		return nil, err
	}
	home := chain[len(chain)-1]
	if home.IsRedirect() {
		home = chain[0] // the redirect left the scope: read where we were sent
	}
	c.home = home
	page := &file{kind: kindPage, url: home.URL, resp: home, status: home.Status, read: len(home.Body), truncated: home.Truncated}
	c.files = append(c.files, page)
	return page, nil
}

// readScriptsAndHEAD is the first phase: /.git/HEAD (small, and first so
// large scripts cannot spend the budget it needs), the page's inline
// scripts and its in-scope scripts. It returns the scripts read and the
// HEAD file.
func (c *collector) readScriptsAndHEAD(ctx context.Context, page *file) (scripts []*file, head *file) {
	home := c.home
	head = &file{kind: kindGit, url: gitURL(home.URL, "HEAD")}
	tasks := []func(context.Context){func(ctx context.Context) { c.readGit(ctx, head) }}
	var fetched []*file
	switch {
	case home.Status == http.StatusOK && isScript(home):
		// The URL given is a bundle itself: read it, and its map.
		page.kind = kindScript
		scripts = append(scripts, page)
		tasks = append(tasks, func(ctx context.Context) { c.scanScript(ctx, page, home) })
	case home.Status == http.StatusOK:
		page.valid = true
		tasks = append(tasks, func(ctx context.Context) { c.scanInline(ctx, page) })
	}
	if page.kind == kindPage && !home.IsRedirect() {
		fetched = c.pageScripts(home)
		for _, f := range fetched {
			tasks = append(tasks, func(ctx context.Context) { c.readScript(ctx, f) })
		}
		scripts = fetched
	}
	c.files = append(c.files, fetched...)
	c.files = append(c.files, head)
	c.runTasks(ctx, tasks)
	return scripts, head
}

// pageScripts are the script bundles of the home page to read: in scope,
// at most maxScripts. Scripts outside the scope are noted, those past the
// bound counted.
func (c *collector) pageScripts(home *httpprobe.Response) []*file {
	var scripts []*file
	for _, src := range httpprobe.ScriptSources(home.Body, home.URL, maxScriptRefs) {
		switch {
		case httpprobe.CheckURL(c.env, src) != nil:
			c.noteOutOfScope(src)
		case len(scripts) == maxScripts:
			c.extra++
		default:
			scripts = append(scripts, &file{kind: kindScript, url: src})
		}
	}
	return scripts
}

// readMapsAndRepository is the second phase: the rest of the repository's
// files when HEAD was there, and the maps the scripts announce.
func (c *collector) readMapsAndRepository(ctx context.Context, scripts []*file, head *file) {
	var tasks []func(context.Context)
	if head.valid {
		for _, name := range []string{"config", "logs/HEAD"} {
			f := &file{kind: kindGit, url: gitURL(c.home.URL, name)}
			c.files = append(c.files, f)
			tasks = append(tasks, func(ctx context.Context) { c.readGit(ctx, f) })
		}
	}
	mapSeen := map[string]bool{}
	for _, s := range scripts {
		if s.mapURL == nil || mapSeen[s.mapURL.String()] {
			continue
		}
		mapSeen[s.mapURL.String()] = true
		if httpprobe.CheckURL(c.env, s.mapURL) != nil {
			c.noteOutOfScope(s.mapURL)
			continue
		}
		f := &file{kind: kindMap, url: s.mapURL}
		c.files = append(c.files, f)
		tasks = append(tasks, func(ctx context.Context) { c.readMap(ctx, f) })
	}
	c.runTasks(ctx, tasks)
}

// runTasks runs tasks on the worker pool; tasks not started before the
// deadline are counted, not run.
func (c *collector) runTasks(ctx context.Context, tasks []func(context.Context)) {
	notRun := httpprobe.RunEach(ctx, workers, tasks, func(ctx context.Context, task func(context.Context)) { task(ctx) })
	c.mu.Lock()
	c.notRun += notRun
	c.mu.Unlock()
}

// reserve takes one file and up to limit bytes of the call's budget; ok
// is false when either is spent.
func (c *collector) reserve(limit int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	left := maxTotalBytes - c.spentBytes
	if c.spentFiles >= maxFiles || left <= 0 {
		return 0, false
	}
	n := min(limit, left)
	c.spentFiles++
	c.spentBytes += n
	return n, true
}

// refund returns the part of a reservation a body did not use.
func (c *collector) refund(reserved int64, used int) {
	c.mu.Lock()
	c.spentBytes -= reserved - min(reserved, int64(used))
	c.mu.Unlock()
}

// fetch GETs f within the budget, at most limit bytes, and records what
// came back; it returns the response of a 200 answer.
func (c *collector) fetch(ctx context.Context, f *file, limit int64) *httpprobe.Response {
	n, ok := c.reserve(limit)
	if !ok {
		f.limited = true
		return nil
	}
	resp, err := c.client.Do(ctx, httpprobe.Request{URL: f.url, MaxBody: n})
	if err != nil {
		c.refund(n, 0)
		f.failed = true
		return nil
	}
	c.refund(n, len(resp.Body))
	f.status, f.read, f.truncated, f.resp = resp.Status, len(resp.Body), resp.Truncated, resp
	if resp.Status != http.StatusOK {
		return nil
	}
	return resp
}

// scan runs the detector over doc unless the same text was scanned
// already in this call (one bundle under two names, a map's source that
// is also a script).
func (c *collector) scan(ctx context.Context, f *file, doc document) {
	sum := sha256.Sum256([]byte(doc.text))
	c.mu.Lock()
	dup := c.seen[sum]
	c.seen[sum] = true
	c.mu.Unlock()
	if dup {
		f.duplicate = true
		return
	}
	found, dropped := scanDocument(ctx, c.det, doc)
	f.sightings = append(f.sightings, found...)
	f.dropped.add(dropped)
	if ctx.Err() != nil {
		f.cut = true
	}
}

func (c *collector) noteOutOfScope(u *url.URL) {
	host, _ := httpprobe.HostPort(u)
	c.mu.Lock()
	c.outOfScope = append(c.outOfScope, host)
	c.mu.Unlock()
}

// scanInline scans the page's inline scripts, each placed at its line of
// the page.
func (c *collector) scanInline(ctx context.Context, page *file) {
	for _, s := range inlineScripts(c.home.Body, maxInlineScripts) {
		page.inline++
		c.scan(ctx, page, document{
			where: display(page.url) + " (inline script)", firstLine: s.line, firstColumn: s.col,
			text: s.text, code: true,
		})
	}
}

// readScript fetches a script and scans it.
func (c *collector) readScript(ctx context.Context, f *file) {
	if resp := c.fetch(ctx, f, maxFileBytes); resp != nil {
		c.scanScript(ctx, f, resp)
	}
}

// scanScript scans a script and notes its source map.
func (c *collector) scanScript(ctx context.Context, f *file, resp *httpprobe.Response) {
	if looksLikeHTML(resp) || len(bytes.TrimSpace(resp.Body)) == 0 {
		return // the site's HTML fallback page, or nothing
	}
	f.valid = true
	c.scan(ctx, f, document{
		where: display(f.url), pathHint: f.url.Path, firstLine: 1, firstColumn: 1,
		text: string(resp.Body), code: isCode(f.url.Path),
	})
	ref, inline := announcedMap(resp)
	switch {
	case inline != nil:
		c.scanMap(ctx, f, inline)
	case ref != nil:
		f.mapURL = ref
	}
}

// readMap fetches a source map and scans the original sources it embeds.
func (c *collector) readMap(ctx context.Context, f *file) {
	resp := c.fetch(ctx, f, maxFileBytes)
	if resp == nil {
		return
	}
	c.scanMap(ctx, f, resp.Body)
}

// scanMap scans the original sources of a map read from (or embedded in)
// f.
func (c *collector) scanMap(ctx context.Context, f *file, body []byte) {
	sources, ok := parseSourceMap(body)
	if !ok {
		return // not a source map (a catch-all page, an error)
	}
	f.valid = true
	for _, s := range sources {
		if ctx.Err() != nil {
			f.cut = true
			return
		}
		f.sources++
		c.scan(ctx, f, document{
			where:    display(f.url) + " (original source " + httpprobe.Clean(s.name, 120) + ")",
			pathHint: s.name, firstLine: 1, firstColumn: 1, text: s.content, code: isCode(s.name),
		})
	}
}

var (
	gitHEADLine = lazyre.New(`^(?:ref: refs/\S+|[0-9a-f]{40}|[0-9a-f]{64})$`)
	gitLogLine  = lazyre.New(`^[0-9a-f]{40,64} [0-9a-f]{40,64} `)
)

// readGit fetches one file of an exposed repository and scans it when it
// really is that file.
func (c *collector) readGit(ctx context.Context, f *file) {
	resp := c.fetch(ctx, f, maxGitBytes)
	if resp == nil || looksLikeHTML(resp) {
		return
	}
	first, _, _ := strings.Cut(strings.TrimLeft(string(resp.Body), "\r\n\t "), "\n")
	first = strings.TrimSpace(first)
	name := strings.TrimPrefix(f.url.Path, "/.git/")
	switch {
	case strings.HasSuffix(name, "logs/HEAD"):
		f.valid = gitLogLine.MatchString(first)
	case strings.HasSuffix(name, "HEAD"):
		f.valid = gitHEADLine.MatchString(first)
	case strings.HasSuffix(name, "config"):
		f.valid = bytes.Contains(resp.Body, []byte("[core]"))
	}
	if !f.valid {
		return
	}
	c.scan(ctx, f, document{
		where: display(f.url), pathHint: ".git/" + name, firstLine: 1, firstColumn: 1, text: string(resp.Body),
	})
}

// gitURL is /.git/<name> at the root of page's origin, where repositories
// are deployed.
func gitURL(page *url.URL, name string) *url.URL {
	u := httpprobe.Origin(page)
	u.Path = "/.git/" + name
	return u
}

// isScript reports a JavaScript answer.
func isScript(resp *httpprobe.Response) bool {
	switch resp.ContentType() {
	case "application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript", "text/ecmascript":
		return true
	}
	ext := strings.ToLower(path.Ext(resp.URL.Path))
	return ext == ".js" || ext == ".mjs" || ext == ".cjs"
}

// looksLikeHTML reports an HTML answer, which no script, map or git file
// is: single-page apps answer every path with their index page.
func looksLikeHTML(resp *httpprobe.Response) bool {
	if resp.ContentType() == "text/html" {
		return true
	}
	head := bytes.ToLower(bytes.TrimSpace(resp.Body[:min(len(resp.Body), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// display is u for evidence and outcomes: without query and fragment,
// which may carry keys (maps.googleapis.com/…?key=…).
func display(u *url.URL) string {
	v := *u
	v.RawQuery, v.Fragment, v.RawFragment, v.User, v.ForceQuery = "", "", "", nil, false
	return httpprobe.Clean(v.String(), 300)
}

// maxInlineScripts bounds the inline scripts read from a page.
const maxInlineScripts = 100

// inlineScript is the text of one <script> element without src, with the
// page line and column where it starts.
type inlineScript struct {
	text      string
	line, col int
}

// inlineScripts returns the inline scripts of an HTML page, at most max.
// The tokenizer's raw tokens cover the page byte for byte, which gives
// each script's offset.
func inlineScripts(body []byte, max int) []inlineScript {
	var out []inlineScript
	z := html.NewTokenizer(bytes.NewReader(body))
	offset := 0
	inScript := false
	for len(out) < max {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		switch {
		case tt == html.StartTagToken:
			name, hasAttr := z.TagName()
			inScript = string(name) == "script" && !hasSrc(z, hasAttr)
		case tt == html.TextToken && inScript:
			if strings.TrimSpace(string(raw)) != "" {
				nl := bytes.LastIndexByte(body[:offset], '\n')
				out = append(out, inlineScript{
					text: string(raw), line: 1 + bytes.Count(body[:offset], []byte("\n")), col: offset - nl,
				})
			}
		default:
			inScript = false
		}
		offset += len(raw)
	}
	return out
}

func hasSrc(z *html.Tokenizer, hasAttr bool) bool {
	for hasAttr {
		var key []byte
		key, _, hasAttr = z.TagAttr()
		if string(key) == "src" {
			return true
		}
	}
	return false
}

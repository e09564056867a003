// Package exposure owns the exposed_files tool: it asks a site of the scan's
// domain for a built-in list of sensitive paths (version-control metadata,
// environment and credential files, backups and dumps, status and debug
// endpoints, source maps) and reports those that really serve the file.
// A path counts only when its content looks like the file (e.g. "ref:
// refs/" for .git/HEAD) and differs from the site's answer for a random
// path, so catch-all sites that answer 200 everywhere yield nothing.
// Secrets in evidence are redacted. Requests are GETs only, bounded in
// number, size, concurrency and time, in scope and through the guarded
// dialer (package httpprobe).
package exposure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	Name    = "exposed_files"
	cost    = 10
	timeout = 18 * time.Second
	// maxPaths bounds the paths of one call.
	maxPaths = 40
	// maxBody bounds each body read; signatures sit at the start of files.
	maxBody = 64 << 10
	// workers is how many probes run at once (the client also caps
	// in-flight requests per call).
	workers = 4
)

// Tool is the exposed_files tool.
type Tool struct{ httpprobe.Tool }

// New returns the exposed_files tool.
func New(opts ...httpprobe.Option) tools.Tool {
	return &Tool{httpprobe.NewTool(Name, cost, timeout, opts)}
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	return fmt.Sprintf("Probes a site for %d well-known sensitive paths (.git, .svn, .hg, .env, credential files, "+
		"backup listings, SQL dumps and archives, PHP source backups, server-status/server-info, phpinfo, debug "+
		"endpoints, Spring actuator env, .DS_Store, and source maps of the home page's scripts) with GET only, "+
		"reporting a path only when its content matches the file type and differs from the site's not-found "+
		"page. Secrets in evidence are redacted.", len(builtin))
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	paths, _ := json.Marshal(builtinPaths())
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "base_url": {
      "type": "string",
      "maxLength": 2048,
      "description": "http(s) URL of the site root (or an application's base path) on the scan's domain; default: https://<domain>/, falling back to http://<domain>/"
    },
    "paths": {
      "type": "array",
      "maxItems": %d,
      "uniqueItems": true,
      "items": {"type": "string", "enum": %s},
      "description": "a subset of the built-in paths to probe; default: all"
    }
  },
  "additionalProperties": false
}`, maxPaths, paths))
}

type input struct {
	BaseURL string   `json:"base_url"`
	Paths   []string `json:"paths"`
}

// decodeInput decodes the input strictly: the probes of the paths it
// selects, and its base URL, validated with ParseTarget (nil when none was
// given).
func decodeInput(env tools.Env, raw json.RawMessage) ([]probe, *url.URL, error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return nil, nil, err
	}
	probes, err := selectProbes(in.Paths)
	if err != nil || in.BaseURL == "" {
		return probes, nil, err
	}
	target, err := httpprobe.ParseTarget(env, in.BaseURL)
	return probes, target, err
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	out := []*checks.Check{rootListing.check}
	for _, p := range builtin {
		if !slices.Contains(out, p.check) {
			out = append(out, p.check)
		}
	}
	return out
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	probes, target, err := decodeInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	// Exposure probes: a third party's name is refused.
	access, err := httpprobe.Admit(ctx, env, t, target)
	if err != nil {
		return tools.Result{}, err
	}
	ctx, client, done, err := t.Session(ctx, env)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)

	chain, err := client.Open(ctx, target, maxBody)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	home := chain[len(chain)-1]
	if home.IsRedirect() {
		home = chain[0] // the redirect left the scope: probe where we were sent
	}
	s := &scan{client: client, env: env, home: home, base: baseDir(home.URL)}
	s.baseline(ctx)
	s.debugOnNotFound(probes)
	s.run(ctx, probes)
	return s.result(len(probes)), nil
}

// selectProbes returns the built-in probes named by paths (all when
// empty), refusing unknown names and lists that are too long.
func selectProbes(paths []string) ([]probe, error) {
	if len(paths) == 0 {
		return builtin, nil
	}
	if len(paths) > maxPaths {
		return nil, tools.Refuse("%d paths given, the limit is %d", len(paths), maxPaths)
	}
	var out []probe
	for _, p := range paths {
		i := slices.IndexFunc(builtin, func(b probe) bool { return b.path == p })
		if i < 0 {
			return nil, tools.Refuse("%q is not one of the built-in paths (%s)", httpprobe.Clean(p, 80), strings.Join(builtinPaths(), ", "))
		}
		if !slices.ContainsFunc(out, func(b probe) bool { return b.path == p }) {
			out = append(out, builtin[i])
		}
	}
	return out, nil
}

// baseDir is u without query, cut after the last "/" of its path, so
// probes land beside the page (the site root, or an application's base).
func baseDir(u *url.URL) *url.URL {
	b := *u
	b.RawQuery, b.Fragment, b.RawPath = "", "", ""
	if i := strings.LastIndex(b.Path, "/"); i >= 0 {
		b.Path = b.Path[:i+1]
	} else {
		b.Path = "/"
	}
	return &b
}

// scan is the state of one call.
type scan struct {
	client *httpprobe.Client
	env    tools.Env
	home   *httpprobe.Response
	base   *url.URL
	soft   *httpprobe.Response // the answer for a path that cannot exist

	mu       sync.Mutex
	findings []scans.Finding
	hits     []string
	failed   int
	skipped  int
	notes    []string
}

// probeURL joins a probe path to the base.
func (s *scan) probeURL(path string) *url.URL {
	u := *s.base
	u.Path = strings.TrimSuffix(s.base.Path, "/") + path
	return &u
}

// baseline learns the site's answer for a random path (its soft 404).
func (s *scan) baseline(ctx context.Context) {
	u := s.probeURL("/secscan-" + randomHex(8) + "-not-found")
	resp, err := s.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: maxBody})
	if err != nil {
		s.notes = append(s.notes, "soft-404 baseline failed: "+httpprobe.Describe(err))
		return
	}
	s.soft = resp
	if resp.Status == http.StatusOK {
		s.notes = append(s.notes, "the site answers 200 for unknown paths (soft 404); only file-specific content counts")
	}
}

// debugOnNotFound reports a framework debug page served for an unknown
// path (Django, Laravel and others show it on every error while debug mode
// is on), which the /debug probe alone would miss: it is a 404 there too.
func (s *scan) debugOnNotFound(probes []probe) {
	i := slices.IndexFunc(probes, func(p probe) bool { return p.path == "/debug" })
	if i < 0 || s.soft == nil {
		return
	}
	if line, ok := probes[i].match(s.soft.Body); ok {
		s.report(probes[i], s.soft, line, fmt.Sprintf("%s (a random path): %s", s.soft.Summary(), httpprobe.Clean(line, 300)))
	}
}

func (s *scan) run(ctx context.Context, probes []probe) {
	s.skipped = httpprobe.RunEach(ctx, workers, probes, s.runProbe)
	// Findings in the built-in order, whatever order probes finished in.
	slices.SortStableFunc(s.findings, func(a, b scans.Finding) int {
		return indexOfTitle(a.Title) - indexOfTitle(b.Title)
	})
	slices.SortStableFunc(s.hits, func(a, b string) int {
		return indexOfPath(a) - indexOfPath(b)
	})
	if listingEvidence, ok := matchDirectoryListing(s.home.Body); ok && s.home.Status == http.StatusOK {
		s.findings = append(s.findings, rootListing.finding(s.home, listingEvidence, s.home.Summary()+": "+listingEvidence))
		s.hits = append(s.hits, s.home.URL.Path)
	}
	// Two paths of one weakness (.git/HEAD and .git/config) are one finding.
	s.findings = checks.Merge(s.findings)
}

func indexOfPath(path string) int {
	return slices.IndexFunc(builtin, func(p probe) bool { return p.path == path })
}

func indexOfTitle(title string) int {
	return slices.IndexFunc(builtin, func(p probe) bool { return p.title == title })
}

func (s *scan) runProbe(ctx context.Context, p probe) {
	if p.path == sourceMapsPath {
		s.probeSourceMaps(ctx, p)
		return
	}
	u := s.probeURL(p.path)
	resp, err := s.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: maxBody})
	if err != nil {
		s.mu.Lock()
		s.failed++
		s.mu.Unlock()
		return
	}
	if resp.Status != http.StatusOK || s.isSoft404(resp) {
		return
	}
	line, ok := p.match(resp.Body)
	if !ok {
		return
	}
	s.report(p, resp, line, fmt.Sprintf("%s: %s", resp.Summary(), httpprobe.Clean(line, 300)))
}

// report records p's finding, proven by resp (around matched, the line
// that matched).
func (s *scan) report(p probe, resp *httpprobe.Response, matched, evidence string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.hits, p.path) {
		return // one finding per check
	}
	s.findings = append(s.findings, p.finding(resp, matched, evidence))
	s.hits = append(s.hits, p.path)
}

var titlePattern = lazyre.New(`(?is)<title>(.*?)</title>`)

// isSoft404 reports whether resp is the site's answer for any unknown path:
// the same status and the same page, once the requested paths are removed
// (many not-found pages echo the path), or the same title and nearly the
// same length.
func (s *scan) isSoft404(resp *httpprobe.Response) bool {
	if s.soft == nil || s.soft.Status != resp.Status {
		return false
	}
	a := bytes.ReplaceAll(s.soft.Body, []byte(s.soft.URL.Path), nil)
	b := bytes.ReplaceAll(resp.Body, []byte(resp.URL.Path), nil)
	if bytes.Equal(a, b) {
		return true
	}
	la, lb := len(a), len(b)
	return sameTitle(a, b) && la > 0 && abs(la-lb)*20 <= la // within 5%
}

// sameTitle reports whether pages a and b both have a title, the same.
func sameTitle(a, b []byte) bool {
	ta, tb := titlePattern.FindSubmatch(a), titlePattern.FindSubmatch(b)
	return ta != nil && tb != nil && bytes.Equal(ta[1], tb[1])
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (p probe) finding(resp *httpprobe.Response, matched, evidence string) scans.Finding {
	host, port := httpprobe.HostPort(resp.URL)
	f := p.check.Finding(host, &port, httpprobe.Clean(evidence, 1500))
	f.Title = p.title
	var secrets []string
	if p.path != sourceMapsPath { // a source map is code, not settings: generic redaction only
		secrets = assignedValues(resp.Body)
	}
	f.Proof = resp.Proof(needle(matched), secrets...)
	return f
}

// rootListing is a directory listing on the page the tool was pointed at.
var rootListing = probe{title: checks.DirectoryListing.Title, check: checks.DirectoryListing}

func (s *scan) result(planned int) tools.Result {
	noun := "paths"
	if planned == 1 {
		noun = "path"
	}
	outcome := fmt.Sprintf("probed %d %s under %s", planned, noun, httpprobe.Clean(s.base.String(), 200))
	if len(s.hits) == 0 {
		outcome += "; nothing exposed"
	} else {
		outcome += fmt.Sprintf("; %d exposed: %s", len(s.hits), strings.Join(s.hits, ", "))
	}
	if s.failed > 0 {
		outcome += fmt.Sprintf("; %d requests failed", s.failed)
	}
	if s.skipped > 0 {
		outcome += fmt.Sprintf("; %d probes not run (time ran out)", s.skipped)
	}
	for _, n := range s.notes {
		outcome += "; " + n
	}
	host, port := httpprobe.HostPort(s.home.URL)
	return tools.Result{
		Outcome:  outcome,
		Findings: s.findings,
		Services: []scans.Service{{Host: host, Port: port, Name: s.home.URL.Scheme,
			Banner: httpprobe.Clean(s.home.Header.Get("Server"), 120)}},
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

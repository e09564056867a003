// Package web owns the http_check tool: one bounded look at how a site of
// the scan's domain answers over HTTP — security headers, cookie flags,
// CORS, TRACE, HTTP→HTTPS redirection, version disclosure, security.txt and
// a safe open-redirect probe — reported as web findings that carry the
// response evidence. Every request stays in scope and goes through the
// guarded dialer (package httpprobe); no request writes anything.
package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/machine"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name = "http_check"
	cost = 5
	// timeout leaves the agent margin under tools.MaxCallDuration.
	timeout = 18 * time.Second
	// maxBody bounds each body read.
	maxBody = 256 << 10
)

// Tool is the http_check tool.
type Tool struct{ httpprobe.Tool }

// New returns the http_check tool.
func New(opts ...httpprobe.Option) tools.Tool {
	return &Tool{httpprobe.NewTool(Name, cost, timeout, opts)}
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	return "Fetches one page of the target over HTTP(S) (default: the domain's home page, https then http) " +
		"and checks security headers (CSP, HSTS, X-Frame-Options, X-Content-Type-Options, Referrer-Policy, " +
		"Permissions-Policy), cookie flags, CORS origin reflection with credentials, TRACE, HTTP-to-HTTPS " +
		"redirection, version disclosure, security.txt and open redirects (safe probe, Location header only). " +
		"The browser headers are judged on HTML pages only, and not on machine endpoints (a metrics exporter, an API " +
		"http_fingerprint identified). At most about 20 small requests. On a name aliased outside the scope " +
		"(a third party's service) only its home page is fetched, GET / over https and http on the standard ports: " +
		"its headers, cookies and redirect to https are checked, the probes are skipped."
}

// Reach implements tools.Reacher: on a third party's name the call is
// the home page's header checks alone.
func (*Tool) Reach() tools.Reach { return tools.HomePage }

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return httpprobe.PageSchema("")
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{
		checks.HeaderCSP, checks.HeaderFrameOptions, checks.HeaderReferrerPolicy, checks.HeaderPermissionsPolicy,
		checks.HeaderNoSniff, checks.HeaderHSTS, checks.HeaderHSTSMaxAge, checks.VersionHeader,
		checks.CookieSecure, checks.CookieHTTPOnly, checks.CookieSameSite,
		checks.CORSCredentials, checks.CORSReflected, checks.HTTPTrace, checks.HTTPSRedirect,
		checks.SecurityTxt, checks.SecurityTxtExpired, checks.OpenRedirect,
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	target, err := httpprobe.PageInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
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
	s := &scan{env: env, client: client, chain: chain, page: chain[len(chain)-1], access: access}
	s.run(ctx)
	res := s.result()
	res.Findings = checks.Merge(res.Findings)
	res.Surface.Web = []scans.WebOrigin{webOrigin(s.page)}
	return res, nil
}

var (
	titlePattern     = lazyre.New(`(?is)<title[^>]*>(.*?)</title>`)
	generatorPattern = lazyre.New(`(?is)<meta[^>]+name=["']generator["'][^>]+content=["']([^"']+)["']`)
)

// webOrigin describes the origin a page was served from, for the surface.
func webOrigin(page *httpprobe.Response) scans.WebOrigin {
	w := scans.WebOrigin{Origin: httpprobe.Origin(page.URL).String(), Server: httpprobe.Clean(page.Header.Get("Server"), 120)}
	if m := titlePattern.FindSubmatch(page.Body); m != nil {
		w.Title = httpprobe.Clean(strings.Join(strings.Fields(string(m[1])), " "), 120)
	}
	for _, v := range page.Header.Values("X-Powered-By") {
		w.Technologies = append(w.Technologies, httpprobe.Clean(v, 60))
	}
	if m := generatorPattern.FindSubmatch(page.Body); m != nil {
		w.Technologies = append(w.Technologies, httpprobe.Clean(string(m[1]), 60))
	}
	return w
}

// scan is the state of one call.
type scan struct {
	env    tools.Env
	client *httpprobe.Client
	chain  []*httpprobe.Response
	page   *httpprobe.Response // where the chain ended
	// endpoint: the page is a machine endpoint's (machineEndpoint).
	endpoint bool
	// access is what the third-party rule grants on the page's host: on
	// an alias of a name outside the scope, the home page only.
	access tools.Access

	mu       sync.Mutex
	findings []scans.Finding
	notes    []string
	services []scans.Service
}

func (s *scan) run(ctx context.Context) {
	s.addService(s.page)
	s.checkPage()
	s.add(cookieFindings(s.chain)...)
	s.runProbes(ctx)
	if ctx.Err() != nil {
		s.note("the call's time ran out before every probe finished")
	}
}

// checkPage checks the headers of the page the chain ended on, unless it
// is a redirect that was not followed.
func (s *scan) checkPage() {
	switch {
	case s.page.IsRedirect() && s.page.NextError != nil:
		s.note(fmt.Sprintf("the page redirects to %s, which failed (%s); header checks skipped",
			httpprobe.Clean(s.page.Location.String(), 200), httpprobe.Describe(s.page.NextError)))
	case s.page.IsRedirect():
		s.note(fmt.Sprintf("the page redirects to %s, which was not followed (out of scope or past %d redirects); header checks skipped",
			httpprobe.Clean(s.page.Location.String(), 200), httpprobe.MaxRedirects))
	default:
		endpoint, why := machineEndpoint(s.env, s.page)
		if why != "" {
			s.note(why + "; browser hardening header checks skipped")
		} else {
			s.add(headerFindings(s.page)...)
		}
		s.endpoint = endpoint
		s.add(VersionDisclosure(s.page)...)
	}
}

// runProbes runs the probes at once; the client bounds how many requests
// are in flight. A machine endpoint (a metrics exporter, a search or
// container API) is not a site: no security.txt, no redirect to https for
// browsers.
//
// On a third party's name (an alias outside the scope) only the redirect
// to https is checked: it asks for the home page over http; the other
// probes ask for other paths, methods or origins.
func (s *scan) runProbes(ctx context.Context) {
	probes := []func(context.Context) []scans.Finding{s.probeCORS, s.probeTrace, s.probeOpenRedirect}
	if !s.endpoint {
		probes = append(probes, s.probeHTTPS, s.probeSecurityTxt)
	}
	if s.access.ThirdParty() {
		probes = nil
		if !s.endpoint {
			probes = append(probes, s.probeHTTPS)
		}
		s.note(fmt.Sprintf("%s is an alias of %s (a third party's service): only its home page was fetched; "+
			"the CORS, TRACE, open-redirect and security.txt probes were not sent", s.access.Host, httpprobe.Clean(s.access.Alias, 100)))
	}
	results := make([][]scans.Finding, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() { results[i] = p(ctx) })
	}
	wg.Wait()
	for _, r := range results {
		s.add(r...)
	}
}

func (s *scan) add(fs ...scans.Finding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.findings = append(s.findings, fs...)
}

func (s *scan) note(n string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, n)
}

// machineEndpoint says why the browser hardening headers do not apply to
// page ("" when they do): it is no HTML document (JSON, metrics text: no
// browser renders it as a page), or the service is a machine endpoint —
// http_fingerprint identified one there, or the page is a metrics
// exporter's landing page. endpoint reports the latter: the site-level
// probes (security.txt, redirect to https) are skipped too.
func machineEndpoint(env tools.Env, page *httpprobe.Response) (endpoint bool, why string) {
	host, port := httpprobe.HostPort(page.URL)
	if product, ok := machine.KnownEndpoint(env.Surface, host, port); ok {
		return true, fmt.Sprintf("%s:%d is a machine endpoint (%s, identified by http_fingerprint)", host, port, httpprobe.Clean(product, 60))
	}
	if title, ok := machine.Landing(page); ok {
		return true, fmt.Sprintf("the page is the landing page of a metrics exporter (%s)", title)
	}
	if !machine.ServesPages(page) {
		ct := page.ContentType()
		if ct == "" {
			ct = "none"
		}
		return false, fmt.Sprintf("the page is not an HTML document (Content-Type: %s)", httpprobe.Clean(ct, 60))
	}
	return false, ""
}

// addService records the web service that produced r, once per port.
func (s *scan) addService(r *httpprobe.Response) {
	host, port := httpprobe.HostPort(r.URL)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, svc := range s.services {
		if svc.Host == host && svc.Port == port {
			return
		}
	}
	s.services = append(s.services, scans.Service{
		Host: host, Port: port, Name: r.URL.Scheme,
		Banner: httpprobe.Clean(r.Header.Get("Server"), 120),
	})
}

func (s *scan) result() tools.Result {
	outcome := fmt.Sprintf("%s answered %d", httpprobe.Clean(s.page.URL.String(), 200), s.page.Status)
	if server := s.page.Header.Get("Server"); server != "" {
		outcome += " (Server: " + httpprobe.Clean(server, 60) + ")"
	}
	if s.page.Unverified {
		outcome += "; its TLS certificate did not verify (see the TLS checks)"
	}
	if len(s.findings) == 0 {
		outcome += "; no findings"
	} else {
		outcome += fmt.Sprintf("; %d findings: %s", len(s.findings), scans.CountBySeverity(s.findings))
	}
	for _, n := range s.notes {
		outcome += "; " + n
	}
	return tools.Result{Outcome: outcome, Findings: s.findings, Services: s.services}
}

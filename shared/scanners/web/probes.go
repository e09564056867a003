package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

const (
	// probeOrigin is the Origin the CORS probe claims; .invalid never
	// resolves (RFC 6761), so nothing can be served from it.
	probeOrigin = "https://evil.invalid"
	// redirectTarget is the open-redirect probe's destination; only the
	// Location header is read, never followed.
	redirectTarget = "https://example.invalid/"
	// smallBody bounds the bodies of probes that only need headers or a
	// short echo.
	smallBody = 16 << 10
)

// redirectProbes are the paths and parameters commonly used to redirect
// after login or on outbound links.
var redirectProbes = []string{"/redirect?url=", "/?next=", "/?returnTo=", "/?redirect=", "/login?next="}

// probeCORS sends the page request again with a foreign Origin.
func (s *scan) probeCORS(ctx context.Context) []scans.Finding {
	resp, err := s.client.Do(ctx, httpprobe.Request{
		URL: s.page.URL, Header: http.Header{"Origin": {probeOrigin}}, MaxBody: smallBody,
	})
	if err != nil {
		s.note("CORS probe failed: " + httpprobe.Describe(err))
		return nil
	}
	acao := strings.TrimSpace(resp.Header.Get("Access-Control-Allow-Origin"))
	if !strings.EqualFold(acao, probeOrigin) {
		return nil
	}
	acac := strings.TrimSpace(resp.Header.Get("Access-Control-Allow-Credentials"))
	evidence := fmt.Sprintf("%s sent with Origin: %s; Access-Control-Allow-Origin: %s; Access-Control-Allow-Credentials: %s",
		resp.Summary(), probeOrigin, httpprobe.Clean(acao, 100), httpprobe.Clean(orNone(acac), 50))
	if strings.EqualFold(acac, "true") {
		return []scans.Finding{findingOf(checks.CORSCredentials, resp, evidence)}
	}
	return []scans.Finding{findingOf(checks.CORSReflected, resp, evidence)}
}

// probeTrace sends TRACE with a marker header and looks for its echo.
func (s *scan) probeTrace(ctx context.Context) []scans.Finding {
	marker := randomToken()
	resp, err := s.client.Do(ctx, httpprobe.Request{
		Method: http.MethodTrace, URL: s.page.URL, Header: http.Header{"X-Secscan-Trace": {marker}}, MaxBody: smallBody,
	})
	if err != nil {
		s.note("TRACE probe failed: " + httpprobe.Describe(err))
		return nil
	}
	if resp.Status != http.StatusOK || !bytes.Contains(resp.Body, []byte(marker)) {
		return nil
	}
	first, _, _ := strings.Cut(string(resp.Body), "\n")
	evidence := fmt.Sprintf("%s sent with X-Secscan-Trace: %s; the body echoes the request (first line: %q) and the marker header",
		resp.Summary(), marker, httpprobe.Clean(first, 120))
	return []scans.Finding{findingOf(checks.HTTPTrace, resp, evidence)}
}

// probeHTTPS checks that plain HTTP on the page's host redirects to https.
func (s *scan) probeHTTPS(ctx context.Context) []scans.Finding {
	chain := s.plainHTTPChain(ctx)
	if len(chain) == 0 {
		return nil
	}
	hops, toHTTPS := plainHops(chain)
	if toHTTPS {
		return nil
	}
	last := chain[len(chain)-1]
	if last.URL.Scheme != "http" || last.Status < 200 || last.Status > 299 {
		return nil
	}
	evidence := strings.Join(hops, "; then ") + "; content served over plain HTTP without a redirect to https"
	f := finding(checks.HTTPSRedirect, chain[0].URL, httpprobe.Clean(evidence, 1500))
	f.Proof = last.Proof("")
	return []scans.Finding{f}
}

// plainHops describes the hops of a chain from plain HTTP, up to a
// redirect to https (toHTTPS) if there is one.
func plainHops(chain []*httpprobe.Response) (hops []string, toHTTPS bool) {
	for _, r := range chain {
		if r.IsRedirect() && r.Location.Scheme == "https" {
			return hops, true
		}
		hop := r.Summary()
		if r.IsRedirect() {
			hop += " Location: " + httpprobe.Clean(r.Location.String(), 200)
		}
		hops = append(hops, hop)
	}
	return hops, false
}

// plainHTTPChain is the redirect chain from plain HTTP on the page's host:
// the page's own when it was asked over http, else asked for now (nil, and
// a note, when it does not answer).
func (s *scan) plainHTTPChain(ctx context.Context) []*httpprobe.Response {
	if s.chain[0].URL.Scheme == "http" {
		return s.chain
	}
	host, _ := httpprobe.HostPort(s.page.URL)
	httpURL := httpprobe.SiteURL("http", host, s.env.Ports.HTTPPort())
	chain, err := s.client.Follow(ctx, httpURL, smallBody)
	if len(chain) == 0 {
		s.note(fmt.Sprintf("plain HTTP (%s) not reachable: %s", httpURL, httpprobe.Describe(err)))
		return nil
	}
	s.addService(chain[0])
	return chain
}

var (
	contactLine = lazyre.New(`(?im)^[ \t]*contact[ \t]*:[ \t]*\S+`)
	expiresLine = lazyre.New(`(?im)^[ \t]*expires[ \t]*:[ \t]*(\S+)`)
)

// probeSecurityTxt looks for /.well-known/security.txt with a Contact
// field; a catch-all page answering 200 does not count as one.
func (s *scan) probeSecurityTxt(ctx context.Context) []scans.Finding {
	u := httpprobe.Origin(s.page.URL)
	u.Path = "/.well-known/security.txt"
	chain, err := s.client.Follow(ctx, u, smallBody)
	if len(chain) == 0 {
		s.note("security.txt probe failed: " + httpprobe.Describe(err))
		return nil
	}
	last := chain[len(chain)-1]
	if last.Status == http.StatusOK && !isHTML(last) && contactLine.Match(last.Body) {
		return expiredSecurityTxt(last)
	}
	evidence := last.Summary()
	if last.Status == http.StatusOK {
		evidence += "; the body has no Contact: field (not a security.txt file)"
	}
	f := finding(checks.SecurityTxt, u, evidence)
	f.Proof = last.Proof("")
	return []scans.Finding{f}
}

// expiredSecurityTxt reports a security.txt whose Expires field is past.
func expiredSecurityTxt(r *httpprobe.Response) []scans.Finding {
	m := expiresLine.FindSubmatch(r.Body)
	if m == nil {
		return nil
	}
	if exp, err := time.Parse(time.RFC3339, string(m[1])); err == nil && exp.Before(time.Now()) {
		evidence := fmt.Sprintf("%s; Expires: %s", r.Summary(), httpprobe.Clean(string(m[1]), 60))
		return []scans.Finding{findingOf(checks.SecurityTxtExpired, r, evidence)}
	}
	return nil
}

// probeOpenRedirect asks common redirect endpoints to send the browser to
// an .invalid host and reads the Location (or Refresh) header; nothing is
// followed.
func (s *scan) probeOpenRedirect(ctx context.Context) []scans.Finding {
	origin := httpprobe.Origin(s.page.URL)
	var (
		hits  []string
		first *httpprobe.Response
	)
	for _, p := range redirectProbes {
		if ctx.Err() != nil {
			break
		}
		resp, dest := s.redirectAway(ctx, origin, p)
		if resp == nil {
			continue
		}
		hits = append(hits, fmt.Sprintf("%s redirects to %s", resp.Summary(), httpprobe.Clean(dest.String(), 200)))
		if first == nil {
			first = resp
		}
	}
	if len(hits) == 0 {
		return nil
	}
	f := finding(checks.OpenRedirect, origin, strings.Join(hits, "; "))
	f.Proof = first.Proof("example.invalid")
	return []scans.Finding{f}
}

// redirectAway asks origin's redirect endpoint probe (a path and query up
// to the parameter's value) to send the browser to redirectTarget; it
// returns the response and where it sends the browser when that is the
// target's host, else nil.
func (s *scan) redirectAway(ctx context.Context, origin *url.URL, probe string) (*httpprobe.Response, *url.URL) {
	u, err := origin.Parse(probe + url.QueryEscape(redirectTarget))
	if err != nil {
		return nil, nil
	}
	resp, err := s.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: 4 << 10})
	if err != nil {
		return nil, nil
	}
	if dest := redirectDestination(resp); dest != nil && strings.EqualFold(dest.Hostname(), "example.invalid") {
		return resp, dest
	}
	return nil, nil
}

// redirectDestination returns where a response sends the browser: the
// Location of a 3xx, or the URL of a Refresh header.
func redirectDestination(r *httpprobe.Response) *url.URL {
	if r.IsRedirect() {
		return r.Location
	}
	refresh := r.Header.Get("Refresh")
	if _, after, ok := strings.Cut(strings.ToLower(refresh), "url="); ok {
		if u, err := r.URL.Parse(strings.Trim(strings.TrimSpace(after), `'"`)); err == nil {
			return u
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

func randomToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

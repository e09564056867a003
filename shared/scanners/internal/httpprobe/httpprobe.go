// Package httpprobe owns how the web scanners (web, exposure, vuln) talk
// HTTP to a scan target. Every URL is checked against the scan's scope
// before anything is dialled (http and https only, no user info, host in the
// verified domain); every connection goes through the guarded dialer;
// redirects are never followed by net/http but inspected here, in scope
// only and at most MaxRedirects; bodies, in-flight requests and each
// request's time are bounded. It is internal to the scanners: tools decide
// what to ask, this package decides how a request may be made.
package httpprobe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"secscan/shared/tools"
)

const (
	// MaxURLLength bounds URLs given as tool input.
	MaxURLLength = 2048
	// MaxRedirects bounds how many in-scope redirects Follow inspects.
	MaxRedirects = 3
	// DefaultMaxBody is read from a body when a Request names no limit.
	DefaultMaxBody = 256 << 10
	// RequestTimeout bounds one request, so one slow answer cannot eat a
	// whole tool call's budget.
	RequestTimeout = 8 * time.Second
	// MaxInFlight bounds concurrent requests of one Client: politeness
	// towards the target, whatever the tool asks for.
	MaxInFlight = 4
	// UserAgent identifies the scanner to the target's operators.
	UserAgent = "secscan/1.0 (authorized security scan)"
)

// CallBudget is the time a tool's requests may use within its bound: the
// rest is left to assemble and return partial results before the agent's
// own deadline for the call passes.
func CallBudget(bound time.Duration) time.Duration {
	return bound - bound/12
}

// ParseTarget validates raw, a URL given as tool input, and returns it with
// the fragment dropped and an empty path made "/". Every refusal is a
// *tools.InputError, returned before anything is dialled.
func ParseTarget(env tools.Env, raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxURLLength {
		return nil, tools.Refuse("the URL is %d characters, the limit is %d", len(raw), MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, tools.Refuse("%q is not a valid URL", Clean(raw, 100))
	}
	if err := CheckURL(env, u); err != nil {
		return nil, tools.Refuse("%v", err)
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u, nil
}

// CheckURL says why u may not be fetched in this scan, or returns nil: only
// absolute http(s) URLs without user info whose host is the scan's domain
// or one of its subdomains, on a valid port. It applies to URLs from tool
// input and to URLs a target supplies (redirects, script sources) alike.
func CheckURL(env tools.Env, u *url.URL) error {
	if u == nil {
		return errors.New("no URL")
	}
	if err := checkURLShape(u); err != nil {
		return err
	}
	if host := u.Hostname(); !env.InScope(host) {
		return fmt.Errorf("%s is outside the scan's domain %s", Clean(host, 100), env.Domain)
	}
	return nil
}

// checkURLShape says what makes u no absolute http(s) URL with a host and
// a valid port and without user info, or returns nil.
func checkURLShape(u *url.URL) error {
	shown := Clean(u.Redacted(), 100)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: only http and https URLs may be fetched", shown)
	// An opaque "//host/path" (a request target sent verbatim) must name
	// the URL's own host; any other opaque form is no http(s) URL.
	case u.Opaque != "" && !strings.HasPrefix(u.Opaque, "//"+u.Host+"/"):
		return fmt.Errorf("%q is not an absolute http(s) URL", shown)
	case u.User != nil:
		return fmt.Errorf("%q contains user info, which is not allowed", shown)
	case u.Hostname() == "":
		return fmt.Errorf("%q has no host", shown)
	}
	if !validPort(u.Port()) {
		return fmt.Errorf("%q has an invalid port", shown)
	}
	return nil
}

// validPort reports whether p, a URL's port, is absent or a number from 1
// to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// HostPort returns u's host name (lowercase, no trailing dot) and port,
// with the scheme's default port when u names none.
func HostPort(u *url.URL) (string, int) {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return host, p
	}
	if u.Scheme == "https" {
		return host, 443
	}
	return host, 80
}

// Origin returns scheme://host[:port]/ of u.
func Origin(u *url.URL) *url.URL {
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
}

// SiteURL returns scheme://host[:port]/ with the port left out when it is
// the scheme's default.
func SiteURL(scheme, host string, port int) *url.URL {
	if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) {
		return &url.URL{Scheme: scheme, Host: host, Path: "/"}
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: "/"}
}

// DefaultURLs returns the scan domain's home page over https and http, on
// the ports env.Ports names (the local stack maps them to its demo target).
func DefaultURLs(env tools.Env) (httpsURL, httpURL *url.URL) {
	domain := strings.TrimSuffix(strings.ToLower(env.Domain), ".")
	return SiteURL("https", domain, env.Ports.HTTPSPort()), SiteURL("http", domain, env.Ports.HTTPPort())
}

// Request is one request to make.
type Request struct {
	Method string // empty: GET
	URL    *url.URL
	Header http.Header
	// MaxBody bounds the bytes read from the body; zero means
	// DefaultMaxBody.
	MaxBody int64
}

// Reach is what r does to its host (tools.Env.RequestReach): a request
// with a header of its own beyond Accept (an Origin, a marker) is a Probe.
func (r Request) Reach(env tools.Env) tools.Reach {
	for name := range r.Header {
		if http.CanonicalHeaderKey(name) != "Accept" {
			return tools.Probe
		}
	}
	return env.RequestReach(r.Method, r.URL)
}

// Response is what one request observed; the body is already read (at
// most the request's MaxBody) and the connection released.
type Response struct {
	Method string
	URL    *url.URL
	Status int
	Header http.Header
	Body   []byte
	// Truncated reports a body longer than the limit.
	Truncated bool
	// Location is the Location header resolved against URL; nil when
	// absent or unparsable.
	Location *url.URL
	// Unverified reports an https answer whose certificate did not verify:
	// the web checks still look at it, judging certificates is the TLS
	// tool's job.
	Unverified bool
	// NextError is set by Follow on a redirect whose target could not be
	// fetched.
	NextError error
	// RequestHeader is every header sent and Proto the answer's protocol,
	// At when it came: the proof of a finding (Proof).
	RequestHeader http.Header
	Proto         string
	At            time.Time
}

// IsRedirect reports a 3xx answer with a usable Location.
func (r *Response) IsRedirect() bool {
	return r.Status >= 300 && r.Status < 400 && r.Location != nil
}

// ContentType returns the media type of the response, lowercased, without
// parameters.
func (r *Response) ContentType() string {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(ct))
}

// Summary describes the response for evidence, e.g.
// "GET https://example.com/ → 200 (text/html, 512 bytes)".
func (r *Response) Summary() string {
	size := fmt.Sprintf("%d bytes", len(r.Body))
	if r.Truncated {
		size = fmt.Sprintf("more than %d bytes", len(r.Body))
	}
	detail := size
	if ct := r.ContentType(); ct != "" {
		detail = Clean(ct, 60) + ", " + size
	}
	return fmt.Sprintf("%s %s → %d (%s)", r.Method, Clean(r.URL.String(), 300), r.Status, detail)
}

// Client makes the requests of one tool call. Build it with NewClient and
// Close it when the call ends.
type Client struct {
	env        tools.Env
	verified   *http.Client
	unverified *http.Client
	slots      chan struct{}

	mu sync.Mutex
	// badCert remembers https host:ports whose certificate failed
	// verification, so later requests go straight to the unverified client.
	badCert map[string]bool
	// access is what the third-party rule grants on each host asked so
	// far (Admitted, or one lookup of its CNAME chain).
	access map[string]tools.Access
}

// NewClient returns a client dialling through env.Dialer. rootCAs verifies
// certificates (nil: the system pool).
func NewClient(env tools.Env, rootCAs *x509.CertPool) (*Client, error) {
	if env.Dialer == nil {
		return nil, errors.New("no dialer configured")
	}
	// TLS 1.0 is accepted so old servers can still be examined; the TLS
	// tool reports the protocol itself.
	verified := &tls.Config{RootCAs: rootCAs, MinVersion: tls.VersionTLS10}
	unverified := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS10} //nolint:gosec // read-only probing; the TLS tool judges certificates
	return &Client{
		env:        env,
		verified:   newHTTPClient(env, verified),
		unverified: newHTTPClient(env, unverified),
		slots:      make(chan struct{}, MaxInFlight),
		badCert:    map[string]bool{},
		access:     map[string]tools.Access{},
	}, nil
}

func newHTTPClient(env tools.Env, cfg *tls.Config) *http.Client {
	c := env.Dialer.HTTPClient(0, cfg) // each request has its own deadline
	c.Jar = nil
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// Close releases idle connections.
func (c *Client) Close() {
	c.verified.CloseIdleConnections()
	c.unverified.CloseIdleConnections()
}

// Do makes one request; redirects are returned, not followed. The URL is
// checked against the scope first, and against the third-party rule: a
// name aliased outside the scope gets only home-page requests, whichever
// tool, redirect, link or script source led to it.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	if err := CheckURL(c.env, r.URL); err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.slots }()

	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	if err := c.admit(ctx, r); err != nil {
		return nil, err
	}
	return c.doTrusting(ctx, r)
}

// Admitted records what the third-party rule granted the call on a.Host
// (tools.Env.Admit), so the client does not read its CNAME chain again.
func (c *Client) Admitted(a tools.Access) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.access[a.Host] = a
}

// admit applies the third-party rule to r: its host's access (its CNAME
// chain read once per client; a failed lookup is the request's error) must
// allow what r does (Reach).
func (c *Client) admit(ctx context.Context, r Request) error {
	host := strings.TrimSuffix(strings.ToLower(r.URL.Hostname()), ".")
	c.mu.Lock()
	a, known := c.access[host]
	c.mu.Unlock()
	if !known {
		var err error
		if a, err = c.env.Admit(ctx, host, tools.HomePage); err != nil {
			return err
		}
		c.Admitted(a)
	}
	if err := a.Check(r.Reach(c.env)); err != nil {
		return fmt.Errorf("refused: %w", err)
	}
	return nil
}

// doTrusting makes the request with certificate verification, unless an
// earlier request to the host found its certificate not accepted; then,
// and when this request finds so, without (the response says which).
func (c *Client) doTrusting(ctx context.Context, r Request) (*Response, error) {
	https := r.URL.Scheme == "https"
	skipVerify := https && c.knownBadCert(r.URL.Host)
	client := c.verified
	if skipVerify {
		client = c.unverified
	}
	resp, err := c.do(ctx, client, r)
	var certErr *tls.CertificateVerificationError
	if err != nil && !skipVerify && https && errors.As(err, &certErr) {
		c.setBadCert(r.URL.Host)
		skipVerify = true
		resp, err = c.do(ctx, c.unverified, r)
	}
	if err != nil {
		return nil, err
	}
	resp.Unverified = skipVerify
	return resp, nil
}

// knownBadCert reports whether an earlier request found the certificate of
// hostPort not accepted.
func (c *Client) knownBadCert(hostPort string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.badCert[hostPort]
}

// setBadCert remembers that the certificate of hostPort was not accepted.
func (c *Client) setBadCert(hostPort string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.badCert[hostPort] = true
}

func (c *Client) do(ctx context.Context, client *http.Client, r Request) (*Response, error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := newRequest(ctx, method, r)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, truncated, err := readBody(resp.Body, r.MaxBody)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", Clean(r.URL.Redacted(), 200), err)
	}
	out := &Response{Method: method, URL: r.URL, Status: resp.StatusCode, Header: resp.Header, Body: body,
		Truncated: truncated, RequestHeader: req.Header.Clone(), Proto: resp.Proto, At: time.Now()}
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := r.URL.Parse(strings.TrimSpace(loc)); err == nil {
			out.Location = u
		}
	}
	return out, nil
}

// readBody reads at most limit bytes of body (DefaultMaxBody when limit
// is not positive); truncated when there were more.
func readBody(body io.Reader, limit int64) (b []byte, truncated bool, err error) {
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	b, err = io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// newRequest is the request of r: its header added to, the user agent
// and Accept set unless given.
func newRequest(ctx context.Context, method string, r Request) (*http.Request, error) {
	req, err := requestFor(ctx, method, r.URL)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", Clean(r.URL.Redacted(), 200), err)
	}
	for name, values := range r.Header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", UserAgent)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "*/*")
	}
	return req, nil
}

// requestFor is a bodiless request for u.
func requestFor(ctx context.Context, method string, u *url.URL) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err == nil || u.Opaque == "" {
		return req, err
	}
	// A request target that is not valid percent-encoding on purpose
	// (a vulnerability confirmation) is sent verbatim from Opaque.
	req, err = http.NewRequestWithContext(ctx, method, (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String(), nil)
	if err != nil {
		return nil, err
	}
	verbatim := *u
	req.URL = &verbatim
	return req, nil
}

// Follow GETs u and follows its redirects while they stay in scope, at most
// MaxRedirects of them, and returns every response in order; the last is
// where the chain ended (possibly a redirect out of scope or past the
// limit, which callers see and judge). A failure after the first hop
// returns the hops so far with the error.
func (c *Client) Follow(ctx context.Context, u *url.URL, maxBody int64) ([]*Response, error) {
	var chain []*Response
	for {
		resp, err := c.Do(ctx, Request{URL: u, MaxBody: maxBody})
		if err != nil {
			if len(chain) > 0 {
				chain[len(chain)-1].NextError = err
			}
			return chain, err
		}
		chain = append(chain, resp)
		if !resp.IsRedirect() || len(chain) > MaxRedirects || CheckURL(c.env, resp.Location) != nil {
			return chain, nil
		}
		u = resp.Location
	}
}

// Open fetches a tool's start page: target when given, else the scan
// domain's https home page and, when https cannot be reached at all, the
// http one. It returns the redirect chain (see Follow).
func (c *Client) Open(ctx context.Context, target *url.URL, maxBody int64) ([]*Response, error) {
	if target != nil {
		chain, err := c.Follow(ctx, target, maxBody)
		if len(chain) == 0 {
			return nil, fmt.Errorf("fetch %s: %s", Clean(target.String(), 300), Describe(err))
		}
		return chain, nil
	}
	httpsURL, httpURL := DefaultURLs(c.env)
	// https may use two thirds of the remaining time, so a port that
	// swallows packets leaves the http fallback a chance.
	httpsCtx, cancel := ctx, context.CancelFunc(func() {})
	if deadline, ok := ctx.Deadline(); ok {
		httpsCtx, cancel = context.WithTimeout(ctx, time.Until(deadline)*2/3)
	}
	chain, httpsErr := c.Follow(httpsCtx, httpsURL, maxBody)
	cancel()
	if len(chain) > 0 {
		return chain, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	chain, httpErr := c.Follow(ctx, httpURL, maxBody)
	if len(chain) > 0 {
		return chain, nil
	}
	return nil, fmt.Errorf("%s: %s; %s: %s", httpsURL, Describe(httpsErr), httpURL, Describe(httpErr))
}

// Package client is the CLI's side of the service's HTTP API: typed records
// as openapi.yaml describes them, one error type that carries the HTTP
// status and the API's detail, bounded waits on 429, and a timeout on every
// request. It deliberately imports nothing from the server's packages: the
// CLI is a client of the published contract, not of the implementation.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Defaults of a Client.
const (
	// RequestTimeout bounds one HTTP exchange (report downloads included).
	RequestTimeout = 60 * time.Second
	// MaxRetryAfter is the longest a 429's Retry-After is honoured; a
	// longer wait is reported as the error instead.
	MaxRetryAfter = 65 * time.Second
	// MaxRateLimitRetries bounds how often one call waits out a 429.
	MaxRateLimitRetries = 3
	// maxBody bounds what is read of a JSON answer (a scan with its
	// findings and steps is far below this).
	maxBody = 32 << 20
	// maxReport bounds a report download.
	maxReport = 256 << 20
)

// Client calls the API as one user (an API token or a session JWT).
type Client struct {
	BaseURL string // e.g. https://api.example.com (no trailing /api)
	Token   string
	// HTTP sends the requests. Whatever its CheckRedirect, a redirect is
	// followed only within the API's origin (redirect.go): the token never
	// goes to another host or port, nor from https to http.
	HTTP *http.Client
	// Notify is told about waits (429 Retry-After), for the user to see.
	Notify func(msg string)
	// UserAgent identifies the CLI and its version.
	UserAgent string
}

// New returns a client for baseURL with the default timeouts.
func New(baseURL, token string) *Client {
	return &Client{
		BaseURL: strings.TrimRight(baseURL, "/"), Token: token,
		HTTP:      &http.Client{Timeout: RequestTimeout, CheckRedirect: checkRedirect},
		UserAgent: "secscan-cli",
	}
}

// Error is a non-2xx answer: the HTTP status and the API's detail.
type Error struct {
	Status     int
	Detail     string
	RetryAfter time.Duration // from Retry-After, when present
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.Detail, e.Status)
}

// StatusOf is the HTTP status of err when it is an API error, else 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// do sends one request, waiting out 429s (bounded), and returns the
// response for a 2xx status; any other status becomes an *Error.
func (c *Client) do(ctx context.Context, method, path string, header http.Header, body any) (*http.Response, error) {
	raw, err := jsonBody(body)
	if err != nil {
		return nil, err
	}
	hc := *c.HTTP
	hc.CheckRedirect = checkRedirect
	for attempt := 0; ; attempt++ {
		res, err := c.send(ctx, &hc, method, path, header, raw)
		if err != nil {
			return nil, err
		}
		if res.StatusCode >= 200 && res.StatusCode < 300 {
			return res, nil
		}
		apiErr := readError(res)
		if attempt < MaxRateLimitRetries && apiErr.waitable() {
			if err := c.waitRetryAfter(ctx, apiErr); err != nil {
				return nil, err
			}
			continue
		}
		return nil, apiErr
	}
}

// send makes one attempt with hc; a failure to connect names the call.
func (c *Client) send(ctx context.Context, hc *http.Client, method, path string, header http.Header, raw []byte) (*http.Response, error) {
	req, err := c.request(ctx, method, path, header, raw)
	if err != nil {
		return nil, err
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, unwrapURLError(err))
	}
	return res, nil
}

// jsonBody is body as JSON; nil for no body.
func jsonBody(body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	return json.Marshal(body)
}

// waitable says whether the error is a 429 whose Retry-After the client
// waits out: set, and at most MaxRetryAfter.
func (e *Error) waitable() bool {
	return e.Status == http.StatusTooManyRequests && e.RetryAfter > 0 && e.RetryAfter <= MaxRetryAfter
}

// request is one attempt's request: the JSON body raw (nil: none), the
// extra header, the token and the user agent.
func (c *Client) request(ctx context.Context, method, path string, header http.Header, raw []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if raw == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	req.Header.Set("User-Agent", c.UserAgent)
	return req, nil
}

// waitRetryAfter waits as a 429's Retry-After asks, saying so; the
// context's error when it ends first.
func (c *Client) waitRetryAfter(ctx context.Context, apiErr *Error) error {
	if c.Notify != nil {
		c.Notify(fmt.Sprintf("%s; waiting %s as Retry-After asks", apiErr.Detail, apiErr.RetryAfter))
	}
	t := time.NewTimer(apiErr.RetryAfter)
	select {
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// unwrapURLError drops the "Get "https://…":" prefix a *url.Error adds, since
// the caller already names the request.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// readError turns a non-2xx response into an *Error, its detail taken from
// the JSON body (or the status text when the body has none).
func readError(res *http.Response) *Error {
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	e := &Error{Status: res.StatusCode}
	var body struct {
		Detail string `json:"detail"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Detail != "" {
		e.Detail = body.Detail
	} else {
		e.Detail = http.StatusText(res.StatusCode)
	}
	if s, err := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After"))); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
		if e.RetryAfter == 0 {
			e.RetryAfter = time.Second
		}
	}
	return e
}

// getJSON/sendJSON decode a JSON answer into out (nil: discard).
func (c *Client) sendJSON(ctx context.Context, method, path string, header http.Header, body, out any) (*http.Response, error) {
	res, err := c.do(ctx, method, path, header, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
		return res, nil
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxBody)).Decode(out); err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return res, nil
}

// Health is GET /health (no authentication).
func (c *Client) Health(ctx context.Context) (map[string]string, error) {
	var h map[string]string
	_, err := c.sendJSON(ctx, http.MethodGet, "/health", nil, nil, &h)
	return h, err
}

// Me is GET /api/auth/me.
func (c *Client) Me(ctx context.Context) (User, error) {
	var u User
	_, err := c.sendJSON(ctx, http.MethodGet, "/api/auth/me", nil, nil, &u)
	return u, err
}

// CreateTarget is POST /api/targets.
func (c *Client) CreateTarget(ctx context.Context, domain, method string) (Target, error) {
	var t Target
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/targets", nil, map[string]string{"target": domain, "method": method}, &t)
	return t, err
}

// Targets lists every target of the user, following the Link header.
func (c *Client) Targets(ctx context.Context) ([]Target, error) {
	return list[Target](ctx, c, "/api/targets?limit=200", 0)
}

// VerifyTarget is POST /api/targets/<id>/verify.
func (c *Client) VerifyTarget(ctx context.Context, id string) (Target, error) {
	var t Target
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/targets/"+url.PathEscape(id)+"/verify", nil, nil, &t)
	return t, err
}

// DeleteTarget is DELETE /api/targets/<id>.
func (c *Client) DeleteTarget(ctx context.Context, id string) error {
	_, err := c.sendJSON(ctx, http.MethodDelete, "/api/targets/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// CreateScan is POST /api/scans, with an Idempotency-Key when key is set.
func (c *Client) CreateScan(ctx context.Context, req ScanRequest, key string) (Scan, error) {
	var h http.Header
	if key != "" {
		h = http.Header{"Idempotency-Key": {key}}
	}
	var s Scan
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/scans", h, req, &s)
	return s, err
}

// Scan is GET /api/scans/<id>: the record with findings, steps and summary.
// Its Raw is the record as sent.
func (c *Client) Scan(ctx context.Context, id string) (Scan, error) {
	raw, s, err := c.ScanRaw(ctx, id)
	s.Raw = raw
	return s, err
}

// Scans lists scans newest first, at most limit (0: all), filtered by
// status and target when set.
func (c *Client) Scans(ctx context.Context, status, target string, limit int) ([]Scan, error) {
	q := url.Values{"limit": {"200"}}
	if limit > 0 && limit < 200 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if status != "" {
		q.Set("status", status)
	}
	if target != "" {
		q.Set("target", target)
	}
	return list[Scan](ctx, c, "/api/scans?"+q.Encode(), limit)
}

// CancelScan is DELETE /api/scans/<id>.
func (c *Client) CancelScan(ctx context.Context, id string) (Scan, error) {
	var s Scan
	_, err := c.sendJSON(ctx, http.MethodDelete, "/api/scans/"+url.PathEscape(id), nil, nil, &s)
	return s, err
}

// Report downloads a report (format md, html, pdf or csv) into w.
func (c *Client) Report(ctx context.Context, id, format string, w io.Writer) (int64, error) {
	_, body, err := c.OpenReport(ctx, id, format)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.Copy(w, body)
	if err != nil {
		return n, fmt.Errorf("downloading the %s report: %w", format, err)
	}
	return n, nil
}

// reportFiles are the report formats and the files that serve them.
var reportFiles = map[string]string{"md": "report.md", "html": "report.html", "pdf": "report.pdf", "csv": "findings.csv"}

// OpenReport starts the download of a report (format md, html, pdf or
// csv): the file name the service suggests (Content-Disposition, e.g.
// example.com-2026-11-26-scn_….pdf; "" when it names none that is safe to
// create) and the body, bounded, which the caller closes.
func (c *Client) OpenReport(ctx context.Context, id, format string) (string, io.ReadCloser, error) {
	file := reportFiles[format]
	if file == "" {
		return "", nil, fmt.Errorf("unknown report format %q (md, html, pdf or csv)", format)
	}
	res, err := c.do(ctx, http.MethodGet, "/api/scans/"+url.PathEscape(id)+"/"+file, nil, nil)
	if err != nil {
		return "", nil, err
	}
	body := struct {
		io.Reader
		io.Closer
	}{io.LimitReader(res.Body, maxReport), res.Body}
	return suggestedName(res.Header.Get("Content-Disposition"), format), body, nil
}

// safeFileName is what a suggested file name may be: no directories, no
// leading dot, nothing a shell or a file system treats specially.
var safeFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$`)

// suggestedName is the filename of a Content-Disposition header when it is
// a plain name ending in .<ext>, else "".
func suggestedName(header, ext string) string {
	_, params, err := mime.ParseMediaType(header)
	if err != nil {
		return ""
	}
	name := params["filename"]
	if !safeFileName.MatchString(name) || !strings.HasSuffix(name, "."+ext) || strings.Contains(name, "..") {
		return ""
	}
	return name
}

// maxPages bounds how many pages a list follows.
const maxPages = 100

// list follows rel="next" links until the last page (or limit items).
func list[T any](ctx context.Context, c *Client, path string, limit int) ([]T, error) {
	var all []T
	for range maxPages {
		var page []T
		res, err := c.sendJSON(ctx, http.MethodGet, path, nil, nil, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if limit > 0 && len(all) >= limit {
			return all[:limit], nil
		}
		next := nextLink(res.Header.Get("Link"))
		if next == "" {
			return all, nil
		}
		path = next
	}
	return all, nil
}

// nextLink reads `<path>; rel="next"` from a Link header.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			continue
		}
		target = strings.TrimSpace(target)
		if strings.HasPrefix(target, "<") && strings.HasSuffix(target, ">") {
			target = strings.Trim(target, "<>")
			if u, err := url.Parse(target); err == nil && u.IsAbs() {
				return u.RequestURI() // the same API, whatever host it names
			}
			return target
		}
	}
	return ""
}

// ScanRaw is Scan plus the record exactly as the API sent it (for --json,
// which must not drop fields this client does not model).
func (c *Client) ScanRaw(ctx context.Context, id string) ([]byte, Scan, error) {
	var raw json.RawMessage
	if _, err := c.sendJSON(ctx, http.MethodGet, "/api/scans/"+url.PathEscape(id), nil, nil, &raw); err != nil {
		return nil, Scan{}, err
	}
	var s Scan
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, Scan{}, fmt.Errorf("reading scan %s: %w", id, err)
	}
	return raw, s, nil
}

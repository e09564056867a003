package verification

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/plainerr"
	"secscan/shared/resolver"
)

const (
	maxBodyBytes = 4 << 10
	maxRedirects = 3
	userAgent    = "ServiceVerifier/1.0"
)

// redirectError is a redirect the verifier refuses to follow.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// verifyHTTPFile fetches the challenge over https and, when that fails for
// any reason, over http; both attempts share one time budget.
func (v *Verifier) verifyHTTPFile(ctx context.Context, domain, token string) error {
	if v.Dialer == nil {
		return fmt.Errorf("verify %s: no dialer configured", domain)
	}
	total := v.Timeout
	if total <= 0 {
		total = DefaultHTTPTimeout
	}
	budget, cancel := context.WithTimeout(ctx, total)
	defer cancel()

	// No overall client timeout: the contexts below bound each attempt.
	client := v.Dialer.HTTPClient(0, v.tlsConfig())
	defer client.CloseIdleConnections()
	client.Jar = nil // no cookies
	client.CheckRedirect = redirectsWithin(domain)

	httpsURL := challengeURL("https", domain, v.HTTPSPort, 443)
	httpURL := challengeURL("http", domain, v.HTTPPort, 80)

	// The https attempt may use two thirds of the budget, so a port that
	// swallows packets cannot leave the http fallback without a chance.
	httpsBudget, cancelHTTPS := context.WithTimeout(budget, total-total/3)
	httpsDetail, ok := fetchChallenge(httpsBudget, client, httpsURL, token)
	cancelHTTPS()
	if ok {
		return nil
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("verify %s: %w", domain, ctx.Err())
	}
	httpDetail, ok := fetchChallenge(budget, client, httpURL, token)
	if ok {
		return nil
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("verify %s: %w", domain, ctx.Err())
	}
	return &Failure{Detail: httpsURL + ": " + httpsDetail + "; " + httpURL + ": " + httpDetail}
}

// redirectsWithin follows at most maxRedirects redirects, each to domain
// or one of its subdomains.
func redirectsWithin(domain string) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return &redirectError{fmt.Sprintf("more than %d redirects (the next one to %s)", maxRedirects, quote(req.URL.String()))}
		}
		if !domainname.InScope(req.URL.Hostname(), domain) {
			return &redirectError{fmt.Sprintf("redirected to %s, which is outside %s", quote(req.URL.String()), domain)}
		}
		return nil
	}
}

func challengeURL(scheme, domain string, port, defaultPort int) string {
	host := domain
	if port != 0 && port != defaultPort {
		host = net.JoinHostPort(domain, strconv.Itoa(port))
	}
	return scheme + "://" + host + WellKnownPath
}

// fetchChallenge GETs rawURL and reports whether its trimmed body is the
// token; when it is not, detail says what happened instead.
func fetchChallenge(ctx context.Context, client *http.Client, rawURL, token string) (detail string, ok bool) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "invalid URL", false
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/plain, */*")

	resp, err := client.Do(req)
	if err != nil {
		return describeError(err, time.Since(start)), false
	}
	defer resp.Body.Close()

	where := ""
	if final := resp.Request.URL.String(); final != rawURL {
		where = " (after redirects, at " + quote(final) + ")"
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("HTTP %d%s", resp.StatusCode, where), false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return "reading the body failed: " + describeError(err, time.Since(start)), false
	}
	if len(body) > maxBodyBytes {
		return fmt.Sprintf("the body is larger than %d KiB%s (it must contain only the verification token)", maxBodyBytes>>10, where), false
	}
	if found := strings.TrimSpace(string(body)); found != token {
		return fmt.Sprintf("body does not match the verification token (found %s)%s", quote(found), where), false
	}
	return "", true
}

// describeError turns a failed request into words for a Detail.
func describeError(err error, elapsed time.Duration) string {
	var (
		redirect *redirectError
		refused  *netguard.AddressError
	)
	var urlErr *url.Error
	errors.As(err, &urlErr)
	switch {
	case errors.As(err, &redirect):
		return redirect.reason
	case errors.As(err, &refused):
		// No "; " inside: that separates the https and http attempts.
		return "refused: " + refused.Plain()
	}
	if s, ok := describeDNS(err, requestHost(urlErr)); ok {
		return s
	}
	if s, ok := describeConnection(err, elapsed); ok {
		return s
	}
	if urlErr != nil {
		err = urlErr.Err
	}
	return clean(plainerr.Describe(err))
}

// describeConnection words a connection or TLS handshake that failed after
// elapsed; ok is false for other errors.
func describeConnection(err error, elapsed time.Duration) (string, bool) {
	var (
		certErr *tls.CertificateVerificationError
		header  tls.RecordHeaderError
		netErr  net.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out after " + roundDuration(elapsed), true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", true
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the server", true
	case errors.As(err, &certErr):
		return "TLS certificate not accepted: " + clean(certErr.Err.Error()), true
	case errors.As(err, &header):
		return "TLS handshake failed: the server did not answer with TLS", true
	}
	return "", false
}

// requestHost is the host of the request a *url.Error names, "" without
// one.
func requestHost(urlErr *url.Error) string {
	if urlErr == nil {
		return ""
	}
	if u, err := url.Parse(urlErr.URL); err == nil {
		return u.Hostname()
	}
	return ""
}

// describeDNS words a failed lookup of host; ok is false for other errors.
func describeDNS(err error, host string) (string, bool) {
	var rcode *resolver.RcodeError
	switch {
	case errors.Is(err, resolver.ErrNXDomain):
		return host + " does not exist (NXDOMAIN)", true
	case errors.Is(err, resolver.ErrNoRecords):
		return host + " has no A or AAAA record", true
	case errors.Is(err, resolver.ErrTimeout):
		return "the DNS lookup of " + host + " timed out", true
	case errors.As(err, &rcode):
		return "the DNS lookup of " + host + " failed (" + rcode.Error() + ")", true
	}
	return "", false
}

// clean bounds an error text that may carry target-supplied words (such as
// certificate names) and strips control characters from it.
func clean(s string) string {
	return sanitize(s, 200)
}

func roundDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

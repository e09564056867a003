// Package verification proves that a user controls a domain before it may be
// scanned (CONTRACT "Targets"): it mints verification tokens, writes the
// instructions shown to the user, and checks the challenge either as a DNS
// TXT record at _service-challenge.<domain> (dns_txt) or as a file at
// /.well-known/service-challenge.txt (http_file).
//
// A challenge that is not found is a *Failure whose Detail says what was
// looked up and what was found; it is meant for the API's error detail.
// Everything the target sends back is quoted, truncated and stripped of
// control characters before it reaches a Detail.
package verification

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/randtoken"
	"secscan/shared/resolver"
)

const (
	// ChallengeLabel is prepended to the domain for the dns_txt record.
	ChallengeLabel = "_service-challenge"
	// WellKnownPath is where the http_file challenge is served.
	WellKnownPath = "/.well-known/service-challenge.txt"

	// MethodDNSTXT proves control with a TXT record.
	MethodDNSTXT = "dns_txt"
	// MethodHTTPFile proves control with a file on the web server.
	MethodHTTPFile = "http_file"

	// TokenPrefix starts every verification token.
	TokenPrefix = "service-verify-"

	// DefaultHTTPTimeout bounds both http_file attempts together.
	DefaultHTTPTimeout = 10 * time.Second

	tokenBytes = 24 // 192 random bits, above the contract's 128

	maxShownValue  = 64 // characters of a target-supplied value put in a Detail
	maxShownValues = 5  // TXT values listed in a Detail
)

// ValidMethod reports whether method is a verification method.
func ValidMethod(method string) bool {
	return method == MethodDNSTXT || method == MethodHTTPFile
}

// NewToken returns a fresh verification token: TokenPrefix followed by 24
// random bytes in base62 (33 characters, fixed width).
func NewToken() (string, error) {
	body, err := randtoken.Base62(tokenBytes)
	if err != nil {
		return "", fmt.Errorf("new verification token: %w", err)
	}
	return TokenPrefix + body, nil
}

// Instructions returns the short, copy-pasteable text that tells the user
// how to publish the challenge for method, ending with the API call that
// checks it. domain must already be normalized. An unknown method yields "".
func Instructions(method, domain, token, targetID string) string {
	if targetID == "" {
		targetID = "<id>"
	}
	verifyCall := "POST /api/targets/" + targetID + "/verify"
	switch method {
	case MethodDNSTXT:
		return fmt.Sprintf("Create this DNS record:\n"+
			"  Name:  %s.%s\n"+
			"  Type:  TXT\n"+
			"  Value: %s\n"+
			"Wait until it is published, then call %s",
			ChallengeLabel, domain, token, verifyCall)
	case MethodHTTPFile:
		return fmt.Sprintf("Serve this exact content, with status 200:\n"+
			"  URL:     https://%s%s (http:// is tried if https fails)\n"+
			"  Content: %s\n"+
			"For example, in the web root: mkdir -p .well-known && printf '%%s' %s > .well-known/service-challenge.txt\n"+
			"Upload the file, then call %s",
			domain, WellKnownPath, token, token, verifyCall)
	}
	return ""
}

// Failure means the challenge was not found. Detail says what was looked up
// and what was found, in words fit for the user.
type Failure struct {
	Detail string
}

func (f *Failure) Error() string { return f.Detail }

// Verifier checks challenges. Resolver is needed for dns_txt, Dialer for
// http_file (its policy decides whether private networks are reachable).
type Verifier struct {
	Resolver *resolver.Resolver
	Dialer   *netguard.Dialer
	// HTTPSPort and HTTPPort are the ports of the http_file attempts;
	// 0 means 443 and 80 (tests use the ports of local servers).
	HTTPSPort, HTTPPort int
	// RootCAs verifies the https attempt; nil means the system roots.
	RootCAs *x509.CertPool
	// Timeout bounds both http_file attempts together; 0 means
	// DefaultHTTPTimeout.
	Timeout time.Duration
}

// Verify checks the challenge for domain by method. It returns nil when the
// token is found, a *Failure when it is not, and a plain error for anything
// that is not the target's doing (unknown method, missing configuration,
// an unreachable resolver, the caller's cancellation).
func (v *Verifier) Verify(ctx context.Context, method, domain, token string) error {
	if !ValidMethod(method) {
		return fmt.Errorf("verify %s: unknown method %q (want %s or %s)", domain, method, MethodDNSTXT, MethodHTTPFile)
	}
	if token == "" {
		return fmt.Errorf("verify %s: empty token", domain)
	}
	name, err := domainname.Normalize(domain)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if method == MethodDNSTXT {
		return v.verifyDNSTXT(ctx, name, token)
	}
	return v.verifyHTTPFile(ctx, name, token)
}

func (v *Verifier) verifyDNSTXT(ctx context.Context, domain, token string) error {
	if v.Resolver == nil {
		return fmt.Errorf("verify %s: no resolver configured", domain)
	}
	name := ChallengeLabel + "." + domain
	values, err := v.Resolver.LookupTXT(ctx, name)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("verify %s: %w", domain, ctx.Err())
		}
		if why, ok := noTXTReason(err); ok {
			return &Failure{Detail: fmt.Sprintf("No TXT record at %s (%s)", name, why)}
		}
		// The configured resolver is unreachable: our problem, not the user's.
		return fmt.Errorf("verify %s: %w", domain, err)
	}
	if slices.Contains(values, token) {
		return nil
	}
	return &Failure{Detail: mismatch(name, values)}
}

// noTXTReason words a lookup error that is the user's to fix (the answer
// says there is no record); false for a failure to reach the resolver.
func noTXTReason(err error) (string, bool) {
	var rcode *resolver.RcodeError
	switch {
	case errors.Is(err, resolver.ErrNXDomain):
		return "NXDOMAIN", true
	case errors.Is(err, resolver.ErrNoRecords):
		return "the name exists but has no TXT record", true
	case errors.Is(err, resolver.ErrTimeout):
		return "the DNS query timed out", true
	case errors.As(err, &rcode):
		return rcode.Error(), true
	}
	return "", false
}

// mismatch is the Detail of TXT records at name none of which is the
// token: at most maxShownValues of them, quoted.
func mismatch(name string, values []string) string {
	shown := make([]string, 0, maxShownValues)
	for i, value := range values {
		if i == maxShownValues {
			shown = append(shown, fmt.Sprintf("and %d more", len(values)-maxShownValues))
			break
		}
		shown = append(shown, quote(value))
	}
	plural := "s"
	if len(values) == 1 {
		plural = ""
	}
	return fmt.Sprintf("TXT records at %s: found %d value%s (%s) but none equals the verification token",
		name, len(values), plural, strings.Join(shown, ", "))
}

// quote makes a target-supplied value safe to show in a Detail: sanitized,
// at most maxShownValue characters, in Go double-quoted form.
func quote(s string) string {
	return strconv.Quote(sanitize(s, maxShownValue))
}

// sanitize removes control and format characters (including bidi overrides
// and invalid UTF-8) and keeps at most max characters, marking a cut with
// an ellipsis.
func sanitize(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf) {
			continue
		}
		if n == max {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// tlsConfig is the client configuration of the https attempt.
func (v *Verifier) tlsConfig() *tls.Config {
	return &tls.Config{RootCAs: v.RootCAs, MinVersion: tls.VersionTLS12}
}

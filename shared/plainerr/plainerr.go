// Package plainerr turns network errors into the few words a person reads in
// a step outcome or a report ("connection refused", "timed out", "the name
// does not exist"). Go's error strings ("dial tcp 127.0.0.2:53: connect:
// connection refused", "context deadline exceeded") name internals a client
// should never see; this is the one place that maps them, used by the agent
// when it writes an outcome, by the tools' error descriptions and by the
// reports (for outcomes recorded before this mapping existed).
package plainerr

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"secscan/shared/netguard"
	"secscan/shared/resolver"
)

// Describe is err in plain words.
func Describe(err error) string {
	var refused *netguard.AddressError
	switch {
	case err == nil:
		return "no error"
	case errors.As(err, &refused):
		return "refused: " + refused.Plain()
	}
	for _, w := range plainWords {
		if w.is(err) {
			return w.text
		}
	}
	return Text(err.Error())
}

// plainWords name the errors Describe recognises, first match wins.
var plainWords = []struct {
	is   func(error) bool
	text string
}{
	{func(err error) bool { return errors.Is(err, resolver.ErrNXDomain) }, "the name does not exist (NXDOMAIN)"},
	{func(err error) bool { return errors.Is(err, resolver.ErrNoRecords) }, "the name has no A or AAAA record"},
	{isA[*tls.CertificateVerificationError], "TLS certificate not accepted"},
	{isA[tls.RecordHeaderError], "the server did not answer with TLS"},
	{isTimeout, "timed out"},
	{func(err error) bool { return errors.Is(err, context.Canceled) }, "cancelled"},
	{func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }, "connection refused"},
	{func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }, "connection reset"},
	{func(err error) bool {
		var dnsErr *net.DNSError
		return errors.As(err, &dnsErr) && dnsErr.IsNotFound
	}, "the name does not exist"},
}

// isA reports whether err's chain holds an error of type T.
func isA[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
}

// rewrite replaces what re matches with with.
type rewrite struct {
	re   *regexp.Regexp
	with string
}

// rewrites are applied in order: first the wrappers that name operations and
// addresses are dropped, then Go's error words become plain ones. They are
// compiled on first use, not at start-up: most requests never describe an
// error (compiling them took 2.6 ms of every function's cold start).
var rewrites = sync.OnceValue(func() []rewrite {
	return []rewrite{
		// url.Error: `Get "https://x/": …`
		{regexp.MustCompile(`\b(?:Get|Head|Post|Put|Delete|Options) "[^"]{0,500}": `), ""},
		// net.OpError: `dial tcp 127.0.0.2:53: connect: `, `read udp 127.0.0.1:5353->127.0.0.2:53: `
		{regexp.MustCompile(`\b(?:dial|read|write) (?:tcp|udp|ip)[46]? (?:[\[\]0-9A-Za-z.:%_-]{1,300}->)?[\[\]0-9A-Za-z.:%_-]{1,300}: (?:(?:connect|read|write|socket): )?`), ""},
		// net.DNSError: `lookup x.example on 127.0.0.53:53: `
		{regexp.MustCompile(`\blookup [^\s:]{1,300}(?: on [\[\]0-9A-Fa-f.:]{1,100})?: `), ""},
		{regexp.MustCompile(`\bno such host\b`), "the name does not exist"},
		{regexp.MustCompile(`\bserver misbehaving\b`), "the DNS server failed"},
		{regexp.MustCompile(`\b(?:i/o timeout|context deadline exceeded|deadline exceeded)\b`), "timed out"},
		{regexp.MustCompile(`\bcontext canceled\b`), "cancelled"},
		{regexp.MustCompile(`\bconnection reset by peer\b`), "connection reset"},
		{regexp.MustCompile(`\bbroken pipe\b`), "connection closed by the server"},
		{regexp.MustCompile(`\bunexpected EOF\b`), "the connection closed early"},
		{regexp.MustCompile(`\bnet/http: TLS handshake timeout\b`), "TLS handshake timed out"},
		{regexp.MustCompile(`\bnet/http: `), ""},
		{regexp.MustCompile(`\bremote error: tls: `), "the server's TLS alert: "},
		{regexp.MustCompile(`\b(?:tls|x509|crypto/tls): `), ""},
		// fmt's mistakes: `%!d(string=x)`, `%!v(MISSING)`, `<nil>`.
		{regexp.MustCompile(`%!\w?\([^)]{0,200}\)|%!\w?`), ""},
		{regexp.MustCompile(`<nil>`), "none"},
		{regexp.MustCompile(`[ \t]{2,}`), " "},
	}
})

// Text rewrites the Go error strings inside a free text (a tool's outcome,
// an error message) into plain words, leaving everything else as it is.
func Text(s string) string {
	if !strings.ContainsAny(s, ":%<") && !slices.ContainsFunc(rewriteHints, func(h string) bool { return strings.Contains(s, h) }) {
		return s // the common case: nothing to rewrite
	}
	for _, r := range rewrites() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return strings.TrimSpace(s)
}

// rewriteHints are words of which a text without ':', '%' or '<' needs
// one for a rewrite to apply.
var rewriteHints = []string{"timeout", "exceeded", "canceled", "EOF", "no such host", "by peer", "broken pipe", "misbehaving"}

// GoErrorPatterns are the fragments that betray a raw Go error in text meant
// for people; tests scan rendered reports for them.
var GoErrorPatterns = []string{"dial tcp", "dial udp", "read udp", "read tcp", "context deadline exceeded", "i/o timeout", "%!", "<nil>", "no such host", "connect: "}

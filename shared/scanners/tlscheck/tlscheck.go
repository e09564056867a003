// Package tlscheck owns the tls_check tool: one TLS endpoint of an in-scope
// host, reached through the guarded dialer, examined for certificate
// problems (expired, not yet valid, expiring soon, self-signed or untrusted
// chain, hostname mismatch, RSA keys below 2048 bits, SHA-1/MD5
// signatures), legacy protocol versions (TLS 1.0 and 1.1 accepted), weak
// cipher suites (RC4, 3DES, RSA key exchange, CBC mode) and a missing HSTS
// header on the HTTPS response.
//
// The handshakes use crypto/tls with InsecureSkipVerify, only to see what
// the server offers whatever its certificate; the chain is then verified
// with crypto/x509 against the system roots (or Options.RootCAs). What Go's
// client cannot offer (SSL 2.0/3.0, export, NULL, anonymous, DHE and
// CAMELLIA/ARIA suites, TLS 1.3 suite restrictions) is not tested: a server
// offering only those fails the handshake and the call reports an error,
// never a clean bill of health.
package tlscheck

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	toolName = "tls_check"
	toolCost = 5

	// callTimeout: the main handshake, then the probes in parallel and the
	// HSTS request, each bounded by handshakeTimeout.
	callTimeout = 15 * time.Second
	// handshakeTimeout bounds one connection: dial plus TLS handshake.
	handshakeTimeout = 4 * time.Second
	// hstsTimeout bounds the HTTPS request that reads the HSTS header.
	hstsTimeout = 4 * time.Second
	// probeConcurrency bounds the parallel handshakes to one host.
	probeConcurrency = 4
	// maxShown caps one piece of target-supplied text in evidence.
	maxShown = 200
)

// Options configures the tool.
type Options struct {
	// RootCAs are the trust anchors chains are verified against; nil means
	// the system roots. Tests pass the CA that signed their certificates.
	RootCAs *x509.CertPool
}

// Checker is the tls_check tool. Build it with New.
type Checker struct {
	tooldef.Base
	roots *x509.CertPool
	now   func() time.Time
}

// New returns the tls_check tool.
func New(opts Options) tools.Tool {
	return &Checker{Base: tooldef.New(toolName, toolCost, callTimeout), roots: opts.RootCAs, now: time.Now}
}

// Description implements tools.Tool.
func (*Checker) Description() string {
	return "Checks one TLS endpoint of an in-scope host (default: the scan's domain on the HTTPS port): the " +
		"certificate (expired, not yet valid, expiring within 30 days, self-signed or untrusted chain, hostname " +
		"mismatch, RSA key below 2048 bits, SHA-1/MD5 signature), whether TLS 1.0 and 1.1 are still accepted, " +
		"weak cipher suites (RC4, 3DES, RSA key exchange without forward secrecy, CBC mode) and, when the port " +
		"serves HTTPS, a missing or short Strict-Transport-Security header. Use it on every TLS port port_scan " +
		"found (443, 8443, 465, 993, 995, ...)."
}

// InputSchema implements tools.Tool.
func (*Checker) InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }

const inputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "host": {"type": "string", "description": "Host to check: the scan's domain or one of its subdomains. Default: the scan's domain."},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "TLS port. Default: the HTTPS port (443)."},
    "also": {"type": "array", "maxItems": 8, "items": {"type": "string"}, "description": "Other in-scope names on the same address and port: each that presents the same certificate is covered by this call (its findings name it too) after one handshake; the others need a call of their own."}
  }
}`

// Checks implements checks.Emitter.
func (*Checker) Checks() []*checks.Check { return emitted }

type input struct {
	Host string   `json:"host"`
	Port *int     `json:"port"`
	Also []string `json:"also"`
}

// target is the endpoint of one call: the name the certificate must match
// and the address every connection of the call goes to, so that all
// handshakes see the same server behind a name with several addresses.
type target struct {
	host string
	port int
	addr string // "ip:port"
}

func (t target) String() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// Run implements tools.Tool.
func (c *Checker) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	host, port, also, err := decodeInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, c.Timeout())
	defer cancel()
	// A name aliased outside the scope is a third party's: no TLS
	// enumeration (HTTPS checks of the name, as a browser makes them, run).
	ip, err := c.ResolveProbed(callCtx, env, host)
	if err != nil {
		return tools.Result{}, err
	}
	tgt := target{host: host, port: port, addr: netip.AddrPortFrom(ip, uint16(port)).String()}

	first, err := handshake(callCtx, env, tgt, baseConfig(host, tls.VersionTLS10, 0, allSuites))
	if err != nil {
		return tools.Result{}, fmt.Errorf("tls_check %s: no TLS handshake with a TLS 1.0-1.3 client (SSL 3.0 and older cannot be tested): %w", tgt, err)
	}
	now := c.now()
	rep := &report{target: tgt, session: sessionSummary(first), proof: handshakeProof(tgt, first, now)}
	rep.certificates(first, c.roots, now)

	outcomes, hsts := runProbes(callCtx, env, tgt)
	// Probes cut short by the call's own bound are reported as
	// inconclusive; a cancelled call reports nothing.
	if err := ctx.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("tls_check %s: %w", tgt, err)
	}
	for i, p := range probes {
		rep.probe(p, outcomes[i])
	}
	rep.hsts(hsts)
	res := rep.result()
	if name := certifiedName(env, first); name != "" {
		// Evidence that the address is the domain's (tools.AddressTie).
		res.Surface.Addresses = []scans.Address{{Address: ip.String(), TiedBy: scans.TieCertificate, TiedName: name}}
	}
	c.coverAliases(callCtx, env, tgt, first, also, &res)
	return res, nil
}

// decodeInput returns the host (default: the scan's domain), port
// (default: the HTTPS port) and aliases the input names.
func decodeInput(env tools.Env, raw json.RawMessage) (host string, port int, also []string, err error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return "", 0, nil, err
	}
	host, err = env.ScopedHost(in.Host)
	if err != nil {
		return "", 0, nil, err
	}
	port = env.Ports.HTTPSPort()
	if in.Port != nil {
		port = *in.Port
	}
	if port < 1 || port > 65535 {
		return "", 0, nil, tools.Refuse("port %d is out of range (1-65535)", port)
	}
	return host, port, in.Also, nil
}

// runProbes runs the probes and the HSTS request, which are independent,
// together, probeConcurrency at a time.
func runProbes(ctx context.Context, env tools.Env, tgt target) ([]probeOutcome, hstsResult) {
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, probeConcurrency)
		hsts hstsResult
	)
	limited := func(f func()) {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			f()
		})
	}
	outcomes := make([]probeOutcome, len(probes))
	for i, p := range probes {
		limited(func() {
			state, err := handshake(ctx, env, tgt, p.config(tgt.host))
			outcomes[i] = probeOutcome{state: state, err: err}
		})
	}
	limited(func() { hsts = checkHSTS(ctx, env, tgt) })
	wg.Wait()
	return outcomes, hsts
}

// baseConfig is a client configuration that accepts any certificate (it is
// verified separately) and offers versions minVersion..maxVersion (0: the
// newest) and the given TLS 1.0-1.2 suites.
func baseConfig(host string, minVersion, maxVersion uint16, suites []uint16) *tls.Config {
	return &tls.Config{
		ServerName:         host,
		InsecureSkipVerify: true, // inspection only: the chain is verified with crypto/x509
		MinVersion:         minVersion,
		MaxVersion:         maxVersion,
		CipherSuites:       suites,
	}
}

// handshake connects to the target through the guarded dialer and completes
// a TLS handshake with cfg, within handshakeTimeout.
func handshake(ctx context.Context, env tools.Env, tgt target, cfg *tls.Config) (tls.ConnectionState, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	raw, err := env.Dialer.DialContext(ctx, "tcp", tgt.addr)
	if err != nil {
		return tls.ConnectionState{}, &dialError{err}
	}
	conn := tls.Client(raw, cfg)
	defer conn.Close()
	if err := conn.HandshakeContext(ctx); err != nil {
		return tls.ConnectionState{}, err
	}
	return conn.ConnectionState(), nil
}

// dialError marks a failure to connect, as opposed to a handshake the
// server refused: a probe that could not connect proves nothing.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// allSuites are every TLS 1.0-1.2 suite Go implements, secure and not: the
// main handshake and the version probes must succeed with any server that
// Go can talk to at all.
var allSuites = func() []uint16 {
	var ids []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if slices.Contains(s.SupportedVersions, tls.VersionTLS12) || slices.Contains(s.SupportedVersions, tls.VersionTLS10) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}()

// sessionSummary describes the negotiated session for evidence.
func sessionSummary(state tls.ConnectionState) string {
	return tls.VersionName(state.Version) + ", " + tls.CipherSuiteName(state.CipherSuite)
}

// certifiedName is the first in-scope name the leaf certificate of state
// is valid for (a wildcard's parent for *.name), "" when none.
func certifiedName(env tools.Env, state tls.ConnectionState) string {
	if len(state.PeerCertificates) == 0 {
		return ""
	}
	for _, n := range state.PeerCertificates[0].DNSNames {
		if name := strings.ToLower(strings.TrimPrefix(n, "*.")); env.InScope(name) {
			return name
		}
	}
	return ""
}

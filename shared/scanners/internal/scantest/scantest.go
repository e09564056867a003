// Package scantest builds what the web scanners' tests run against: a
// local DNS server that resolves the test names to 127.0.0.1, the guarded
// dialer (private networks allowed, as with ALLOW_PRIVATE_NETWORKS), and
// plain and TLS test servers on 127.0.0.1 whose certificates come from a
// CA generated for the test. Nothing here sends a packet off loopback.
package scantest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// Site is a test target: domain resolves to 127.0.0.1 and is served over
// http and https by the given handlers.
type Site struct {
	Env   tools.Env
	DNS   *resolvertest.Server
	Roots *x509.CertPool
	HTTP  *httptest.Server // nil when no http handler was given
	HTTPS *httptest.Server // nil when no https handler was given
}

// NewSite starts a DNS server resolving domain and names (e.g. subdomains)
// to 127.0.0.1, and servers for the non-nil handlers; env.Ports point at
// them. policy is the dialer's policy (netguard.Policy{AllowPrivate: true}
// for tests that connect).
func NewSite(t testing.TB, domain string, policy netguard.Policy, httpHandler, httpsHandler http.Handler, names ...string) *Site {
	t.Helper()
	var records []string
	for _, name := range append([]string{domain}, names...) {
		records = append(records, name+". A 127.0.0.1")
	}
	s := &Site{}
	s.Env, s.DNS = envWithDNS(t, domain, policy, records)
	if httpHandler != nil {
		s.HTTP = httptest.NewServer(httpHandler)
		t.Cleanup(s.HTTP.Close)
		s.Env.Ports.HTTP = port(t, s.HTTP.URL)
	} else {
		// A port nothing listens on, so the http attempt is refused
		// instead of reaching a random local service on port 80.
		s.Env.Ports.HTTP = ClosedPort(t)
	}
	if httpsHandler != nil {
		var cert tls.Certificate
		cert, s.Roots = Certificate(t, append([]string{domain, "*." + domain}, names...)...)
		s.HTTPS = httptest.NewUnstartedServer(httpsHandler)
		s.HTTPS.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
		// Handshakes a scanner rejects on purpose are expected here.
		s.HTTPS.Config.ErrorLog = log.New(io.Discard, "", 0)
		s.HTTPS.StartTLS()
		t.Cleanup(s.HTTPS.Close)
		s.Env.Ports.HTTPS = port(t, s.HTTPS.URL)
	} else {
		s.Env.Ports.HTTPS = ClosedPort(t)
	}
	return s
}

// Env returns an Env for the scan of domain whose names resolve through a
// local DNS server holding records (zone-file lines such as
// "www.scan.test. A 127.0.0.1"), and whose dialer enforces policy.
func Env(t testing.TB, domain string, policy netguard.Policy, records ...string) tools.Env {
	t.Helper()
	env, _ := envWithDNS(t, domain, policy, records)
	return env
}

func envWithDNS(t testing.TB, domain string, policy netguard.Policy, records []string) (tools.Env, *resolvertest.Server) {
	t.Helper()
	dns := resolvertest.Start(t)
	dns.Add(t, records...)
	res, err := resolver.New(dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatalf("resolver: %v", err)
	}
	return tools.Env{Domain: domain, Dialer: netguard.New(res, policy), Resolver: res}, dns
}

// URL returns scheme://host:port/path for the site's server of scheme.
func (s *Site) URL(scheme, host, path string) string {
	p := s.Env.Ports.HTTPPort()
	if scheme == "https" {
		p = s.Env.Ports.HTTPSPort()
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(p)) + path
}

func port(t testing.TB, rawURL string) int {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ClosedPort returns a loopback port that was free a moment ago: nothing
// listens on it.
func ClosedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}

// Certificate returns a leaf certificate for names signed by a fresh CA,
// and a pool holding that CA.
func Certificate(t testing.TB, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "scantest CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: names[0]},
		DNSNames:     names,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}, pool
}

// CheckFindings fails t for each finding whose check is not in the
// catalogue, not one tool declares (checks.Emitter), whose category is not
// its check's, or whose title is another check's: a test that finds a
// title finds its check.
func CheckFindings(t testing.TB, tool tools.Tool, findings []scans.Finding) {
	t.Helper()
	em, ok := tool.(checks.Emitter)
	if !ok {
		t.Errorf("tool %s does not declare its checks", tool.Name())
		return
	}
	for _, f := range findings {
		for _, problem := range findingProblems(tool.Name(), em.Checks(), f) {
			t.Errorf("%q: %s", f.Title, problem)
		}
	}
}

// findingProblems are what CheckFindings finds wrong with f, a finding of
// the tool called name, which declares the checks declared.
func findingProblems(name string, declared []*checks.Check, f scans.Finding) []string {
	var out []string
	c, ok := checks.Lookup(f.Check)
	if problem := checkProblem(name, declared, f, c, ok); problem != "" {
		out = append(out, problem)
	}
	// CONTRACT "Proof and retest": a serious finding the tool observed
	// itself shows how.
	serious := f.Severity == scans.Critical || f.Severity == scans.High
	if serious && f.DefaultConfidence() == scans.Certain && f.Proof == nil {
		out = append(out, fmt.Sprintf("a %s finding with confidence certain has no proof", f.Severity))
	}
	return append(out, titleProblems(f, c)...)
}

// titleProblems says which other checks than f's own, c, have f's title.
func titleProblems(f scans.Finding, c *checks.Check) []string {
	var out []string
	for _, other := range checks.All() {
		if other.Title == f.Title && other != c {
			out = append(out, fmt.Sprintf("check %s, but that is the title of %s", f.Check, other.Code))
		}
	}
	return out
}

// checkProblem says what is wrong with f's check c (ok: c is in the
// catalogue), for a tool called name that declares the checks declared.
func checkProblem(name string, declared []*checks.Check, f scans.Finding, c *checks.Check, ok bool) string {
	switch {
	case !ok:
		return fmt.Sprintf("check %q is not in the catalogue", f.Check)
	case !slices.Contains(declared, c):
		return fmt.Sprintf("check %s is not one %s declares", f.Check, name)
	case f.Category != c.Category:
		return fmt.Sprintf("category %s, its check %s is %s", f.Category, c.Code, c.Category)
	}
	return ""
}

// WantFindings fails t unless got, findings by title, holds exactly the
// titles of want, each with its severity.
func WantFindings(t testing.TB, got map[string]scans.Finding, want map[string]scans.Severity) {
	t.Helper()
	for title, sev := range want {
		f, ok := got[title]
		switch {
		case !ok:
			t.Errorf("missing finding %q", title)
		case f.Severity != sev:
			t.Errorf("%q severity = %s, want %s", title, f.Severity, sev)
		}
	}
	for title := range got {
		if _, ok := want[title]; !ok {
			t.Errorf("unexpected finding %q (false positive)", title)
		}
	}
}

// CheckContract fails t unless tool registers (tools.NewRegistry panics on
// a bad cost or bound) as name, costing cost, within tools.MaxCallDuration,
// with an object input schema.
func CheckContract(t testing.TB, tool tools.Tool, name string, cost int) {
	t.Helper()
	tools.NewRegistry(tool)
	if tool.Name() != name || tool.Cost() != cost {
		t.Errorf("name %q cost %d, want %q %d", tool.Name(), tool.Cost(), name, cost)
	}
	if tool.Timeout() > tools.MaxCallDuration {
		t.Errorf("timeout %s above %s", tool.Timeout(), tools.MaxCallDuration)
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema: %v %v", err, schema["type"])
	}
}

// RunBounded runs tool with input raw on env under a deadline of budget,
// as a test against a server that never answers does: it fails t when Run
// fails or takes more than 5 seconds, and returns Run's result.
func RunBounded(t testing.TB, tool tools.Tool, env tools.Env, raw json.RawMessage, budget time.Duration) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	res, err := tool.Run(ctx, env, raw)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %s on a hanging server", elapsed)
	}
	return res
}

// ByCheck is the first finding of check c, or nil.
func ByCheck(fs []scans.Finding, c *checks.Check) *scans.Finding {
	for i := range fs {
		if fs[i].Check == c.Code {
			return &fs[i]
		}
	}
	return nil
}

// CheckTranscript fails t unless p is a transcript proof with a time and no
// curl command, whose request holds each of request and whose response
// holds each of response.
func CheckTranscript(t testing.TB, p *scans.Proof, request, response []string) {
	t.Helper()
	if p.Kind != scans.ProofTranscript || p.Curl != nil || p.ObservedAt.IsZero() {
		t.Errorf("proof %+v", p)
	}
	checkContains(t, "request", p.Request, request)
	checkContains(t, "response", p.Response, response)
}

// checkContains fails t for each of wants that text, the part of a proof
// called part, lacks.
func checkContains(t testing.TB, part, text string, wants []string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", part, want, text)
		}
	}
}

// CheckMapping fails t for each input in cases whose f(in) is not the
// output it maps to; name names f in the failures.
func CheckMapping[In, Out comparable](t testing.TB, name string, f func(In) Out, cases map[In]Out) {
	t.Helper()
	for in, want := range cases {
		if got := f(in); got != want {
			t.Errorf("%s(%#v) = %#v, want %#v", name, in, got, want)
		}
	}
}

// Greet serves ln, in the background until ln is closed, as a server that
// greets first (like SSH): each connection is sent banner and closed after
// linger.
func Greet(ln net.Listener, banner string, linger time.Duration) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(banner))
			time.Sleep(linger)
			c.Close()
		}
	}()
}

package tlscheck

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const testDomain = "scan.test"

// testEnv returns an Env for scan.test in which every *.scan.test name
// below resolves, through a local DNS server, to 127.0.0.1.
func testEnv(t testing.TB, allowPrivate bool) tools.Env {
	t.Helper()
	records := []string{"scan.test. A 127.0.0.1"}
	for _, name := range []string{"good", "expired", "future", "soon", "urgent", "selfsigned", "untrusted",
		"wrong", "rsa1024", "sha1", "tls10", "tls11", "weak", "nohsts", "hsts0", "shorthsts", "nothttp"} {
		records = append(records, name+".scan.test. A 127.0.0.1")
	}
	return scantest.Env(t, testDomain, netguard.Policy{AllowPrivate: allowPrivate}, records...)
}

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func newECDSAKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func newRSAKey(t testing.TB, bits int) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func newCA(t testing.TB, name string) testCA {
	t.Helper()
	key := newECDSAKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"secscan tests"}},
		NotBefore:             time.Now().Add(-2 * 365 * 24 * time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key}
}

func (ca testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// leafSpec describes a server certificate; zero fields get sound defaults.
type leafSpec struct {
	names      []string
	notBefore  time.Time
	notAfter   time.Time
	key        crypto.Signer // default: ECDSA P-256
	sigAlg     x509.SignatureAlgorithm
	selfSigned bool
}

var serial atomic.Int64

func (ca testCA) issue(t testing.TB, spec leafSpec) tls.Certificate {
	t.Helper()
	key := spec.key
	if key == nil {
		key = newECDSAKey(t)
	}
	if spec.notBefore.IsZero() {
		spec.notBefore = time.Now().Add(-24 * time.Hour)
	}
	if spec.notAfter.IsZero() {
		spec.notAfter = time.Now().Add(90 * 24 * time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber:       big.NewInt(100 + serial.Add(1)),
		Subject:            pkix.Name{CommonName: spec.names[0]},
		DNSNames:           spec.names,
		NotBefore:          spec.notBefore,
		NotAfter:           spec.notAfter,
		KeyUsage:           x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:        []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		SignatureAlgorithm: spec.sigAlg,
	}
	parent, signer := ca.cert, ca.key
	if spec.selfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		t.Fatalf("create certificate: %v", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// startTLS starts an HTTPS server on 127.0.0.1 with cfg (its certificate
// included) whose responses carry hsts, when not empty.
func startTLS(t testing.TB, cfg *tls.Config, hsts string) int {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if hsts != "" {
			w.Header().Set("Strict-Transport-Security", hsts)
		}
		_, _ = io.WriteString(w, "hello")
	}))
	// The probes' refused handshakes would be logged as errors.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = cfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// startPlainTLS starts a TLS server that is not an HTTP server: it
// completes handshakes and closes.
func startPlainTLS(t testing.TB, cfg *tls.Config) int {
	t.Helper()
	ln := tls.NewListener(scantest.LocalListener(t), cfg)
	scantest.Serve(t, ln, func(c net.Conn) { _ = c.(*tls.Conn).Handshake() })
	return ln.Addr().(*net.TCPAddr).Port
}

const goodHSTS = "max-age=63072000; includeSubDomains"

// aeadOnly is a well-configured TLS 1.2 suite list (Mozilla intermediate).
var aeadOnly = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

func serverConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, CipherSuites: aeadOnly}
}

func TestRunFindsPlantedWeaknesses(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	ca := newCA(t, "secscan test root")
	otherCA := newCA(t, "unknown private CA")
	now := time.Now()
	rsa2048 := newRSAKey(t, 2048)

	type want map[string]scans.Severity
	cases := []struct {
		host  string
		setup func(t *testing.T) int // starts the server, returns its port
		want  want
		note  string // substring of the outcome
	}{
		{
			host: "good.scan.test", want: want{},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"good.scan.test"}})), goodHSTS)
			},
			note: "HSTS: max-age=63072000",
		},
		{
			host: "expired.scan.test", want: want{"TLS certificate expired": scans.High},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"expired.scan.test"},
					notBefore: now.Add(-400 * 24 * time.Hour), notAfter: now.Add(-24 * time.Hour)})), goodHSTS)
			},
		},
		{
			host: "future.scan.test", want: want{"TLS certificate not yet valid": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"future.scan.test"},
					notBefore: now.Add(48 * time.Hour), notAfter: now.Add(400 * 24 * time.Hour)})), goodHSTS)
			},
		},
		{
			host: "soon.scan.test", want: want{"TLS certificate expires within 30 days": scans.Low},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"soon.scan.test"},
					notAfter: now.Add(20 * 24 * time.Hour)})), goodHSTS)
			},
		},
		{
			host: "urgent.scan.test", want: want{"TLS certificate expires within 30 days": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"urgent.scan.test"},
					notAfter: now.Add(3 * 24 * time.Hour)})), goodHSTS)
			},
		},
		{
			host: "selfsigned.scan.test", want: want{"Self-signed TLS certificate": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"selfsigned.scan.test"}, selfSigned: true})), goodHSTS)
			},
		},
		{
			host: "untrusted.scan.test", want: want{"TLS certificate chain not trusted": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(otherCA.issue(t, leafSpec{names: []string{"untrusted.scan.test"}})), goodHSTS)
			},
		},
		{
			host: "wrong.scan.test", want: want{"TLS certificate does not match the host name": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"www.other.example", "other.example"}})), goodHSTS)
			},
		},
		{
			host: "rsa1024.scan.test", want: want{"TLS certificate RSA key shorter than 2048 bits": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"rsa1024.scan.test"}, key: newRSAKey(t, 1024)})), goodHSTS)
			},
		},
		{
			host: "sha1.scan.test", want: want{"TLS certificate signed with SHA-1 or MD5": scans.Medium},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"sha1.scan.test"}, sigAlg: x509.ECDSAWithSHA1})), goodHSTS)
			},
		},
		{
			// A TLS 1.0-only server: every TLS 1.0 suite is CBC.
			host: "tls10.scan.test", want: want{"TLS 1.0 accepted": scans.Medium, "CBC-mode cipher suites accepted": scans.Low},
			setup: func(t *testing.T) int {
				cfg := serverConfig(ca.issue(t, leafSpec{names: []string{"tls10.scan.test"}}))
				cfg.MinVersion, cfg.MaxVersion, cfg.CipherSuites = tls.VersionTLS10, tls.VersionTLS10, nil
				return startTLS(t, cfg, goodHSTS)
			},
			note: "TLS 1.0, TLS_ECDHE_ECDSA_WITH",
		},
		{
			host: "tls11.scan.test", want: want{"TLS 1.1 accepted": scans.Medium, "CBC-mode cipher suites accepted": scans.Low},
			setup: func(t *testing.T) int {
				cfg := serverConfig(ca.issue(t, leafSpec{names: []string{"tls11.scan.test"}}))
				cfg.MinVersion = tls.VersionTLS11
				cfg.CipherSuites = append(slices.Clone(aeadOnly), tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA) // TLS 1.1 has no AEAD suite
				return startTLS(t, cfg, goodHSTS)
			},
		},
		{
			host: "weak.scan.test",
			want: want{
				"RC4 cipher suites accepted":                                        scans.High,
				"3DES cipher suites accepted (SWEET32)":                             scans.Medium,
				"Cipher suites without forward secrecy accepted (RSA key exchange)": scans.Low,
			},
			setup: func(t *testing.T) int {
				cfg := serverConfig(ca.issue(t, leafSpec{names: []string{"weak.scan.test"}, key: rsa2048}))
				cfg.MaxVersion = tls.VersionTLS12
				cfg.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_RC4_128_SHA,
					tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, tls.TLS_RSA_WITH_AES_128_GCM_SHA256}
				return startTLS(t, cfg, goodHSTS)
			},
		},
		{
			host: "nohsts.scan.test", want: want{"Missing Strict-Transport-Security header": scans.Low},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"nohsts.scan.test"}})), "")
			},
		},
		{
			host: "hsts0.scan.test", want: want{"Missing Strict-Transport-Security header": scans.Low},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"hsts0.scan.test"}})), "max-age=0")
			},
		},
		{
			host: "shorthsts.scan.test", want: want{"Weak Strict-Transport-Security max-age": scans.Low},
			setup: func(t *testing.T) int {
				return startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"shorthsts.scan.test"}})), `max-age="86400"`)
			},
		},
		{
			// Not an HTTPS server (e.g. SMTPS): no HSTS verdict either way.
			host: "nothttp.scan.test", want: want{},
			setup: func(t *testing.T) int {
				return startPlainTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"nothttp.scan.test"}})))
			},
			note: "HSTS: not checked",
		},
	}

	tool := New(Options{RootCAs: ca.pool()})
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			port := tc.setup(t)
			input := fmt.Sprintf(`{"host": %q, "port": %d}`, tc.host, port)
			res, err := tool.Run(context.Background(), env, json.RawMessage(input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("outcome: %s", res.Outcome)
			if !strings.Contains(res.Outcome, tc.note) {
				t.Errorf("outcome %q does not mention %q", res.Outcome, tc.note)
			}
			got := map[string]scans.Finding{}
			for _, f := range res.Findings {
				got[f.Title] = f
				t.Logf("%s [%s]: %s", f.Title, f.Severity, f.Evidence)
				checkFindingShape(t, f, tc.host, port)
			}
			scantest.WantFindings(t, got, tc.want)
			if len(res.Services) != 1 || res.Services[0].Port != port {
				t.Errorf("services = %+v", res.Services)
			}
		})
	}
}

func checkFindingShape(t *testing.T, f scans.Finding, host string, port int) {
	t.Helper()
	c, ok := checks.Lookup(f.Check)
	if !ok || !slices.Contains(emitted, c) {
		t.Errorf("finding %q: check %q is not one tls_check declares", f.Title, f.Check)
	} else if f.Category != c.Category {
		t.Errorf("finding %q: category %s, the catalogue says %s", f.Title, f.Category, c.Category)
	}
	if f.Host != host || f.Port == nil || *f.Port != port {
		t.Errorf("finding %q: category %s host %s port %v", f.Title, f.Category, f.Host, f.Port)
	}
	if f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("finding %q lacks evidence, description, remediation or references", f.Title)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("finding %q: reference %q is not an https URL", f.Title, ref)
		}
	}
	if f.Proof == nil || f.Proof.Kind != scans.ProofTranscript || !strings.Contains(f.Proof.Request, "connect ") && !strings.HasPrefix(f.Proof.Request, "GET https://") {
		t.Errorf("finding %q: proof %+v", f.Title, f.Proof)
	}
	if f.Check != checks.CertExpiringSoon.Code && (f.CWE == nil || !strings.HasPrefix(*f.CWE, "CWE-")) {
		t.Errorf("finding %q: CWE = %v", f.Title, f.CWE)
	}
}

// TestRunDefaults: without input the tool checks the scan's domain on the
// environment's HTTPS port.
func TestRunDefaults(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	ca := newCA(t, "secscan test root")
	port := startTLS(t, serverConfig(ca.issue(t, leafSpec{names: []string{"scan.test"}})), goodHSTS)
	env.Ports.HTTPS = port
	res, err := New(Options{RootCAs: ca.pool()}).Run(context.Background(), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || !strings.HasPrefix(res.Outcome, fmt.Sprintf("scan.test:%d: TLS 1.3", port)) ||
		res.Services[0].Name != "https" {
		t.Errorf("outcome %q, findings %+v, services %+v", res.Outcome, res.Findings, res.Services)
	}
}

// TestRunNotTLS: a port that does not speak TLS is an error, not a clean
// result.
func TestRunNotTLS(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	ln := scantest.LocalListener(t)
	scantest.Greet(ln, "SSH-2.0-OpenSSH_9.6\r\n", 0)
	port := ln.Addr().(*net.TCPAddr).Port
	res, err := New(Options{}).Run(context.Background(), env, json.RawMessage(fmt.Sprintf(`{"host": "good.scan.test", "port": %d}`, port)))
	if err == nil || tools.IsInputError(err) || len(res.Findings) != 0 {
		t.Errorf("Run = %+v, %v; want a plain error", res, err)
	}
}

// TestRunRefusesBadInput: refused inputs return an InputError and connect
// nowhere.
func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	privateEnv := testEnv(t, false)
	ln := scantest.LocalListener(t)
	accepted := scantest.Serve(t, ln, func(net.Conn) {})
	p := ln.Addr().(*net.TCPAddr).Port

	cases := []struct {
		name  string
		env   tools.Env
		input string
	}{
		{"out of scope host", env, fmt.Sprintf(`{"host": "example.com", "port": %d}`, p)},
		{"look-alike host", env, fmt.Sprintf(`{"host": "notscan.test", "port": %d}`, p)},
		{"IP literal", env, fmt.Sprintf(`{"host": "127.0.0.1", "port": %d}`, p)},
		{"port zero", env, `{"host": "good.scan.test", "port": 0}`},
		{"port too high", env, `{"host": "good.scan.test", "port": 65536}`},
		{"port as string", env, `{"host": "good.scan.test", "port": "443"}`},
		{"unknown field", env, fmt.Sprintf(`{"host": "good.scan.test", "port": %d, "sni": "x"}`, p)},
		{"oversized input", env, `{"host": "` + strings.Repeat("a", 20000) + `.scan.test"}`},
		{"private address not allowed", privateEnv, fmt.Sprintf(`{"host": "good.scan.test", "port": %d}`, p)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Options{}).Run(context.Background(), tc.env, json.RawMessage(tc.input))
			if !tools.IsInputError(err) {
				t.Fatalf("error = %v, want an input error", err)
			}
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("refused inputs made %d connections", n)
	}
}

// A name resolving to a forbidden address is refused in the shared wording
// (as verification and webhooks word it), naming the host and never the
// address it resolved to.
func TestRunRefusalHidesTheAddress(t *testing.T) {
	t.Parallel()
	_, err := New(Options{}).Run(context.Background(), testEnv(t, false), json.RawMessage(`{"host": "good.scan.test", "port": 443}`))
	scantest.WantAddressRefusal(t, err, "good.scan.test")
}

func TestToolContract(t *testing.T) {
	t.Parallel()
	tool := New(Options{})
	scantest.CheckContract(t, tool, "tls_check", 5)
	// The main handshake, the probes (probeConcurrency at a time, plus the
	// HSTS request) each within handshakeTimeout, fit the bound.
	rounds := (len(probes) + 1 + probeConcurrency - 1) / probeConcurrency
	if worst := time.Duration(1+rounds) * max(handshakeTimeout, hstsTimeout); worst >= tool.Timeout() {
		t.Errorf("worst case %s exceeds the bound %s", worst, tool.Timeout())
	}
}

func TestHSTSMaxAge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		value string
		age   int64
		ok    bool
	}{
		{"max-age=31536000; includeSubDomains; preload", 31536000, true},
		{`MAX-AGE="600"`, 600, true},
		{"includeSubDomains; max-age=0", 0, true},
		{"includeSubDomains", 0, false},
		{"max-age=-1", 0, false},
		{"max-age=abc", 0, false},
	}
	for _, tc := range cases {
		age, ok := hstsMaxAge(tc.value)
		if age != tc.age || ok != tc.ok {
			t.Errorf("hstsMaxAge(%q) = %d, %v; want %d, %v", tc.value, age, ok, tc.age, tc.ok)
		}
	}
}

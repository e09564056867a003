package verification

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
)

const testToken = "service-verify-0123456789abcdefghijklmnopqrstuvw"

// testCertificate is a self-signed certificate for the test names, made once.
var testCertificate = sync.OnceValues(func() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "example.test"},
		DNSNames:              []string{"example.test", "*.example.test", "other.test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
})

// webEnv is a local DNS server naming example.test, www.example.test and
// other.test as 127.0.0.1, an https server and a plain http server.
type webEnv struct {
	res           *resolver.Resolver
	https, http   *httptest.Server
	pool          *x509.CertPool
	requests      atomic.Int64 // requests seen by either server
	hostsMu       sync.Mutex
	hosts         []string // Host headers seen, in order
	release       chan struct{}
	httpsPort     int
	httpPort      int
	httpsPortOver int // when set, the https attempt uses this port instead
}

func newWebEnv(t *testing.T, httpsHandler, httpHandler http.HandlerFunc) *webEnv {
	t.Helper()
	cert, err := testCertificate()
	if err != nil {
		t.Fatal(err)
	}
	e := &webEnv{release: make(chan struct{})}

	dnsSrv := resolvertest.Start(t)
	dnsSrv.Add(t,
		"example.test. A 127.0.0.1",
		"www.example.test. A 127.0.0.1",
		"other.test. A 127.0.0.1",
	)
	e.res, err = resolver.New(dnsSrv.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	wrap := func(h http.HandlerFunc) http.Handler {
		if h == nil {
			h = func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			e.requests.Add(1)
			e.hostsMu.Lock()
			e.hosts = append(e.hosts, r.Host)
			e.hostsMu.Unlock()
			h(w, r)
		})
	}
	quiet := log.New(io.Discard, "", 0) // TLS failures are expected in some cases

	e.https = httptest.NewUnstartedServer(wrap(httpsHandler))
	e.https.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	e.https.Config.ErrorLog = quiet
	e.https.StartTLS()
	e.http = httptest.NewServer(wrap(httpHandler))
	e.http.Config.ErrorLog = quiet
	// Cleanups run last-in first-out: hanging handlers are released before
	// the servers wait for them.
	t.Cleanup(e.https.Close)
	t.Cleanup(e.http.Close)
	t.Cleanup(func() { close(e.release) })

	e.pool = x509.NewCertPool()
	e.pool.AddCert(e.https.Certificate())
	e.httpsPort = e.https.Listener.Addr().(*net.TCPAddr).Port
	e.httpPort = e.http.Listener.Addr().(*net.TCPAddr).Port
	return e
}

func (e *webEnv) verifier(policy netguard.Policy, timeout time.Duration) *Verifier {
	httpsPort := e.httpsPort
	if e.httpsPortOver != 0 {
		httpsPort = e.httpsPortOver
	}
	return &Verifier{
		Resolver:  e.res,
		Dialer:    netguard.New(e.res, policy),
		HTTPSPort: httpsPort,
		HTTPPort:  e.httpPort,
		RootCAs:   e.pool,
		Timeout:   timeout,
	}
}

func (e *webEnv) seenHosts() []string {
	e.hostsMu.Lock()
	defer e.hostsMu.Unlock()
	return append([]string(nil), e.hosts...)
}

// serveBody answers the challenge path with body and 404 elsewhere.
func serveBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != WellKnownPath {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	}
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

// redirectHost sends the challenge path to the same path on host, keeping
// the scheme and port of the request.
func redirectHost(scheme, host string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hostname, port, _ := net.SplitHostPort(r.Host)
		if hostname == host {
			serveBody(testToken)(w, r) // arrived: serve the token
			return
		}
		http.Redirect(w, r, scheme+"://"+net.JoinHostPort(host, port)+WellKnownPath, http.StatusFound)
	}
}

// redirectChain redirects the challenge path n times (to /hop1 ... /hopN)
// and serves the token at the end.
func redirectChain(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hop := 0
		if r.URL.Path != WellKnownPath {
			if _, err := fmt.Sscanf(r.URL.Path, "/hop%d", &hop); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		if hop == n {
			io.WriteString(w, testToken)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop%d", hop+1), http.StatusMovedPermanently)
	}
}

func TestVerifyHTTPFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		https, http http.HandlerFunc
		httpsMode   string // "" (TLS server), "plain" (http server on the https port), "closed"
		strict      bool   // AllowPrivate off: loopback is refused
		timeout     time.Duration
		hangHTTPS   bool
		hangHTTP    bool
		wantOK      bool
		wantDetail  []string // substrings, in order
	}{
		{
			name:   "found over https",
			https:  serveBody(testToken),
			http:   status(http.StatusInternalServerError),
			wantOK: true,
		},
		{
			name:   "found over https with surrounding whitespace",
			https:  serveBody("\n  " + testToken + "\r\n"),
			wantOK: true,
		},
		{
			name:   "https 500, found over http",
			https:  status(http.StatusInternalServerError),
			http:   serveBody(testToken),
			wantOK: true,
		},
		{
			name:      "https port speaks plain http, found over http",
			httpsMode: "plain",
			http:      serveBody(testToken),
			wantOK:    true,
		},
		{
			name:      "https refused, found over http",
			httpsMode: "closed",
			http:      serveBody(testToken),
			wantOK:    true,
		},
		{
			name:   "https wrong body, found over http",
			https:  serveBody("something else"),
			http:   serveBody(testToken),
			wantOK: true,
		},
		{
			name:      "404 on both",
			httpsMode: "closed",
			wantDetail: []string{
				"https://example.test:", "/.well-known/service-challenge.txt: connection refused; ",
				"http://example.test:", "/.well-known/service-challenge.txt: HTTP 404",
			},
		},
		{
			name:       "wrong body",
			https:      serveBody("xyz"),
			http:       serveBody("xyz\n"),
			wantDetail: []string{`: body does not match the verification token (found "xyz"); `, `: body does not match the verification token (found "xyz")`},
		},
		{
			name:       "token inside a larger body",
			https:      serveBody("token: " + testToken),
			wantDetail: []string{`body does not match the verification token (found "token: service-verify-`},
		},
		{
			name:       "body over 4 KiB",
			https:      serveBody(testToken + strings.Repeat(" ", 5000)),
			http:       serveBody(strings.Repeat("x", 4097)),
			wantDetail: []string{"the body is larger than 4 KiB", "the body is larger than 4 KiB"},
		},
		{
			name:   "body of exactly 4 KiB",
			https:  serveBody(testToken + strings.Repeat(" ", 4096-len(testToken))),
			wantOK: true,
		},
		{
			name:       "control characters in body are stripped",
			https:      serveBody("\x1b[2Jgotcha\u202e"),
			wantDetail: []string{`(found "[2Jgotcha")`},
		},
		{
			name:   "redirect to a subdomain is followed",
			https:  redirectHost("https", "www.example.test"),
			http:   status(http.StatusTeapot),
			wantOK: true,
		},
		{
			name:       "redirect to another domain is refused",
			https:      redirectHost("https", "other.test"),
			http:       redirectHost("http", "other.test"),
			wantDetail: []string{`redirected to "https://other.test:`, `which is outside example.test; `, `redirected to "http://other.test:`},
		},
		{
			name:       "redirect to a look-alike domain is refused",
			https:      redirectHost("https", "badexample.test"),
			wantDetail: []string{`redirected to "https://badexample.test:`, "which is outside example.test"},
		},
		{
			name:   "three redirects are followed",
			https:  redirectChain(3),
			wantOK: true,
		},
		{
			name:       "four redirects are refused",
			https:      redirectChain(4),
			http:       redirectChain(4),
			wantDetail: []string{"more than 3 redirects", "more than 3 redirects"},
		},
		{
			name:       "hanging servers time out",
			hangHTTPS:  true,
			hangHTTP:   true,
			timeout:    600 * time.Millisecond,
			wantDetail: []string{": timed out after ", "; http://", ": timed out after "},
		},
		{
			name:      "hanging https leaves time for http",
			hangHTTPS: true,
			http:      serveBody(testToken),
			timeout:   600 * time.Millisecond,
			wantOK:    true,
		},
		{
			name:   "loopback refused without AllowPrivate",
			https:  serveBody(testToken),
			http:   serveBody(testToken),
			strict: true,
			wantDetail: []string{
				"service-challenge.txt: refused: example.test resolves to a non-public address (private networks are not allowed); http://",
				"service-challenge.txt: refused: example.test resolves to a non-public address",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var e *webEnv
			hangOr := func(hang bool, h http.HandlerFunc) http.HandlerFunc {
				if !hang {
					return h
				}
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-e.release:
					}
				}
			}
			e = newWebEnv(t, hangOr(tt.hangHTTPS, tt.https), hangOr(tt.hangHTTP, tt.http))
			switch tt.httpsMode {
			case "plain":
				e.httpsPortOver = e.httpPort
			case "closed":
				e.httpsPortOver = closedPort(t)
			}
			policy := netguard.Policy{AllowPrivate: !tt.strict}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}

			err := e.verifier(policy, timeout).Verify(context.Background(), MethodHTTPFile, "example.test", testToken)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Verify = %v, want success", err)
				}
				return
			}
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("Verify = %v (%T), want *Failure", err, err)
			}
			t.Logf("detail: %s", f.Detail)
			rest := f.Detail
			for _, want := range tt.wantDetail {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("detail %q\nlacks (in order) %q", f.Detail, want)
				}
				rest = rest[i+len(want):]
			}
			if tt.strict && strings.Contains(f.Detail, "127.0.0.1") {
				t.Errorf("detail %q reveals what the name resolves to", f.Detail)
			}
			if tt.strict && e.requests.Load() != 0 {
				t.Errorf("servers saw %d requests, want none", e.requests.Load())
			}
		})
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func TestVerifyHTTPFileRequestShape(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		problems []string
	)
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	https := func(w http.ResponseWriter, r *http.Request) {
		if ua := r.Header.Get("User-Agent"); ua != "ServiceVerifier/1.0" {
			report("User-Agent %q", ua)
		}
		if r.Method != http.MethodGet {
			report("method %s", r.Method)
		}
		switch r.URL.Path {
		case WellKnownPath:
			// A cookie set here must not come back on the redirect.
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "tracking", Path: "/"})
			http.Redirect(w, r, "/next", http.StatusFound)
		case "/next":
			if c := r.Header.Get("Cookie"); c != "" {
				report("cookie sent back: %q", c)
			}
			io.WriteString(w, testToken)
		default:
			http.NotFound(w, r)
		}
	}
	e := newWebEnv(t, https, nil)
	if err := e.verifier(netguard.Policy{AllowPrivate: true}, 5*time.Second).
		Verify(context.Background(), MethodHTTPFile, "Example.Test.", testToken); err != nil {
		t.Fatalf("Verify = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	// https succeeded, so http was never asked; the Host is the domain with
	// the https port.
	want := []string{fmt.Sprintf("example.test:%d", e.httpsPort), fmt.Sprintf("example.test:%d", e.httpsPort)}
	if got := e.seenHosts(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests went to %v, want %v", got, want)
	}
}

func TestVerifyHTTPFileOutOfScopeRedirectNeverConnects(t *testing.T) {
	t.Parallel()
	e := newWebEnv(t, redirectHost("https", "other.test"), nil)
	err := e.verifier(netguard.Policy{AllowPrivate: true}, 5*time.Second).
		Verify(context.Background(), MethodHTTPFile, "example.test", testToken)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Verify = %v, want *Failure", err)
	}
	for _, host := range e.seenHosts() {
		if strings.HasPrefix(host, "other.test") {
			t.Errorf("the verifier followed a redirect to %s", host)
		}
	}
}

func TestVerifyHTTPFileDNSFailures(t *testing.T) {
	t.Parallel()
	e := newWebEnv(t, nil, nil)
	err := e.verifier(netguard.Policy{AllowPrivate: true}, 5*time.Second).
		Verify(context.Background(), MethodHTTPFile, "missing.test", testToken)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Verify = %v, want *Failure", err)
	}
	want := fmt.Sprintf("https://missing.test:%d/.well-known/service-challenge.txt: missing.test does not exist (NXDOMAIN); "+
		"http://missing.test:%d/.well-known/service-challenge.txt: missing.test does not exist (NXDOMAIN)", e.httpsPort, e.httpPort)
	if f.Detail != want {
		t.Errorf("detail\n got: %s\nwant: %s", f.Detail, want)
	}
}

func TestVerifyHTTPFileUntrustedCertificate(t *testing.T) {
	t.Parallel()
	e := newWebEnv(t, serveBody(testToken), nil)
	v := e.verifier(netguard.Policy{AllowPrivate: true}, 5*time.Second)
	v.RootCAs = x509.NewCertPool() // trusts nothing
	err := v.Verify(context.Background(), MethodHTTPFile, "example.test", testToken)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Verify = %v, want *Failure", err)
	}
	if !strings.Contains(f.Detail, "TLS certificate not accepted") || !strings.Contains(f.Detail, "HTTP 404") {
		t.Errorf("detail = %q, want a TLS failure then HTTP 404", f.Detail)
	}
}

func TestVerifyHTTPFileCallerCancellation(t *testing.T) {
	t.Parallel()
	var e *webEnv
	started := make(chan struct{}, 2)
	hang := func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-e.release:
		}
	}
	e = newWebEnv(t, hang, hang)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	err := e.verifier(netguard.Policy{AllowPrivate: true}, 10*time.Second).
		Verify(ctx, MethodHTTPFile, "example.test", testToken)
	var f *Failure
	if !errors.Is(err, context.Canceled) || errors.As(err, &f) {
		t.Fatalf("Verify = %v, want context.Canceled and no *Failure", err)
	}
}

func TestChallengeURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scheme      string
		port, deflt int
		want        string
	}{
		{"https", 0, 443, "https://example.com/.well-known/service-challenge.txt"},
		{"https", 443, 443, "https://example.com/.well-known/service-challenge.txt"},
		{"https", 8443, 443, "https://example.com:8443/.well-known/service-challenge.txt"},
		{"http", 0, 80, "http://example.com/.well-known/service-challenge.txt"},
		{"http", 8080, 80, "http://example.com:8080/.well-known/service-challenge.txt"},
	}
	for _, tt := range tests {
		if got := challengeURL(tt.scheme, "example.com", tt.port, tt.deflt); got != tt.want {
			t.Errorf("challengeURL(%s, %d) = %s, want %s", tt.scheme, tt.port, got, tt.want)
		}
	}
}

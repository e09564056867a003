package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
)

// testNet is a loopback listener reachable as app.example.test through a
// local DNS server.
type testNet struct {
	dns      *resolvertest.Server
	resolver *resolver.Resolver
	listener net.Listener
	port     int
}

func newTestNet(t *testing.T) *testNet {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	srv := resolvertest.Start(t)
	srv.Add(t,
		"app.example.test. A 127.0.0.1",
		"v6.example.test. AAAA ::1",
		// 127.0.0.2 refuses (the listener is bound to 127.0.0.1 only), so
		// the dialer must move on to 127.0.0.1.
		"fallback.example.test. A 127.0.0.2",
		"fallback.example.test. A 127.0.0.1",
		// Listed first so that even a broken guard would connect to loopback
		// and never send a packet to the metadata address.
		"mixed.example.test. A 127.0.0.1",
		"mixed.example.test. A 169.254.169.254",
		"mapped.example.test. AAAA ::ffff:127.0.0.1",
		`txt.example.test. TXT "no addresses here"`,
	)
	res, err := resolver.New(srv.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &testNet{dns: srv, resolver: res, listener: ln, port: ln.Addr().(*net.TCPAddr).Port}
}

func (n *testNet) addr(host string) string {
	return net.JoinHostPort(host, fmt.Sprint(n.port))
}

// dialMarker connects with a permissive dialer and sends a marker, then
// returns the marker read from the first connection the listener accepts:
// if an earlier (refused) dial had reached the listener, its connection
// would be accepted first and the marker would not match.
func (n *testNet) firstAcceptedIsMarker(t *testing.T) bool {
	t.Helper()
	conn, err := New(n.resolver, Policy{AllowPrivate: true}).DialContext(context.Background(), "tcp", n.addr("app.example.test"))
	if err != nil {
		t.Fatalf("marker dial: %v", err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "marker"); err != nil {
		t.Fatal(err)
	}
	accepted, err := n.listener.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	_ = accepted.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, len("marker"))
	_, err = io.ReadFull(accepted, buf)
	return err == nil && string(buf) == "marker"
}

func TestDialAllowPrivateReachesLoopbackByName(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	d := New(n.resolver, Policy{AllowPrivate: true})
	for _, host := range []string{"app.example.test", "fallback.example.test", "v6.example.test", "mapped.example.test", "127.0.0.1"} {
		conn, err := d.DialContext(context.Background(), "tcp", n.addr(host))
		if host == "v6.example.test" {
			// The listener is IPv4 only: the connection is attempted (and
			// refused), proving ::1 passed the policy.
			if err == nil || errors.Is(err, ErrForbiddenAddress) {
				t.Errorf("dial %s: err = %v, want connection refused", host, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("dial %s: %v", host, err)
		}
		accepted, err := n.listener.Accept()
		if err != nil {
			t.Fatal(err)
		}
		accepted.Close()
		conn.Close()
	}
}

func TestDialRefusesLoopbackWithoutAllowPrivate(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	d := New(n.resolver, Policy{})
	tests := []struct {
		address string
		want    string
	}{
		{n.addr("app.example.test"), "app.example.test resolves to a non-public address; private networks are not allowed"},
		{n.addr("127.0.0.1"), "127.0.0.1 is a loopback address; private networks are not allowed"},
		{n.addr("::ffff:127.0.0.1"), "::ffff:127.0.0.1 is an IPv4-mapped form of 127.0.0.1"},
		{n.addr("mapped.example.test"), "mapped.example.test resolves to a non-public address"},
		{n.addr("fallback.example.test"), "fallback.example.test resolves to a non-public address"},
	}
	for _, tt := range tests {
		conn, err := d.DialContext(context.Background(), "tcp", tt.address)
		if err == nil {
			conn.Close()
			t.Fatalf("dial %s succeeded, want refusal", tt.address)
		}
		if !errors.Is(err, ErrForbiddenAddress) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("dial %s: err = %q, want ErrForbiddenAddress mentioning %q", tt.address, err, tt.want)
		}
		if host, _, _ := net.SplitHostPort(tt.address); net.ParseIP(host) == nil && strings.Contains(err.Error(), "127.0.0") {
			t.Errorf("dial %s: err = %q reveals what the name resolves to", tt.address, err)
		}
	}
	if !n.firstAcceptedIsMarker(t) {
		t.Error("a refused dial reached the listener")
	}
}

func TestDialRefusesNameWithAnyForbiddenAddress(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	d := New(n.resolver, Policy{AllowPrivate: true})
	_, err := d.DialContext(context.Background(), "tcp", n.addr("mixed.example.test"))
	var refused *AddressError
	if !errors.As(err, &refused) || refused.Addr.String() != "169.254.169.254" || refused.Private {
		t.Fatalf("err = %v, want a refusal of 169.254.169.254", err)
	}
	// What the name resolved to stays out of the text (security review item 6).
	if strings.Contains(err.Error(), "169.254") || !strings.Contains(err.Error(), "resolves to a non-public address") {
		t.Fatalf("err = %q reveals the resolved address", err)
	}
	if !n.firstAcceptedIsMarker(t) {
		t.Error("the allowed address of a refused name was dialled")
	}
}

func TestDialIPLiteralSkipsDNS(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	if _, err := New(n.resolver, Policy{}).DialContext(context.Background(), "tcp", n.addr("127.0.0.1")); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("err = %v, want ErrForbiddenAddress", err)
	}
	conn, err := New(nil, Policy{AllowPrivate: true}).DialContext(context.Background(), "tcp4", n.addr("127.0.0.1"))
	if err != nil {
		t.Fatalf("dial literal without resolver: %v", err)
	}
	conn.Close()
	if q := n.dns.Queries("udp") + n.dns.Queries("tcp"); q != 0 {
		t.Errorf("dialling IP literals made %d DNS queries", q)
	}
}

func TestDialErrors(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	d := New(n.resolver, Policy{AllowPrivate: true})
	tests := []struct {
		network, address string
		wantIs           error
		wantText         string
	}{
		{"unix", "/tmp/sock", nil, "network not supported"},
		{"ip4:icmp", "127.0.0.1", nil, "network not supported"},
		{"tcp", "app.example.test", nil, "missing port"},
		{"tcp", "app.example.test:http", nil, "invalid port"},
		{"tcp", "app.example.test:70000", nil, "invalid port"},
		{"tcp", "missing.example.test:80", resolver.ErrNXDomain, ""},
		{"tcp6", n.addr("app.example.test"), nil, "no tcp6 address"},
		{"tcp4", n.addr("v6.example.test"), nil, "no tcp4 address"},
		{"tcp", "txt.example.test:80", resolver.ErrNoRecords, ""},
	}
	for _, tt := range tests {
		_, err := d.DialContext(context.Background(), tt.network, tt.address)
		if err == nil {
			t.Errorf("DialContext(%q, %q) succeeded", tt.network, tt.address)
			continue
		}
		if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
			t.Errorf("DialContext(%q, %q) = %v, want %v", tt.network, tt.address, err, tt.wantIs)
		}
		if tt.wantText != "" && !strings.Contains(err.Error(), tt.wantText) {
			t.Errorf("DialContext(%q, %q) = %v, want it to mention %q", tt.network, tt.address, err, tt.wantText)
		}
	}
	if _, err := New(nil, Policy{AllowPrivate: true}).DialContext(context.Background(), "tcp", "app.example.test:80"); err == nil ||
		!strings.Contains(err.Error(), "no resolver") {
		t.Errorf("dial a name without resolver: %v", err)
	}
}

func TestDialRespectsContext(t *testing.T) {
	t.Parallel()
	n := newTestNet(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(n.resolver, Policy{AllowPrivate: true}).DialContext(ctx, "tcp", n.addr("127.0.0.1"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("dial with a cancelled context: %v", err)
	}
}

func TestHTTPClient(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate case logs a handshake error
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tlsConfig := &tls.Config{RootCAs: pool}

	n := newTestNet(t)
	client := New(n.resolver, Policy{AllowPrivate: true}).HTTPClient(5*time.Second, tlsConfig)
	tr := client.Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Error("transport uses a proxy")
	}
	if tr.TLSClientConfig == tlsConfig || tr.TLSClientConfig.RootCAs != pool {
		t.Error("TLS config is not a clone of the given one")
	}
	if client.Timeout != 5*time.Second {
		t.Errorf("timeout = %s", client.Timeout)
	}

	// httptest's URL is https://127.0.0.1:port, which its certificate covers.
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET %s: %v", srv.URL, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Errorf("body = %q", body)
	}
	client.CloseIdleConnections()

	strict := New(n.resolver, Policy{}).HTTPClient(5*time.Second, tlsConfig)
	_, err = strict.Get(srv.URL)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("strict GET %s: %v, want ErrForbiddenAddress", srv.URL, err)
	}

	// Without the test pool the certificate is rejected: TLS stays on.
	if _, err := New(n.resolver, Policy{AllowPrivate: true}).HTTPClient(5*time.Second, nil).Get(srv.URL); err == nil {
		t.Error("GET with system roots accepted httptest's certificate")
	}
}

func TestHTTPClientIgnoresEnvironmentProxy(t *testing.T) {
	// Not parallel: it sets environment variables.
	var proxied atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Store(true)
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(proxy.Close)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "direct")
	}))
	t.Cleanup(target.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")

	client := New(nil, Policy{AllowPrivate: true}).HTTPClient(5*time.Second, nil)
	resp, err := client.Get(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if proxied.Load() || string(body) != "direct" {
		t.Errorf("request went through the environment proxy (body %q)", body)
	}
}

package plainerr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestTextRewritesGoErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"dial tcp 127.0.0.2:53: connect: connection refused", "connection refused"},
		{"Tool error: dial tcp [::1]:443: connect: connection refused", "Tool error: connection refused"},
		{"ns1: read udp 127.0.0.1:53124->127.0.0.2:53: i/o timeout", "ns1: timed out"},
		{"lookup nope.example on 127.0.0.53:53: no such host", "the name does not exist"},
		{`Get "https://demo.secscan.test:8443/": context deadline exceeded`, "timed out"},
		{"read tcp 127.0.0.1:4444->127.0.0.1:8080: read: connection reset by peer", "connection reset"},
		{"remote error: tls: handshake failure", "the server's TLS alert: handshake failure"},
		{"x509: certificate signed by unknown authority", "certificate signed by unknown authority"},
		{"got %!d(string=x) and <nil>", "got and none"},
		{"SPF +all; 1 finding", "SPF +all; 1 finding"},
		{"http://demo.secscan.test:8080: 200 OK", "http://demo.secscan.test:8080: 200 OK"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, p := range GoErrorPatterns {
			if strings.Contains(Text(c.in), p) {
				t.Errorf("Text(%q) still holds %q", c.in, p)
			}
		}
	}
}

// TestDescribeRealErrors classifies errors from real dials on loopback.
func TestDescribeRealErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = (&net.Dialer{Timeout: 2 * time.Second}).Dial("tcp", addr)
	if got := Describe(err); got != "connection refused" {
		t.Errorf("refused dial: %q (from %v)", got, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if got := Describe(err); got != "timed out" {
		t.Errorf("expired dial: %q (from %v)", got, err)
	}
	wrapped := fmt.Errorf("probe: %w", errors.New("dial udp 127.0.0.2:53: connect: connection refused"))
	if got := Describe(wrapped); got != "probe: connection refused" {
		t.Errorf("wrapped text: %q", got)
	}
}

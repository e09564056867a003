package scantest

import (
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/tools"
)

// connDeadline bounds each connection Serve hands to a handler, so a stuck
// exchange cannot hold up the test's end.
const connDeadline = 10 * time.Second

// LocalListener listens on an ephemeral port of 127.0.0.1 until the test
// ends.
func LocalListener(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// Serve accepts connections on ln in the background and runs handle on
// each, in its own goroutine, with a deadline of connDeadline; the
// connection is closed when handle returns. When the test ends ln is
// closed and every handler waited for. It returns the number of
// connections accepted so far.
func Serve(t testing.TB, ln net.Listener, handle func(net.Conn)) *atomic.Int64 {
	t.Helper()
	var accepted atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(connDeadline))
				handle(c)
			})
		}
	})
	return &accepted
}

// WantAddressRefusal fails t unless err is the input error that refuses
// host for resolving to a private address, worded as verification and
// webhooks word it: the name, never the address it resolved to, nor its
// class.
func WantAddressRefusal(t testing.TB, err error, host string) {
	t.Helper()
	var ie *tools.InputError
	want := (&netguard.AddressError{Host: host, Private: true}).Plain()
	if !errors.As(err, &ie) || ie.Reason != want {
		t.Fatalf("error = %v, want an input error %q", err, want)
	}
	if strings.Contains(ie.Reason, "127.0.0.1") || strings.Contains(ie.Reason, "loopback") {
		t.Errorf("refusal %q reveals the address", ie.Reason)
	}
}

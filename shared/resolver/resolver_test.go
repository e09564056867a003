package resolver

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver/resolvertest"
)

// newTestResolver starts a local DNS server with a small zone and returns a
// resolver pointed at it.
func newTestResolver(t *testing.T, timeout time.Duration) (*Resolver, *resolvertest.Server) {
	t.Helper()
	srv := resolvertest.Start(t)
	srv.Add(t,
		"v4.example.test. A 192.0.2.1",
		"v4.example.test. A 192.0.2.2",
		"v6.example.test. AAAA 2001:db8::1",
		"dual.example.test. A 192.0.2.3",
		"dual.example.test. AAAA 2001:db8::3",
		"alias.example.test. CNAME mid.example.test.",
		"mid.example.test. CNAME dual.example.test.",
		"dangling.example.test. CNAME nowhere.example.test.",
		"txtonly.example.test. TXT \"hello\"",
		`_challenge.example.test. TXT "v=spf1 -all"`,
		`_challenge.example.test. TXT "token-" "part2"`,
		`_challenge.example.test. TXT "quote\"and\\backslash\009tab"`,
		"txtalias.example.test. CNAME _challenge.example.test.",
		"deep.sub.example.test. A 192.0.2.9",
	)
	for i := range 40 {
		srv.Add(t, fmt.Sprintf("many.example.test. A 192.0.2.%d", i+10))
	}
	srv.SetRcode("servfail.example.test.", dns.RcodeServerFailure)
	srv.SetRcode("refused.example.test.", dns.RcodeRefused)
	srv.Hang("hang.example.test.")
	srv.Add(t, "big.example.test. A 192.0.2.77")
	srv.TruncateUDP("big.example.test.")

	r, err := New(srv.Addr, timeout)
	if err != nil {
		t.Fatalf("New(%q): %v", srv.Addr, err)
	}
	return r, srv
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

func TestLookupIP(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 2*time.Second)

	runLookups(t, "LookupIP", r.LookupIP, []lookupCase[netip.Addr]{
		{name: "v4.example.test", want: addrs("192.0.2.1", "192.0.2.2")},
		{name: "V4.Example.Test.", want: addrs("192.0.2.1", "192.0.2.2")},
		{name: "v6.example.test", want: addrs("2001:db8::1")},
		{name: "dual.example.test", want: addrs("192.0.2.3", "2001:db8::3")},
		{name: "alias.example.test", want: addrs("192.0.2.3", "2001:db8::3")},
		{name: "deep.sub.example.test", want: addrs("192.0.2.9")},
		{name: "dangling.example.test", wantErr: ErrNXDomain},
		{name: "missing.example.test", wantErr: ErrNXDomain},
		{name: "txtonly.example.test", wantErr: ErrNoRecords},
		{name: "sub.example.test", wantErr: ErrNoRecords}, // empty non-terminal
		{name: "big.example.test", want: addrs("192.0.2.77")},
		{name: "servfail.example.test", wantErr: &RcodeError{Rcode: dns.RcodeServerFailure}},
		{name: "refused.example.test", wantErr: &RcodeError{Rcode: dns.RcodeRefused}},
	})
}

// assertErr checks errors.Is for sentinels and errors.As + Rcode for
// *RcodeError.
// lookupCase is one case of a lookup table test: the name asked, and the
// error wanted or else the values, in order.
type lookupCase[T comparable] struct {
	name    string
	want    []T
	wantErr error
}

// runLookups runs each case as a parallel subtest of lookup (named what
// in messages).
func runLookups[T comparable](t *testing.T, what string, lookup func(context.Context, string) ([]T, error), cases []lookupCase[T]) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lookup(context.Background(), tc.name)
			if tc.wantErr != nil {
				assertErr(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("%s(%q): %v", what, tc.name, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s(%q) = %v, want %v", what, tc.name, got, tc.want)
			}
		})
	}
}

func assertErr(t *testing.T, err, want error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if wantRcode, ok := want.(*RcodeError); ok {
		var got *RcodeError
		if !errors.As(err, &got) || got.Rcode != wantRcode.Rcode {
			t.Fatalf("error %v is not %v", err, want)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("error %v does not match %v", err, want)
	}
}

func TestLookupIPLiteralSendsNoQuery(t *testing.T) {
	t.Parallel()
	r, srv := newTestResolver(t, time.Second)
	for in, want := range map[string]string{
		"127.0.0.1":       "127.0.0.1",
		"::1":             "::1",
		"[::1]":           "::1",
		"::ffff:10.0.0.1": "::ffff:10.0.0.1",
	} {
		got, err := r.LookupIP(context.Background(), in)
		if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr(want) {
			t.Errorf("LookupIP(%q) = %v, %v; want [%s]", in, got, err, want)
		}
	}
	if n := srv.Queries("udp") + srv.Queries("tcp"); n != 0 {
		t.Errorf("IP literals caused %d DNS queries, want 0", n)
	}
}

func TestLookupIPBoundsAnswers(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 2*time.Second)
	got, err := r.LookupIP(context.Background(), "many.example.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxAnswers {
		t.Errorf("got %d addresses, want the bound %d", len(got), MaxAnswers)
	}
}

func TestTruncatedAnswerRetriesOverTCP(t *testing.T) {
	t.Parallel()
	r, srv := newTestResolver(t, 2*time.Second)
	before := srv.Queries("tcp")
	if _, err := r.LookupIP(context.Background(), "big.example.test"); err != nil {
		t.Fatal(err)
	}
	// One TCP retry each for A and AAAA.
	if got := srv.Queries("tcp") - before; got != 2 {
		t.Errorf("TCP queries = %d, want 2", got)
	}
}

func TestLookupInvalidName(t *testing.T) {
	t.Parallel()
	r, srv := newTestResolver(t, time.Second)
	for _, name := range []string{"", ".", "a..b", string(make([]byte, 300))} {
		if _, err := r.LookupIP(context.Background(), name); err == nil {
			t.Errorf("LookupIP(%q): want error", name)
		}
		if _, err := r.LookupTXT(context.Background(), name); err == nil {
			t.Errorf("LookupTXT(%q): want error", name)
		}
	}
	if n := srv.Queries("udp"); n != 0 {
		t.Errorf("invalid names caused %d queries, want 0", n)
	}
}

func TestLookupTXT(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 2*time.Second)
	challenge := []string{"v=spf1 -all", "token-part2", "quote\"and\\backslash\ttab"}

	runLookups(t, "LookupTXT", r.LookupTXT, []lookupCase[string]{
		{name: "_challenge.example.test", want: challenge},
		{name: "txtalias.example.test", want: challenge},
		{name: "txtonly.example.test.", want: []string{"hello"}},
		{name: "v4.example.test", wantErr: ErrNoRecords},
		{name: "missing.example.test", wantErr: ErrNXDomain},
		{name: "servfail.example.test", wantErr: &RcodeError{Rcode: dns.RcodeServerFailure}},
	})
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 150*time.Millisecond)
	start := time.Now()
	_, err := r.LookupTXT(context.Background(), "hang.example.test")
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrTimeout and context.DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("lookup took %s with a 150ms timeout", elapsed)
	}
	if _, err := r.LookupIP(context.Background(), "hang.example.test"); !errors.Is(err, ErrTimeout) {
		t.Errorf("LookupIP err = %v, want ErrTimeout", err)
	}
}

func TestContextDeadlineRespected(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.LookupIP(ctx, "hang.example.test")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("lookup took %s with a 100ms context deadline", elapsed)
	}
}

func TestContextCancelled(t *testing.T) {
	t.Parallel()
	r, _ := newTestResolver(t, 10*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }() // cancel mid-query
	start := time.Now()
	_, err := r.LookupTXT(ctx, "hang.example.test")
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want context.Canceled and not a timeout", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("cancelled lookup took %s", elapsed)
	}

	done, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if _, err := r.LookupTXT(done, "_challenge.example.test"); !errors.Is(err, context.Canceled) {
		t.Errorf("already-cancelled context: err = %v", err)
	}
}

func TestUnreachableServerIsATransportError(t *testing.T) {
	t.Parallel()
	// Nothing listens on 127.0.0.1:1: the error must be neither NXDOMAIN nor
	// no-records, so callers never mistake a broken resolver for an answer.
	dead, err := New("127.0.0.1:1", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dead.LookupTXT(context.Background(), "example.test")
	if err == nil || errors.Is(err, ErrNXDomain) || errors.Is(err, ErrNoRecords) {
		t.Fatalf("err = %v, want a transport error", err)
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(conf, []byte("# test\nsearch example.test\nnameserver 127.0.0.53\nnameserver 127.0.0.54\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := resolvConfPath
	resolvConfPath = conf
	t.Cleanup(func() { resolvConfPath = old })

	r, err := New("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Server() != "127.0.0.53:53" || r.timeout != DefaultTimeout {
		t.Errorf("New(\"\", 0) = %s, %s; want 127.0.0.53:53, %s", r.Server(), r.timeout, DefaultTimeout)
	}

	resolvConfPath = filepath.Join(dir, "missing")
	if _, err := New("", 0); err == nil {
		t.Error("New with a missing resolv.conf: want error")
	}

	for _, ok := range []string{"127.0.0.1:53", "[::1]:5353", "dns.internal:53"} {
		if r, err := New(ok, time.Second); err != nil || r.Server() != ok {
			t.Errorf("New(%q) = %v, %v", ok, r, err)
		}
	}
	for _, bad := range []string{"127.0.0.1", ":53", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:dns", "::1:53"} {
		if _, err := New(bad, time.Second); err == nil {
			t.Errorf("New(%q): want error", bad)
		}
	}
}

func TestAnswersForFollowsOnlyTheQueriedChain(t *testing.T) {
	t.Parallel()
	rr := func(s string) dns.RR { return resolvertest.RR(t, s) }
	answer := []dns.RR{
		rr("a.test. CNAME b.test."),
		rr("b.test. CNAME a.test."), // loop
		rr("b.test. A 192.0.2.1"),
		rr("unrelated.test. A 192.0.2.99"), // not on the chain: ignored
		rr("a.test. CH A 192.0.2.98"),      // wrong class: ignored
	}
	got := answersFor(answer, "A.test.", dns.TypeA)
	if len(got) != 1 || got[0].(*dns.A).A.String() != "192.0.2.1" {
		t.Errorf("answersFor = %v, want only b.test's A record", got)
	}

	// A chain longer than maxCNAMEHops is cut off.
	var long []dns.RR
	for i := range maxCNAMEHops + 2 {
		long = append(long, rr(fmt.Sprintf("h%d.test. CNAME h%d.test.", i, i+1)))
	}
	long = append(long, rr(fmt.Sprintf("h%d.test. A 192.0.2.1", maxCNAMEHops+2)))
	if got := answersFor(long, "h0.test.", dns.TypeA); len(got) != 0 {
		t.Errorf("answersFor over %d hops = %v, want nothing", maxCNAMEHops+2, got)
	}
}

func TestUnescapeTXT(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`plain`:          "plain",
		`a\"b`:           `a"b`,
		`a\\b`:           `a\b`,
		`tab\009x`:       "tab\tx",
		`hi\255`:         "hi\xff",
		`\256`:           "256",
		`trailing\`:      `trailing\`,
		`\12`:            "12",
		`mixed\"\092\;x`: `mixed"\;x`,
	}
	for in, want := range tests {
		if got := unescapeTXT(in); got != want {
			t.Errorf("unescapeTXT(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	if got := (&RcodeError{Rcode: dns.RcodeServerFailure}).Error(); got != "DNS server answered SERVFAIL" {
		t.Errorf("RcodeError = %q", got)
	}
	if got := (&RcodeError{Rcode: 3841}).Error(); got != "DNS server answered RCODE 3841" {
		t.Errorf("RcodeError = %q", got)
	}
	if got := (&timeoutError{after: 1500 * time.Millisecond}).Error(); got != "DNS query timed out after 1.5s" {
		t.Errorf("timeoutError = %q", got)
	}
}

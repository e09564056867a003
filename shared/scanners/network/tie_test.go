package network

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"secscan/shared/netguard"
	"secscan/shared/plans"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// borrowedAddr is a loopback address standing for someone else's machine
// that in-scope names point at; nothing listens on it.
const borrowedAddr = "127.0.46.1"

// borrowedEnv is a deep scan of scan.test whose x1 and x2 point at
// borrowedAddr, with records added to its DNS; nothing ties the address
// to the domain unless they do.
func borrowedEnv(t *testing.T, records ...string) tools.Env {
	t.Helper()
	env := scantest.Env(t, testDomain, netguard.Policy{AllowPrivate: true},
		append([]string{"scan.test. A 127.0.0.1", "x1.scan.test. A " + borrowedAddr, "x2.scan.test. A " + borrowedAddr}, records...)...)
	env.Tier = plans.Deep
	env.Surface = scans.Surface{Hosts: []scans.Host{
		{Name: testDomain, Addresses: []string{"127.0.0.1"}},
		{Name: "x1.scan.test", Addresses: []string{borrowedAddr}},
		{Name: "x2.scan.test", Addresses: []string{borrowedAddr}},
	}}
	return env
}

// countingScanner is a port_scan whose connection attempts are counted
// and all refused (nothing is dialled).
func countingScanner() (*Scanner, *atomic.Int64) {
	s := newScanner()
	var dials atomic.Int64
	s.dial = func(context.Context, *netguard.Dialer, string, string) (net.Conn, error) {
		dials.Add(1)
		return nil, fmt.Errorf("connect: %w", errRefusedForTest)
	}
	return s, &dials
}

var errRefusedForTest = &net.OpError{Op: "dial", Err: fmt.Errorf("connection refused")}

func rawInput(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestRangeRefusedOnUntiedAddress: in-scope names pointing at an address
// nothing ties to the domain get the usual port lists, but a range, or a
// port list beyond the usual ones, is refused before any connection; the
// port scan records the address as probed and untied.
func TestRangeRefusedOnUntiedAddress(t *testing.T) {
	t.Parallel()
	env := borrowedEnv(t)
	s, dials := countingScanner()
	for _, in := range []map[string]any{
		{"host": "x1.scan.test", "range": map[string]int{"from": 1, "to": 4096}},
		{"host": "x2.scan.test", "range": map[string]int{"from": 61441, "to": 65535}},
		{"host": "x1.scan.test", "ports": []int{47123, 22}},
	} {
		_, err := s.Run(context.Background(), env, rawInput(t, in))
		if !tools.IsInputError(err) || !strings.Contains(err.Error(), "not tied to scan.test") {
			t.Errorf("%v: error %v, want a refusal naming the missing tie", in, err)
		}
	}
	if n := dials.Load(); n != 0 {
		t.Fatalf("%d connection attempts for refused calls", n)
	}
	// The usual list runs, and the address is recorded probed, untied.
	res, err := s.Run(context.Background(), env, rawInput(t, map[string]any{"host": "x1.scan.test", "preset": "top100+exposures"}))
	if err != nil {
		t.Fatal(err)
	}
	if dials.Load() == 0 {
		t.Error("the usual port list was not scanned on the untied address")
	}
	if len(res.Surface.Addresses) != 1 || res.Surface.Addresses[0] != (scans.Address{Address: borrowedAddr, Probed: true}) {
		t.Errorf("surface addresses %+v, want %s probed, untied", res.Surface.Addresses, borrowedAddr)
	}
}

// TestRangeRunsOnTiedAddress: an address tied to the domain (its reverse
// DNS name in scope, looked up once; a certificate seen by tls_check; the
// domain's own) is swept.
func TestRangeRunsOnTiedAddress(t *testing.T) {
	t.Parallel()
	sweep := rawInput(t, map[string]any{"host": "x1.scan.test", "range": map[string]int{"from": 1, "to": 8}})
	cases := map[string]func(*tools.Env){
		"certificate": func(env *tools.Env) {
			env.Surface.Addresses = []scans.Address{{Address: borrowedAddr, TiedBy: scans.TieCertificate, TiedName: "x1.scan.test"}}
		},
		"http": func(env *tools.Env) {
			env.Surface.Services = []scans.ServiceInfo{{Host: "x1.scan.test", Address: borrowedAddr, Port: 8443, Protocol: "https"}}
			env.Surface.Web = []scans.WebOrigin{{Origin: "https://x1.scan.test:8443"}}
		},
		"apex": func(env *tools.Env) { env.Surface.Hosts[0].Addresses = []string{borrowedAddr} },
	}
	for name, tie := range cases {
		env := borrowedEnv(t)
		tie(&env)
		s, dials := countingScanner()
		res, err := s.Run(context.Background(), env, sweep)
		if err != nil || dials.Load() != 8 {
			t.Errorf("%s: %v, %d attempts; want the range scanned", name, err, dials.Load())
			continue
		}
		if a := res.Surface.Addresses; len(a) != 1 || a[0].TiedBy != scans.Tie(name) || !a[0].Probed {
			t.Errorf("%s: surface addresses %+v", name, a)
		}
	}
	// Reverse DNS, asked when the scan first meets the address.
	arpa := "1.46.0.127.in-addr.arpa."
	env := borrowedEnv(t, arpa+" PTR host-7.scan.test.")
	s, dials := countingScanner()
	res, err := s.Run(context.Background(), env, sweep)
	if err != nil || dials.Load() != 8 || len(res.Surface.Addresses) != 1 || res.Surface.Addresses[0].TiedBy != scans.TieReverseDNS ||
		res.Surface.Addresses[0].TiedName != "host-7.scan.test" {
		t.Errorf("reverse DNS in scope: %v, %d attempts, %+v", err, dials.Load(), res.Surface.Addresses)
	}
	// A reverse name outside the scope ties nothing.
	env = borrowedEnv(t, arpa+" PTR mail.someone-else.test.")
	if _, err := s.Run(context.Background(), env, sweep); !tools.IsInputError(err) {
		t.Errorf("reverse DNS outside the scope: %v, want a refusal", err)
	}
}

// TestRangeBeyondTheTier: below the deep tier a range call scans at most
// a port list's worth of ports; the deep tier's 4,096 are refused before
// any connection, on the tool and by its tier check.
func TestRangeBeyondTheTier(t *testing.T) {
	t.Parallel()
	env := borrowedEnv(t)
	env.Surface.Hosts[0].Addresses = []string{borrowedAddr} // tied: only the tier refuses
	s, dials := countingScanner()
	wide := rawInput(t, map[string]any{"host": "x1.scan.test", "range": map[string]int{"from": 1, "to": 4096}})
	for _, tier := range []plans.Tier{plans.Standard, plans.Quick} {
		env.Tier = tier
		if _, err := s.Run(context.Background(), env, wide); !tools.IsInputError(err) || !strings.Contains(err.Error(), "deep tier's") {
			t.Errorf("%s: %v, want the deep-only refusal", tier, err)
		}
		if err := s.CheckTier(tier, wide); err == nil {
			t.Errorf("%s: CheckTier accepted a range of 4096", tier)
		}
	}
	if dials.Load() != 0 {
		t.Errorf("%d connection attempts for refused calls", dials.Load())
	}
	if err := s.CheckTier(plans.Deep, wide); err != nil {
		t.Errorf("deep: %v", err)
	}
	if err := s.CheckTier(plans.Standard, rawInput(t, map[string]any{"range": map[string]int{"from": 1, "to": 1000}})); err != nil {
		t.Errorf("standard, 1000 ports: %v", err)
	}
}

// TestAddressCap: once a scan's port scans probed the tier's distinct
// addresses, a probe of another address is refused (not_probed_reason);
// the addresses already probed still are.
func TestAddressCap(t *testing.T) {
	t.Parallel()
	env := borrowedEnv(t)
	env.Tier = plans.Standard
	for i := range plans.Standard.Limits().Addresses {
		env.Surface.Addresses = append(env.Surface.Addresses, scans.Address{Address: fmt.Sprintf("127.0.47.%d", i+1), Probed: true})
	}
	s, dials := countingScanner()
	top := rawInput(t, map[string]any{"host": "x1.scan.test", "preset": "top100"})
	_, err := s.Run(context.Background(), env, top)
	if !tools.IsInputError(err) || !strings.Contains(err.Error(), scans.NotProbedAddressCap) || dials.Load() != 0 {
		t.Fatalf("17th address: %v, %d attempts; want the cap's refusal", err, dials.Load())
	}
	env.Surface.Addresses[0].Address = borrowedAddr // one of the 16
	if _, err := s.Run(context.Background(), env, top); err != nil || dials.Load() == 0 {
		t.Errorf("an address already probed: %v, %d attempts", err, dials.Load())
	}
}

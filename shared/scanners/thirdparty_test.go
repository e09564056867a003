package scanners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"secscan/shared/netguard"
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// An in-scope name whose CNAME points outside the scope (a vendor's status
// page) is the vendor's service: discovery records the CNAME target and
// why it is not probed, port_scan, service_info and tls_check refuse it
// without a connection, the playbook plans only an HTTP(S) check of its
// name, and that check still runs, as a browser would.
func TestThirdPartyAliasGetsHTTPChecksOnly(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string // Host headers the HTTPS server answered
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Host)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>Status</title></html>")
	})
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, page, page)
	site.DNS.Add(t, "status.shop.test. CNAME status.vendor.example.", "status.vendor.example. A 127.0.0.1")
	// Another port of the vendor's address: a port scan or a service probe
	// would connect here.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	other := ln.Addr().(*net.TCPAddr).Port
	reg := Registry(site.Roots)
	run := func(tool string, input any) (tools.Result, error) {
		t.Helper()
		raw, _ := json.Marshal(input)
		tl, ok := reg.Get(tool)
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		return tl.Run(context.Background(), site.Env, raw)
	}

	res, err := run("discover_hosts", map[string]any{"sources": []string{"wordlist"}})
	if err != nil {
		t.Fatal(err)
	}
	h, ok := res.Surface.Host("status.shop.test")
	if !ok || h.CNAME != "status.vendor.example" || h.NotProbed != scans.NotProbedThirdParty {
		t.Fatalf("surface host %+v (found %v), want the CNAME target and the reason; outcome %s", h, ok, res.Outcome)
	}

	before := len(seen)
	for _, c := range []struct {
		tool  string
		input any
	}{
		{"port_scan", map[string]any{"host": "status.shop.test", "ports": []int{other, site.Env.Ports.HTTPS}}},
		{"service_info", map[string]any{"host": "status.shop.test", "port": other}},
		{"tls_check", map[string]any{"host": "status.shop.test", "port": site.Env.Ports.HTTPS}},
	} {
		_, err := run(c.tool, c.input)
		var ie *tools.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Reason, "status.vendor.example") || !strings.Contains(ie.Reason, scans.NotProbedThirdParty) {
			t.Errorf("%s on the alias: %v, want a refusal naming the CNAME target and the reason", c.tool, err)
		}
	}
	mu.Lock()
	probed := len(seen) - before
	mu.Unlock()
	if n := accepted.Load(); n != 0 || probed != 0 {
		t.Errorf("refused probes connected: %d connections to the other port, %d requests to the web server", n, probed)
	}
	// The in-scope name that is no alias is still probed.
	if _, err := run("tls_check", map[string]any{"host": "shop.test", "port": site.Env.Ports.HTTPS}); err != nil {
		t.Errorf("tls_check on the domain itself: %v", err)
	}

	// The playbook plans an HTTP(S) check of the alias and nothing else.
	state := planner.State{Scan: scans.Scan{ID: "scn_1", Target: "shop.test", Type: scans.Full, Tier: plans.Standard, MaxCredits: 500}, Surface: res.Surface}
	calls, err := planner.Calls(state)
	if err != nil {
		t.Fatal(err)
	}
	var aliasCalls []planner.Call
	for _, c := range calls {
		if c.Host == "status.shop.test" || strings.Contains(string(c.Input), "status.shop.test") {
			aliasCalls = append(aliasCalls, c)
		}
	}
	if len(aliasCalls) != 1 || aliasCalls[0].Tool != planner.HTTPCheck {
		t.Errorf("calls planned for the alias: %+v, want one http_check", aliasCalls)
	}

	// The HTTP(S) check runs against the name.
	mu.Lock()
	before = len(seen)
	mu.Unlock()
	if _, err := run("http_check", map[string]any{"url": site.URL("https", "status.shop.test", "/")}); err != nil {
		t.Fatalf("http_check on the alias: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == before || !strings.HasPrefix(seen[before], "status.shop.test:") {
		t.Errorf("http_check did not reach the alias's name (Host headers %v)", seen[before:])
	}
}

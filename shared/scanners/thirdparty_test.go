package scanners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
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

// request is one request a test server answered.
type request struct{ method, host, uri string }

// aliasRig is a site of shop.test whose status.shop.test is an alias of
// status.vendor.example (127.0.0.1), with a listener on another port of
// the vendor's address that counts the connections it accepts.
type aliasRig struct {
	site     *scantest.Site
	reg      *tools.Registry
	other    int // the other port of the vendor's address
	accepted atomic.Int64
	mu       sync.Mutex
	seen     []request // what the site's http and https servers answered
}

func newAliasRig(t *testing.T) *aliasRig {
	t.Helper()
	r := &aliasRig{}
	page := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, request{req.Method, req.Host, req.RequestURI})
		r.mu.Unlock()
		if req.URL.Path == "/go" {
			// The shop sends visitors to the vendor's login page.
			http.Redirect(w, req, r.site.URL("https", "status.shop.test", "/login?next=/"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>Status</title><a href=\"/secret\">x</a></html>")
	})
	r.site = scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, page, page)
	r.site.DNS.Add(t, "status.shop.test. CNAME status.vendor.example.", "status.vendor.example. A 127.0.0.1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.accepted.Add(1)
			c.Close()
		}
	}()
	r.other = ln.Addr().(*net.TCPAddr).Port
	r.reg = Registry(r.site.Roots)
	return r
}

func (r *aliasRig) run(t *testing.T, tool string, input any) (tools.Result, error) {
	t.Helper()
	raw, _ := json.Marshal(input)
	tl, ok := r.reg.Get(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return tl.Run(context.Background(), r.site.Env, raw)
}

// vendorRequests are the requests the site answered for the alias's name
// since the n-th.
func (r *aliasRig) vendorRequests(n int) []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []request
	for _, q := range r.seen[n:] {
		if strings.HasPrefix(q.host, "status.shop.test") {
			out = append(out, q)
		}
	}
	return out
}

func (r *aliasRig) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// The web tools apply the same rule to an alias leaving the scope: the
// probing ones (http_fingerprint, exposed_files, web_crawl, code_scan,
// version_check, file_secrets, listing_files, confirm_cve) refuse it, on
// its standard web ports as on any other, with an input error naming the
// alias and the reason, and connect nowhere; http_check refuses any start
// but the home page on the standard ports.
func TestThirdPartyAliasRefusedByTheProbingWebTools(t *testing.T) {
	t.Parallel()
	r := newAliasRig(t)
	https := r.site.URL("https", "status.shop.test", "/")
	other := "http://status.shop.test:" + strconv.Itoa(r.other) + "/"
	cases := []struct {
		tool  string
		input any
	}{
		{"http_fingerprint", map[string]any{"url": other}},
		{"http_fingerprint", map[string]any{"url": https}},
		{"http_check", map[string]any{"url": other}},
		{"http_check", map[string]any{"url": r.site.URL("https", "status.shop.test", "/admin")}},
		{"http_check", map[string]any{"url": https + "?next=/"}},
		{"exposed_files", map[string]any{"base_url": other}},
		{"exposed_files", map[string]any{"base_url": https}},
		{"web_crawl", map[string]any{"url": other}},
		{"web_crawl", map[string]any{"url": https}},
		{"code_scan", map[string]any{"url": https}},
		{"version_check", map[string]any{"url": https}},
		{"file_secrets", map[string]any{"url": https + ".env"}},
		{"listing_files", map[string]any{"url": https + "backup/"}},
		{"confirm_cve", map[string]any{"host": "status.shop.test", "port": r.other, "cve": "CVE-2021-41773"}},
		{"confirm_cve", map[string]any{"host": "status.shop.test", "port": r.site.Env.Ports.HTTPS, "cve": "CVE-2021-41773"}},
	}
	for _, c := range cases {
		_, err := r.run(t, c.tool, c.input)
		var ie *tools.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Reason, "status.vendor.example") || !strings.Contains(ie.Reason, scans.NotProbedThirdParty) {
			t.Errorf("%s %v on the alias: %v, want a refusal naming the CNAME target and the reason", c.tool, c.input, err)
		}
	}
	if n, q := r.accepted.Load(), r.requests(); n != 0 || q != 0 {
		t.Errorf("refused calls connected: %d connections to the other port, %d requests to the web servers", n, q)
	}
}

// http_check of an alias leaving the scope fetches its home page alone:
// GET / over https and http on the standard ports, the header checks of
// the page and the redirect to https, and no probe (CORS, TRACE, open
// redirect, security.txt); the other port is never dialled.
func TestThirdPartyAliasHTTPCheckFetchesTheHomePageOnly(t *testing.T) {
	t.Parallel()
	r := newAliasRig(t)
	res, err := r.run(t, "http_check", map[string]any{"url": r.site.URL("https", "status.shop.test", "/")})
	if err != nil {
		t.Fatalf("http_check on the alias: %v", err)
	}
	got := r.vendorRequests(0)
	if len(got) == 0 {
		t.Fatalf("http_check did not reach the alias's name (outcome %s)", res.Outcome)
	}
	for _, q := range got {
		if q.method != http.MethodGet || q.uri != "/" {
			t.Errorf("http_check sent %s %s to the alias; only GET / may be sent", q.method, q.uri)
		}
	}
	if !strings.Contains(res.Outcome, "status.vendor.example") {
		t.Errorf("outcome %q does not say why the probes were not sent", res.Outcome)
	}
	if n := r.accepted.Load(); n != 0 {
		t.Errorf("%d connections to the other port", n)
	}
}

// A redirect of the shop to the vendor's login page is not followed past
// the alias's home page: the client applies the rule to every request,
// whatever led to the name.
func TestThirdPartyAliasReachedByARedirectGetsNoOtherPath(t *testing.T) {
	t.Parallel()
	r := newAliasRig(t)
	if _, err := r.run(t, "http_check", map[string]any{"url": r.site.URL("https", "shop.test", "/go")}); err != nil {
		t.Fatalf("http_check of the shop: %v", err)
	}
	if got := r.vendorRequests(0); len(got) != 0 {
		t.Errorf("the redirect led to %v on the alias; nothing but GET / may be sent there", got)
	}
}

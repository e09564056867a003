package discovery

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// requestLog records the Host of every request a test server saw.
type requestLog struct {
	mu    sync.Mutex
	hosts []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		l.hosts = append(l.hosts, host)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// testZone is shop.test: every source names in-scope hosts, and each one
// also names something hostile — a name outside the domain or an address
// the dialer must never reach (169.254.169.254, link-local: refused even
// with private networks allowed).
type testZone struct {
	env   tools.Env
	dns   *resolvertest.Server
	seen  *requestLog
	https *httptest.Server
}

func newTestZone(t *testing.T) *testZone {
	t.Helper()
	z := &testZone{seen: &requestLog{}}
	z.dns = resolvertest.Start(t)
	res, err := resolver.New(z.dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, dnsPort, _ := net.SplitHostPort(z.dns.Addr)
	port, _ := strconv.Atoi(dnsPort)

	cert, _ := scantest.Certificate(t, "shop.test", "kiosk.shop.test", "evil.example", "*.cdn.shop.test")
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self' https://cdn2.shop.test https://cdn.evil.example; img-src data:")
		w.Header().Set("Access-Control-Allow-Origin", "https://partner.shop.test")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><a href="https://files.shop.test/">files</a> <a href="https://evil.example/x">x</a>
<img src="http://169.254.169.254/latest/meta-data/"> <a href="https://meta.shop.test/">meta</a> <a href="https://old-shop.shop.test/">old</a>
<script src="//static.evil.example/app.js"></script></html>`)
	})
	z.https = httptest.NewUnstartedServer(z.seen.wrap(page))
	z.https.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	z.https.Config.ErrorLog = log.New(io.Discard, "", 0)
	z.https.StartTLS()
	t.Cleanup(z.https.Close)
	plain := httptest.NewServer(z.seen.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://login.shop.test:"+portOf(t, z.https.URL)+"/", http.StatusFound)
	})))
	t.Cleanup(plain.Close)

	z.dns.Add(t,
		"shop.test. SOA ns1.shop.test. hostmaster.shop.test. 1 3600 600 86400 300",
		"shop.test. A 127.0.0.1",
		"shop.test. NS ns1.shop.test.",
		"shop.test. NS ns.evil.example.",
		"shop.test. MX 10 mail.shop.test.",
		"shop.test. MX 20 mx.evil.example.",
		`shop.test. TXT "v=spf1 include:_spf.shop.test include:spf.evil.example a:relay.shop.test a:meta.shop.test -all"`,
		"ns1.shop.test. A 127.0.0.1",
		"www.shop.test. A 127.0.0.1",
		"api.shop.test. A 127.0.0.1", // a wordlist label
		"backoffice-7.shop.test. A 127.0.0.1",
		"mail.shop.test. A 127.0.0.1",
		"relay.shop.test. A 127.0.0.1",
		"kiosk.shop.test. A 127.0.0.1",
		"files.shop.test. A 127.0.0.1",
		"cdn2.shop.test. A 127.0.0.1",
		"partner.shop.test. A 127.0.0.1",
		"login.shop.test. A 127.0.0.1",
		"cdn.shop.test. CNAME edge.shop.test.",
		"edge.shop.test. A 127.0.0.1",
		"alias.shop.test. CNAME target.evil.example.",
		"target.evil.example. A 127.0.0.1",
		"meta.shop.test. A 169.254.169.254",
		// A link to a name whose alias is dead at a hosted service.
		"old-shop.shop.test. CNAME old-shop.herokuapp.com.",
	)
	z.dns.SetTransfer("shop.test", true)
	z.env = tools.Env{
		Domain:   "shop.test",
		Dialer:   netguard.New(res, netguard.Policy{AllowPrivate: true}),
		Resolver: res,
		Ports:    tools.Ports{HTTP: atoi(t, portOf(t, plain.URL)), HTTPS: atoi(t, portOf(t, z.https.URL)), DNS: port},
	}
	return z
}

func portOf(t *testing.T, raw string) string {
	t.Helper()
	i := strings.LastIndex(raw, ":")
	return raw[i+1:]
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func discover(t *testing.T, env tools.Env, input string) tools.Result {
	t.Helper()
	res, err := New().Run(context.Background(), env, json.RawMessage(input))
	if err != nil {
		t.Fatalf("Run(%s): %v", input, err)
	}
	t.Logf("outcome: %s", res.Outcome)
	return res
}

func hostsOf(res tools.Result) map[string]scans.Host {
	out := map[string]scans.Host{}
	for _, h := range res.Surface.Hosts {
		out[h.Name] = h
	}
	return out
}

// Every source finds its in-scope names; hostile names in each source
// (outside the domain, or resolving to a forbidden address, or aliasing
// outside the domain) never become hosts, and no request reaches them.
func TestDiscoverEverySourceStrictScope(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	res := discover(t, z.env, `{}`)
	hosts := hostsOf(res)
	want := map[string]scans.HostSource{
		"shop.test":              scans.SourceApex,
		"www.shop.test":          scans.SourceWWW,
		"api.shop.test":          scans.SourceWordlist,
		"backoffice-7.shop.test": scans.SourceAXFR,
		"ns1.shop.test":          scans.SourceNS,
		"mail.shop.test":         scans.SourceMX,
		"relay.shop.test":        scans.SourceSPF,
		"kiosk.shop.test":        scans.SourceCertificate,
		"files.shop.test":        scans.SourceLink,
		"cdn2.shop.test":         scans.SourceCSP,
		"partner.shop.test":      scans.SourceCORS,
		"login.shop.test":        scans.SourceRedirect,
		"edge.shop.test":         scans.SourceCNAME,
	}
	for name, src := range want {
		h, ok := hosts[name]
		if !ok {
			t.Errorf("%s (source %s) not discovered", name, src)
			continue
		}
		if !slices.Contains(h.Sources, src) {
			t.Errorf("%s: sources %v, want %s among them", name, h.Sources, src)
		}
		if !slices.Equal(h.Addresses, []string{"127.0.0.1"}) {
			t.Errorf("%s: addresses %v", name, h.Addresses)
		}
	}
	for name := range hosts {
		if !strings.HasSuffix(name, ".shop.test") && name != "shop.test" {
			t.Errorf("host outside the scope: %s", name)
		}
	}
	for _, bad := range []string{"meta.shop.test", "target.evil.example", "evil.example"} {
		if _, ok := hosts[bad]; ok {
			t.Errorf("%s became a host", bad)
		}
	}
	// A name aliased outside the scope is a host recorded with its CNAME
	// target and why its services are not probed; the others have neither.
	if h := hosts["alias.shop.test"]; h.CNAME != "target.evil.example" || h.NotProbed != scans.NotProbedThirdParty {
		t.Errorf("alias.shop.test: %+v, want cname target.evil.example and the third-party reason", h)
	}
	if h := hosts["cdn.shop.test"]; h.CNAME != "" || h.NotProbed != "" {
		t.Errorf("cdn.shop.test (aliased inside the scope): %+v", h)
	}
	for _, out := range []string{"evil.example", "ns.evil.example", "mx.evil.example", "spf.evil.example", "target.evil.example",
		"cdn.evil.example", "static.evil.example"} {
		if !slices.Contains(res.Surface.OutOfScopeNames, out) {
			t.Errorf("out-of-scope name %s not counted (have %v)", out, res.Surface.OutOfScopeNames)
		}
	}
	if res.Surface.OutOfScope != len(res.Surface.OutOfScopeNames) {
		t.Errorf("out_of_scope_names %d for %d names", res.Surface.OutOfScope, len(res.Surface.OutOfScopeNames))
	}
	z.seen.mu.Lock()
	defer z.seen.mu.Unlock()
	for _, h := range z.seen.hosts {
		if !strings.HasSuffix(h, "shop.test") {
			t.Errorf("a request for %s reached a test server", h)
		}
	}
}

// The zone transfer alone gives the zone's names (and keeps nothing else).
func TestDiscoverZoneTransfer(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	res := discover(t, z.env, `{"sources":["axfr"]}`)
	hosts := hostsOf(res)
	for _, name := range []string{"shop.test", "backoffice-7.shop.test", "kiosk.shop.test", "ns1.shop.test"} {
		if _, ok := hosts[name]; !ok {
			t.Errorf("%s not found by the zone transfer: %v", name, res.Surface.Hosts)
		}
	}
	if _, ok := hosts["meta.shop.test"]; ok {
		t.Error("a name resolving to 169.254.169.254 became a host")
	}
	if z.dns.Transfers("shop.test.") == 0 {
		t.Error("no zone transfer was asked for")
	}
	// A refused transfer yields only the apex.
	z.dns.SetTransfer("shop.test", false)
	if hosts := hostsOf(discover(t, z.env, `{"sources":["axfr"]}`)); len(hosts) != 1 {
		t.Errorf("refused transfer: hosts %v", hosts)
	}
}

// A name the scan learns is checked for a dangling alias where it is
// learnt: a zone transfer's CNAME to a bucket that does not exist, and a
// link's name aliased to a released Heroku app, are dns.dangling-cname
// findings of discover_hosts, though neither is a common subdomain
// dns_check tries nor, without an address, a host.
func TestDiscoverReportsDanglingAliasesOfLearntNames(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	z.dns.Add(t, "promo-2024.shop.test. CNAME shop-promo-2024.s3.amazonaws.com.")
	for _, tc := range []struct {
		sources string
		want    map[string]string // host → evidence
	}{
		{`["axfr"]`, map[string]string{
			"promo-2024.shop.test": "promo-2024.shop.test → shop-promo-2024.s3.amazonaws.com → NXDOMAIN (CNAME chain through the configured resolver; Amazon S3 has no such name)",
			"old-shop.shop.test":   "old-shop.shop.test → old-shop.herokuapp.com → NXDOMAIN",
		}},
		{`["link"]`, map[string]string{"old-shop.shop.test": "old-shop.shop.test → old-shop.herokuapp.com → NXDOMAIN"}},
		{`["www"]`, map[string]string{}},
	} {
		res := discover(t, z.env, `{"sources":`+tc.sources+`}`)
		scantest.CheckFindings(t, New(), res.Findings)
		got := map[string]scans.Finding{}
		for _, f := range res.Findings {
			if f.Check == "dns.dangling-cname" {
				got[f.Host] = f
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: dangling-CNAME findings %v, want %d", tc.sources, got, len(tc.want))
		}
		for host, evidence := range tc.want {
			f, ok := got[host]
			switch {
			case !ok:
				t.Errorf("%s: no dangling-CNAME finding on %s (outcome %s)", tc.sources, host, res.Outcome)
			case !strings.HasPrefix(f.Evidence, evidence) || f.Severity != scans.High || f.Confidence != scans.Firm ||
				f.Proof == nil || !strings.Contains(f.Proof.Response, ": NXDOMAIN"):
				t.Errorf("%s: %s: %+v", tc.sources, host, f)
			}
			if _, isHost := hostsOf(res)[host]; isHost {
				t.Errorf("%s: the dangling name %s became a host", tc.sources, host)
			}
		}
	}
}

// With wildcard DNS, wordlist names answering the wildcard's addresses are
// not hosts; a label with its own address still is.
func TestDiscoverWildcard(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "wild.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.DNS.Add(t, "*.wild.test. A 127.0.0.9", "mail.wild.test. A 127.0.0.1")
	res := discover(t, site.Env, `{"sources":["wordlist"]}`)
	hosts := hostsOf(res)
	if len(hosts) != 2 || hosts["mail.wild.test"].Name == "" {
		t.Errorf("hosts %v, want the apex and mail only", res.Surface.Hosts)
	}
	if !strings.Contains(res.Outcome, "wildcard") {
		t.Errorf("outcome does not mention the wildcard: %s", res.Outcome)
	}
}

// Names only resolving to forbidden addresses are not hosts, whatever
// source named them, and the policy is the dialer's own.
func TestDiscoverKeepsOnlyAllowedAddresses(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "corp.test", netguard.Policy{}, nil, nil)
	site.DNS.Add(t, "www.corp.test. A 10.1.2.3", "api.corp.test. A 192.168.0.10")
	// Without private networks the apex (127.0.0.1) is no host either.
	res := discover(t, site.Env, `{"sources":["www","wordlist"]}`)
	if len(res.Surface.Hosts) != 0 {
		t.Errorf("hosts with forbidden addresses: %v", res.Surface.Hosts)
	}
}

// A zone transfer the policy refuses is noted in the shared wording of a
// refusal: the name server's name, never the address it resolved to.
func TestDiscoverZoneTransferRefusalHidesTheAddress(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	z.env.Dialer = netguard.New(z.env.Resolver, netguard.Policy{})
	res := discover(t, z.env, `{"sources":["axfr"]}`)
	want := "zone transfer at ns1.shop.test not tried: refused: " + (&netguard.AddressError{Host: "ns1.shop.test", Private: true}).Plain()
	if !strings.Contains(res.Outcome, want) {
		t.Errorf("outcome %q\ndoes not contain %q", res.Outcome, want)
	}
	if strings.Contains(res.Outcome, "127.0.0.1") || strings.Contains(res.Outcome, "loopback") {
		t.Errorf("outcome %q reveals the name server's address", res.Outcome)
	}
	if z.dns.Transfers("shop.test.") != 0 {
		t.Error("a refused name server was asked for the zone")
	}
}

func TestDiscoverRefusesUnknownSource(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	if _, err := New().Run(context.Background(), z.env, json.RawMessage(`{"sources":["bruteforce"]}`)); !tools.IsInputError(err) {
		t.Fatalf("err = %v, want a refused input", err)
	}
}

func TestWordlist(t *testing.T) {
	t.Parallel()
	w := Wordlist()
	if len(w) < 200 || len(w) > 500 {
		t.Errorf("%d labels", len(w))
	}
	seen := map[string]bool{}
	for _, l := range w {
		if seen[l] || strings.ContainsAny(l, ". ") {
			t.Errorf("label %q duplicated or not a label", l)
		}
		seen[l] = true
	}
}

// The deep wordlist contains the standard one (a deep scan finds at least
// what standard does), is a few thousand valid labels without repeats, and
// is the generator's output.
func TestDeepWordlist(t *testing.T) {
	t.Parallel()
	deep, std := DeepWordlist(), Wordlist()
	if len(deep) < 2000 || len(deep) > 5000 {
		t.Errorf("%d deep labels", len(deep))
	}
	if !slices.Equal(deep[:len(std)], std) {
		t.Error("the deep wordlist does not start with the standard one")
	}
	seen := map[string]bool{}
	for _, l := range deep {
		if seen[l] || len(l) > 63 || strings.ContainsAny(l, ". _") || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			t.Errorf("label %q duplicated or not a label", l)
		}
		seen[l] = true
	}
	if want := fmt.Sprintf("# The deep tier's subdomain labels (%d), generated", len(deep)); !strings.HasPrefix(deepWordlistText, want) {
		t.Errorf("wordlist_deep.txt header is not %q: run go generate", want)
	}
}

// A host only the deep wordlist names is found with it and not without;
// the outcome says how much of the list was tried.
func TestDiscoverDeepWordlist(t *testing.T) {
	t.Parallel()
	z := newTestZone(t)
	z.dns.Add(t, "eu-api.shop.test. A 127.0.0.1", "ci2.shop.test. A 127.0.0.1")
	if slices.Contains(Wordlist(), "eu-api") || !slices.Contains(DeepWordlist(), "eu-api") || !slices.Contains(DeepWordlist(), "ci2") {
		t.Fatal("test labels: eu-api and ci2 must be deep-only")
	}
	names := func(input string) ([]string, string) {
		res, err := New().Run(context.Background(), z.env, json.RawMessage(input))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Surface.Hosts {
			out = append(out, h.Name)
		}
		return out, res.Outcome
	}
	std, _ := names(`{"sources":["wordlist"]}`)
	start := time.Now()
	deep, outcome := names(`{"sources":["wordlist"],"wordlist":"deep"}`)
	t.Logf("deep wordlist: %v; %s", time.Since(start).Round(time.Millisecond), outcome)
	for _, n := range []string{"eu-api.shop.test", "ci2.shop.test"} {
		if slices.Contains(std, n) || !slices.Contains(deep, n) {
			t.Errorf("%s: standard %v, deep %v", n, std, deep)
		}
	}
	for _, n := range std {
		if !slices.Contains(deep, n) {
			t.Errorf("the standard wordlist found %s, the deep one did not", n)
		}
	}
	if want := fmt.Sprintf("deep wordlist: %d of %d labels tried", len(DeepWordlist()), len(DeepWordlist())); !strings.Contains(outcome, want) {
		t.Errorf("outcome %q lacks %q", outcome, want)
	}
	if _, err := New().Run(context.Background(), z.env, json.RawMessage(`{"wordlist":"huge"}`)); !tools.IsInputError(err) {
		t.Errorf("unknown wordlist: %v", err)
	}
}

package dnscheck

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// clean are the records of a domain with nothing to report: strict SPF and
// DMARC, a CAA record, DS and DNSKEY, an address.
func clean(d string) []string {
	return []string{
		d + `. A 192.0.2.1`,
		d + `. TXT "v=spf1 -all"`,
		`_dmarc.` + d + `. TXT "v=DMARC1; p=reject"`,
		d + `. CAA 0 issue "letsencrypt.org"`,
		d + ". " + fakeDS,
		d + ". " + fakeDNSKEY,
	}
}

// without drops the records of rrtype (e.g. "CAA") from records.
func without(records []string, rrtypes ...string) []string {
	var out []string
next:
	for _, r := range records {
		for _, typ := range rrtypes {
			if strings.Contains(r, ". "+typ+" ") {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

const (
	caaTitle    = "No CAA record"
	dnssecTitle = "DNSSEC not enabled"
	axfrTitle   = "Zone transfer (AXFR) allowed"
)

func danglingTitle(service string) string {
	return "Dangling CNAME to " + service + " (possible subdomain takeover)"
}

// zoneCase is one run of the tool against its own DNS server, so the
// server's TCP connection and transfer counts belong to the case alone.
type zoneCase struct {
	name    string
	scope   string
	domain  string // input; "" for the scan's domain
	records []string
	// transfers: zone → AXFR allowed (absent: refused).
	transfers map[string]bool
	// authenticated names get the AD bit.
	authenticated []string
	// strictPolicy makes the dialer refuse private addresses (the
	// ALLOW_PRIVATE_NETWORKS=false policy); the test name servers are all
	// on 127.0.0.1.
	strictPolicy bool
	noDialer     bool
	// servfail and hang names answer SERVFAIL or never; timeout is the
	// resolver's (default 2 s).
	servfail, hang []string
	timeout        time.Duration
	// surface are the host names earlier steps learnt (env.Surface).
	surface []string

	want  map[string]findingWant // by title
	notes []string               // substrings of the outcome
	// tcp is the number of TCP connections the server must have accepted:
	// only zone transfer attempts use TCP here.
	tcp int
	// transfersAsked: zone → AXFR requests the server must have seen.
	transfersAsked map[string]int
	// hidden must appear nowhere in the result (zone data never kept).
	hidden []string
}

type findingWant struct {
	severity scans.Severity
	host     string
	port     bool // a port is set (the AXFR port)
	evidence []string
}

func runZoneCase(t *testing.T, tc zoneCase) {
	t.Helper()
	srv := zoneServer(t, tc)
	port := int(netip.MustParseAddrPort(srv.Addr).Port())
	out, err := New(WithAXFRPort(port)).Run(context.Background(), zoneEnv(t, tc, srv.Addr), domainInput(tc.domain))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	scantest.CheckFindings(t, New(), out.Findings)
	t.Logf("outcome: %s", out.Outcome)
	for _, note := range tc.notes {
		if !strings.Contains(out.Outcome, note) {
			t.Errorf("outcome does not mention %q", note)
		}
	}
	checkZoneFindings(t, tc, out.Findings, port)
	if n := srv.TCPConnections(); n != tc.tcp {
		t.Errorf("TCP connections to the name server = %d, want %d", n, tc.tcp)
	}
	for zone, n := range tc.transfersAsked {
		if got := srv.Transfers(zone); got != n {
			t.Errorf("AXFR requests for %s = %d, want %d", zone, got, n)
		}
	}
	all, _ := json.Marshal(out)
	for _, h := range tc.hidden {
		if strings.Contains(string(all), h) {
			t.Errorf("the result contains zone data %q", h)
		}
	}
}

// zoneServer is the case's own DNS server, serving its records the way
// the case says (transfers, AD bit, SERVFAIL, hanging names).
func zoneServer(t *testing.T, tc zoneCase) *resolvertest.Server {
	t.Helper()
	srv := resolvertest.Start(t)
	srv.Add(t, tc.records...)
	for zone, allowed := range tc.transfers {
		srv.SetTransfer(zone, allowed)
	}
	srv.Authenticate(tc.authenticated...)
	for _, name := range tc.servfail {
		srv.SetRcode(name, dns.RcodeServerFailure)
	}
	for _, name := range tc.hang {
		srv.Hang(name)
	}
	return srv
}

// zoneEnv is the case's environment: a resolver asking addr and, unless
// the case has none, a dialer with the case's policy.
func zoneEnv(t *testing.T, tc zoneCase, addr string) tools.Env {
	t.Helper()
	timeout := tc.timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	res, err := resolver.New(addr, timeout)
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Domain: tc.scope, Resolver: res}
	for _, name := range tc.surface {
		env.Surface.Hosts = append(env.Surface.Hosts, scans.Host{Name: name, Addresses: []string{"192.0.2.1"}})
	}
	if !tc.noDialer {
		env.Dialer = netguard.New(res, netguard.Policy{AllowPrivate: !tc.strictPolicy})
	}
	return env
}

// checkZoneFindings checks a case's findings: complete, one per title,
// exactly the wanted titles and severities, each on the wanted host (by
// default the checked domain), with the AXFR port when wanted, and with
// the wanted evidence.
func checkZoneFindings(t *testing.T, tc zoneCase, findings []scans.Finding, port int) {
	t.Helper()
	got := map[string]scans.Finding{}
	severities := map[string]scans.Severity{}
	for title, w := range tc.want {
		severities[title] = w.severity
	}
	for _, f := range findings {
		t.Logf("%s [%s] %s: %s", f.Title, f.Severity, f.Host, f.Evidence)
		if _, dup := got[f.Title]; dup {
			t.Errorf("finding %q reported twice", f.Title)
		}
		got[f.Title] = f
		checkDNSProof(t, f)
		if f.Category != scans.CategoryDNS || f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
			t.Errorf("finding %q is incomplete: %+v", f.Title, f)
		}
		if f.CWE == nil && f.Title != caaTitle {
			t.Errorf("finding %q has no CWE", f.Title)
		}
	}
	scantest.WantFindings(t, got, severities)
	host := cmp.Or(tc.domain, tc.scope)
	for title, w := range tc.want {
		if f, ok := got[title]; ok {
			checkZoneFinding(t, f, w, cmp.Or(w.host, host), port)
		}
	}
}

// checkZoneFinding checks one wanted finding's host, port and evidence.
func checkZoneFinding(t *testing.T, f scans.Finding, w findingWant, host string, port int) {
	t.Helper()
	if f.Host != host {
		t.Errorf("%q host %q, want %q", f.Title, f.Host, host)
	}
	if w.port != (f.Port != nil) || (f.Port != nil && *f.Port != port) {
		t.Errorf("%q port %v, want set=%v (%d)", f.Title, f.Port, w.port, port)
	}
	for _, e := range w.evidence {
		if !strings.Contains(f.Evidence, e) {
			t.Errorf("%q evidence %q does not mention %q", f.Title, f.Evidence, e)
		}
	}
}

func TestZoneChecks(t *testing.T) {
	t.Parallel()
	high := func(host string, port bool, evidence ...string) findingWant {
		return findingWant{severity: scans.High, host: host, port: port, evidence: evidence}
	}
	low := func(evidence ...string) findingWant { return findingWant{severity: scans.Low, evidence: evidence} }
	soa := func(zone string) string {
		return zone + ". SOA ns1." + zone + ". hostmaster." + zone + ". 1 3600 600 86400 300"
	}

	cases := []zoneCase{
		{
			name: "control", scope: "fine.test",
			records: join(clean("fine.test"), nsRecords("fine.test", "ns1.fine.test"), []string{
				// An alias to a hosted service that exists: no finding.
				"www.fine.test. CNAME fine.github.io.",
				"fine.github.io. A 192.0.2.7",
				// A dead alias, but not to a service where names are claimable.
				"old.fine.test. CNAME gone.example-cdn.test.",
			}),
			transfers:      map[string]bool{"fine.test": false},
			authenticated:  []string{"fine.test"},
			want:           map[string]findingWant{},
			notes:          []string{`CAA (fine.test): issue "letsencrypt.org"`, "validated (AD bit)", "zone transfer (fine.test): ns1.fine.test refused (REFUSED)", "CNAMEs: 2 of 18 names are aliases;"},
			tcp:            1,
			transfersAsked: map[string]int{"fine.test": 1},
		},
		{
			name: "no CAA", scope: "nocaa.test",
			records: without(clean("nocaa.test"), "CAA"),
			want:    map[string]findingWant{caaTitle: low("no CAA record at nocaa.test")},
			notes:   []string{"CAA: none"},
		},
		{
			// RFC 8659 climbing: the parent's record covers the subdomain.
			name: "CAA at the parent", scope: "caaparent.test", domain: "shop.caaparent.test",
			records: join(clean("caaparent.test"), []string{`shop.caaparent.test. A 192.0.2.2`, `shop.caaparent.test. TXT "v=spf1 -all"`}),
			want:    map[string]findingWant{},
			notes:   []string{`CAA (caaparent.test): issue "letsencrypt.org"`, "DNSSEC (caaparent.test)"},
		},
		{
			name: "CAA without issue property", scope: "iodef.test",
			records: join(without(clean("iodef.test"), "CAA"), []string{`iodef.test. CAA 0 iodef "mailto:sec@iodef.test"`}),
			want:    map[string]findingWant{},
			notes:   []string{"restricts no CA"},
		},
		{
			name: "no DNSSEC", scope: "unsigned.test",
			records: without(clean("unsigned.test"), "DS", "DNSKEY"),
			want:    map[string]findingWant{dnssecTitle: low("no DNSKEY records either", "only the presence of records")},
		},
		{
			name: "DNSKEY without DS", scope: "nods.test",
			records: without(clean("nods.test"), "DS"),
			want:    map[string]findingWant{dnssecTitle: low("publishes 1 DNSKEY record,")},
		},
		{
			name: "AXFR allowed", scope: "open.test",
			records: join(clean("open.test"), nsRecords("open.test", "ns1.open.test"), []string{
				soa("open.test"),
				"vpn-internal.open.test. A 10.1.2.3",
				`secret.open.test. TXT "api-key-not-for-you"`,
			}),
			transfers: map[string]bool{"open.test": true},
			want: map[string]findingWant{axfrTitle: high("ns1.open.test", true,
				"AXFR request for zone open.test sent to name server ns1.open.test (127.0.0.1:", "records seen", "no record was kept")},
			notes:          []string{"zone transfer (open.test): ns1.open.test allowed"},
			tcp:            1,
			transfersAsked: map[string]int{"open.test": 1},
			hidden:         []string{"vpn-internal", "10.1.2.3", "api-key-not-for-you"},
		},
		{
			// The scan's domain is a subdomain without NS records: the
			// zone comes from the SOA of the negative NS answer.
			name: "AXFR of the enclosing zone", scope: "open2.test", domain: "www.open2.test",
			records: join(clean("open2.test"), nsRecords("open2.test", "ns1.open2.test"), []string{
				soa("open2.test"),
				`www.open2.test. A 192.0.2.3`,
				`www.open2.test. TXT "v=spf1 -all"`,
			}),
			transfers:      map[string]bool{"open2.test": true},
			want:           map[string]findingWant{axfrTitle: high("ns1.open2.test", true, "zone open2.test")},
			notes:          []string{"DNSSEC (open2.test)"},
			tcp:            1,
			transfersAsked: map[string]int{"open2.test": 1},
		},
		{
			name: "AXFR of a big zone reads one message", scope: "big.test",
			records:   join(clean("big.test"), nsRecords("big.test", "ns1.big.test"), manyHosts("big.test", 450)),
			transfers: map[string]bool{"big.test": true},
			want:      map[string]findingWant{axfrTitle: high("ns1.big.test", true, "100 records seen")},
			tcp:       1,
			hidden:    []string{"host-0449"},
		},
		{
			name: "AXFR refused", scope: "closed.test",
			records:        join(clean("closed.test"), nsRecords("closed.test", "ns1.closed.test", "ns2.closed.test")),
			want:           map[string]findingWant{},
			notes:          []string{"ns1.closed.test refused (REFUSED)", "ns2.closed.test refused (REFUSED)"},
			tcp:            2,
			transfersAsked: map[string]int{"closed.test": 2},
		},
		{
			// Name servers outside the scan's domain are never contacted,
			// even though this one would hand the zone over.
			name: "AXFR name server out of scope", scope: "hosted.test",
			records:        join(clean("hosted.test"), nsRecords("hosted.test", "ns1.provider.test", "ns2.provider.test")),
			transfers:      map[string]bool{"hosted.test": true},
			want:           map[string]findingWant{},
			notes:          []string{"zone transfer (hosted.test): skipped as out of scope: ns1.provider.test, ns2.provider.test"},
			tcp:            0,
			transfersAsked: map[string]int{"hosted.test": 0},
		},
		{
			// At most maxAXFRServers in-scope name servers are tried.
			name: "AXFR server limit", scope: "many.test",
			records:        join(clean("many.test"), manyNS("many.test", 6)),
			want:           map[string]findingWant{},
			notes:          []string{"not tried (limit 4 servers)"},
			tcp:            4,
			transfersAsked: map[string]int{"many.test": 4},
		},
		{
			// Without ALLOW_PRIVATE_NETWORKS the guarded dialer refuses the
			// name server's loopback address before connecting.
			name: "AXFR refused by the network policy", scope: "private.test", strictPolicy: true,
			records:   join(clean("private.test"), nsRecords("private.test", "ns1.private.test")),
			transfers: map[string]bool{"private.test": true},
			want:      map[string]findingWant{},
			// The shared wording of a refusal, naming the server and never
			// the address it resolved to.
			notes:  []string{"ns1.private.test not contacted, refused: " + (&netguard.AddressError{Host: "ns1.private.test", Private: true}).Plain()},
			hidden: []string{"127.0.0.1", "loopback"},
			tcp:    0,
		},
		{
			name: "no dialer", scope: "nodialer.test", noDialer: true,
			records:   join(clean("nodialer.test"), nsRecords("nodialer.test", "ns1.nodialer.test")),
			transfers: map[string]bool{"nodialer.test": true},
			want:      map[string]findingWant{},
			notes:     []string{"zone transfer: not checked (no guarded dialer"},
		},
		{
			name: "dangling CNAMEs", scope: "dangle.test",
			records: join(clean("dangle.test"), []string{
				"shop.dangle.test. CNAME dangle-shop.herokuapp.com.",
				// Two names, one dead target: one finding.
				"app.dangle.test. CNAME dangle.azurewebsites.net.",
				"api.dangle.test. CNAME dangle.azurewebsites.net.",
				// Through an in-zone alias first.
				"blog.dangle.test. CNAME edge.dangle.test.",
				"edge.dangle.test. CNAME dangle-blog.netlify.app.",
				// Regional S3 endpoint.
				"assets.dangle.test. CNAME dangle-assets.s3-website-us-east-1.amazonaws.com.",
				// Alive at the service: no finding.
				"docs.dangle.test. CNAME dangle.readthedocs.io.",
				"dangle.readthedocs.io. A 192.0.2.9",
			}),
			want: map[string]findingWant{
				danglingTitle("Heroku"): high("shop.dangle.test", false,
					"shop.dangle.test → dangle-shop.herokuapp.com → NXDOMAIN"),
				danglingTitle("Azure App Service"): high("app.dangle.test", false,
					"app.dangle.test → dangle.azurewebsites.net → NXDOMAIN", "the same target is the alias of api.dangle.test"),
				danglingTitle("Netlify"): high("blog.dangle.test", false,
					"blog.dangle.test → edge.dangle.test → dangle-blog.netlify.app → NXDOMAIN"),
				danglingTitle("Amazon S3"): high("assets.dangle.test", false, "NXDOMAIN"),
			},
			notes: []string{"CNAMEs: 6 of 18 names are aliases, 4 dangling"},
		},
		{
			// A name only the zone transfer shows is checked in the same
			// call: its CNAME to a bucket that does not exist is a dangling
			// alias; no other record of the zone reaches the result.
			name: "dangling alias only the zone transfer shows", scope: "axfrdangle.test",
			records: join(clean("axfrdangle.test"), nsRecords("axfrdangle.test", "ns1.axfrdangle.test"), []string{
				soa("axfrdangle.test"),
				"promo-2024.axfrdangle.test. CNAME axfrdangle-promo-2024.s3.amazonaws.com.",
				"pages.axfrdangle.test. CNAME axfrdangle.github.io.",
				"axfrdangle.github.io. A 192.0.2.8",
				"vpn-internal.axfrdangle.test. A 10.1.2.4",
			}),
			transfers: map[string]bool{"axfrdangle.test": true},
			want: map[string]findingWant{
				axfrTitle: high("ns1.axfrdangle.test", true, "no record was kept"),
				danglingTitle("Amazon S3"): high("promo-2024.axfrdangle.test", false,
					"promo-2024.axfrdangle.test → axfrdangle-promo-2024.s3.amazonaws.com → NXDOMAIN"),
			},
			notes:          []string{"CNAMEs: 2 of 20 names are aliases, 1 dangling"},
			tcp:            1,
			transfersAsked: map[string]int{"axfrdangle.test": 1},
			hidden:         []string{"vpn-internal", "10.1.2.4", "pages.axfrdangle"},
		},
		{
			// A name an earlier step learnt (discovery's zone transfer,
			// certificates, links: the surface) is checked too, though no
			// common subdomain; a surface name outside the domain is not.
			name: "dangling alias of a learnt name", scope: "learnt.test",
			records: join(clean("learnt.test"), []string{
				"legacy-portal.learnt.test. CNAME learnt-portal.azurewebsites.net.",
				"other.test. CNAME other.herokuapp.com.",
			}),
			surface: []string{"legacy-portal.learnt.test", "other.test"},
			want: map[string]findingWant{
				danglingTitle("Azure App Service"): high("legacy-portal.learnt.test", false,
					"legacy-portal.learnt.test → learnt-portal.azurewebsites.net → NXDOMAIN"),
			},
			notes: []string{"CNAMEs: 1 of 19 names are aliases, 1 dangling"},
		},
		{
			// The checked name itself is the dangling alias: it looks
			// absent to TXT and address lookups, but is reported.
			name: "dangling input name", scope: "promo.test", domain: "old.promo.test",
			records: join(clean("promo.test"), []string{"old.promo.test. CNAME promo-old.surge.sh."}),
			want: map[string]findingWant{
				danglingTitle("Surge"): high("old.promo.test", false, "old.promo.test → promo-old.surge.sh → NXDOMAIN"),
				"No SPF record":        {severity: scans.Low, host: "old.promo.test"},
			},
		},
		{
			// A resolver that fails proves nothing: no finding, every
			// check says it was not done.
			name: "SERVFAIL proves nothing", scope: "flaky.test",
			records:  join(without(clean("flaky.test"), "CAA", "DS", "DNSKEY"), []string{"flaky.test. NS ns1.flaky.test."}),
			servfail: []string{"flaky.test", "ns1.flaky.test"},
			want:     map[string]findingWant{},
			notes:    []string{"SPF: not checked", "DMARC (_dmarc.flaky.test): p=reject", "CAA: not checked", "DNSSEC: not checked (flaky.test: SERVFAIL, which a validating resolver", "zone transfer: not checked (NS lookup failed"},
		},
		{
			name: "timeouts prove nothing", scope: "slow.test", timeout: 200 * time.Millisecond,
			records: join(without(clean("slow.test"), "CAA", "DS", "DNSKEY"), nsRecords("slow.test", "ns1.slow.test"), []string{
				"www.slow.test. CNAME slow.herokuapp.com.",
			}),
			hang:  []string{"slow.test", "slow.herokuapp.com"},
			want:  map[string]findingWant{},
			notes: []string{"CAA: not checked", "DNSSEC: not checked", "zone transfer: not checked", "CNAMEs: 1 of 17 names are aliases, 1 not checked"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runZoneCase(t, tc)
		})
	}
}

func manyHosts(zone string, n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("host-%04d.%s. A 192.0.2.%d", i, zone, i%250+1)
	}
	return out
}

// manyNS are n name servers of zone, ns0 to ns<n-1>, in the zone (see
// nsRecords).
func manyNS(zone string, n int) []string {
	servers := make([]string, n)
	for i := range n {
		servers[i] = fmt.Sprintf("ns%d.%s", i, zone)
	}
	return nsRecords(zone, servers...)
}

// nsRecords are zone's NS records naming servers, in order, and an
// address on the loopback (the test name server) for each server.
func nsRecords(zone string, servers ...string) []string {
	var ns, addrs []string
	for _, s := range servers {
		ns = append(ns, zone+". NS "+s+".")
		addrs = append(addrs, s+". A 127.0.0.1")
	}
	return append(ns, addrs...)
}

// The alias names: the domain and the common subdomains, then the
// surface's in-scope hosts, each once, bounded.
func TestAliasNames(t *testing.T) {
	t.Parallel()
	if n := len(aliasNames("example.test", nil)); n > maxAliasNames || n != len(commonSubdomains)+1 {
		t.Errorf("aliasNames: %d names", n)
	}
	surface := []scans.Host{{Name: "www.example.test"}, {Name: "Promo.Example.Test"}, {Name: "other.test"}}
	for i := range 100 {
		surface = append(surface, scans.Host{Name: fmt.Sprintf("h%d.example.test", i)})
	}
	names := aliasNames("example.test", surface)
	if len(names) != maxAliasNames || names[len(commonSubdomains)+1] != "promo.example.test" || slices.Contains(names, "other.test") {
		t.Errorf("aliasNames with a surface: %d names: %v", len(names), names)
	}
}

func TestCAANames(t *testing.T) {
	t.Parallel()
	got := caaNames("a.b.example.test")
	want := []string{"a.b.example.test", "b.example.test", "example.test"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("caaNames = %v, want %v", got, want)
	}
	if got := caaNames(strings.Repeat("x.", 20) + "test"); len(got) != maxCAANames {
		t.Errorf("caaNames of a deep name: %d names, want %d", len(got), maxCAANames)
	}
}

func TestWithAXFRPort(t *testing.T) {
	t.Parallel()
	for port, want := range map[int]int{0: 53, -1: 53, 70000: 53, 5353: 5353} {
		if got := New(WithAXFRPort(port)).(Checker).port(tools.Env{}); got != want {
			t.Errorf("WithAXFRPort(%d): port %d, want %d", port, got, want)
		}
	}
	// Without the option, the environment's DNS port (the local demo's).
	if got := New().(Checker).port(tools.Env{Ports: tools.Ports{DNS: 8053}}); got != 8053 {
		t.Errorf("env DNS port: %d, want 8053", got)
	}
}

// TestReadTransfer runs readTransfer against scripted servers over
// net.Pipe: no network at all.
func TestReadTransfer(t *testing.T) {
	t.Parallel()
	rr := func(s string) dns.RR { return resolvertest.RR(t, s) }
	soa := rr("z.test. SOA ns1.z.test. h.z.test. 1 3600 600 86400 300")
	reply := func(q *dns.Msg, rcode int, answer ...dns.RR) *dns.Msg {
		m := new(dns.Msg)
		m.SetRcode(q, rcode)
		m.Answer = answer
		return m
	}
	cases := []struct {
		name    string
		serve   func(q *dns.Msg) []*dns.Msg // nil element: stop answering, keep the connection open
		allowed bool
		records int
		result  string
	}{
		{name: "allowed in one message", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeSuccess, soa, rr("www.z.test. A 192.0.2.1"), soa)}
		}, allowed: true, records: 3, result: "allowed"},
		{name: "one record per message", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeSuccess, soa), reply(q, dns.RcodeSuccess, rr("a.z.test. A 192.0.2.1")), nil}
		}, allowed: true, records: 2, result: "allowed"},
		{name: "NOTAUTH", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeNotAuth)}
		}, result: "refused (NOTAUTH)"},
		{name: "empty NOERROR", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeSuccess)}
		}, result: "refused (empty answer)"},
		{name: "closed at once", serve: func(*dns.Msg) []*dns.Msg { return nil }, result: "connection closed without an answer"},
		{name: "SOA then closed", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeSuccess, soa)}
		}, records: 1, result: "connection closed after the SOA"},
		{name: "not the zone's SOA first", serve: func(q *dns.Msg) []*dns.Msg {
			return []*dns.Msg{reply(q, dns.RcodeSuccess, rr("other.test. SOA a.test. b.test. 1 1 1 1 1"), soa)}
		}, result: "no SOA first"},
		{name: "another query's answer", serve: func(q *dns.Msg) []*dns.Msg {
			m := reply(q, dns.RcodeSuccess, soa, soa)
			m.Id = q.Id + 1
			return []*dns.Msg{m}
		}, result: "does not match"},
		{name: "silent server", serve: func(*dns.Msg) []*dns.Msg { return []*dns.Msg{nil} }, result: "no complete answer in time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, server := net.Pipe()
			defer server.Close()
			hold := make(chan struct{})
			defer close(hold)
			go func() {
				c := &dns.Conn{Conn: server}
				q, err := c.ReadMsg()
				if err != nil {
					return
				}
				for _, m := range tc.serve(q) {
					if m == nil {
						<-hold // keep the connection open past the deadline
						return
					}
					if err := c.WriteMsg(m); err != nil {
						return
					}
				}
				server.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second) // the silent cases wait it out; the others answer at once
			defer cancel()
			allowed, records, result, _ := readTransfer(ctx, client, "z.test")
			if allowed != tc.allowed || records != tc.records || !strings.Contains(result, tc.result) {
				t.Errorf("readTransfer = %v, %d, %q; want %v, %d, %q", allowed, records, result, tc.allowed, tc.records, tc.result)
			}
		})
	}
}

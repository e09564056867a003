package planner_test

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
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scanners"
	"secscan/shared/scanners/crawl"
	"secscan/shared/scanners/network"
	"secscan/shared/scanners/tlscheck"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

type portRange struct {
	Host  string `json:"host"`
	Range *struct {
		From int `json:"from"`
		To   int `json:"to"`
	} `json:"range"`
}

// The deep tier sweeps every port of every distinct address, in ranges the
// tool accepts, once per address whichever names share it; the step says
// which names the sweep covers.
func TestDeepSweepsEveryPortOncePerAddress(t *testing.T) {
	t.Parallel()
	if planner.SweepChunk != network.MaxRangePerCall || planner.MaxPort != network.MaxPort {
		t.Fatalf("the planner's chunk %d, the tool's bound %d", planner.SweepChunk, network.MaxRangePerCall)
	}
	st := stateOf(scans.Full, plans.Deep, 1000, surface())
	plan, err := planner.Calls(st)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string][]bool{}
	for _, c := range plan {
		if c.Tool != planner.PortScan {
			continue
		}
		var in portRange
		if err := json.Unmarshal(c.Input, &in); err != nil {
			t.Fatal(err)
		}
		if in.Range == nil {
			continue
		}
		if n := in.Range.To - in.Range.From + 1; n < 1 || n > network.MaxRangePerCall {
			t.Errorf("range %+v: %d ports", in.Range, n)
		}
		if covered[in.Host] == nil {
			covered[in.Host] = make([]bool, network.MaxPort+1)
		}
		for p := in.Range.From; p <= in.Range.To; p++ {
			if covered[in.Host][p] {
				t.Errorf("%s port %d swept twice", in.Host, p)
			}
			covered[in.Host][p] = true
		}
		if in.Host == domain && !strings.HasSuffix(c.Why, "once for example.com, legacy.example.com, www.example.com") {
			t.Errorf("the sweep of %s: %q does not name the hosts sharing its address", domain, c.Why)
		}
	}
	if got := slices.Sorted(mapKeys(covered)); !slices.Equal(got, []string{"api." + domain, domain, "mail." + domain}) {
		t.Errorf("swept hosts %v: want one per address (www and legacy share the domain's)", got)
	}
	for h, ports := range covered {
		if i := slices.Index(ports[1:], false); i >= 0 {
			t.Errorf("%s: port %d not swept", h, i+1)
		}
	}
	// Run, the playbook issues all 16 ranges per address.
	p := planner.Playbook{Tools: scanners.Registry()}
	ranges := 0
	for _, step := range run(t, p, st) {
		if strings.Contains(string(step.Input), `"range"`) {
			ranges++
		}
	}
	if ranges != 3*network.SweepCalls {
		t.Errorf("%d range calls run, want %d", ranges, 3*network.SweepCalls)
	}
	// A standard scan sweeps nothing.
	st.Scan.Tier = plans.Standard
	std, _ := planner.Calls(st)
	if slices.ContainsFunc(std, func(c planner.Call) bool { return strings.Contains(string(c.Input), `"range"`) }) {
		t.Error("a standard scan planned a port range")
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// covers reports whether the deep call d does what the standard call s
// does: the same call, or a crawl of the same start page with bounds at
// least as large (breadth-first from the same page).
func covers(d, s planner.Call) bool {
	if planner.CallKey(d.Tool, d.Input) == planner.CallKey(s.Tool, s.Input) {
		return true
	}
	if d.Tool != planner.WebCrawl || s.Tool != planner.WebCrawl {
		return false
	}
	var a, b struct {
		URL      string `json:"url"`
		MaxPages int    `json:"max_pages"`
		MaxDepth int    `json:"max_depth"`
	}
	if json.Unmarshal(d.Input, &a) != nil || json.Unmarshal(s.Input, &b) != nil {
		return false
	}
	return a.URL == b.URL && a.MaxPages >= b.MaxPages && a.MaxDepth >= b.MaxDepth
}

// Deep includes everything standard does: for the same surface, steps and
// findings, every call of the standard plan is covered by one of the deep
// plan, for every scan type; the deep crawl is deeper than the light one.
func TestDeepPlanCoversStandard(t *testing.T) {
	t.Parallel()
	port := func(n int) *int { return &n }
	findings := []scans.Finding{
		{ID: "f1", Title: "Directory listing enabled", Category: scans.CategoryWeb, Host: domain, Port: port(443),
			Evidence: "GET https://example.com/backup/ → 200: Index of /backup"},
		{ID: "f3", Title: "Redis answers without authentication", Category: scans.CategoryNetwork, Host: domain, Port: port(6379)},
	}
	sf := surface()
	sf.Hosts = append(sf.Hosts, scans.Host{Name: "status." + domain, Addresses: []string{"203.0.113.9"}, CNAME: "status.vendor.example"})
	for _, typ := range scans.Types {
		st := planner.State{Scan: scans.Scan{Target: domain, Type: typ, Tier: plans.Standard, MaxCredits: 200}, Surface: sf, Findings: findings}
		std, err := planner.Calls(st)
		if err != nil {
			t.Fatal(err)
		}
		st.Scan.Tier, st.Scan.MaxCredits = plans.Deep, 1000
		deep, err := planner.Calls(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range std {
			if !slices.ContainsFunc(deep, func(d planner.Call) bool { return covers(d, s) }) {
				t.Errorf("%s: the deep plan lacks the standard call %s %s", typ, s.Tool, s.Input)
			}
		}
		if len(deep) <= len(std) {
			t.Errorf("%s: deep plans %d calls, standard %d", typ, len(deep), len(std))
		}
		t.Logf("%s: standard %d calls, deep %d", typ, len(std), len(deep))
	}
	if planner.DeepCrawlPages > crawl.MaxPages || planner.DeepCrawlDepth > crawl.MaxDepth ||
		planner.DeepCrawlPages <= planner.LightCrawlPages || planner.DeepCrawlDepth <= planner.LightCrawlDepth {
		t.Errorf("deep crawl %d pages depth %d, light %d/%d, the tool's bounds %d/%d", planner.DeepCrawlPages, planner.DeepCrawlDepth,
			planner.LightCrawlPages, planner.LightCrawlDepth, crawl.MaxPages, crawl.MaxDepth)
	}
}

// A range call cut short by its time bound is continued from the port it
// stopped at; one that made no progress is not planned again.
func TestDeepContinuesCutRanges(t *testing.T) {
	t.Parallel()
	st := stateOf(scans.Full, plans.Deep, 1000, surface())
	st.Steps = []scans.Step{
		{Seq: 1, Tool: planner.PortScan, Status: scans.StepOK, Input: json.RawMessage(`{"host":"example.com","range":{"from":1,"to":4096}}`),
			Outcome: "2 of 4000 ports open on example.com (192.0.2.10): 22/ssh, 80/http; 96 of 4096 ports not scanned within the time bound (from port 4001 on, in the order given): scan them in another call"},
		{Seq: 2, Tool: planner.PortScan, Status: scans.StepOK, Input: json.RawMessage(`{"host":"example.com","range":{"from":4097,"to":8192}}`),
			Outcome: "0 of 0 ports open on example.com (192.0.2.10); 4096 of 4096 ports not scanned within the time bound (from port 4097 on, in the order given): scan them in another call"},
	}
	plan, err := planner.Calls(st)
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, c := range plan {
		if c.Tool == planner.PortScan && strings.Contains(string(c.Input), `"host":"example.com","range"`) {
			ranges = append(ranges, string(c.Input))
		}
	}
	if want := `{"host":"example.com","range":{"from":4001,"to":4096}}`; !slices.Contains(ranges, want) {
		t.Errorf("no continuation %s in %v", want, ranges)
	}
	if len(ranges) != 17 {
		t.Errorf("%d ranges of the domain, want its 16 and one continuation: %v", len(ranges), ranges)
	}
}

// Names sharing an address, certificate and home page (www and the apex)
// are one site: the heavy checks run once, and the step records which
// names they cover. A name with another certificate, or another home page,
// on the same address gets its own. The certificate is read from the real
// tls_check's outcome.
func TestAliasesShareHeavyChecks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // tls_check's refused probes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, portText, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tlsPort, _ := strconv.Atoi(portText)
	dns := resolvertest.Start(t)
	dns.Add(t, "example.com. A 127.0.0.1", "www.example.com. A 127.0.0.1")
	res, err := resolver.New(dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Domain: domain, Dialer: netguard.New(res, netguard.Policy{AllowPrivate: true}), Resolver: res, Ports: tools.Ports{HTTPS: tlsPort}}
	tlsOutcome := func(host string) string {
		r, err := tlscheck.New(tlscheck.Options{}).Run(context.Background(), env, json.RawMessage(fmt.Sprintf(`{"host":%q,"port":%d}`, host, tlsPort)))
		if err != nil {
			t.Fatal(err)
		}
		return r.Outcome
	}
	apexTLS, wwwTLS := tlsOutcome(domain), tlsOutcome("www."+domain)
	t.Logf("tls_check outcome: %s", apexTLS)

	origin := func(h string) string { return fmt.Sprintf("https://%s:%d", h, tlsPort) }
	build := func(wwwOutcome, wwwTitle string) planner.State {
		sf := scans.Surface{
			Hosts: []scans.Host{
				{Name: domain, Addresses: []string{"127.0.0.1"}, Sources: []scans.HostSource{scans.SourceApex}},
				{Name: "www." + domain, Addresses: []string{"127.0.0.1"}, Sources: []scans.HostSource{scans.SourceWWW}},
			},
			Services: []scans.ServiceInfo{{Host: domain, Address: "127.0.0.1", Port: tlsPort, Transport: "tcp", Protocol: "https"}},
			Web: []scans.WebOrigin{
				{Origin: origin(domain), Title: "Shop", Server: "nginx"},
				{Origin: origin("www." + domain), Title: wwwTitle, Server: "nginx"},
			},
		}
		step := func(seq int, host, outcome string) scans.Step {
			return scans.Step{Seq: seq, Tool: planner.TLSCheck, Status: scans.StepOK, Outcome: outcome,
				Input: json.RawMessage(fmt.Sprintf(`{"host":%q,"port":%d}`, host, tlsPort))}
		}
		return planner.State{Scan: scans.Scan{Target: domain, Type: scans.Full, Tier: plans.Deep, MaxCredits: 1000}, Surface: sf,
			Steps: []scans.Step{step(1, domain, apexTLS), step(2, "www."+domain, wwwOutcome)}}
	}
	heavy := func(st planner.State) map[string][]planner.Call {
		plan, err := planner.Calls(st)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]planner.Call{}
		for _, c := range plan {
			switch c.Tool {
			case planner.ExposedFiles, planner.VersionCheck, planner.CodeScan, planner.WebCrawl:
				out[c.Host] = append(out[c.Host], c)
			}
		}
		return out
	}

	same := heavy(build(wwwTLS, "Shop"))
	if len(same["www."+domain]) != 0 || len(same[domain]) != 4 {
		t.Fatalf("aliases: heavy calls %v", same)
	}
	for _, c := range same[domain] {
		if !slices.Equal(c.Covers, []string{"www." + domain}) {
			t.Errorf("%s covers %v, want www", c.Tool, c.Covers)
		}
	}
	// The note the step records, through the playbook.
	st := build(wwwTLS, "Shop")
	p := planner.Playbook{Tools: scanners.Registry()}
	for range 100 {
		d, err := p.Next(context.Background(), st)
		if err != nil || d.Done {
			t.Fatalf("no exposed_files planned (%v)", err)
		}
		if d.Tool == planner.ExposedFiles {
			if want := "also covers www.example.com (same address, certificate and home page as example.com)"; d.Note != want {
				t.Errorf("note %q, want %q", d.Note, want)
			}
			break
		}
		st.Steps = append(st.Steps, scans.Step{Seq: len(st.Steps) + 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK})
	}

	// Another certificate, or another home page: another site.
	otherCert := strings.Replace(wwwTLS, "; certificate ", `; certificate "CN=www.example.com" expiring 2030-01-01 was `, 1)
	for name, st := range map[string]planner.State{"certificate": build(otherCert, "Shop"), "home page": build(wwwTLS, "Blog"),
		"no tls_check yet": func() planner.State { s := build(wwwTLS, "Shop"); s.Steps = s.Steps[:1]; return s }()} {
		got := heavy(st)
		if len(got["www."+domain]) != 4 || len(got[domain]) != 4 {
			t.Errorf("another %s: heavy calls %v", name, got)
		}
		for _, c := range got[domain] {
			if len(c.Covers) != 0 {
				t.Errorf("another %s: %s covers %v", name, c.Tool, c.Covers)
			}
		}
	}
}

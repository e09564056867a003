package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scanners/followup"
	"secscan/shared/scans"
)

const domain = "example.com"

// run plans a scan to the end against a fixed surface and findings,
// charging each call's cost, and returns the steps.
func run(t *testing.T, p planner.Playbook, st planner.State) []scans.Step {
	t.Helper()
	return runWith(t, p, st, nil)
}

// addWordlistHosts adds n subdomains found by the wordlist to sf, each on
// an address of its own with an HTTPS service.
func addWordlistHosts(sf *scans.Surface, n int) {
	for i := range n {
		name := fmt.Sprintf("h%02d.%s", i, domain)
		addr := fmt.Sprintf("192.0.2.%d", 100+i)
		sf.Hosts = append(sf.Hosts, scans.Host{Name: name, Addresses: []string{addr}, Sources: []scans.HostSource{scans.SourceWordlist}})
		sf.Services = append(sf.Services, scans.ServiceInfo{Host: name, Address: addr, Port: 443, Protocol: "https"})
	}
}

// runWith plans st to its end, each decision checked (a known tool, valid
// input, within the budget) and recorded as an ok step charged its tool's
// cost; complete, when given, adds what the tool found to the step.
func runWith(t *testing.T, p planner.Playbook, st planner.State, complete func(*testing.T, *scans.Step)) []scans.Step {
	t.Helper()
	for i := range 1000 {
		d, err := p.Next(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			return st.Steps
		}
		tool, ok := p.Tools.Get(d.Tool)
		if !ok {
			t.Fatalf("planned unknown tool %s", d.Tool)
		}
		if !json.Valid(d.Input) {
			t.Fatalf("invalid input %s", d.Input)
		}
		if st.Scan.CreditsUsed+tool.Cost() > st.Scan.MaxCredits {
			t.Fatalf("step %d (%s) costs %d with %d of %d credits used", i+1, d.Tool, tool.Cost(), st.Scan.CreditsUsed, st.Scan.MaxCredits)
		}
		st.Scan.CreditsUsed += tool.Cost()
		step := scans.Step{Seq: i + 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK, Credits: tool.Cost()}
		if complete != nil {
			complete(t, &step)
		}
		st.Steps = append(st.Steps, step)
	}
	t.Fatal("the plan does not end")
	return nil
}

// stateOf is the state of a scan of domain, of type typ and tier, with
// maxCredits and the surface sf, before any step.
func stateOf(typ scans.Type, tier plans.Tier, maxCredits int, sf scans.Surface) planner.State {
	return planner.State{Scan: scans.Scan{Target: domain, Type: typ, Tier: tier, MaxCredits: maxCredits}, Surface: sf}
}

func surface() scans.Surface {
	host := func(name string, addr string, src scans.HostSource) scans.Host {
		return scans.Host{Name: name, Addresses: []string{addr}, Sources: []scans.HostSource{src}}
	}
	svc := func(host, addr string, port int, proto string) scans.ServiceInfo {
		return scans.ServiceInfo{Host: host, Address: addr, Port: port, Transport: "tcp", Protocol: proto}
	}
	return scans.Surface{
		Hosts: []scans.Host{
			host(domain, "192.0.2.10", scans.SourceApex),
			host("www."+domain, "192.0.2.10", scans.SourceWWW),
			host("legacy."+domain, "192.0.2.10", scans.SourceAXFR),
			host("api."+domain, "192.0.2.20", scans.SourceWordlist),
			host("mail."+domain, "192.0.2.30", scans.SourceMX),
		},
		Services: []scans.ServiceInfo{
			svc(domain, "192.0.2.10", 80, "http"), svc(domain, "192.0.2.10", 443, "https"),
			svc(domain, "192.0.2.10", 6379, "redis"), svc("api."+domain, "192.0.2.20", 8443, "https"),
			svc("mail."+domain, "192.0.2.30", 25, "smtp"),
		},
		// What ties api's and mail's addresses to the domain (the domain's
		// own is its apex's): a certificate naming api, mail's reverse DNS.
		Addresses: []scans.Address{
			{Address: "192.0.2.20", TiedBy: scans.TieCertificate, TiedName: "api." + domain},
			{Address: "192.0.2.30", TiedBy: scans.TieReverseDNS, TiedName: "mail." + domain},
		},
	}
}

func calls(steps []scans.Step, tool string) []string {
	var out []string
	for _, s := range steps {
		if s.Tool == tool {
			out = append(out, string(s.Input))
		}
	}
	return out
}

// The plan follows the surface: one port scan per address, tls_check on
// every TLS service of every host (hosts sharing an address share its
// services, the first name's call asking to cover the others), the web
// checks per origin; the same state gives the same plan.
func TestPlanFollowsTheSurface(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	st := stateOf(scans.Full, plans.Deep, 1000, surface())
	steps := run(t, p, st)
	again := run(t, p, st)
	if !slices.EqualFunc(steps, again, func(a, b scans.Step) bool { return a.Tool == b.Tool && string(a.Input) == string(b.Input) }) {
		t.Fatal("the same state gave two plans")
	}
	ports := calls(steps, planner.PortScan)
	for _, h := range []string{domain, "api." + domain, "mail." + domain} {
		want := fmt.Sprintf(`{"host":%q,"preset":"top1000+exposures"}`, h)
		if !slices.Contains(ports, want) {
			t.Errorf("no top1000+exposures port scan of %s: %v", h, ports)
		}
	}
	for _, h := range []string{"www." + domain, "legacy." + domain} {
		for _, c := range ports {
			if strings.Contains(c, `"`+h+`"`) {
				t.Errorf("%s shares the domain's address but was port-scanned again: %s", h, c)
			}
		}
	}
	tlsCalls := calls(steps, planner.TLSCheck)
	// The names sharing the domain's address are asked of its call first;
	// this run's steps cover none of them (no service entries), so each
	// gets a call of its own after it.
	for _, want := range []string{
		`{"also":["legacy.example.com","www.example.com"],"host":"example.com","port":443}`, `{"host":"www.example.com","port":443}`,
		`{"host":"legacy.example.com","port":443}`, `{"host":"api.example.com","port":8443}`,
	} {
		if !slices.Contains(tlsCalls, want) {
			t.Errorf("missing tls_check %s in %v", want, tlsCalls)
		}
	}
	if c := calls(steps, planner.HTTPCheck); !slices.Contains(c, `{"url":"https://api.example.com:8443/"}`) || slices.ContainsFunc(c, func(s string) bool { return strings.Contains(s, "mail.") }) {
		t.Errorf("http_check calls %v", c)
	}
	if n := len(calls(steps, planner.PortScan)); n != 3*1+3*16 {
		t.Errorf("deep tier: %d port scans, want one top1000+exposures and 16 ranges for each of 3 addresses", n)
	}
}

// Every service that answered as SSH, on any port, is audited once per
// address and port (hosts sharing an address share it); the network scan
// type audits too, the web type does not.
func TestSSHAuditOfEverySSHService(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	sf := surface()
	sf.Services = append(sf.Services,
		scans.ServiceInfo{Host: domain, Address: "192.0.2.10", Port: 22, Transport: "tcp", Protocol: "ssh", Product: "OpenSSH", Version: "9.2p1"},
		scans.ServiceInfo{Host: "mail." + domain, Address: "192.0.2.30", Port: 2222, Transport: "tcp", Protocol: "ssh"})
	for _, tc := range []struct {
		typ  scans.Type
		tier plans.Tier
		want []string
	}{
		{scans.Full, plans.Standard, []string{`{"host":"example.com","port":22}`, `{"host":"mail.example.com","port":2222}`}},
		{scans.Full, plans.Quick, []string{`{"host":"example.com","port":22}`}},
		{scans.Network, plans.Standard, []string{`{"host":"example.com","port":22}`, `{"host":"mail.example.com","port":2222}`}},
		{scans.Web, plans.Standard, nil},
	} {
		st := stateOf(tc.typ, tc.tier, 1000, sf)
		got := calls(run(t, p, st), planner.SSHAudit)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s/%s: ssh_audit calls %v, want %v", tc.typ, tc.tier, got, tc.want)
		}
	}
}

// A standard scan of more hosts than its tier allows scans the first 16 by
// priority and says why the rest were not scanned; the budget cuts the
// plan before the ceiling is passed.
func TestPlanBoundsHostsAndBudget(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	sf := scans.Surface{Hosts: []scans.Host{{Name: domain, Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceApex}}}}
	addWordlistHosts(&sf, 20)
	st := stateOf(scans.Full, plans.Standard, 200, sf)
	st.Steps = run(t, p, st)
	notScanned := p.NotScanned(st)
	reasons := map[string]int{}
	for _, h := range notScanned {
		reasons[h.NotScanned]++
	}
	if reasons["tier limit (standard scans at most 16 hosts)"] != 5 || reasons["credit budget"] == 0 {
		t.Errorf("not scanned: %v", reasons)
	}
	if s := planner.NotScannedSentence(notScanned, len(sf.Hosts)); !strings.HasPrefix(s, fmt.Sprintf("%d of 21 discovered hosts were not scanned: ", len(notScanned))) {
		t.Errorf("sentence %q", s)
	}
	// The apex is scanned first, whatever its name sorts like.
	if first := calls(st.Steps, planner.PortScan)[0]; !strings.Contains(first, `"host":"example.com"`) {
		t.Errorf("first port scan %s", first)
	}
}

// A quick scan looks at the domain and www only.
func TestQuickCoversDomainAndWWW(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	st := stateOf(scans.Web, plans.Quick, 50, surface())
	for _, s := range run(t, p, st) {
		if s.Tool == planner.DiscoverHosts {
			if string(s.Input) != `{"sources":["www"]}` {
				t.Errorf("quick discovery %s", s.Input)
			}
			continue
		}
		if !strings.Contains(string(s.Input), `example.com`) || strings.Contains(string(s.Input), "legacy.") || strings.Contains(string(s.Input), "api.") {
			t.Errorf("quick scan step %s %s", s.Tool, s.Input)
		}
	}
}

// Findings ask for follow-ups; evidence pointing outside the scope asks for
// nothing.
func TestFollowUps(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	port := func(n int) *int { return &n }
	cve := "CVE-2021-41773"
	findings := []scans.Finding{
		{ID: "f1", Title: "Directory listing enabled", Category: scans.CategoryWeb, Host: domain, Port: port(443),
			Evidence: "GET https://example.com/backup/ → 200: Index of /backup"},
		{ID: "f2", Title: "Environment file exposed (/.env)", Category: scans.CategoryWeb, Host: domain, Port: port(443),
			Evidence: "GET https://example.com/.env → 200 (text/plain)"},
		{ID: "f3", Title: "Redis answers without authentication", Category: scans.CategoryNetwork, Host: domain, Port: port(6379)},
		{ID: "f4", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Category: scans.CategoryVuln, Host: domain, Port: port(443),
			CVE: &cve, Confidence: scans.Tentative},
		{ID: "f5", Title: "Directory listing enabled", Category: scans.CategoryWeb, Host: domain, Port: port(443),
			Evidence: "GET https://evil.example/dump/ → 200 and http://10.0.0.1/x"},
		// The same services reached through www (the domain's address) are
		// not read or confirmed again; api's own address is.
		{ID: "f6", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Category: scans.CategoryVuln, Host: "www." + domain, Port: port(443),
			CVE: &cve, Confidence: scans.Tentative},
		{ID: "f7", Title: "Redis answers without authentication", Category: scans.CategoryNetwork, Host: "www." + domain, Port: port(6379)},
		{ID: "f8", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Category: scans.CategoryVuln, Host: "api." + domain, Port: port(8443),
			CVE: &cve, Confidence: scans.Tentative},
	}
	st := planner.State{Scan: scans.Scan{Target: domain, Type: scans.Full, Tier: plans.Standard, MaxCredits: 200},
		Surface: surface(), Findings: findings}
	steps := run(t, p, st)
	for tool, want := range map[string][]string{
		planner.ListingFiles: {`{"url":"https://example.com/backup/"}`},
		planner.FileSecrets:  {`{"url":"https://example.com/.env"}`},
		planner.ServiceInfo:  {`{"host":"example.com","port":6379}`},
		planner.ConfirmCVE:   {`{"cve":"CVE-2021-41773","host":"example.com","port":443}`, `{"cve":"CVE-2021-41773","host":"api.example.com","port":8443}`},
	} {
		if got := calls(steps, tool); !slices.Equal(got, want) {
			t.Errorf("%s calls %v, want %v", tool, got, want)
		}
	}
	for _, s := range steps {
		if strings.Contains(string(s.Input), "evil.example") || strings.Contains(string(s.Input), "10.0.0.1") {
			t.Errorf("planned a call outside the scope: %s %s", s.Tool, s.Input)
		}
	}
	// Follow-ups run before the rest of the plan once their finding exists.
	if steps[2].Tool != planner.ListingFiles {
		t.Errorf("third step %s, want the listing follow-up right after discovery", steps[2].Tool)
	}
	if !slices.Equal(planner.Confirmable, followup.ConfirmableCVEs()) {
		t.Errorf("the planner confirms %v, the tool %v", planner.Confirmable, followup.ConfirmableCVEs())
	}
}

// Every scan type and tier plans real tools within its credit ceiling.
func TestEveryTypeAndTier(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	for _, typ := range scans.Types {
		for tier, ceiling := range plans.CreditCeiling {
			if typ == scans.Full && tier == plans.Quick {
				continue // refused at creation
			}
			st := stateOf(typ, tier, ceiling, surface())
			steps := run(t, p, st)
			if len(steps) < 2 {
				t.Errorf("%s/%s: %d steps", typ, tier, len(steps))
			}
			t.Logf("%s/%s: %d steps", typ, tier, len(steps))
		}
	}
	if _, err := planner.Calls(planner.State{Scan: scans.Scan{Type: "port"}}); err == nil {
		t.Fatal("a plan for an unknown scan type")
	}
}

// The domain's own checks are the floor of the budget (CONTRACT "Tiers and
// credits"): other hosts never take the credits the domain's remaining
// checks need, and a budget too small for the domain itself ends in a call
// the budget cannot pay for, which the agent turns into the budget failure.
func TestBudgetFloorIsTheDomainsOwnChecks(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	sf := scans.Surface{Hosts: []scans.Host{{Name: domain, Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceApex}}},
		Services: []scans.ServiceInfo{{Host: domain, Address: "192.0.2.1", Port: 443, Protocol: "https"}}}
	addWordlistHosts(&sf, 10)
	full := stateOf(scans.Full, plans.Standard, 200, sf)
	domainCost := 0
	for _, st := range run(t, p, full) {
		if !strings.Contains(string(st.Input), `.`+domain) && st.Tool != planner.HTTPFingerprint { // fingerprints are no floor
			tool, _ := p.Tools.Get(st.Tool)
			domainCost += tool.Cost()
		}
	}
	// With just enough for the domain's own checks, every one of them runs
	// and no other host is touched.
	tight := full
	tight.Scan.MaxCredits = domainCost
	for _, st := range run(t, p, tight) {
		if strings.Contains(string(st.Input), `.`+domain) {
			t.Fatalf("another host (%s %s) took credits the domain's own checks needed", st.Tool, st.Input)
		}
	}
	// One credit less: the plan proposes a call the budget cannot pay for.
	short := full
	short.Scan.MaxCredits = domainCost - 1
	for range 100 {
		d, err := p.Next(context.Background(), short)
		if err != nil || d.Done {
			t.Fatalf("a budget below the domain's own checks completed (%v)", err)
		}
		tool, _ := p.Tools.Get(d.Tool)
		if short.Scan.CreditsUsed+tool.Cost() > short.Scan.MaxCredits {
			return // the agent fails the scan here: Credit budget exceeded
		}
		short.Scan.CreditsUsed += tool.Cost()
		short.Steps = append(short.Steps, scans.Step{Seq: len(short.Steps) + 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK})
	}
	t.Fatal("the plan never ended")
}

// Every HTTP(S) service the port scan finds is fingerprinted once per
// address and port (not only the host's preferred origin, and not again
// for names sharing the address), before the host's http_check; the
// services that speak no HTTP are not.
func TestPlanFingerprintsEveryHTTPService(t *testing.T) {
	t.Parallel()
	sf := surface()
	sf.Services = append(sf.Services,
		scans.ServiceInfo{Host: domain, Address: "192.0.2.10", Port: 9100, Transport: "tcp", Protocol: "http"},
		scans.ServiceInfo{Host: domain, Address: "192.0.2.10", Port: 9200, Transport: "tcp", Protocol: "elasticsearch"},
		scans.ServiceInfo{Host: "api." + domain, Address: "192.0.2.20", Port: 10250, Transport: "tcp", Protocol: "https"})
	p := planner.Playbook{Tools: scanners.Registry()}
	for _, tc := range []struct {
		typ  scans.Type
		tier plans.Tier
	}{{scans.Full, plans.Standard}, {scans.Network, plans.Standard}} {
		st := stateOf(tc.typ, tc.tier, plans.CreditCeiling[tc.tier], sf)
		steps := run(t, p, st)
		got := calls(steps, planner.HTTPFingerprint)
		want := []string{`{"url":"http://example.com/"}`, `{"url":"https://example.com/"}`,
			`{"url":"http://example.com:9100/"}`, `{"url":"http://example.com:9200/"}`}
		want = append(want, `{"url":"https://api.example.com:8443/"}`, `{"url":"https://api.example.com:10250/"}`)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s/%s: http_fingerprint calls %v, want %v", tc.typ, tc.tier, got, want)
		}
		fp := slices.IndexFunc(steps, func(s scans.Step) bool { return s.Tool == planner.HTTPFingerprint })
		hc := slices.IndexFunc(steps, func(s scans.Step) bool { return s.Tool == planner.HTTPCheck })
		if hc >= 0 && fp > hc {
			t.Errorf("%s/%s: http_check (step %d) before the first http_fingerprint (step %d)", tc.typ, tc.tier, hc+1, fp+1)
		}
	}
}

// Fingerprints are not the domain's floor: a scan whose budget cannot pay
// for all of them still completes, spending first on the ports that are not
// the host's web origin.
func TestFingerprintsYieldToTheBudget(t *testing.T) {
	t.Parallel()
	svc := func(port int, proto string) scans.ServiceInfo {
		return scans.ServiceInfo{Host: domain, Address: "192.0.2.10", Port: port, Transport: "tcp", Protocol: proto}
	}
	sf := scans.Surface{Hosts: []scans.Host{{Name: domain, Addresses: []string{"192.0.2.10"}, Sources: []scans.HostSource{scans.SourceApex}}},
		Services: []scans.ServiceInfo{svc(80, "http"), svc(443, "https"), svc(9100, "http")}}
	p := planner.Playbook{Tools: scanners.Registry()}
	st := stateOf(scans.Full, plans.Standard, 1000, sf)
	_, floorCost, _, err := p.Baseline(st)
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := p.Tools.Get(planner.HTTPFingerprint)
	st.Scan.MaxCredits = floorCost + fp.Cost() // one fingerprint more than the floor
	got := calls(run(t, p, st), planner.HTTPFingerprint)
	if !slices.Equal(got, []string{`{"url":"http://example.com:9100/"}`}) {
		t.Errorf("with credits for one fingerprint: %v, want :9100 only", got)
	}
}

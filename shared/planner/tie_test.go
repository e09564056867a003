package planner_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// borrowed is a loopback address standing for someone else's machine that
// in-scope names point at (the planner plans; nothing is dialled).
const borrowed = "127.0.46.1"

// borrowedSurface is the domain on its own address, three in-scope names
// on a borrowed address nothing ties to the domain (an SSH service on
// it), and tied.example.com on an address that served a certificate
// naming it.
func borrowedSurface() scans.Surface {
	sf := scans.Surface{
		Hosts: []scans.Host{{Name: domain, Addresses: []string{"127.0.45.10"}, Sources: []scans.HostSource{scans.SourceApex}},
			{Name: "tied." + domain, Addresses: []string{"127.0.45.20"}, Sources: []scans.HostSource{scans.SourceWordlist}}},
		Services: []scans.ServiceInfo{
			{Host: domain, Address: "127.0.45.10", Port: 443, Transport: "tcp", Protocol: "https"},
			{Host: "tied." + domain, Address: "127.0.45.20", Port: 8443, Transport: "tcp", Protocol: "https"},
		},
		Addresses: []scans.Address{
			{Address: "127.0.45.20", Probed: true, TiedBy: scans.TieCertificate, TiedName: "tied." + domain},
			{Address: borrowed, Probed: true},
		},
	}
	for _, label := range []string{"x1", "x2", "x3"} {
		sf.Hosts = append(sf.Hosts, scans.Host{Name: label + "." + domain, Addresses: []string{borrowed}, Sources: []scans.HostSource{scans.SourceWordlist}})
	}
	sf.Services = append(sf.Services, scans.ServiceInfo{Host: "x1." + domain, Address: borrowed, Port: 22, Transport: "tcp", Protocol: "ssh"})
	return sf
}

// sweptHosts are the hosts of the range calls of plan, and the port
// scans with a preset, by host.
func sweptHosts(t *testing.T, plan []planner.Call) (swept map[string]int, presets map[string]string) {
	t.Helper()
	swept, presets = map[string]int{}, map[string]string{}
	for _, c := range plan {
		if c.Tool != planner.PortScan {
			continue
		}
		var in struct {
			Host   string          `json:"host"`
			Preset string          `json:"preset"`
			Range  json.RawMessage `json:"range"`
		}
		if err := json.Unmarshal(c.Input, &in); err != nil {
			t.Fatal(err)
		}
		if in.Range != nil {
			swept[in.Host]++
		} else {
			presets[in.Host] = in.Preset
		}
	}
	return swept, presets
}

// A deep scan sweeps every port only of the addresses tied to the
// domain: three in-scope names on a borrowed address get the usual port
// list (once, the address's) and the audit of their SSH service, no
// range; the domain's address and the one with an in-scope certificate
// are swept; the summary says which were not.
func TestDeepSweepSkipsBorrowedAddresses(t *testing.T) {
	t.Parallel()
	st := stateOf(scans.Full, plans.Deep, 1000, borrowedSurface())
	plan, err := planner.Calls(st)
	if err != nil {
		t.Fatal(err)
	}
	swept, presets := sweptHosts(t, plan)
	if want := map[string]int{domain: 16, "tied." + domain: 16}; fmt.Sprint(swept) != fmt.Sprint(want) {
		t.Errorf("range calls by host %v, want %v", swept, want)
	}
	if presets["x1."+domain] != "top1000+exposures" || len(presets) != 3 {
		t.Errorf("preset port scans %v: want the usual list on the domain, tied and the borrowed address (once, as x1)", presets)
	}
	if !slices.ContainsFunc(plan, func(c planner.Call) bool {
		return c.Tool == planner.SSHAudit && strings.Contains(string(c.Input), `"x1.example.com"`)
	}) {
		t.Error("the SSH service on the borrowed address is not audited")
	}
	st.Steps = run(t, planner.Playbook{Tools: scanners.Registry()}, st)
	_, partial := planner.Playbook{Tools: scanners.Registry()}.Coverage(st)
	if !strings.Contains(partial, "1 addresses got the usual port scan but not every port") || !strings.Contains(partial, "x1."+domain) {
		t.Errorf("coverage %q does not name the address not swept", partial)
	}
	// Once something ties it (a certificate naming x2, say), it is swept.
	st.Steps = nil
	st.Surface.Addresses[1] = scans.Address{Address: borrowed, Probed: true, TiedBy: scans.TieCertificate, TiedName: "x2." + domain}
	plan, _ = planner.Calls(st)
	if swept, _ := sweptHosts(t, plan); swept["x1."+domain] != 16 {
		t.Errorf("tied borrowed address: range calls %v", swept)
	}
}

// The tier caps the distinct addresses its port scans probe (standard
// 16): hosts on further addresses are left out, each listed in the
// surface with not_probed_reason, and addresses a model's calls already
// probed count first.
func TestAddressCapLeavesHostsOut(t *testing.T) {
	t.Parallel()
	sf := scans.Surface{Hosts: []scans.Host{{Name: domain, Addresses: []string{"192.0.2.10"}, Sources: []scans.HostSource{scans.SourceApex}}}}
	addWordlistHosts(&sf, 19) // 20 hosts on 20 addresses
	st := stateOf(scans.Full, plans.Standard, 200, sf)
	hosts, _ := planner.Playbook{Tools: scanners.Registry()}.Coverage(st)
	var capped []string
	for _, h := range hosts {
		if h.NotProbed == scans.NotProbedAddressCap {
			capped = append(capped, h.Name)
		}
	}
	if want := []string{"h15." + domain, "h16." + domain, "h17." + domain, "h18." + domain}; !slices.Equal(capped, want) {
		t.Errorf("hosts left out by the address cap %v, want %v", capped, want)
	}
	// 16 addresses probed already (a model's calls), h00's not among them:
	// h00 is no longer port-scanned.
	st.Surface.Addresses = []scans.Address{{Address: "192.0.2.10", Probed: true}}
	for i := 1; i < 16; i++ {
		st.Surface.Addresses = append(st.Surface.Addresses, scans.Address{Address: fmt.Sprintf("192.0.2.%d", 100+i), Probed: true})
	}
	plan, _ := planner.Calls(st)
	if _, presets := sweptHosts(t, plan); presets["h00."+domain] != "" || presets["h01."+domain] == "" {
		t.Errorf("port scans %v: h00's address is beyond the cap, h01's was probed", presets)
	}
	hosts, _ = planner.Playbook{Tools: scanners.Registry()}.Coverage(st)
	if !slices.ContainsFunc(hosts, func(h scans.Host) bool { return h.Name == "h00."+domain && h.NotProbed == scans.NotProbedAddressCap }) {
		t.Errorf("h00 not listed as not probed: %+v", hosts)
	}
}

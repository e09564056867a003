package report

import (
	"reflect"
	"testing"

	"secscan/shared/scans"
)

// coverageCases pin coverage's every rule: tools in first-run order,
// services once per host and port (a later surface version replaces a
// banner that lacks it, a product fills an empty one), a sentence per
// refused, failed and timed-out step, hosts from findings, the surface's
// hosts with their sources, left-out hosts and aliases, web origins, the
// names out of scope (one and many), the categories outside the scan type
// and the ports a non-deep scan leaves.
var coverageCases = []struct {
	name string
	r    Report
	want Coverage
}{
	{
		name: "empty full scan",
		r:    Report{Scan: scans.Scan{Type: scans.Full, Tier: "standard"}},
		want: Coverage{NotTested: []string{"Ports outside the most common ones: only a deep scan checks all 65,535."}},
	},
	{
		name: "deep ssl scan, one name out of scope",
		r: Report{
			Scan:    scans.Scan{Type: scans.SSL, Tier: "deep"},
			Surface: scans.Surface{OutOfScope: 1},
		},
		want: Coverage{NotTested: []string{
			"1 name outside the target's scope was seen (CNAME, certificate, link, MX, SPF, …) and never contacted.",
			"Not in scope of a ssl scan: network services and open ports.",
			"Not in scope of a ssl scan: web application headers, cookies and exposed files.",
			"Not in scope of a ssl scan: known vulnerabilities of fingerprinted software.",
			"Not in scope of a ssl scan: exposed code and secrets.",
			"Not in scope of a ssl scan: DNS and e-mail authentication records.",
		}},
	},
	{
		name: "steps, findings and surface",
		r: Report{
			Scan: scans.Scan{Type: scans.Network, Tier: "standard"},
			Steps: []scans.Step{
				{Seq: 1, Tool: "dns_check", Status: scans.StepOK},
				{Seq: 2, Tool: "port_scan", Status: scans.StepOK, Services: []scans.Service{
					{Host: "b.example.com", Port: 22, Name: "ssh", Banner: "SSH-2.0-OpenSSH_8.9"},
					{Host: "a.example.com", Port: 6379, Name: "redis"},
					{Host: "a.example.com", Port: 80, Name: "http", Banner: "nginx"},
				}},
				{Seq: 3, Tool: "port_scan", Status: scans.StepOK, Services: []scans.Service{
					{Host: "b.example.com", Port: 22, Name: "ssh", Banner: "again"},
				}},
				{Seq: 4, Tool: "ssh_audit", Status: scans.StepRefused, Outcome: "Refused: out of scope"},
				{Seq: 5, Tool: "ftp_audit", Status: scans.StepFailed, Outcome: "Tool error: connection reset"},
				{Seq: 6, Tool: "port_scan", Status: scans.StepTimedOut, Outcome: "partial"},
			},
			Findings: []scans.Finding{{Host: "c.example.com"}, {Host: ""}},
			Surface: scans.Surface{
				Hosts: []scans.Host{
					{Name: "a.example.com", Addresses: []string{"192.0.2.1", "2001:db8::1"}, Sources: []scans.HostSource{scans.SourceApex}},
					{Name: "d.example.com", NotScanned: "credit budget"},
					{Name: "e.example.com", CNAME: "e.example.net", NotProbed: "third party"},
				},
				Services: []scans.ServiceInfo{
					{Host: "b.example.com", Port: 22, Protocol: "ssh", Product: "OpenSSH", Version: "9.6"},
					{Host: "a.example.com", Port: 6379, Protocol: "redis", Product: "Redis"},
					{Host: "a.example.com", Port: 80, Protocol: "http", Product: "nginx"},
					{Host: "a.example.com", Port: 443, Protocol: "https"},
					{Host: "a.example.com", Port: 443, Protocol: "https", Product: "twice"},
				},
				Web: []scans.WebOrigin{
					{Origin: "https://a.example.com/", Title: "Shop", Server: "nginx"},
					{Origin: "http://a.example.com/"},
				},
				OutOfScope: 4,
			},
		},
		want: Coverage{
			ToolsRun: []string{"dns_check", "port_scan", "ssh_audit", "ftp_audit"},
			Hosts: []string{
				"a.example.com (192.0.2.1, 2001:db8::1) — found by apex",
				"b.example.com",
				"c.example.com",
				"d.example.com — not scanned: credit budget",
				"e.example.com — alias of e.example.net",
				"Web origin https://a.example.com/ — “Shop” — nginx",
				"Web origin http://a.example.com/",
			},
			Services: []scans.Service{
				{Host: "a.example.com", Port: 80, Name: "http", Banner: "nginx"},
				{Host: "a.example.com", Port: 443, Name: "https", Banner: "twice"},
				{Host: "a.example.com", Port: 6379, Name: "redis", Banner: "Redis"},
				{Host: "b.example.com", Port: 22, Name: "ssh", Banner: "OpenSSH 9.6"},
			},
			NotTested: []string{
				"Step 4 (ssh_audit) was not run: out of scope",
				"Step 5 (ftp_audit) could not complete: connection reset",
				"Step 6 (port_scan) reached its time limit; its results are partial.",
				"d.example.com was discovered but not scanned: credit budget.",
				"e.example.com is an alias of e.example.net, outside the scope; its services were not probed: third party.",
				"4 names outside the target's scope were seen (CNAME, certificate, link, MX, SPF, …) and never contacted.",
				"Not in scope of a network scan: TLS configuration and certificates.",
				"Not in scope of a network scan: web application headers, cookies and exposed files.",
				"Not in scope of a network scan: known vulnerabilities of fingerprinted software.",
				"Not in scope of a network scan: exposed code and secrets.",
				"Ports outside the most common ones: only a deep scan checks all 65,535.",
			},
		},
	},
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	for _, tc := range coverageCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := coverage(tc.r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("coverage =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

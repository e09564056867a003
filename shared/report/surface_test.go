package report_test

import (
	"strings"
	"testing"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// The coverage section lists the discovered surface: hosts with addresses
// and sources, services with what they run, web origins, the hosts not
// scanned and why, and how many names outside the scope were left alone;
// target-supplied text stays text.
func TestCoverageShowsTheSurface(t *testing.T) {
	t.Parallel()
	sf := scans.Surface{
		Hosts: []scans.Host{
			{Name: "shop.example.com", Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceApex}},
			{Name: "legacy.shop.example.com", Addresses: []string{"192.0.2.9"}, Sources: []scans.HostSource{scans.SourceAXFR, scans.SourceCertificate}, NotScanned: "credit budget"},
			{Name: "status.shop.example.com", Addresses: []string{"192.0.2.20"}, Sources: []scans.HostSource{scans.SourceWordlist},
				CNAME: "shop.statuspage.example.net", NotProbed: scans.NotProbedThirdParty},
		},
		Services:   []scans.ServiceInfo{{Host: "shop.example.com", Address: "192.0.2.1", Port: 6379, Transport: "tcp", Protocol: "redis", Product: "Redis", Version: "6.0.9"}},
		Web:        []scans.WebOrigin{{Origin: "https://shop.example.com/", Title: "<script>alert(1)</script>", Server: "nginx"}},
		OutOfScope: 3,
	}
	r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x", Target: "shop.example.com", Type: scans.Full, Tier: "standard"}, Surface: sf})
	cov := strings.Join(r.Coverage.Hosts, "\n") + "\n" + strings.Join(r.Coverage.NotTested, "\n")
	for _, s := range r.Coverage.Services {
		cov += "\n" + s.Name + " " + s.Banner
	}
	for _, want := range []string{
		"legacy.shop.example.com (192.0.2.9) — found by axfr, certificate — not scanned: credit budget",
		"legacy.shop.example.com was discovered but not scanned: credit budget.",
		"redis Redis 6.0.9", "Web origin https://shop.example.com/",
		"3 names outside the target's scope were seen",
		"status.shop.example.com (192.0.2.20) — found by wordlist — alias of shop.statuspage.example.net",
		"status.shop.example.com is an alias of shop.statuspage.example.net, outside the scope; its services were not probed: " + scans.NotProbedThirdParty,
	} {
		if !strings.Contains(cov, want) {
			t.Errorf("coverage lacks %q:\n%s", want, cov)
		}
	}
	if md := string(report.Markdown(r)); !strings.Contains(md, "legacy.shop.example.com was discovered but not scanned: credit budget.") {
		t.Error("Markdown coverage does not show the host left out")
	}
	html := string(report.HTML(r))
	if strings.Contains(html, "<script>alert(1)</script>") || !strings.Contains(html, "legacy.shop.example.com") {
		t.Error("HTML coverage: surface missing or the page title not escaped")
	}
}

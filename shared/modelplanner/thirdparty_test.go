package modelplanner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"secscan/infra/local/modeltest"
	"secscan/shared/modelplanner"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// The model's proposals about a name the surface knows as an alias leaving
// the scope meet the tools' own rule: anything but the home page over
// http(s) on the standard ports is refused (its tokens charged, the tool
// never run), naming the alias and the reason; http_check of its home
// page runs.
func TestModelProposalsAboutAThirdPartyAlias(t *testing.T) {
	reg := scanners.Registry(nil)
	state := quickSSLScan(200)
	state.Scan.CreditsUsed = modelplanner.FloorBudget(state.Scan.MaxCredits)
	state.Steps = []scans.Step{{Seq: 1, Tool: "http_check", Input: json.RawMessage(`{"url":"https://example.com/"}`), Status: scans.StepOK}}
	state.Surface.Hosts = []scans.Host{{Name: "status.example.com", Addresses: []string{"203.0.113.7"},
		CNAME: "status.vendor.example", NotProbed: scans.NotProbedThirdParty}}
	for _, tc := range []struct {
		tool    string
		input   map[string]any
		refused bool
	}{
		{"confirm_cve", map[string]any{"host": "status.example.com", "port": 8443, "cve": "CVE-2021-41773"}, true},
		{"confirm_cve", map[string]any{"host": "Status.Example.com.", "port": 443, "cve": "CVE-2021-41773"}, true},
		{"http_fingerprint", map[string]any{"url": "http://status.example.com:9100/"}, true},
		{"http_fingerprint", map[string]any{"url": "https://status.example.com/"}, true},
		{"http_check", map[string]any{"url": "https://status.example.com:8443/"}, true},
		{"http_check", map[string]any{"url": "https://status.example.com/admin"}, true},
		{"exposed_files", map[string]any{"base_url": "https://status.example.com/"}, true},
		{"web_crawl", map[string]any{"url": "https://status.example.com/"}, true},
		{"port_scan", map[string]any{"host": "status.example.com"}, true},
		{"http_check", map[string]any{"url": "https://status.example.com/"}, false},
		{"http_check", map[string]any{"url": "http://status.example.com"}, false},
		{"confirm_cve", map[string]any{"host": "www.example.com", "port": 443, "cve": "CVE-2021-41773"}, false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			srv := modeltest.StartBedrock(t, func(int, modeltest.Request) modeltest.Reply {
				return modeltest.Call("verify", tc.tool, tc.input)
			})
			d, err := quickPlanner(t, srv, reg).Next(context.Background(), state)
			if err != nil {
				t.Fatal(err)
			}
			if d.Tool != tc.tool {
				t.Fatalf("decision %s %s, want the model's %s", d.Tool, d.Input, tc.tool)
			}
			named := strings.Contains(d.Refused, "status.vendor.example") && strings.Contains(d.Refused, scans.NotProbedThirdParty)
			if tc.refused != named || (!tc.refused && d.Refused != "") {
				t.Errorf("%s %v: refused %q, want refused %v (naming the alias and the reason)", tc.tool, tc.input, d.Refused, tc.refused)
			}
		})
	}
}

package modelplanner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"secscan/infra/local/modeltest"
	"secscan/shared/modelplanner"
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// A standard scan's model cannot ask for what only the deep tier does (a
// range of 4,096 ports, the deep wordlist, a 50-page or depth-3 crawl) nor
// test more hosts than the tier's 16: each proposal is a refused step,
// whatever the budget left; the same inputs on a deep scan, and a host
// within the limit, are accepted.
func TestTierLimitsOnTheModelsProposals(t *testing.T) {
	reg := scanners.Registry(nil)
	sf := scans.Surface{Hosts: []scans.Host{{Name: "example.com", Addresses: []string{"192.0.2.10"}}}}
	for i := range 15 {
		sf.Hosts = append(sf.Hosts, scans.Host{Name: fmt.Sprintf("h%02d.example.com", i), Addresses: []string{fmt.Sprintf("192.0.2.%d", 100+i)}})
	}
	sf.Hosts = append(sf.Hosts, scans.Host{Name: "zz.example.com", Addresses: []string{"192.0.2.99"}}) // the 17th
	for _, tc := range []struct {
		name    string
		tier    plans.Tier
		tool    string
		input   map[string]any
		refused string // a prefix; "" when accepted
	}{
		{"range of 4096", plans.Standard, "port_scan", map[string]any{"host": "h01.example.com", "range": map[string]int{"from": 1, "to": 4096}},
			"a range of 4096 ports (a standard scan scans at most 1000 ports a call) is the deep tier's"},
		{"deep wordlist", plans.Standard, "discover_hosts", map[string]any{"sources": []string{"wordlist"}, "wordlist": "deep"},
			"the deep wordlist (3651 labels) is the deep tier's"},
		{"50-page crawl", plans.Standard, "web_crawl", map[string]any{"url": "https://example.com/", "max_pages": 50},
			"a crawl of 50 pages (a standard scan crawls at most 10) is the deep tier's"},
		{"depth-3 crawl", plans.Standard, "web_crawl", map[string]any{"url": "https://example.com/", "max_depth": 3},
			"a crawl of depth 3 (a standard scan crawls at most depth 2) is the deep tier's"},
		{"17th host", plans.Standard, "http_check", map[string]any{"url": "https://zz.example.com/"},
			"a standard scan tests at most 16 hosts, and zz.example.com is not one of them"},
		{"a host within the limit", plans.Standard, "http_check", map[string]any{"url": "https://h03.example.com/"}, ""},
		{"light crawl", plans.Standard, "web_crawl", map[string]any{"url": "https://example.com/", "max_pages": 10}, ""},
		{"deep: range of 4096", plans.Deep, "port_scan", map[string]any{"host": "h01.example.com", "range": map[string]int{"from": 1, "to": 4096}}, ""},
		{"deep: deep wordlist", plans.Deep, "discover_hosts", map[string]any{"sources": []string{"wordlist"}, "wordlist": "deep"}, ""},
		{"deep: 50-page crawl", plans.Deep, "web_crawl", map[string]any{"url": "https://example.com/", "max_pages": 50}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.StartBedrock(t, func(int, modeltest.Request) modeltest.Reply { return modeltest.Call("why", tc.tool, tc.input) })
			p := &modelplanner.Planner{Client: bedrockAt(t, srv), Models: map[plans.Tier]string{tc.tier: haiku}, Tools: reg,
				Playbook: planner.Playbook{Tools: reg}}
			max := plans.CreditCeiling[tc.tier]
			st := planner.State{Scan: scans.Scan{ID: "scn_1", Target: "example.com", Type: scans.Full, Tier: tc.tier, Plan: plans.Pro,
				MaxCredits: max, CreditsUsed: modelplanner.FloorBudget(max)}, Surface: sf}
			d, err := p.Next(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if d.Tool != tc.tool || d.Model == nil {
				t.Fatalf("decision %s %s (model %+v): not the model's proposal", d.Tool, d.Input, d.Model)
			}
			if (tc.refused == "") != (d.Refused == "") || !strings.HasPrefix(d.Refused, tc.refused) {
				t.Errorf("refused %q, want %q", d.Refused, tc.refused)
			}
		})
	}
}

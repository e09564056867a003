package planner_test

import (
	"strings"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scans"
)

// Findings on a name aliased outside the scope (the vendor's banner read
// by version_check, what its home page showed) ask for no follow-up: every
// follow-up tool probes, and the tools refuse such a name. The playbook
// plans the alias's http_check of its home page and nothing else.
func TestNoFollowUpOnAThirdPartyAlias(t *testing.T) {
	t.Parallel()
	port := func(n int) *int { return &n }
	cve := "CVE-2021-41773"
	const alias = "status.example.com"
	findings := []scans.Finding{
		{ID: "f1", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Category: scans.CategoryVuln, Host: alias, Port: port(443),
			CVE: &cve, Confidence: scans.Tentative},
		{ID: "f2", Title: "Directory listing enabled", Category: scans.CategoryWeb, Host: alias, Port: port(443),
			Evidence: "GET https://status.example.com/backup/ → 200: Index of /backup"},
		{ID: "f3", Title: "Environment file exposed (/.env)", Category: scans.CategoryWeb, Host: "example.com", Port: port(443),
			Evidence: "GET https://status.example.com/.env → 200 (text/plain)"},
		{ID: "f4", Title: "Redis answers without authentication", Category: scans.CategoryNetwork, Host: alias, Port: port(6379)},
	}
	st := planner.State{Scan: scans.Scan{ID: "scn_1", Target: "example.com", Type: scans.Full, Tier: plans.Standard, MaxCredits: 500},
		Findings: findings, Surface: scans.Surface{Hosts: []scans.Host{
			{Name: "example.com", Addresses: []string{"203.0.113.1"}},
			{Name: alias, Addresses: []string{"198.51.100.7"}, CNAME: "status.vendor.example", NotProbed: scans.NotProbedThirdParty},
		}}}
	calls, err := planner.Calls(st)
	if err != nil {
		t.Fatal(err)
	}
	var aliasCalls []string
	for _, c := range calls {
		if c.Host == alias || strings.Contains(string(c.Input), alias) {
			aliasCalls = append(aliasCalls, c.Tool+" "+string(c.Input))
		}
	}
	if len(aliasCalls) != 1 || !strings.HasPrefix(aliasCalls[0], planner.HTTPCheck+" ") {
		t.Errorf("calls planned for the alias: %v, want its http_check only", aliasCalls)
	}
}

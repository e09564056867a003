package summary

import (
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// The summary decides by check codes: rewording every title changes no
// chain and no risk rating, and a title that sounds like a weakness without
// its check is no link of a chain.
func TestChainsFollowCheckCodesNotTitles(t *testing.T) {
	t.Parallel()
	in := demoCritical()
	before := Write(in)
	if len(before.AttackChains) == 0 {
		t.Fatal("the demo fixture should have attack chains")
	}
	reworded := demoCritical()
	for i := range reworded.Findings {
		reworded.Findings[i].Title = "Finding number " + string(rune('A'+i))
	}
	after := Write(reworded)
	if len(after.AttackChains) != len(before.AttackChains) || after.RiskRating != before.RiskRating {
		t.Errorf("reworded titles: %d chains, risk %s; want %d chains, risk %s\n%q",
			len(after.AttackChains), after.RiskRating, len(before.AttackChains), before.RiskRating, after.AttackChains)
	}

	// Titles that name a repository and a secret, with checks that are neither.
	decoy := Input{Domain: "example.com", ScanType: scans.Web, Findings: []scans.Finding{
		checks.HeaderNoSniff.Finding("www.example.com", ptr(443), "GET / → 200"),
		checks.VersionHeader.Finding("www.example.com", ptr(443), "Server: nginx/1.25"),
	}}
	decoy.Findings[0].Title = "Exposed Git repository (/.git/HEAD)"
	decoy.Findings[1].Title = "AWS secret access key in config/.env"
	if got := Write(decoy).AttackChains; len(got) != 0 {
		t.Errorf("titles alone made a chain: %q", got)
	}
}

package summary

import (
	"strings"
	"testing"
	"time"

	"secscan/shared/scans"
)

// The summary says what changed since the baseline, whatever the
// narrative's length, and says nothing of it without a baseline or news.
func TestChangesSentence(t *testing.T) {
	since := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	in := Input{Domain: "example.com", ScanType: scans.Web, Tier: "quick",
		Changes: &Changes{New: 3, Regressed: 1, Fixed: 5, NotRetested: 2, Since: since, NewHosts: 2, NewServices: 1, Triaged: 1}}
	got := Write(in).Summary
	for _, want := range []string{"Since the previous scan (2 March 2026): 3 new, 1 regressed, 5 fixed.",
		"2 issues of the previous scan not tested again", "The inventory gained 2 new hosts and 1 new service.",
		"1 triaged issue (false positive or accepted risk) left out of the rating."} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if got := Write(Input{Domain: "example.com", Changes: &Changes{}}).Summary; strings.Contains(got, "Since") || strings.Contains(got, "inventory") {
		t.Errorf("no baseline, nothing new: %q", got)
	}
	var many []scans.Finding
	for i := range 400 {
		many = append(many, scans.Finding{Check: "web.header.csp", Title: strings.Repeat("Long title ", 20) + string(rune('a'+i%26)),
			Severity: scans.Medium, Category: scans.CategoryWeb, Host: "h" + string(rune('a'+i%26)) + ".example.com"})
	}
	in.Findings = many
	if got := Write(in).Summary; !strings.Contains(got, "1 regressed") {
		t.Errorf("a long narrative dropped the changes: …%s", got[max(0, len(got)-200):])
	}
}

package summary

import (
	"strings"
	"testing"

	"secscan/shared/plans"
	"secscan/shared/scans"
)

// TestNarrativeNamesFindingsInReportOrder: the narrative names findings in
// the order the reports' tables list them (scans.CompareFindings), even
// when a later one is a link of an attack chain or arrives first.
func TestNarrativeNamesFindingsInReportOrder(t *testing.T) {
	t.Parallel()
	findings := []scans.Finding{
		{ID: "3", Title: "Outdated OpenSSH 7.2p2", Severity: scans.High, Host: "example.com", Port: ptr(22), CVE: ptr("CVE-2016-6515"), CVSS: ptr(7.5)},
		{ID: "2", Title: "Directory listing enabled", Severity: scans.High, Host: "example.com", Port: ptr(443), Confidence: scans.Certain},
		{ID: "1", Title: "Exposed Git repository (/.git/HEAD)", Severity: scans.High, Host: "example.com", Port: ptr(443), Confidence: scans.Certain, CVSS: ptr(7.5)},
	}
	sum := Write(Input{Domain: "example.com", ScanType: scans.Full, Tier: plans.Standard, Findings: findings})
	sorted := append([]scans.Finding(nil), findings...)
	scans.SortFindings(sorted)
	last := -1
	for _, f := range sorted {
		i := strings.Index(sum.Summary, "“"+f.Title+"”")
		if i < 0 {
			t.Fatalf("summary does not name %q:\n%s", f.Title, sum.Summary)
		}
		if i < last {
			t.Errorf("%q is named out of the report's order:\n%s", f.Title, sum.Summary)
		}
		last = i
	}
}

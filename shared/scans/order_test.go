package scans_test

import (
	"strings"
	"testing"

	"secscan/shared/scans"
)

func TestWithRecordedCount(t *testing.T) {
	cases := []struct {
		out           string
		reported, rec int
		want          string
	}{
		{"15 findings: 1 high", 15, 14, "15 findings: 1 high (14 new findings recorded; 1 duplicate of a finding already recorded)"},
		{"70 known vulnerabilities", 7, 0, "70 known vulnerabilities (0 new findings recorded; 7 duplicates of findings already recorded)"},
		{"3 findings", 3, 3, "3 findings"},
		{"", 2, 1, "1 new finding recorded; 1 duplicate of a finding already recorded"},
	}
	for _, c := range cases {
		if got := scans.WithRecordedCount(c.out, c.reported, c.rec); got != c.want {
			t.Errorf("scans.WithRecordedCount(%q, %d, %d) = %q, want %q", c.out, c.reported, c.rec, got, c.want)
		}
	}
}

func TestCompareFindingsOrder(t *testing.T) {
	p := func(n int) *int { return &n }
	f := func(v float64) *float64 { return &v }
	cve := "CVE-1"
	fs := []scans.Finding{
		{ID: "7", Title: "b", Severity: scans.Low, Confidence: scans.Certain, Host: "a", Port: p(80)},
		{ID: "6", Title: "a", Severity: scans.Low, Confidence: scans.Certain, Host: "a", Port: p(80)},
		{ID: "5", Title: "z", Severity: scans.Low, Confidence: scans.Certain, Host: "a", Port: p(443)},
		{ID: "4", Title: "z", Severity: scans.Low, Confidence: scans.Certain, Host: "a"},
		{ID: "3", Title: "z", Severity: scans.High, CVE: &cve, CVSS: f(9.8), Host: "a"}, // tentative by default
		{ID: "2", Title: "z", Severity: scans.High, Confidence: scans.Certain, CVSS: f(7.5), Host: "b"},
		{ID: "1", Title: "z", Severity: scans.High, Confidence: scans.Certain, CVSS: f(8.1), Host: "c"},
		{ID: "0", Title: "z", Severity: scans.Critical, Confidence: scans.Tentative},
	}
	scans.SortFindings(fs)
	var got []string
	for _, x := range fs {
		got = append(got, x.ID)
	}
	if want := "0 1 2 3 4 6 7 5"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

func TestCountBySeverity(t *testing.T) {
	fs := []scans.Finding{{Severity: scans.Low}, {Severity: scans.High}, {Severity: scans.Low}, {Severity: "bogus"}}
	if got := scans.CountBySeverity(fs); got != "1 high, 2 low" {
		t.Errorf("CountBySeverity = %q, want the known severities, most severe first", got)
	}
	if got := scans.CountBySeverity(nil); got != "" {
		t.Errorf("CountBySeverity(nil) = %q", got)
	}
}

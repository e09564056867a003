package scans_test

import (
	"testing"

	"secscan/shared/scans"
)

func ptr[T any](v T) *T { return &v }

// The same issue found twice is one finding; different issues never merge.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := scans.Finding{Title: "Missing Strict-Transport-Security header", Category: scans.CategoryWeb, Host: "Example.com", Port: ptr(443)}
	cve := scans.Finding{Title: "vsFTPd 2.3.4 (backdoored release)", Category: scans.CategoryNetwork, Host: "example.com", Port: ptr(21), CVE: ptr("CVE-2011-2523")}
	cases := []struct {
		name string
		a, b scans.Finding
		same bool
	}{
		{"same check, another tool's category", base, func() scans.Finding { f := base; f.Category = scans.CategorySSL; return f }(), true},
		{"host case", base, func() scans.Finding { f := base; f.Host = "example.com"; return f }(), true},
		{"another port", base, func() scans.Finding { f := base; f.Port = ptr(8443); return f }(), false},
		{"another host", base, func() scans.Finding { f := base; f.Host = "www.example.com"; return f }(), false},
		{"another check", base, func() scans.Finding { f := base; f.Title = "Missing Content-Security-Policy header"; return f }(), false},
		{"same CVE, another tool's title and port", cve, func() scans.Finding {
			f := cve
			f.Title, f.Category, f.Port = "vsftpd: Backdoored vsftpd 2.3.4 (CVE-2011-2523)", scans.CategoryVuln, ptr(2121)
			return f
		}(), true},
		{"another CVE", cve, func() scans.Finding { f := cve; f.CVE = ptr("CVE-2021-41773"); return f }(), false},
	}
	for _, tc := range cases {
		if got := tc.a.StableFingerprint() == tc.b.StableFingerprint(); got != tc.same {
			t.Errorf("%s: same=%v, want %v", tc.name, got, tc.same)
		}
	}
}

func TestStatuses(t *testing.T) {
	t.Parallel()
	for _, s := range scans.Statuses {
		want := s == scans.Completed || s == scans.Failed || s == scans.Cancelled
		if s.Terminal() != want {
			t.Errorf("%s terminal=%v", s, s.Terminal())
		}
	}
	if scans.BudgetExceeded(48, 50) != "Credit budget exceeded: 48 of 50 credits used" {
		t.Error(scans.BudgetExceeded(48, 50))
	}
	if !scans.ValidType("full") || scans.ValidType("port") || !scans.ValidStatus("queued") || scans.ValidStatus("done") {
		t.Error("enum validation")
	}
	if scans.Critical.Rank() >= scans.Info.Rank() || scans.Severity("bogus").Rank() <= scans.Info.Rank() {
		t.Error("severity ranks")
	}
}

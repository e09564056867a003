// Package reporttest holds the report fixtures the renderers' tests share:
// a sample scan with hostile target text, and a large one for benchmarks.
package reporttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"secscan/shared/report"
	"secscan/shared/scans"
)

func ptr[T any](v T) *T { return &v }

// Hostile is target-supplied text that must render as text in every format.
const Hostile = `<script>alert(1)</script> [click](https://evil.example/x) **bold** | pipe ` + "`tick`" + ` =HYPERLINK("x")`

// Sample is a completed full scan with findings of every severity, Hostile
// and very long evidence, services, refused and failed steps.
func Sample(watermarked bool) report.Report {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	sc := scans.Scan{
		ID: "scn_01JABCDEFGHJKMNPQRSTVWXYZ0", UserID: "usr_01JABCDEFGHJKMNPQRSTVWXYZ0", TargetID: "tgt_01JABCDEFGHJKMNPQRSTVWXYZ0",
		Target: "shop.example.com", Type: scans.Full, Tier: "standard", Status: scans.Completed,
		CreditsUsed: 37, MaxCredits: 200, FindingsCount: 6, StepsCount: 4,
		CreatedAt: at, StartedAt: at.Add(2 * time.Second), FinishedAt: at.Add(95 * time.Second),
		Summary: &scans.Summary{RiskRating: scans.RiskCritical,
			Summary:      "The full scan of shop.example.com (standard tier) found a critical issue: an exposed Git repository.",
			AttackChains: []string{"Credential theft: the exposed .git on shop.example.com:443 leaks the source, and the .env file holds credentials."}},
	}
	findings := []scans.Finding{
		{ID: "fnd_1", Check: "web.exposed-git", Title: "Exposed Git repository (/.git/HEAD)", Severity: scans.Critical, Category: scans.CategoryWeb, Host: "shop.example.com", Port: ptr(443),
			Evidence: "GET https://shop.example.com/.git/HEAD → 200: ref: refs/heads/main", Description: "The repository can be downloaded.",
			Remediation: "Block /.git at the web server.", References: []string{"https://owasp.org/www-project-web-security-testing-guide/"}, CWE: ptr("CWE-527"),
			Confidence: scans.Certain},
		{ID: "fnd_2", Check: "vuln.known-cve", Title: "Apache HTTP Server: Path traversal (CVE-2021-41773)", Severity: scans.High, Category: scans.CategoryVuln, Host: "shop.example.com", Port: ptr(443),
			Evidence: "Server: Apache/2.4.49 (Unix)", Description: "Path traversal and file disclosure.", Remediation: "Upgrade to 2.4.51 or later.",
			References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2021-41773"}, CWE: ptr("CWE-22"), CVE: ptr("CVE-2021-41773"), CVSS: ptr(7.5),
			Confidence: scans.Tentative},
		{ID: "fnd_3", Check: "network.service.ftp", Title: "Reflected banner " + Hostile, Severity: scans.Medium, Category: scans.CategoryNetwork, Host: "shop.example.com", Port: ptr(2121),
			Evidence: Hostile, Description: "A description with " + Hostile, Remediation: "=cmd|' /C calc'!A0", References: []string{"https://example.com/a?b=<c>"}},
		{ID: "fnd_4", Check: "web.error-details", Title: "Very long evidence", Severity: scans.Low, Category: scans.CategoryWeb, Host: "www.shop.example.com", Port: nil,
			Evidence: strings.Repeat("Set-Cookie: PHPSESSID; path=/; no-secure-flag-here-and-a-very-long-unbroken-token-", 40), Description: "Long.",
			Remediation: "Wrap.", References: []string{}},
		{ID: "fnd_5", Check: "web.security-txt", Title: "Missing security.txt", Severity: scans.Info, Category: scans.CategoryWeb, Host: "shop.example.com", Port: ptr(443),
			Evidence: "GET /.well-known/security.txt → 404", Description: "No contact.", Remediation: "Publish one.", References: []string{"https://securitytxt.org/"}},
		{ID: "fnd_6", Check: "dns.spf.missing", Title: "Ünïcödé — “quotes” and emoji 🔥", Severity: scans.Medium, Category: scans.CategoryDNS, Host: "shop.example.com",
			Evidence: "TXT \"v=spf1 +all\"", Description: "Tabs\tand\nnewlines\r\nin text.", Remediation: "-all", References: nil},
	}
	steps := []scans.Step{
		{Seq: 1, Tool: "dns_check", Input: json.RawMessage(`{}`), Outcome: "SPF +all; 1 finding", FindingsAdded: 1, Credits: 2, StartedAt: at.Add(3 * time.Second), DurationMS: 40},
		{Seq: 2, Tool: "port_scan", Input: json.RawMessage(`{"preset":"top1000"}`), Outcome: "3 of 1000 ports open", Credits: 5, StartedAt: at.Add(4 * time.Second), DurationMS: 2600,
			Services: []scans.Service{{Host: "shop.example.com", Port: 443, Name: "https"}, {Host: "shop.example.com", Port: 2121, Name: "ftp", Banner: Hostile}}},
		{Seq: 3, Tool: "port_scan", Input: json.RawMessage(`{"host":"evil.example"}`), Outcome: "Refused: host evil.example is outside the scope of shop.example.com", Credits: 5, StartedAt: at.Add(7 * time.Second)},
		{Seq: 4, Tool: "http_check", Input: json.RawMessage(`{}`), Outcome: "Tool error: connection refused", Credits: 5, StartedAt: at.Add(8 * time.Second), DurationMS: 12},
	}
	surface := scans.Surface{Hosts: []scans.Host{{Name: "shop.example.com"}, {Name: "www.shop.example.com"},
		{Name: "legacy.shop.example.com", NotScanned: "it resolves only to a private address"}}}
	return report.Build(report.Input{Scan: sc, Findings: findings, Steps: steps, Surface: surface, Watermarked: watermarked, GeneratedAt: at.Add(24 * time.Hour),
		Verification: &report.Verification{Method: "dns_txt", VerifiedAt: at.Add(-time.Hour)}})
}

// Large is a report with n findings and m steps, for benchmarks.
func Large(n, m int) report.Report {
	r := Sample(false)
	in := report.Input{Scan: r.Scan, GeneratedAt: r.GeneratedAt, Surface: r.Surface, Verification: &report.Verification{Method: "dns_txt", VerifiedAt: r.Scan.CreatedAt}}
	for i := range n {
		f := r.Findings[i%len(r.Findings)]
		f.ID = fmt.Sprintf("fnd_%05d", i)
		f.Title = fmt.Sprintf("%s #%d", f.Title, i)
		in.Findings = append(in.Findings, f)
	}
	for i := range m {
		st := r.Steps[i%len(r.Steps)]
		st.Seq = i + 1
		in.Steps = append(in.Steps, st)
	}
	return report.Build(in)
}

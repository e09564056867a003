package summary

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"secscan/shared/plans"
	"secscan/shared/scans"
)

func TestRiskRating(t *testing.T) {
	t.Parallel()
	web := scans.CategoryWeb
	tests := []struct {
		name     string
		findings []scans.Finding
		want     scans.RiskRating
	}{
		{"no findings", nil, scans.RiskNone},
		{"only info", []scans.Finding{finding(scans.Info, web, "Missing security.txt", "example.com", 443)}, scans.RiskNone},
		{"low", []scans.Finding{finding(scans.Low, web, "A", "example.com", 443), finding(scans.Info, web, "B", "example.com", 443)}, scans.RiskLow},
		{"medium", []scans.Finding{finding(scans.Low, web, "A", "example.com", 443), finding(scans.Medium, web, "B", "example.com", 443)}, scans.RiskMedium},
		{"high", []scans.Finding{finding(scans.High, web, "A", "example.com", 443), finding(scans.Medium, web, "B", "example.com", 443)}, scans.RiskHigh},
		{"critical last", []scans.Finding{finding(scans.Low, web, "A", "example.com", 443), finding(scans.Critical, web, "B", "example.com", 443)}, scans.RiskCritical},
		{"severity case and space tolerated", []scans.Finding{finding(" HIGH ", web, "A", "example.com", 443)}, scans.RiskHigh},
		{"unknown severity counts as info", []scans.Finding{finding("catastrophic", web, "A", "example.com", 443)}, scans.RiskNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Write(Input{Domain: "example.com", ScanType: scans.Web, Tier: plans.Standard, Findings: tt.findings})
			if got.RiskRating != tt.want {
				t.Errorf("risk rating = %q, want %q", got.RiskRating, tt.want)
			}
		})
	}
}

func TestAttackChains(t *testing.T) {
	t.Parallel()
	const (
		web  = scans.CategoryWeb
		netw = scans.CategoryNetwork
		code = scans.CategoryCode
		ssl  = scans.CategorySSL
		dns  = scans.CategoryDNS
		vuln = scans.CategoryVuln
	)
	ftpService := scans.Service{Host: "example.com", Port: 21, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"}
	tests := []struct {
		name     string
		findings []scans.Finding
		services []scans.Service
		want     []string // substrings of the one chain expected; nil: no chain
	}{
		{
			name: "exposed repository and leaked secret",
			findings: []scans.Finding{
				withEvidence(finding(scans.High, web, "Exposed .git directory", "www.example.com", 443), "GET https://www.example.com/.git/config → 200"),
				finding(scans.Critical, code, "AWS secret access key in config/.env", "www.example.com", 443),
			},
			want: []string{"Credential theft", "www.example.com:443", "/.git/config", "config/.env", "account takeover"},
		},
		{
			name: "exposed repository and environment file (exposure scanner titles)",
			findings: []scans.Finding{
				withCWE(finding(scans.High, web, "Exposed Git repository (/.git/HEAD)", "www.example.com", 443), "CWE-527"),
				withCWE(finding(scans.High, web, "Exposed environment file (/.env.production)", "www.example.com", 443), "CWE-538"),
			},
			want: []string{"Credential theft", "Git repository exposed on www.example.com:443 (/.git/HEAD)", "(/.env.production on www.example.com:443)"},
		},
		{
			name: "Subversion metadata and AWS credentials file",
			findings: []scans.Finding{
				finding(scans.High, web, "Exposed Subversion metadata (/.svn/entries)", "www.example.com", 443),
				finding(scans.Critical, web, "Exposed AWS credentials file", "static.example.com", 443),
			},
			want: []string{"Subversion repository exposed on www.example.com:443 (/.svn/entries)", "static.example.com:443"},
		},
		{
			name: "exposed repository and a source map are not a secret leak",
			findings: []scans.Finding{
				finding(scans.High, web, "Exposed Git repository (/.git/HEAD)", "www.example.com", 443),
				withCWE(finding(scans.Low, web, "JavaScript source map exposed", "www.example.com", 443), "CWE-540"),
				withCWE(finding(scans.Low, web, "Exposed .DS_Store file", "www.example.com", 443), "CWE-538"),
			},
		},
		{
			name:     "exposed repository alone",
			findings: []scans.Finding{finding(scans.High, web, "Exposed Git repository (/.git/HEAD)", "www.example.com", 443)},
		},
		{
			name:     "leaked secret alone",
			findings: []scans.Finding{finding(scans.Critical, code, "Hard-coded API key in app.js", "www.example.com", 443)},
		},
		{
			name: "dangling github.io CNAME is not a git repository",
			findings: []scans.Finding{
				finding(scans.Info, dns, "CNAME docs.example.com points to example.github.io", "docs.example.com", 0),
				finding(scans.Critical, code, "Hard-coded API key in app.js", "www.example.com", 443),
			},
		},
		{
			name: "exposed database and end-of-life version (network scanner titles)",
			findings: []scans.Finding{
				finding(scans.High, netw, "MySQL database exposed to the network", "db.example.com", 3306),
				finding(scans.Medium, netw, "End-of-life MySQL version", "db.example.com", 3306),
			},
			want: []string{"Data breach", "MySQL", "db.example.com:3306", "End-of-life MySQL version"},
		},
		{
			name:     "one finding carrying both database links",
			findings: []scans.Finding{withCVE(finding(scans.Critical, vuln, "MySQL 5.5.23 authentication bypass", "db.example.com", 3306), "CVE-2012-2122")},
			want:     []string{"Data breach", "db.example.com:3306", "CVE-2012-2122"},
		},
		{
			name: "outdated database named without a port on the same host",
			findings: []scans.Finding{
				finding(scans.High, netw, "MySQL database exposed to the network", "db.example.com", 3306),
				finding(scans.Medium, vuln, "End-of-life MySQL version", "db.example.com", 0),
			},
			want: []string{"Data breach", "db.example.com:3306"},
		},
		{
			name:     "outdated database seen in code, not on the network",
			findings: []scans.Finding{finding(scans.Medium, code, "End-of-life MySQL version in docker-compose.yml", "example.com", 0)},
		},
		{
			name:     "database answering without authentication (network scanner title)",
			findings: []scans.Finding{withCWE(finding(scans.Critical, netw, "Redis accepts commands without authentication", "cache.example.com", 6379), "CWE-306")},
			want:     []string{"Data breach", "“Redis accepts commands without authentication” on cache.example.com:6379", "no exploit needed"},
		},
		{
			name:     "Docker API without authentication is not a database",
			findings: []scans.Finding{withCWE(finding(scans.Critical, netw, "Docker Engine API exposed without authentication", "ci.example.com", 2375), "CWE-306")},
		},
		{
			name:     "exposed database alone",
			findings: []scans.Finding{finding(scans.High, netw, "Redis exposed to the network", "cache.example.com", 6379)},
		},
		{
			name: "database and a CVE in another service of the host",
			findings: []scans.Finding{
				finding(scans.High, netw, "PostgreSQL database exposed to the network", "db.example.com", 5432),
				withCVE(finding(scans.High, vuln, "Outdated nginx 1.14", "db.example.com", 443), "CVE-2019-9511"),
			},
		},
		{
			name: "database and a CVE on another host",
			findings: []scans.Finding{
				finding(scans.High, netw, "MySQL database exposed to the network", "db.example.com", 3306),
				finding(scans.Medium, vuln, "End-of-life MySQL version", "other.example.com", 0),
			},
		},
		{
			name: "session hijacking (web scanner titles)",
			findings: []scans.Finding{
				noHSTS,
				noHTTPSRedirect,
				withEvidence(insecureCookie("www.example.com"), "cookie sid set by https://www.example.com/ with flags: Path=/"),
			},
			want: []string{"Session hijacking", "www.example.com", "“sid”", "Secure flag"},
		},
		{
			name: "HSTS and cookie but HTTP redirects",
			findings: []scans.Finding{
				withCWE(noHSTS, "CWE-319"),
				insecureCookie("www.example.com"),
			},
		},
		{
			name: "session links split over two hosts",
			findings: []scans.Finding{
				noHSTS,
				noHTTPSRedirect,
				insecureCookie("app.example.com"),
			},
		},
		{
			name: "an informational HSTS observation is not a missing header",
			findings: []scans.Finding{
				finding(scans.Info, web, "Strict-Transport-Security header present", "www.example.com", 443),
				noHTTPSRedirect,
				insecureCookie("www.example.com"),
			},
		},
		{
			name: "CORS with credentials and cookies",
			findings: []scans.Finding{
				withEvidence(finding(scans.High, web, "CORS reflects arbitrary origins with credentials", "api.example.com", 443),
					"GET https://api.example.com/ → 200; Access-Control-Allow-Origin: https://evil.example; Access-Control-Allow-Credentials: true"),
				noSameSite,
			},
			want: []string{"Cross-site data theft", "api.example.com", "reflects any Origin"},
		},
		{
			name: "CORS without credentials",
			findings: []scans.Finding{
				withEvidence(finding(scans.Low, web, "CORS reflects arbitrary origins", "api.example.com", 443),
					"Access-Control-Allow-Origin: https://evil.example; Access-Control-Allow-Credentials: (none)"),
				noSameSite,
			},
		},
		{
			name:     "CORS with credentials but no cookies seen",
			findings: []scans.Finding{finding(scans.High, web, "CORS reflects arbitrary origins with credentials", "api.example.com", 443)},
		},
		{
			name: "open redirect and missing CSP",
			findings: []scans.Finding{
				withEvidence(finding(scans.Medium, web, "Open redirect", "www.example.com", 443),
					"GET https://www.example.com/login?next=https://example.invalid/ → 302 (0 bytes) redirects to https://example.invalid/"),
				noCSP,
			},
			want: []string{"Phishing", "www.example.com (/login?next=)", "example.com links"},
		},
		{
			name:     "open redirect alone",
			findings: []scans.Finding{finding(scans.Medium, web, "Open redirect", "www.example.com", 443)},
		},
		{
			name: "vulnerable jQuery and missing CSP",
			findings: []scans.Finding{
				withCVE(finding(scans.Medium, web, "Vulnerable JavaScript library: jQuery 1.12.4", "www.example.com", 443), "CVE-2020-11022"),
				noCSP,
			},
			want: []string{"Cross-site scripting", "www.example.com", "jQuery 1.12.4", "CVE-2020-11022"},
		},
		{
			name: "library without XSS flaws and missing CSP",
			findings: []scans.Finding{
				withCVE(finding(scans.High, web, "Outdated lodash 4.17.4 (prototype pollution)", "www.example.com", 443), "CVE-2019-10744"),
				noCSP,
			},
		},
		{
			name: "backdoored vsFTPd (network scanner titles)",
			findings: []scans.Finding{
				finding(scans.Medium, netw, "FTP service exposed (cleartext credentials)", "example.com", 21),
				withCVE(finding(scans.Critical, netw, "vsFTPd 2.3.4 (backdoored release)", "example.com", 21), "CVE-2011-2523"),
			},
			want: []string{"Remote code execution", "example.com:21", "vsFTPd 2.3.4", "backdoor"},
		},
		{
			name:     "FTP finding completed by the banner in the audit trail",
			findings: []scans.Finding{finding(scans.Medium, netw, "FTP service exposed (cleartext credentials)", "example.com", 21)},
			services: []scans.Service{ftpService},
			want:     []string{"Remote code execution", "example.com:21", "vsFTPd 2.3.4"},
		},
		{
			name:     "a banner alone is not a chain",
			services: []scans.Service{ftpService},
		},
		{
			name:     "FTP alone",
			findings: []scans.Finding{finding(scans.Medium, netw, "FTP service exposed (cleartext credentials)", "example.com", 21)},
		},
		{
			name: "outdated Telnet",
			findings: []scans.Finding{
				finding(scans.High, netw, "Telnet service exposed (cleartext remote login)", "router.example.com", 23),
				withCVE(finding(scans.High, vuln, "Outdated telnetd with known vulnerabilities", "router.example.com", 23), "CVE-2020-10188"),
			},
			want: []string{"Telnet on router.example.com:23", "CVE-2020-10188"},
		},
		{
			name: "SFTP is not FTP",
			findings: []scans.Finding{
				finding(scans.Medium, netw, "SFTP server reachable", "example.com", 22),
				finding(scans.Medium, netw, "Outdated OpenSSH version (before 8.0)", "example.com", 22),
			},
		},
		{
			name:     "expired certificate",
			findings: []scans.Finding{finding(scans.High, ssl, "TLS certificate expired", "www.example.com", 443)},
			want:     []string{"Man-in-the-middle", "expired certificate on www.example.com:443", "click through"},
		},
		{
			name:     "self-signed certificate",
			findings: []scans.Finding{finding(scans.Medium, ssl, "Self-signed certificate", "mail.example.com", 993)},
			want:     []string{"self-signed certificate on mail.example.com:993"},
		},
		{
			name:     "certificate from another host name (TLS scanner title)",
			findings: []scans.Finding{finding(scans.High, ssl, "TLS certificate does not match the host name", "shop.example.com", 443)},
			want:     []string{"mismatched certificate on shop.example.com:443"},
		},
		{
			name:     "untrusted chain (TLS scanner title)",
			findings: []scans.Finding{finding(scans.High, ssl, "TLS certificate chain not trusted", "shop.example.com", 443)},
			want:     []string{"untrusted certificate on shop.example.com:443"},
		},
		{
			name:     "weak key is not an untrusted certificate",
			findings: []scans.Finding{finding(scans.Medium, ssl, "TLS certificate RSA key shorter than 2048 bits", "shop.example.com", 443)},
		},
		{
			name:     "certificate expiring soon is not expired",
			findings: []scans.Finding{finding(scans.Low, ssl, "TLS certificate expires within 30 days", "www.example.com", 443)},
		},
		{
			name:     "expired security.txt is not a certificate",
			findings: []scans.Finding{finding(scans.Low, web, "Expired security.txt", "www.example.com", 443)},
		},
		{
			name: "dangling CNAME",
			findings: []scans.Finding{withEvidence(finding(scans.High, dns, "Dangling CNAME (possible subdomain takeover)", "old.example.com", 0),
				"old.example.com CNAME foo-app.herokuapp.com → NXDOMAIN")},
			want: []string{"Subdomain takeover", "old.example.com", "foo-app.herokuapp.com", "phishing"},
		},
		{
			name:     "account takeover is not subdomain takeover",
			findings: []scans.Finding{finding(scans.High, web, "Session fixation allows account takeover", "www.example.com", 443)},
		},
		{
			name: "missing SPF and DMARC",
			findings: []scans.Finding{
				finding(scans.Medium, dns, "No SPF record", "example.com", 0),
				finding(scans.Medium, dns, "Missing DMARC record", "_dmarc.example.com", 0),
			},
			want: []string{"Email spoofing", "example.com publishes no SPF record and no DMARC policy", "@example.com"},
		},
		{
			name:     "DMARC not enforcing",
			findings: []scans.Finding{finding(scans.Low, dns, "DMARC policy is p=none", "_dmarc.example.com", 0)},
			want:     []string{"Email spoofing", "does not tell receivers to reject"},
		},
		{
			name:     "weak SPF alone",
			findings: []scans.Finding{finding(scans.Low, dns, "SPF record uses ~all (softfail)", "example.com", 0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := Input{Domain: "example.com", ScanType: scans.Full, Tier: plans.Deep, Findings: tt.findings}
			if tt.services != nil {
				in.Steps = []scans.Step{step(1, "port_scan", "ports", tt.services...)}
			}
			got := Write(in).AttackChains
			if tt.want == nil {
				if len(got) != 0 {
					t.Fatalf("want no attack chain, got %q", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want 1 attack chain, got %d: %q", len(got), got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("chain does not mention %q:\n%s", w, got[0])
				}
			}
			if strings.Count(got[0], ". ") > 0 && !strings.Contains(got[0], "vsFTPd 2.3.4") {
				t.Errorf("chain should be one sentence:\n%s", got[0])
			}
		})
	}
}

// allChainsInput triggers every chain rule; the takeover is the only
// critical link.
func allChainsInput() Input {
	web, netw, dns := scans.CategoryWeb, scans.CategoryNetwork, scans.CategoryDNS
	return Input{
		Domain: "example.com", ScanType: scans.Full, Tier: plans.Deep,
		Findings: []scans.Finding{
			finding(scans.Medium, web, "Exposed .git directory", "www.example.com", 443),
			finding(scans.Medium, scans.CategoryCode, "Secret key in .env", "www.example.com", 443),
			finding(scans.Medium, netw, "MySQL database exposed to the network", "db.example.com", 3306),
			finding(scans.Medium, netw, "End-of-life MySQL version", "db.example.com", 3306),
			noHSTS,
			noHTTPSRedirect,
			insecureCookie("www.example.com"),
			finding(scans.High, web, "CORS reflects arbitrary origins with credentials", "www.example.com", 443),
			finding(scans.Medium, web, "Open redirect", "www.example.com", 443),
			noCSP,
			withCVE(finding(scans.Medium, web, "Outdated jQuery 1.8.1", "www.example.com", 443), "CVE-2020-11022"),
			finding(scans.Medium, netw, "FTP service exposed (cleartext credentials)", "example.com", 21),
			finding(scans.Low, netw, "Outdated ProFTPD 1.3.5", "example.com", 21),
			finding(scans.Low, scans.CategorySSL, "Certificate expired", "www.example.com", 443),
			finding(scans.Critical, dns, "Subdomain takeover: dangling CNAME", "old.example.com", 0),
			finding(scans.Low, dns, "Missing DMARC record", "example.com", 0),
		},
	}
}

func TestChainsOrderedBySeverityAndCapped(t *testing.T) {
	t.Parallel()
	in := allChainsInput()
	ix := newIndex("example.com", sortedEntries(in))
	all := 0
	for _, rule := range chainRules {
		if _, ok := rule(ix); ok {
			all++
		}
	}
	if all != len(chainRules) {
		t.Fatalf("fixture triggers %d of %d chain rules", all, len(chainRules))
	}
	got := Write(in).AttackChains
	if len(got) != maxChains {
		t.Fatalf("got %d chains, want %d", len(got), maxChains)
	}
	if !strings.HasPrefix(got[0], "Subdomain takeover") {
		t.Errorf("the critical chain should come first, got %q", got[0])
	}
	if !strings.HasPrefix(got[1], "Cross-site data theft") {
		t.Errorf("the high chain should come second, got %q", got[1])
	}
	for _, c := range got {
		if strings.HasPrefix(c, "Man-in-the-middle") || strings.HasPrefix(c, "Email spoofing") {
			t.Errorf("a low chain made the cut over medium ones: %q", c)
		}
	}
}

func sortedEntries(in Input) []*entry {
	var es []*entry
	for i := range in.Findings {
		es = append(es, newEntry(i, &in.Findings[i], in.Domain))
	}
	slices.SortFunc(es, byImportance)
	return es
}

func TestSummaryNamesTopFindingAndWhatToFixFirst(t *testing.T) {
	t.Parallel()
	got := Write(demoCritical())
	for _, want := range []string{
		"full scan of example.com (standard tier)",
		"overall risk is critical",
		"“AWS access key in .env” (critical) on www.example.com:443",
		"“Exposed Git repository” (critical) on www.example.com:443",
		"“Outdated MySQL 5.5.23” (high) on db.example.com:3306",
		"credential theft and account takeover",
		"8 findings: 2 critical, 1 high, 3 medium, 1 low and 1 informational",
		"It ran 6 tools in 7 steps across 3 hosts and found 4 listening services",
		"1 of the 7 steps was refused, failed or timed out",
	} {
		if !strings.Contains(got.Summary, want) {
			t.Errorf("summary does not contain %q:\n%s", want, got.Summary)
		}
	}
	if strings.Contains(got.Summary, "Exposed Git repository” (critical) on www.example.com:443, followed by") {
		t.Errorf("order of top issues is wrong:\n%s", got.Summary)
	}
}

func TestSummaryWordingBySituation(t *testing.T) {
	t.Parallel()
	web := scans.CategoryWeb
	one := func(sev scans.Severity) []scans.Finding {
		return []scans.Finding{withRemediation(finding(sev, web, "Server version disclosed in HTTP headers", "www.example.com", 443), "Remove the version from the Server header.")}
	}
	tests := []struct {
		name     string
		in       Input
		want     []string
		dontWant []string
	}{
		{
			name: "nothing found",
			in:   demoClean(),
			want: []string{"TLS scan of example.org (quick tier) found no security issues", "It ran 1 tool (tls check) across 1 host and found 1 listening service.",
				"not proof of security", "a standard or deep scan"},
			dontWant: []string{"finding"},
		},
		{
			name:     "nothing found and no audit trail",
			in:       Input{Domain: "example.org", ScanType: scans.Web, Tier: plans.Deep},
			want:     []string{"found no security issues", "records no checks", "not proof of security"},
			dontWant: []string{"deep scan,"},
		},
		{
			name: "only informational",
			in:   demoInfo(),
			want: []string{"found no vulnerabilities: both findings", "“Open port 443 (https)” on example.org:443", "not proof of security"},
		},
		{
			name: "single informational finding",
			in:   Input{Domain: "example.org", Findings: []scans.Finding{finding(scans.Info, web, "Missing security.txt", "example.org", 443)}},
			want: []string{"The scan of example.org found no vulnerabilities: its only finding, “Missing security.txt” on example.org:443, is informational"},
		},
		{
			name: "single low",
			in:   Input{Domain: "example.com", ScanType: scans.Web, Tier: plans.Standard, Findings: one(scans.Low)},
			want: []string{"turned up only low-severity issues, so the overall risk is low", "The only issue is “Server version disclosed in HTTP headers” (low) on www.example.com:443",
				"It is not urgent, but worth fixing", "Remove the version from the Server header."},
			dontWant: []string{"1 findings", "Altogether"},
		},
		{
			name: "single medium",
			in:   Input{Domain: "example.com", ScanType: scans.Web, Tier: plans.Standard, Findings: one(scans.Medium)},
			want: []string{"nothing rated high or critical, so the overall risk is medium", "The only issue is", "worth fixing soon"},
		},
		{
			name: "single high",
			in:   Input{Domain: "example.com", ScanType: scans.Web, Tier: plans.Standard, Findings: one(scans.High)},
			want: []string{"found a high-severity issue, so the overall risk is high", "Fix it promptly"},
		},
		{
			name: "single critical",
			in:   Input{Domain: "example.com", ScanType: scans.Web, Tier: plans.Standard, Findings: one(scans.Critical)},
			want: []string{"found a critical issue, so the overall risk is critical", "Fix it today"},
		},
		{
			name: "partial coverage",
			in:   demoMedium(),
			want: []string{"Coverage was cut short (the credit budget ran out after 48 of 50 credits)", "real picture may be worse",
				// The report's one order: the certain CSP finding before the
				// tentative (version-matched) jQuery one, hosts alphabetical.
				"The most important is “Missing Content-Security-Policy header” (medium) on api.shop.example:443 and www.shop.example:443",
				"then “Vulnerable jQuery 1.12.4” (medium) on www.shop.example:443"},
		},
		{
			name: "partial coverage without findings",
			in:   Input{Domain: "example.org", ScanType: scans.Network, Tier: plans.Quick, Partial: "cancelled by the user.", Steps: []scans.Step{step(1, "port_scan", "failed: timeout")}},
			want: []string{"Coverage was cut short (cancelled by the user) and the only step was refused, failed or timed out, so this result only speaks for the parts that were checked."},
		},
		{
			name: "low with a chain",
			in:   demoLow(),
			want: []string{"overall risk is low", "because anyone can send mail in your domain's name", "attack path leading to email spoofing", "Publish a DMARC record", "Both findings are rated low."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Write(tt.in).Summary
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary does not contain %q:\n%s", w, got)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("summary contains %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestPluralisation(t *testing.T) {
	t.Parallel()
	web := scans.CategoryWeb
	tests := []struct {
		findings []scans.Finding
		steps    []scans.Step
		want     []string
	}{
		{
			findings: []scans.Finding{finding(scans.Medium, web, "A", "a.example.com", 443), finding(scans.Low, web, "B", "a.example.com", 443)},
			steps:    []scans.Step{step(1, "http_headers", "ok")},
			want:     []string{"2 findings: 1 medium and 1 low", "It ran 1 tool across 1 host."},
		},
		{
			findings: []scans.Finding{finding(scans.Medium, web, "A", "a.example.com", 443), finding(scans.Medium, web, "B", "b.example.com", 443), finding(scans.Medium, web, "C", "c.example.com", 443)},
			steps:    []scans.Step{step(1, "http_headers", "ok"), step(2, "tls_check", "ok"), step(3, "tls_check", "error: reset")},
			want:     []string{"All 3 findings are rated medium.", "It ran 2 tools in 3 steps across 3 hosts.", "1 of the 3 steps was refused"},
		},
		{
			findings: []scans.Finding{finding(scans.High, web, "A", "a.example.com", 443), finding(scans.High, web, "A", "b.example.com", 443), finding(scans.High, web, "A", "c.example.com", 443), finding(scans.High, web, "A", "d.example.com", 443)},
			steps:    []scans.Step{step(1, "a", "failed"), step(2, "b", "refused")},
			want:     []string{"found 4 high-severity issues", "“A” (high) on a.example.com:443, b.example.com:443 and 2 other locations", "2 of the 2 steps were refused"},
		},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			got := Write(Input{Domain: "example.com", Findings: tt.findings, Steps: tt.steps}).Summary
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary does not contain %q:\n%s", w, got)
				}
			}
			for _, bad := range []string{"1 findings", "1 tools", "1 hosts", "1 steps", " 0 ", "0 critical", "(s)"} {
				if strings.Contains(got, bad) {
					t.Errorf("summary contains %q:\n%s", bad, got)
				}
			}
		})
	}
	if got, want := plural(1, "finding", "findings"), "1 finding"; got != want {
		t.Errorf("plural(1) = %q, want %q", got, want)
	}
	if got, want := plural(2, "finding", "findings"), "2 findings"; got != want {
		t.Errorf("plural(2) = %q, want %q", got, want)
	}
}

func TestNoFindingsIsHonest(t *testing.T) {
	t.Parallel()
	got := Write(Input{Domain: "Example.COM.", ScanType: scans.Full, Tier: plans.Standard, Steps: demoSteps()})
	if got.RiskRating != scans.RiskNone {
		t.Errorf("risk rating = %q, want none", got.RiskRating)
	}
	if got.AttackChains == nil || len(got.AttackChains) != 0 {
		t.Errorf("attack chains = %#v, want an empty, non-nil list (JSON [])", got.AttackChains)
	}
	for _, want := range []string{
		"The full scan of example.com (standard tier) found no security issues.",
		"It ran 6 tools (dns records, port scan, http headers, tls check, exposed files and secret scan) in 7 steps",
		"A clean result is not proof of security",
	} {
		if !strings.Contains(got.Summary, want) {
			t.Errorf("summary does not contain %q:\n%s", want, got.Summary)
		}
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, in := range []Input{demoCritical(), demoMedium(), allChainsInput(), bigInput(300)} {
		want := Write(in)
		if again := Write(in); !equalSummaries(again, want) {
			t.Fatalf("two runs differ:\n%+v\n%+v", want, again)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 5 {
			shuffled := in
			shuffled.Findings = slices.Clone(in.Findings)
			r.Shuffle(len(shuffled.Findings), func(i, j int) {
				shuffled.Findings[i], shuffled.Findings[j] = shuffled.Findings[j], shuffled.Findings[i]
			})
			if got := Write(shuffled); !equalSummaries(got, want) {
				t.Fatalf("order of findings changed the summary:\n%+v\n%+v", want, got)
			}
		}
	}
}

func equalSummaries(a, b scans.Summary) bool {
	return a.RiskRating == b.RiskRating && a.Summary == b.Summary && slices.Equal(a.AttackChains, b.AttackChains)
}

func TestTargetTextIsSanitised(t *testing.T) {
	t.Parallel()
	hostile := "Banner \x1b[31mRED\x1b[0m\r\nInjected: line\u202eevil\u200b\x00" + strings.Repeat("A", 5000)
	in := Input{
		Domain: "example.com\n", ScanType: scans.Network, Tier: plans.Quick,
		Partial: "budget\x07 ran out" + strings.Repeat(" very", 500),
		Findings: []scans.Finding{
			withRemediation(finding(scans.High, scans.CategoryNetwork, hostile, "ftp.example.com\r\nX-Injected: 1", 21), "Upgrade\x1b[2J now. "+strings.Repeat("B", 5000)),
			withEvidence(finding(scans.Critical, scans.CategoryNetwork, "vsFTPd 2.3.4 (backdoored release)", "ftp.example.com", 21), hostile),
			finding(scans.Medium, scans.CategoryNetwork, "FTP service exposed (cleartext credentials)", "ftp.example.com", 21),
		},
		Steps: []scans.Step{step(1, "port_scan\x1b]0;title\x07", "ok", scans.Service{Host: "ftp.example.com", Port: 21, Name: "ftp", Banner: hostile})},
	}
	got := Write(in)
	for _, text := range append([]string{got.Summary}, got.AttackChains...) {
		for _, r := range text {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("output contains control/format character %U:\n%q", r, text)
			}
		}
		if strings.Contains(text, strings.Repeat("A", maxTitle+1)) || strings.Contains(text, strings.Repeat("B", maxRemediation+1)) {
			t.Errorf("untrusted text not capped:\n%s", text)
		}
		if !utf8.ValidString(text) {
			t.Errorf("invalid UTF-8 in output")
		}
	}
	if !strings.Contains(got.Summary, "…") {
		t.Errorf("a capped title should end with an ellipsis:\n%s", got.Summary)
	}
	if len(got.AttackChains) != 1 || !strings.Contains(got.AttackChains[0], "vsFTPd 2.3.4") {
		t.Errorf("chains = %q", got.AttackChains)
	}
}

func TestCleanHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"WWW.Example.COM.", "www.example.com"},
		{"ftp.example.com\r\nX-Injected: 1", "ftp.example.com"},
		{"<script>.example.com", "script.example.com"},
		{"", "example.com"},
		{"\x00\x1b", "example.com"},
	}
	for _, tt := range tests {
		if got := cleanHost(tt.in, "example.com"); got != tt.want {
			t.Errorf("cleanHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Upgrade now. Then rotate keys.", "Upgrade now."},
		{"Block /.git/ on example.com, e.g. with a deny rule. Then rotate.", "Block /.git/ on example.com, e.g. with a deny rule."},
		{"Use TLS 1.2 or later", "Use TLS 1.2 or later."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.in, maxRemediation); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHasWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, word string
		want    bool
	}{
		{"anonymous ftp login", "ftp", true},
		{"sftp server", "ftp", false},
		{"vsftpd 2.3.4", "ftp", false},
		{"exposed .git directory", ".git", true},
		{"cname to foo.github.io", ".git", false},
		{"get /.git/head", ".git", true},
		{"missing csp header", "csp", true},
		{"cspx", "csp", false},
		{"cwe-79", "cwe-79", true},
		{"cwe-798", "cwe-79", false},
	}
	for _, tt := range tests {
		if got := hasWord(tt.s, tt.word); got != tt.want {
			t.Errorf("hasWord(%q, %q) = %v, want %v", tt.s, tt.word, got, tt.want)
		}
	}
}

// bigInput is a scan with n findings spread over many hosts, every chain
// present many times over, and long, hostile titles.
func bigInput(n int) Input {
	base := allChainsInput()
	in := Input{Domain: "example.com", ScanType: scans.Full, Tier: plans.Deep, Partial: "credit budget exhausted"}
	sevs := scans.Severities
	for i := range n {
		var f scans.Finding
		if i%3 == 0 {
			f = base.Findings[i%len(base.Findings)]
			f.Host = fmt.Sprintf("h%d.example.com", i%97)
		} else {
			f = finding(sevs[i%len(sevs)], scans.CategoryWeb, fmt.Sprintf("Finding %d %s", i, strings.Repeat("long title ", 40)),
				fmt.Sprintf("host%d.example.com", i%211), 443+i%7)
			f.Evidence = strings.Repeat("evidence ", 200)
			f.Description = strings.Repeat("description ", 200)
		}
		in.Findings = append(in.Findings, f)
	}
	for i := range 50 {
		in.Steps = append(in.Steps, step(i+1, fmt.Sprintf("tool_%d", i%12), "ok",
			scans.Service{Host: fmt.Sprintf("h%d.example.com", i), Port: 21, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"}))
	}
	return in
}

func TestBoundedOutputWithManyFindings(t *testing.T) {
	t.Parallel()
	got := Write(bigInput(10000))
	if got.RiskRating != scans.RiskCritical {
		t.Errorf("risk rating = %q", got.RiskRating)
	}
	if n := utf8.RuneCountInString(got.Summary); n > maxSummary {
		t.Errorf("summary is %d runes, cap %d", n, maxSummary)
	}
	if n := utf8.RuneCountInString(got.Summary); n > 1500 {
		t.Errorf("summary of a huge scan should stay short, got %d runes:\n%s", n, got.Summary)
	}
	if len(got.AttackChains) != maxChains {
		t.Errorf("got %d chains, want %d", len(got.AttackChains), maxChains)
	}
	for _, c := range got.AttackChains {
		if n := utf8.RuneCountInString(c); n > maxChain {
			t.Errorf("chain is %d runes, cap %d", n, maxChain)
		}
	}
	if !strings.Contains(got.Summary, "10000 findings") {
		t.Errorf("summary should count every finding:\n%s", got.Summary)
	}
	if !strings.Contains(got.AttackChains[0], "others") {
		t.Errorf("a chain present on many hosts should say so, not repeat itself:\n%s", got.AttackChains[0])
	}
}

func BenchmarkWrite(b *testing.B) {
	in := bigInput(500)
	b.ReportAllocs()
	for b.Loop() {
		Write(in)
	}
}

// A step's outcome text quoting what a target said ("REFUSED", "error") is
// not a failed step: only the typed status says so.
func TestOutcomeTextDoesNotMakeAStepFail(t *testing.T) {
	t.Parallel()
	st := scans.Step{Seq: 1, Tool: "dns_check", Status: scans.StepOK,
		Outcome: "zone transfer REFUSED by ns1; SPF lookup error: too many includes"}
	got := Write(Input{Domain: "example.org", ScanType: scans.Network, Tier: plans.Quick, Steps: []scans.Step{st}})
	for _, bad := range []string{"refused, failed or timed out", "Not every check ran"} {
		if strings.Contains(got.Summary, bad) {
			t.Errorf("summary claims an incomplete step (%q): %s", bad, got.Summary)
		}
	}
	st.Status = scans.StepRefused
	got = Write(Input{Domain: "example.org", ScanType: scans.Network, Tier: plans.Quick, Steps: []scans.Step{st}})
	if !strings.Contains(got.Summary, "the only step was refused, failed or timed out") {
		t.Errorf("a refused step is not reported: %s", got.Summary)
	}
}

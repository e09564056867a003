package dnscheck

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// zones is the local DNS data of every test: each case is its own scan
// domain, so DMARC lookups of one never fall back to another's.
var zones = []string{
	// control: strict SPF and DMARC
	`good.test. A 192.0.2.10`,
	`good.test. TXT "v=spf1 include:_spf.mail.example -all"`,
	`good.test. TXT "google-site-verification=abc"`,
	`_dmarc.good.test. TXT "v=DMARC1; p=reject; rua=mailto:dmarc@good.test"`,
	// control: softfail SPF split over two strings, quarantine
	`soft.test. TXT "v=spf1 ip4:192.0.2.0/24 " "include:_spf.mail.example ~all"`,
	`_dmarc.soft.test. TXT "v=DMARC1; p=quarantine; pct=100"`,

	`twospf.test. TXT "v=spf1 mx -all"`,
	`twospf.test. TXT "v=spf1 include:_spf.mail.example -all"`,
	`_dmarc.twospf.test. TXT "v=DMARC1; p=reject"`,
	`nospf.test. A 192.0.2.20`,
	`_dmarc.nospf.test. TXT "v=DMARC1; p=reject"`,
	`twodmarc.test. TXT "v=spf1 -all"`,
	`_dmarc.twodmarc.test. TXT "v=DMARC1; p=reject"`,
	`_dmarc.twodmarc.test. TXT "v=DMARC1; p=none"`,

	// A subdomain without records of its own under a domain whose DMARC
	// record sets a weaker policy for subdomains.
	`org.test. TXT "v=spf1 -all"`,
	`_dmarc.org.test. TXT "v=DMARC1; p=reject; sp=none"`,
	`mail.org.test. A 192.0.2.30`,

	`servfail.test. TXT "v=spf1 -all"`,
}

// mailPolicies are scan domains of the tests with one SPF record and one
// DMARC record ("": none) and nothing else of their own, and the finding
// each plants (none when title is "").
var mailPolicies = []struct {
	domain, spf, dmarc string
	title              string
	severity           scans.Severity
}{
	{"passall.test", "v=spf1 +all", "v=DMARC1; p=reject", "SPF record allows any sender (+all)", scans.High},
	{"bareall.test", "v=spf1 mx all", "v=DMARC1; p=reject", "SPF record allows any sender (+all)", scans.High},
	{"neutral.test", "v=spf1 mx ?all", "v=DMARC1; p=reject", "SPF record ends in ?all (neutral)", scans.Medium},
	{"noall.test", "v=spf1 mx", "v=DMARC1; p=reject", "SPF record has no all mechanism", scans.Low},
	{"redirect.test", "v=spf1 redirect=_spf.good.test", "v=DMARC1; p=reject", "", ""},
	{"lookups.test", "v=spf1 a mx include:a.example include:b.example include:c.example include:d.example include:e.example include:f.example include:g.example include:h.example exists:%{i}.x.example -all", "v=DMARC1; p=reject",
		"SPF record needs more than 10 DNS lookups", scans.Medium},
	{"nodmarc.test", "v=spf1 -all", "", "No DMARC record", scans.Medium},
	{"dmarcnone.test", "v=spf1 -all", "v=DMARC1; p=none; rua=mailto:d@dmarcnone.test", "DMARC policy is none (monitoring only)", scans.Low},
	{"dmarcpct.test", "v=spf1 -all", "v=DMARC1; p=reject; pct=20", "DMARC policy applies to only part of the mail (pct below 100)", scans.Low},
	{"dmarcbad.test", "v=spf1 -all", "v=DMARC1; p=block", "DMARC record has no valid policy", scans.Medium},
	{"dmarclower.test", "v=spf1 -all", "v=dmarc1; p=reject", "No DMARC record", scans.Medium},
}

// mailRecords are the TXT records of mailPolicies.
func mailRecords() []string {
	var out []string
	for _, m := range mailPolicies {
		out = append(out, m.domain+`. TXT "`+m.spf+`"`)
		if m.dmarc != "" {
			out = append(out, `_dmarc.`+m.domain+`. TXT "`+m.dmarc+`"`)
		}
	}
	return out
}

// hardened are the scan domains of zones: each also gets a CAA record and
// DS/DNSKEY records, so the e-mail cases see no CAA or DNSSEC finding.
var hardened = []string{
	"good.test", "soft.test", "passall.test", "bareall.test", "neutral.test", "noall.test", "redirect.test",
	"twospf.test", "lookups.test", "nospf.test", "nodmarc.test", "dmarcnone.test", "dmarcpct.test",
	"dmarcbad.test", "dmarclower.test", "twodmarc.test", "org.test", "servfail.test",
}

// Fake DNSSEC records: nothing validates them.
const (
	fakeDS     = "DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"
	fakeDNSKEY = "DNSKEY 257 3 13 bW9jayBrZXkgZm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwga2V5IGF0IGFsbA=="
)

// domainInput is the tool's input checking domain ("": the scan's
// domain).
func domainInput(domain string) json.RawMessage {
	if domain == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(`{"domain": "` + domain + `"}`)
}

func testResolver(t testing.TB) *resolver.Resolver {
	t.Helper()
	srv := resolvertest.Start(t)
	srv.Add(t, zones...)
	srv.Add(t, mailRecords()...)
	for _, d := range hardened {
		srv.Add(t, d+`. CAA 0 issue "letsencrypt.org"`, d+". "+fakeDS, d+". "+fakeDNSKEY)
	}
	srv.SetRcode("_dmarc.servfail.test", dns.RcodeServerFailure)
	res, err := resolver.New(srv.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunFindsPlantedWeaknesses(t *testing.T) {
	t.Parallel()
	res := testResolver(t)
	type want map[string]scans.Severity
	cases := []struct {
		scope, domain string // the scan's domain; the input ("" for the default)
		want          want
		note          string // substring of the outcome
	}{
		{scope: "good.test", want: want{}, note: "A/AAAA: 192.0.2.10"},
		{scope: "soft.test", want: want{}, note: "SPF: v=spf1 ip4:192.0.2.0/24 include:_spf.mail.example ~all"},
		{scope: "twospf.test", want: want{"Multiple SPF records": scans.Medium}},
		{scope: "nospf.test", want: want{"No SPF record": scans.Medium}},
		{scope: "twodmarc.test", want: want{"Multiple DMARC records": scans.Medium}},
		{
			scope: "org.test", domain: "mail.org.test",
			want: want{"No SPF record": scans.Low, "DMARC policy is none (monitoring only)": scans.Low},
			note: "DMARC (_dmarc.org.test): sp=none",
		},
		{scope: "servfail.test", want: want{}, note: "DMARC: not checked"},
	}
	for _, m := range mailPolicies {
		w := want{}
		if m.title != "" {
			w[m.title] = m.severity
		}
		cases = append(cases, struct {
			scope, domain string
			want          want
			note          string
		}{scope: m.domain, want: w})
	}
	for _, tc := range cases {
		t.Run(tc.scope, func(t *testing.T) {
			t.Parallel()
			env := tools.Env{Domain: tc.scope, Resolver: res}
			out, err := New().Run(context.Background(), env, domainInput(tc.domain))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			scantest.CheckFindings(t, New(), out.Findings)
			t.Logf("outcome: %s", out.Outcome)
			if !strings.Contains(out.Outcome, tc.note) {
				t.Errorf("outcome %q does not mention %q", out.Outcome, tc.note)
			}
			host := cmp.Or(tc.domain, tc.scope)
			got := map[string]scans.Finding{}
			for _, f := range out.Findings {
				got[f.Title] = f
				t.Logf("%s [%s]: %s", f.Title, f.Severity, f.Evidence)
				checkDNSProof(t, f)
				if f.Category != scans.CategoryDNS || f.Host != host || f.Port != nil || f.Evidence == "" ||
					f.Description == "" || f.Remediation == "" || len(f.References) == 0 || f.CWE == nil {
					t.Errorf("finding %q is incomplete: %+v", f.Title, f)
				}
				for _, ref := range f.References {
					if !strings.HasPrefix(ref, "https://") {
						t.Errorf("finding %q: reference %q is not https", f.Title, ref)
					}
				}
			}
			scantest.WantFindings(t, got, tc.want)
		})
	}
}

func TestRunNonexistentDomain(t *testing.T) {
	t.Parallel()
	env := tools.Env{Domain: "ghost.test", Resolver: testResolver(t)}
	out, err := New().Run(context.Background(), env, nil)
	if err == nil || tools.IsInputError(err) || !strings.Contains(err.Error(), "does not exist") || len(out.Findings) != 0 {
		t.Errorf("Run = %+v, %v; want a does-not-exist error and no findings", out, err)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := tools.Env{Domain: "good.test", Resolver: testResolver(t)}
	for _, input := range []string{
		`{"domain": "example.com"}`,
		`{"domain": "notgood.test"}`,
		`{"domain": "192.0.2.10"}`,
		`{"domain": "good.test/x"}`,
		`{"domain": "_dmarc.good.test"}`,
		`{"domain": "good.test", "type": "AXFR"}`,
		`{"domain": 7}`,
	} {
		if _, err := New().Run(context.Background(), env, json.RawMessage(input)); !tools.IsInputError(err) {
			t.Errorf("Run(%s) error = %v, want an input error", input, err)
		}
	}
}

func TestToolContract(t *testing.T) {
	t.Parallel()
	scantest.CheckContract(t, New(), "dns_check", 3)
}

func TestParseSPF(t *testing.T) {
	t.Parallel()
	cases := []struct {
		record   string
		all      byte
		redirect bool
		lookups  int
	}{
		{"v=spf1 -all", '-', false, 0},
		{"v=spf1 ALL", '+', false, 0},
		{"v=spf1 a:mail.example mx/24 ptr exists:x.example include:y.example ~all", '~', false, 5},
		{"v=spf1 ip4:192.0.2.1 redirect=_spf.example", 0, true, 1},
		{"v=spf1 -all +all", '-', false, 0},
		{"v=spf1 allow", 0, false, 0},
	}
	for _, tc := range cases {
		p := parseSPF(tc.record)
		if p.all != tc.all || p.redirect != tc.redirect || p.lookups != tc.lookups {
			t.Errorf("parseSPF(%q) = %+v; want all=%q redirect=%v lookups=%d", tc.record, p, tc.all, tc.redirect, tc.lookups)
		}
	}
	for txt, want := range map[string]bool{"v=spf1": true, "V=SPF1 -all": true, "v=spf10 -all": false, "spf1": false, "v=spf1-all": false} {
		if isSPF(txt) != want {
			t.Errorf("isSPF(%q) = %v", txt, !want)
		}
	}
}

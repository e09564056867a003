package vuln

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/refusals"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

var weakPages = map[string]string{
	"/": `<html><head>
<script src="/js/jquery-1.12.4.min.js"></script>
<script src="/js/vendor.js?v=7"></script>
<script src="https://cdn.example.net/ajax/libs/moment.js/2.29.1/moment.min.js"></script>
</head><body>weak</body></html>`,
	"/js/jquery-1.12.4.min.js": "/*! jQuery v1.12.4 | (c) jQuery Foundation | jquery.org/license */\n!function(a,b){}",
	"/js/vendor.js":            "/*! jQuery UI - v1.12.1 - 2016-09-14\n* http://jqueryui.com */\n/*!\n * Bootstrap v3.3.7 (http://getbootstrap.com)\n */\n",
}

func weakHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "Apache/2.4.49 (Unix) OpenSSL/1.0.1f")
		w.Header().Set("X-Powered-By", "PHP/5.6.40")
		body, ok := weakPages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	})
}

func hardenedHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nginx")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><script src="/static/jquery-3.7.1.min.js"></script><script src="/static/app.js"></script></head></html>`)
		case "/static/jquery-3.7.1.min.js":
			fmt.Fprint(w, "/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */")
		default:
			fmt.Fprint(w, "console.log('app')")
		}
	})
}

// known are services an earlier step (the port scan) recorded.
var known = []scans.Service{
	{Host: "weak.test", Port: 21, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"},
	{Host: "weak.test", Port: 22, Name: "ssh", Banner: "SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8"},
	{Host: "db.weak.test", Port: 3306, Name: "mysql", Banner: "5.5.62-0ubuntu0.14.04.1"},
	{Host: "weak.test", Port: 25, Name: "smtp", Banner: "220 mail ESMTP Postfix"},
	{Host: "weak.test", Port: 587, Name: "submission", Banner: "220 mail.weak.test ESMTP Exim 4.92.2 Tue, 03 Nov 2026 10:00:00 +0000"},
	{Host: "weak.test", Port: 2121, Name: "ftp", Banner: "220 ProFTPD 1.3.5 Server (Debian) [::ffff:127.0.0.1]"},
	{Host: "db.weak.test", Port: 9200, Name: "elasticsearch", Banner: `HTTP/1.0 200 OK | version 1.4.2`},
	// Versions that are not announced are not guessed.
	{Host: "weak.test", Port: 6379, Name: "redis", Banner: "-NOAUTH Authentication required."},
	{Host: "weak.test", Port: 8080, Name: "http", Banner: "HTTP/1.1 200 OK | Server: Jetty(9.4.z-SNAPSHOT)"},
	// Outside the scope: never reported on.
	{Host: "other.example", Port: 21, Name: "ftp", Banner: "220 (vsFTPd 2.3.4)"},
}

type want struct {
	id       string // CVE id, or the title of an end-of-life finding
	port     int    // 0: the web server's port
	severity scans.Severity
}

func TestVersionCheck(t *testing.T) {
	t.Parallel()
	allow := netguard.Policy{AllowPrivate: true}
	weak := scantest.NewSite(t, "weak.test", allow, nil, weakHandler(), "db.weak.test")
	weak.Env.Known = known
	hardened := scantest.NewSite(t, "hardened.test", allow, nil, hardenedHandler())
	offline := scantest.NewSite(t, "weak.test", allow, nil, nil)
	offline.Env.Known = known

	weakWeb := []want{
		{"CVE-2021-41773", 0, scans.High},
		{"CVE-2021-42013", 0, scans.Critical},
		{"CVE-2021-44790", 0, scans.Critical},
		{"CVE-2022-22720", 0, scans.Critical},
		{"CVE-2023-25690", 0, scans.Critical},
		{"CVE-2021-44224", 0, scans.High},
		{"CVE-2022-23943", 0, scans.Critical},
		{"CVE-2022-31813", 0, scans.Critical},
		{"CVE-2024-38475", 0, scans.Critical},
		{"CVE-2024-38476", 0, scans.Critical},
		{"CVE-2014-0160", 0, scans.High},
		{"CVE-2016-0800", 0, scans.Medium},
		{"CVE-2016-2107", 0, scans.Medium},
		{"CVE-2016-2108", 0, scans.Critical},
		{"OpenSSL 1.0.1 is end of life", 0, scans.High},
		{"PHP 5.x is end of life", 0, scans.High},
		{"CVE-2020-11022", 0, scans.Medium},
		{"CVE-2020-11023", 0, scans.Medium},
		{"CVE-2019-11358", 0, scans.Medium},
		{"CVE-2015-9251", 0, scans.Medium},
		{"CVE-2021-41183", 0, scans.Medium},
		{"CVE-2021-41184", 0, scans.Medium},
		{"CVE-2022-31160", 0, scans.Medium},
		{"CVE-2019-8331", 0, scans.Medium},
		{"CVE-2018-20677", 0, scans.Medium},
		{"Bootstrap 3.x is end of life", 0, scans.Low},
		{"CVE-2022-31129", 0, scans.High},
		{"CVE-2022-24785", 0, scans.High},
	}
	weakKnown := []want{
		{"CVE-2011-2523", 21, scans.Critical},
		// Distribution builds (a package revision in the banner): one
		// informational finding each, no upstream CVE or end-of-life claim.
		{"OpenSSH 7.2p2, Ubuntu build Ubuntu-4ubuntu2.8: CVE status depends on the package version", 22, scans.Info},
		{"MySQL 5.5.62, Ubuntu build 0ubuntu0.14.04.1: CVE status depends on the package version", 3306, scans.Info},
		{"CVE-2015-3306", 2121, scans.Critical},
		{"CVE-2019-16928", 587, scans.Critical},
		{"CVE-2020-28017", 587, scans.Critical},
		{"CVE-2023-42115", 587, scans.Critical},
		{"CVE-2015-1427", 9200, scans.High},
		{"CVE-2015-5531", 9200, scans.Medium},
	}

	tests := []struct {
		name        string
		site        *scantest.Site
		input       string
		want        []want
		wantOutcome string
	}{
		{name: "weak site and banners", site: weak, input: `{}`, want: append(slices.Clone(weakWeb), weakKnown...),
			wantOutcome: "jQuery 1.12.4"},
		{name: "explicit URL", site: weak, input: fmt.Sprintf(`{"url": %q}`, weak.URL("https", "weak.test", "/")),
			want: append(slices.Clone(weakWeb), weakKnown...)},
		{name: "hardened site: current versions only", site: hardened, input: `{}`, want: nil,
			wantOutcome: "fingerprinted 1 component (jQuery 3.7.1); 0 known vulnerabilities, 0 end-of-life"},
		{name: "web unreachable: banners still matched", site: offline, input: `{}`, want: weakKnown,
			wantOutcome: "web page not examined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := withClock(func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) })
			res, err := New(WithRootCAs(tc.site.Roots), clock).Run(context.Background(), tc.site.Env, json.RawMessage(tc.input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			scantest.CheckFindings(t, New(), res.Findings)
			t.Logf("outcome: %s", res.Outcome)
			webPort := tc.site.Env.Ports.HTTPSPort()
			type key struct {
				id   string
				port int
			}
			got := map[key]scans.Finding{}
			for _, f := range expandGroups(t, res.Findings) {
				id := f.Title
				if f.CVE != nil {
					id = *f.CVE
				}
				k := key{id, *f.Port}
				if _, dup := got[k]; dup {
					t.Errorf("%v reported twice", k)
				}
				got[k] = f
				checkFinding(t, f)
			}
			for _, w := range tc.want {
				port := w.port
				if port == 0 {
					port = webPort
				}
				f, ok := got[key{w.id, port}]
				if !ok {
					t.Errorf("missing %s on port %d", w.id, port)
					continue
				}
				if f.Severity != "" && f.Severity != w.severity {
					t.Errorf("%s: severity %s, want %s", w.id, f.Severity, w.severity)
				}
				delete(got, key{w.id, port})
			}
			for k, f := range got {
				t.Errorf("unexpected finding %v: %s", k, f.Title)
			}
			if tc.wantOutcome != "" && !strings.Contains(res.Outcome, tc.wantOutcome) {
				t.Errorf("outcome %q does not contain %q", res.Outcome, tc.wantOutcome)
			}
		})
	}
}

func checkFinding(t *testing.T, f scans.Finding) {
	t.Helper()
	if f.Category != scans.CategoryVuln || f.Port == nil || f.CWE == nil && f.CVE == nil && f.Check != checks.DistributionBuild.Code {
		t.Errorf("%q: incomplete finding %+v", f.Title, f)
	}
	if f.Host == "other.example" {
		t.Errorf("%q: reported on an out-of-scope host", f.Title)
	}
	if f.CVE != nil && (f.CVSS == nil || *f.CVSS <= 0 || !strings.Contains(f.Title, *f.CVE)) {
		t.Errorf("%q: a CVE finding needs its CVSS and the id in its title", f.Title)
	}
	if !strings.Contains(f.Evidence, " seen in ") || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("%q: evidence (where the version was seen), description, remediation and references are required: %+v", f.Title, f)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("%q: reference %q is not https", f.Title, ref)
		}
	}
}

func TestVersionCheckEvidence(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	res, err := New(WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	scantest.CheckFindings(t, New(), res.Findings)
	wantEvidence := map[string][]string{
		"CVE-2021-41773": {"Server header of https://weak.test:", "Apache/2.4.49 (Unix)", ">= 2.4.49, < 2.4.50"},
		"CVE-2020-11022": {"jquery-1.12.4.min.js referenced by", "(file name)", `header of script https://weak.test:`, "jQuery v1.12.4"},
		"CVE-2021-41184": {"vendor.js", "jQuery UI - v1.12.1"},
		"CVE-2022-31129": {"https://cdn.example.net/ajax/libs/moment.js/2.29.1/moment.min.js", "(file name)"},
	}
	for _, f := range expandGroups(t, res.Findings) {
		if f.CVE == nil {
			continue
		}
		for _, w := range wantEvidence[*f.CVE] {
			if !strings.Contains(f.Evidence, w) {
				t.Errorf("%s: evidence %q does not contain %q", *f.CVE, f.Evidence, w)
			}
		}
		delete(wantEvidence, *f.CVE)
	}
	for cve := range wantEvidence {
		t.Errorf("missing %s", cve)
	}
}

func TestVersionCheckNothingToExamine(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	_, err := New().Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err == nil || tools.IsInputError(err) {
		t.Fatalf("Run = %v, want an error: nothing could be examined", err)
	}
}

func TestVersionCheckRefusals(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	tests := []struct{ Name, Input string }{
		{"out of scope", `{"url": "https://evil.example/"}`},
		{"bad scheme", `{"url": "gopher://weak.test/"}`},
		{"user info", `{"url": "https://u:p@weak.test/"}`},
		{"unknown field", `{"url": "https://weak.test/", "exploit": true}`},
	}
	refusals.Check(t, New(), site, tests)
}

func TestToolDefinition(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(New())
	tool, ok := reg.Get(Name)
	if !ok || tool.Cost() != 5 {
		t.Fatalf("version_check not registered with cost 5")
	}
	if !strings.Contains(tool.Description(), "edition ") {
		t.Errorf("description does not name the dataset edition: %s", tool.Description())
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema: %v", err)
	}
}

func BenchmarkVersionCheck(b *testing.B) {
	site := scantest.NewSite(b, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler(), "db.weak.test")
	site.Env.Known = known
	tool := New(WithRootCAs(site.Roots))
	for b.Loop() {
		if _, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
	}
}

package exposure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/expect"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/refusals"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// secrets planted in the weak site; none may appear in any evidence.
var secrets = []string{
	"hunter2hunter2",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"ghp_abcdefghijklmnop1234",
	"supersecretpassword",
	"secret-password-hash",
	"xyzHASHabcdefghijklmnop",
	"npm_TOKENabcdefghijklmnop",
}

var weakFiles = map[string]string{
	"/.git/HEAD":         "ref: refs/heads/main\n",
	"/.git/config":       "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://deploy:ghp_abcdefghijklmnop1234@github.com/acme/site.git\n",
	"/.svn/entries":      "12\n",
	"/.hg/requires":      "dotencode\nfncache\ngeneraldelta\nrevlogv1\nstore\n",
	"/.env":              "# production\nAPP_ENV=production\nDB_PASSWORD=hunter2hunter2\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	"/.aws/credentials":  "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	"/.npmrc":            "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_TOKENabcdefghijklmnop\n",
	"/.htpasswd":         "admin:$apr1$xyzHASHabcdefghijklmnop\n",
	"/backup/":           "<html><head><title>Index of /backup</title></head><body><h1>Index of /backup</h1><a href=\"site.zip\">site.zip</a></body></html>",
	"/dump.sql":          "-- MySQL dump 10.13  Distrib 5.7.33\n--\nINSERT INTO `users` VALUES ('admin','secret-password-hash');\n",
	"/backup.zip":        "PK\x03\x04\x14\x00\x00\x00binary",
	"/wp-config.php.bak": "<?php\ndefine('DB_NAME', 'wp');\ndefine('DB_PASSWORD', 'supersecretpassword');\n",
	"/server-status":     "<html><head><title>Apache Status</title></head><body><h1>Apache Server Status for weak.test (via 127.0.0.1)</h1>Server uptime: 3 days</body></html>",
	"/phpinfo.php":       "<html><head><title>PHP 5.6.40 - phpinfo()</title></head><body><h1>PHP Version 5.6.40</h1></body></html>",
	"/debug":             "<html><head><title>Error // Werkzeug Debugger</title></head><body>Traceback</body></html>",
	"/debug/pprof/":      "<html><head><title>/debug/pprof/</title></head><body>Types of profiles available:</body></html>",
	"/actuator/env":      `{"activeProfiles":["prod"],"propertySources":[{"name":"server.ports","properties":{}},{"name":"systemEnvironment","properties":{}}]}`,
	"/.DS_Store":         "\x00\x00\x00\x01Bud1\x00\x00\x10\x00",
	"/":                  `<html><head><script src="/static/app.js"></script><script src="https://cdn.example.net/lib.js"></script></head><body>home</body></html>`,
	"/static/app.js":     "console.log('app');\n//# sourceMappingURL=app.js.map\n",
	"/static/app.js.map": `{"version":3,"file":"app.js","sources":["webpack:///src/app.ts"],"mappings":"AAAA"}`,
}

var weakTitles = map[string]scans.Severity{
	"Exposed Git repository (/.git/HEAD)":                 scans.High,
	"Exposed Git configuration (/.git/config)":            scans.High,
	"Exposed Subversion metadata (/.svn/entries)":         scans.High,
	"Exposed Mercurial repository (/.hg/requires)":        scans.High,
	"Exposed environment file (/.env)":                    scans.High,
	"Exposed AWS credentials file":                        scans.Critical,
	"Exposed npm configuration with auth token (/.npmrc)": scans.High,
	"Exposed password file (/.htpasswd)":                  scans.High,
	"Directory listing of /backup/":                       scans.Medium,
	"Exposed database dump (/dump.sql)":                   scans.High,
	"Exposed backup archive (/backup.zip)":                scans.High,
	"Exposed PHP source backup (/wp-config.php.bak)":      scans.High,
	"Apache server-status page exposed":                   scans.Medium,
	"phpinfo() page exposed (/phpinfo.php)":               scans.Medium,
	"Debug error page exposed (/debug)":                   scans.Medium,
	"Go pprof profiling endpoint exposed":                 scans.Medium,
	"Spring Boot actuator env endpoint exposed":           scans.High,
	"Exposed .DS_Store file":                              scans.Low,
	"JavaScript source map exposed":                       scans.Low,
}

func weakHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := weakFiles[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasPrefix(body, "<"):
			w.Header().Set("Content-Type", "text/html")
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "application/javascript")
		}
		fmt.Fprint(w, body)
	})
}

// catchAllHandler answers every path with 200 and the same page, echoing
// the path like many single-page apps and CMS not-found pages do.
func catchAllHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Shop</title><script src="/static/app.js"></script></head><body>Nothing at %s — Index of products</body></html>`, r.URL.Path)
	})
}

// sameTextHandler answers every path with the same plain text, which looks
// like .git/HEAD: only the soft-404 comparison tells it apart.
func sameTextHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ref: refs/heads/main\n")
	})
}

func TestExposedFiles(t *testing.T) {
	t.Parallel()
	allow := netguard.Policy{AllowPrivate: true}
	weak := scantest.NewSite(t, "weak.test", allow, nil, weakHandler())
	catchAll := scantest.NewSite(t, "shop.test", allow, nil, catchAllHandler())
	sameText := scantest.NewSite(t, "odd.test", allow, nil, sameTextHandler())
	plainNotFound := scantest.NewSite(t, "empty.test", allow, http.NotFoundHandler(), nil)

	tests := []struct {
		name        string
		site        *scantest.Site
		input       string
		want        map[string]scans.Severity
		wantOutcome string
	}{
		{name: "weak site: every planted file", site: weak, input: `{}`, want: weakTitles, wantOutcome: "19 exposed"},
		{
			name: "weak site, subset of paths", site: weak,
			input: `{"paths": ["/.git/HEAD", "/.env", "/.env", "/backups/"]}`,
			want: map[string]scans.Severity{
				"Exposed Git repository (/.git/HEAD)": scans.High,
				"Exposed environment file (/.env)":    scans.High,
			},
			wantOutcome: "probed 3 paths under",
		},
		{
			name: "weak site, explicit base URL", site: weak,
			input: fmt.Sprintf(`{"base_url": %q, "paths": ["/.git/HEAD"]}`, weak.URL("https", "weak.test", "/")),
			want:  map[string]scans.Severity{"Exposed Git repository (/.git/HEAD)": scans.High},
		},
		{name: "catch-all 200 site: nothing", site: catchAll, input: `{}`, want: nil, wantOutcome: "soft 404"},
		{name: "same text for every path: nothing", site: sameText, input: `{}`, want: nil, wantOutcome: "nothing exposed"},
		{name: "plain 404 site over http: nothing", site: plainNotFound, input: `{}`, want: nil, wantOutcome: "nothing exposed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := New(httpprobe.WithRootCAs(tc.site.Roots)).Run(context.Background(), tc.site.Env, json.RawMessage(tc.input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("outcome: %s", res.Outcome)
			got := map[string]scans.Severity{}
			for _, f := range res.Findings {
				for _, title := range sightings(t, f) {
					if _, dup := got[title]; dup {
						t.Errorf("finding %q reported twice", title)
					}
					got[title] = f.Severity
				}
				checkFinding(t, f)
			}
			expect.Severities(t, got, tc.want)
			if tc.wantOutcome != "" && !strings.Contains(res.Outcome, tc.wantOutcome) {
				t.Errorf("outcome %q does not contain %q", res.Outcome, tc.wantOutcome)
			}
			if len(res.Services) != 1 {
				t.Errorf("services %+v, want the probed web service", res.Services)
			}
		})
	}
}

// sightings are the probe titles a finding stands for: its own, and those
// of the paths of the same check merged into it (checks.Merge lists them in
// the evidence). Each probe's check must be the finding's.
func sightings(t *testing.T, f scans.Finding) []string {
	t.Helper()
	var out []string
	for _, p := range append([]probe{rootListing}, builtin...) {
		if f.Title == p.title || strings.HasPrefix(f.Title, p.title+" (and ") || strings.Contains(f.Evidence, p.title+": ") {
			out = append(out, p.title)
			if f.Check != p.check.Code {
				t.Errorf("%q: check %q, want %s", p.title, f.Check, p.check.Code)
			}
		}
	}
	if len(out) == 0 {
		t.Errorf("finding %q (%s) matches no probe", f.Title, f.Check)
	}
	return out
}

func checkFinding(t *testing.T, f scans.Finding) {
	t.Helper()
	if f.Category != scans.CategoryWeb || f.Host == "" || f.Port == nil || f.CWE == nil {
		t.Errorf("%q: incomplete finding %+v", f.Title, f)
	}
	if f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("%q: evidence, description, remediation and references are required", f.Title)
	}
	if !strings.Contains(f.Evidence, "→ 200") {
		t.Errorf("%q: evidence %q does not show the URL and status", f.Title, f.Evidence)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("%q: reference %q is not https", f.Title, ref)
		}
	}
	for _, s := range secrets {
		if strings.Contains(f.Evidence, s) {
			t.Errorf("%q: evidence leaks secret %q: %s", f.Title, s, f.Evidence)
		}
	}
}

func TestExposedFilesEvidence(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{"paths": ["/.env", "/.git/config", "/.aws/credentials", "*.js.map"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Exposed environment file (/.env)":         "DB_PASSWORD=hunt… (14 chars) (3 variables",
		"Exposed Git configuration (/.git/config)": "https://[credentials redacted]@github.com/acme/site.git",
		"Exposed AWS credentials file":             "aws_access_key_id = AKIA… (20 chars)",
		"JavaScript source map exposed":            `/static/app.js.map → 200`,
	}
	for _, f := range res.Findings {
		if w, ok := want[f.Title]; ok {
			if !strings.Contains(f.Evidence, w) {
				t.Errorf("%q: evidence %q does not contain %q", f.Title, f.Evidence, w)
			}
			delete(want, f.Title)
		}
	}
	for title := range want {
		t.Errorf("missing finding %q", title)
	}
}

func TestExposedFilesRefusals(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	tooMany := make([]string, 41)
	for i := range tooMany {
		tooMany[i] = "/.env"
	}
	many, _ := json.Marshal(map[string]any{"paths": tooMany})
	tests := []struct{ Name, Input string }{
		{"base URL out of scope", `{"base_url": "https://evil.example/"}`},
		{"base URL with user info", `{"base_url": "https://a:b@weak.test/"}`},
		{"base URL file scheme", `{"base_url": "file:///etc/passwd"}`},
		{"path not in the built-in list", `{"paths": ["/etc/passwd"]}`},
		{"traversal path", `{"paths": ["/../../.env"]}`},
		{"too many paths", string(many)},
		{"unknown field", `{"base_url": "https://weak.test/", "depth": 3}`},
	}
	refusals.Check(t, New(), site, tests)
}

func TestBuiltinList(t *testing.T) {
	t.Parallel()
	if len(builtin) > maxPaths {
		t.Errorf("%d built-in paths, more than one call may probe (%d)", len(builtin), maxPaths)
	}
	seenPath, seenTitle := map[string]bool{}, map[string]bool{}
	for _, p := range builtin {
		if seenPath[p.path] || seenTitle[p.title] {
			t.Errorf("duplicate path or title: %s / %s", p.path, p.title)
		}
		seenPath[p.path], seenTitle[p.title] = true, true
		if p.match == nil && p.path != sourceMapsPath {
			t.Errorf("%s: no matcher", p.path)
		}
		if p.check == nil || p.check.CWE == "" {
			t.Errorf("%s: no check, or a check without CWE", p.path)
		} else if _, ok := checks.Lookup(p.check.Code); !ok {
			t.Errorf("%s: check %s not in the catalogue", p.path, p.check.Code)
		}
	}
	reg := tools.NewRegistry(New())
	if tool, _ := reg.Get(Name); tool.Cost() != 10 {
		t.Errorf("cost %d, want 10", tool.Cost())
	}
	var schema map[string]any
	if err := json.Unmarshal(New().InputSchema(), &schema); err != nil {
		t.Errorf("schema: %v", err)
	}
}

func TestMatchers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		match   func([]byte) (string, bool)
		body    string
		want    bool
		wantEvd string
	}{
		{"git config token-only remote", matchGitConfig, "[core]\n[remote \"o\"]\n\turl = https://ghp_tok123456@github.com/a/b\n", true, "remote url = https://[credentials redacted]@github.com/a/b"},
		{"git config html", matchGitConfig, "<html>[core]</html>", false, ""},
		{"git HEAD ref", matchGitHEAD, "ref: refs/heads/master\n", true, "ref: refs/heads/master"},
		{"git HEAD detached", matchGitHEAD, "0123456789abcdef0123456789abcdef01234567\n", true, ""},
		{"git HEAD html", matchGitHEAD, "<html>ref: refs/heads/main</html>", false, ""},
		{"git HEAD prose", matchGitHEAD, "see ref: refs/heads/main for details", false, ""},
		{"env single secret", matchEnvFile, "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nREGION=eu-west-1\n", true, "AWS_SECRET_ACCESS_KEY=wJal… (40 chars)"},
		{"env short value", matchEnvFile, "DEBUG=true\nPORT=80\n", true, "DEBUG=t… (4 chars)"},
		{"env html", matchEnvFile, "<html><body>A=B\nC=D</body></html>", false, ""},
		{"env prose", matchEnvFile, "Welcome to our site.\nThe answer is x=1.\nContact us.\nThanks\nBye\n", false, ""},
		{"env one line", matchEnvFile, "A=B\n", false, ""},
		{"svn entries", matchSVNEntries, "12\n", true, "12"},
		{"svn number out of range", matchSVNEntries, "404\n", false, ""},
		{"sql dump insert", matchSQLDump, "INSERT INTO `users` VALUES (1,'pw');", true, "INSERT INTO `users` … (statement cut; data not shown)"},
		{"sql html", matchSQLDump, "<html>CREATE TABLE x</html>", false, ""},
		{"htpasswd", matchHtpasswd, "admin:$apr1$abcdefgh$ijklmnopqrstuv\nbob:{SHA}abcdefghijklmnopqrstuvwxyz=\n", true, "admin:$apr… (29 chars) (2 users"},
		{"htpasswd prose", matchHtpasswd, "Note: this is not a password file\n", false, ""},
		{"hg requires html", matchHgRequires, "<html>store</html>", false, ""},
		{"listing", matchDirectoryListing, "<title>Index of /backups</title>", true, "Index of /backups"},
		{"not listing", matchDirectoryListing, "<title>Our product index</title>", false, ""},
		{"php source", matchPHPSource, "<?php\ndefine('DB_PASSWORD', 'x');", true, "defines DB_PASSWORD (values not shown)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			evd, ok := tc.match([]byte(tc.body))
			if ok != tc.want {
				t.Fatalf("match = %v (%q), want %v", ok, evd, tc.want)
			}
			if tc.wantEvd != "" && !strings.Contains(evd, tc.wantEvd) {
				t.Errorf("evidence %q does not contain %q", evd, tc.wantEvd)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	scantest.CheckMapping(t, "redact", redact, map[string]string{
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "wJal… (40 chars)",
		`"quoted-secret-value"`:                    "quot… (19 chars)",
		"abc":                                      "a… (3 chars)",
		"ab":                                       "… (2 chars)",
		"":                                         "… (0 chars)",
	})
}

// homeAnd serves a small home page at / and every other path with rest.
func homeAnd(rest http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, "<html>home</html>")
			return
		}
		rest(w, r)
	})
}

func TestExposedFilesDebugModeOnNotFound(t *testing.T) {
	t.Parallel()
	// Django with DEBUG = True answers every unknown path with a 404 debug
	// page: /debug itself is a 404 too, so only the baseline shows it.
	django := homeAnd(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body>Page not found (404)<p>You're seeing this error because you have <code>DEBUG = True</code> in your Django settings file.</p></body></html>")
	})
	site := scantest.NewSite(t, "django.test", netguard.Policy{AllowPrivate: true}, nil, django)
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Title != "Debug error page exposed (/debug)" ||
		!strings.Contains(res.Findings[0].Evidence, "→ 404") {
		t.Fatalf("findings %+v, want one debug-mode finding on the 404 page", res.Findings)
	}
}

func TestExposedFilesBoundedOnHangingServer(t *testing.T) {
	t.Parallel()
	hang := homeAnd(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers a probe
	})
	site := scantest.NewSite(t, "slow.test", netguard.Policy{AllowPrivate: true}, nil, hang)
	res := scantest.RunBounded(t, New(httpprobe.WithRootCAs(site.Roots)), site.Env, json.RawMessage(`{}`), 2*time.Second) // 500 ms failed once under -race on a loaded machine
	// The probes that started time out ("failed"); those still waiting for
	// a worker when the time ran out are "not run". On a loaded machine the
	// soft-404 baseline alone once took the whole budget: every probe was
	// "not run" and none "failed" (CI, -race).
	if len(res.Findings) != 0 || !strings.Contains(res.Outcome, "failed") && !strings.Contains(res.Outcome, "not run (time ran out)") {
		t.Errorf("outcome %q, findings %d: want the probes not completed reported and no findings", res.Outcome, len(res.Findings))
	}
}

func BenchmarkExposedFiles(b *testing.B) {
	site := scantest.NewSite(b, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	tool := New(httpprobe.WithRootCAs(site.Roots))
	for b.Loop() {
		res, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{}`))
		if err != nil || len(res.Findings) != len(weakTitles) {
			b.Fatalf("Run: %v, %d findings", err, len(res.Findings))
		}
	}
}

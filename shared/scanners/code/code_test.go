package code

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/refusals"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// Fake but validly shaped secrets, assembled at run time so that secret
// scanners reading this repository do not flag the source file.
var (
	fakeAWSKeyID   = "AKIA" + "4XKQ7ZJ3MWRT2VHN"
	fakeAWSSecret  = "q8Vz3Lr0Xp9KcT2mWb7N" + "s4Hf6Yd1Ge5Ja0Qu8Rt+"
	fakeGitHubPage = "ghp_" + "R7kLm2Qx9VbN4pT8sW3yZ6cF1hJ5dG0aE2uK"
	fakeGitHubGit  = "ghp_" + "Xw4Tz8Bq1Mn6Vc3Lp9Rd2Fs7Hj0Kg5Ya8NeU"
	fakeSlackHook  = "https://hooks.slack.com/services/" + "T0A1B2C3D4E/B0F5G6H7J8K/ZxY9wV8uT7sR6qP5oN4mL3kJ2"
	fakeVendored   = "ghp_" + "Vn3Jd8Lq2Wx7Rk5Tz9Pb4Hs6Mc1Fy0Ga3QeZ"

	// The AWS documentation's example pair, which the demo target serves.
	docAWSKeyID  = "AKIA" + "IOSFODNN7EXAMPLE"
	docAWSSecret = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
)

func leakySecrets() []string {
	return []string{fakeAWSKeyID, fakeAWSSecret, fakeGitHubPage, fakeGitHubGit, fakeSlackHook, fakeVendored}
}

// leakyFiles is a site whose code leaks: a minified bundle with an AWS key
// pair and a source map that ships the original sources (the same pair, a
// Slack webhook, and a vendored library), a GitHub token in an inline
// script, and an exposed repository whose config holds another token.
func leakyFiles() map[string]string {
	bundle := `!function(){"use strict";var e={region:"eu-west-1",accessKeyId:"` + fakeAWSKeyID + `",secretAccessKey:"` + fakeAWSSecret +
		`",bucket:"acme-uploads"};function t(t){return fetch(e.bucket+t)}window.App={upload:t}}();` + "\n" +
		`//# sourceMappingURL=main.3f9a2c.js.map` + "\n"
	sources := []string{
		"// src/config.js\nexport const aws = {\n  region: 'eu-west-1',\n  accessKeyId: '" + fakeAWSKeyID + "',\n  secretAccessKey: '" + fakeAWSSecret + "',\n};\n",
		"// src/notify.js\nconst hook = '" + fakeSlackHook + "';\nexport function notify(text) {\n  return fetch(hook, { method: 'POST', body: JSON.stringify({ text }) });\n}\n",
		"// a library's test fixture, shipped in node_modules\nmodule.exports = { token: '" + fakeVendored + "' };\n",
	}
	m, _ := json.Marshal(map[string]any{
		"version":        3,
		"file":           "main.3f9a2c.js",
		"sources":        []string{"webpack:///./src/config.js", "webpack:///./src/notify.js", "webpack:///./node_modules/some-lib/fixture.js"},
		"sourcesContent": sources,
		"mappings":       "AAAA;AACA",
	})
	return map[string]string{
		"/": `<!DOCTYPE html>
<html><head><title>Acme</title>
<script src="/static/js/main.3f9a2c.js"></script>
<script src="/static/js/vendor.js?v=2"></script>
</head><body>
<h1>Acme</h1>
<script>
  window.__CONFIG__ = {
    githubToken: "` + fakeGitHubPage + `"
  };
</script>
</body></html>`,
		"/static/js/main.3f9a2c.js":     bundle,
		"/static/js/main.3f9a2c.js.map": string(m),
		"/static/js/vendor.js":          `!function(n){n.util={id:function(n){return n}}}(window);`,
		"/.git/HEAD":                    "ref: refs/heads/main\n",
		"/.git/config":                  "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://x-access-token:" + fakeGitHubGit + "@github.com/acme/site.git\n",
		"/.git/logs/HEAD":               "0000000000000000000000000000000000000000 1f2e3d4c5b6a79880716253443526170f1e2d3c4 Jane Doe <jane@acme.test> 1700000000 +0000\tclone: from github.com/acme/site\n",
	}
}

// fileServer serves files, 404 elsewhere, and counts requests per path.
type fileServer struct {
	files map[string]string
	mu    sync.Mutex
	hits  map[string]int
	// fallback, when set, answers unknown paths with 200 (a single-page
	// app).
	fallback string
}

func newFileServer(files map[string]string) *fileServer {
	return &fileServer{files: files, hits: map[string]int{}}
}

func (s *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	body, ok := s.files[r.URL.Path]
	switch {
	case !ok && s.fallback != "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, s.fallback)
		return
	case !ok:
		http.NotFound(w, r)
		return
	case strings.HasSuffix(r.URL.Path, ".js"):
		w.Header().Set("Content-Type", "application/javascript")
	case strings.HasSuffix(r.URL.Path, ".map"):
		w.Header().Set("Content-Type", "application/json")
	case strings.HasPrefix(body, "<"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	default:
		w.Header().Set("Content-Type", "text/plain")
	}
	fmt.Fprint(w, body)
}

func (s *fileServer) requests(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p, n := range s.hits {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p+"×"+strconv.Itoa(n))
		}
	}
	return out
}

var allow = netguard.Policy{AllowPrivate: true}

func run(t *testing.T, site *scantest.Site, input string) tools.Result {
	t.Helper()
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(input))
	if err != nil {
		t.Fatalf("Run(%s): %v", input, err)
	}
	t.Logf("outcome: %s", res.Outcome)
	for _, f := range res.Findings {
		t.Logf("finding [%s] %s\n\tevidence: %s", f.Severity, f.Title, f.Evidence)
	}
	return res
}

func TestLeakySite(t *testing.T) {
	t.Parallel()
	srv := newFileServer(leakyFiles())
	site := scantest.NewSite(t, "leaky.test", allow, nil, srv)
	res := run(t, site, `{}`)

	want := []struct {
		title    string
		severity scans.Severity
		evidence []string
	}{
		{
			"AWS access key exposed in /static/js/main.3f9a2c.js", scans.Critical,
			[]string{"https://leaky.test:", "/static/js/main.3f9a2c.js line 1, column ", "AKIA… (20 chars)", "aws-access-token",
				"with a secret access key q8Vz… (40 chars) on line 1",
				"the same secret also in", "main.3f9a2c.js.map (original source webpack:///./src/config.js) line 4"},
		},
		{
			"Slack webhook URL exposed in /static/js/main.3f9a2c.js.map", scans.High,
			[]string{"(original source webpack:///./src/notify.js) line 2, column 15", "http… (82 chars)", "slack-webhook-url"},
		},
		{
			"GitHub personal access token exposed in an inline script of /", scans.High,
			[]string{"/ (inline script) line 9, column 19", "ghp_… (40 chars)", "github-pat"},
		},
		{
			"GitHub personal access token exposed in /.git/config", scans.High,
			[]string{"/.git/config line 4", "ghp_… (40 chars)"},
		},
	}
	// The four secrets are on one site (host and port): one code.secret
	// finding there, led by the most severe, listing every secret.
	if len(res.Findings) != 1 || res.Findings[0].Check != checks.Secret.Code ||
		res.Findings[0].Title != want[0].title+" (and 3 more)" {
		t.Errorf("%d findings, want one %s finding led by %q (and 3 more)", len(res.Findings), checks.Secret.Code, want[0].title)
	}
	for _, w := range want {
		f, ok := findingTitled(res.Findings, w.title)
		if !ok {
			t.Errorf("missing finding %q", w.title)
			continue
		}
		if strings.HasPrefix(f.Title, w.title) && f.Severity != w.severity {
			t.Errorf("%q: severity %s, want %s", w.title, f.Severity, w.severity)
		}
		for _, e := range w.evidence {
			if !strings.Contains(f.Evidence, e) {
				t.Errorf("%q: evidence %q does not contain %q", w.title, f.Evidence, e)
			}
		}
		checkFinding(t, f)
	}
	for _, o := range []string{"1 inline script", "2 scripts", "1 source map (3 original sources)", "exposed /.git/ (HEAD, config, logs/HEAD)", "4 secret findings reported"} {
		if !strings.Contains(res.Outcome, o) {
			t.Errorf("outcome does not contain %q", o)
		}
	}
	checkNoSecret(t, res, leakySecrets())
	// The repository's objects are never asked for: only its three files.
	if got := srv.requests("/.git/"); len(got) != 3 {
		t.Errorf("git requests %v, want HEAD, config and logs/HEAD once each", got)
	}
}

func TestDocumentationExampleKey(t *testing.T) {
	t.Parallel()
	// The demo target's bundle: AWS's documentation pair in a config.
	files := map[string]string{
		"/": `<html><head><script src="/js/app.js"></script></head><body>demo</body></html>`,
		"/js/app.js": "(function () {\n  var config = {\n    awsAccessKeyId: '" + docAWSKeyID + "',\n    awsSecretAccessKey: '" + docAWSSecret +
			"',\n  };\n  window.AcmeConfig = config;\n})();\n",
	}
	site := scantest.NewSite(t, "demo.test", allow, newFileServer(files), nil)
	res := run(t, site, `{}`)
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want the AWS key", len(res.Findings))
	}
	f := res.Findings[0]
	if f.Title != "AWS access key exposed in /js/app.js" || f.Severity != scans.Critical ||
		!strings.Contains(f.Description, "example key of AWS's documentation") ||
		!strings.Contains(f.Evidence, "/js/app.js line 3, column 22: AKIA… (20 chars)") ||
		!strings.Contains(f.Evidence, "wJal… (40 chars) on line 4") {
		t.Errorf("finding %+v", f)
	}
	checkNoSecret(t, res, []string{docAWSKeyID, docAWSSecret})
}

// cleanFiles is a site with minified code full of random-looking strings
// that are not secrets: hashes, ids, integrity values, data URIs, React
// keys, placeholders, a reCAPTCHA site key, and a source map of it.
func cleanFiles() map[string]string {
	bundle := `(self.webpackChunk=self.webpackChunk||[]).push([[179],{7362:function(e,t,n){"use strict";` +
		`var r=n(7294),o={1:"a3f9c2e1b7d4",2:"9f8e7d6c5b4a",3:"0c1d2e3f4a5b"};` +
		`function i(e){return e.apiKey||e.token||e.secret}var a={key:"componentDidMount",value:function(){this.setState({id:"6b1f2e3d-9a8c-4b7d-a1e2-3f4c5d6e7f80"})}};` +
		`var s={apiKey:"YOUR_API_KEY",password:"changeme",token:"xxxxxxxxxxxxxxxxxxxx",authDomain:"acme.firebaseapp.com"};` +
		`var c="sha512-7b8F2kLq9Zx4Vn1Mw6Rt3Yp8Ud5Hs2Jg0Ke7Lc4Nb9Qa1Wz3Xy6Tv8Po5Ir2Eu0Sd==",l="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";` +
		`var u={hash:"d41d8cd98f00b204e9800998ecf8427e",etag:"W/\"5e8f-1a2b3c4d\"",className:"css-1x2y3z4 e1q2w3e4",sitekey:"6LcR4tYpAAAAAHq9Zx8Vn3Mw7Kp2Lb5Jd4Fs1Gt0",nonce:"r4nd0mN0nc3V4lu3"};` +
		`function f(e){return i(e)+r.createElement("div",{key:e.id,"data-token":e.token})}t.default=f}}]);` + "\n" +
		"//# sourceMappingURL=app.8c1d.js.map\n"
	m, _ := json.Marshal(map[string]any{
		"version":        3,
		"sources":        []string{"webpack:///./src/app.js"},
		"sourcesContent": []string{"// src/app.js\nexport function credentials(user) {\n  const token = user.session.token;\n  return { apiKey: process.env.API_KEY, token };\n}\n"},
		"mappings":       "AAAA",
	})
	page := `<!doctype html><html><head>
<link rel="stylesheet" href="/static/css/main.9d8c.css" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC">
<script src="/static/js/app.8c1d.js"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag("config","G-7XK2P9QZ4L");var csrfToken="Tq3kLz9VbN1xM4pW7sR2yF6hJ0dG5aE8";</script>
</head><body><div id="root"></div></body></html>`
	return map[string]string{
		"/":                          page,
		"/static/js/app.8c1d.js":     bundle,
		"/static/js/app.8c1d.js.map": string(m),
	}
}

func TestCleanSite(t *testing.T) {
	t.Parallel()
	srv := newFileServer(cleanFiles())
	// A single-page app: every unknown path, /.git/HEAD included, is the
	// index page with 200.
	srv.fallback = cleanFiles()["/"]
	site := scantest.NewSite(t, "clean.test", allow, nil, srv)
	res := run(t, site, `{}`)
	if len(res.Findings) != 0 {
		t.Errorf("%d findings on a clean site, want none", len(res.Findings))
	}
	for _, o := range []string{"no secrets found", "1 script", "1 source map (1 original source)", "set aside: 0 placeholders, 1 public identifiers or site keys"} {
		if !strings.Contains(res.Outcome, o) {
			t.Errorf("outcome does not contain %q", o)
		}
	}
	if strings.Contains(res.Outcome, ".git") {
		t.Errorf("the single-page app's fallback page was taken for git metadata: %s", res.Outcome)
	}
}

func TestOutOfScopeScriptsNotFetched(t *testing.T) {
	t.Parallel()
	// A second server stands for the hosts outside the scope; the DNS
	// resolves them to it, so a request that leaves the scope lands here.
	var outside atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outside.Add(1)
		fmt.Fprint(w, "var k='"+fakeGitHubPage+"';")
	}))
	t.Cleanup(other.Close)
	port := other.Listener.Addr().(interface{ String() string }).String()
	_, p, _ := strings.Cut(port, ":")
	files := map[string]string{
		"/": `<html><head>
<script src="http://cdn.other.test:` + p + `/lib.js"></script>
<script src="//cdn.other.test:` + p + `/lib2.js"></script>
<script src="http://127.0.0.1:` + p + `/x.js"></script>
<script src="http://scope.test.other.test:` + p + `/y.js"></script>
<script src="/app.js"></script>
</head></html>`,
		"/app.js": "console.log(1);\n//# sourceMappingURL=http://maps.other.test:" + p + "/app.js.map\n",
	}
	site := scantest.NewSite(t, "scope.test", allow, newFileServer(files), nil)
	for _, name := range []string{"cdn.other.test", "maps.other.test", "scope.test.other.test"} {
		site.DNS.Add(t, name+". A 127.0.0.1")
	}
	res := run(t, site, `{}`)
	if n := outside.Load(); n != 0 {
		t.Errorf("%d requests reached hosts outside the scope", n)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings %+v from code that was not to be read", res.Findings)
	}
	want := "outside the scope, not fetched: cdn.other.test (2), 127.0.0.1 (1), scope.test.other.test (1), maps.other.test (1)"
	if !strings.Contains(res.Outcome, want) {
		t.Errorf("outcome does not contain %q", want)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	filler := func(n int) string {
		// Minified-looking code without secrets.
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "function f%d(a,b){return a*%d+b.length};", i, i)
		}
		return b.String()[:n]
	}
	before := "var k={token:\"" + fakeGitHubPage + "\"};"
	after := ";var k2={token:\"" + fakeGitHubGit + "\"};"
	files := map[string]string{
		// A 5 MiB bundle with a token before and after the 1 MiB cut.
		"/big.js": before + filler(maxFileBytes) + after + filler(4<<20),
	}
	page := `<html><head><script src="/big.js"></script>`
	for i := range 5 {
		name := fmt.Sprintf("/chunk%d.js", i)
		files[name] = filler(maxFileBytes - 100)
		page += `<script src="` + name + `"></script>`
	}
	for i := range 20 {
		page += fmt.Sprintf(`<script src="/more%d.js"></script>`, i)
	}
	files["/"] = page + "</head></html>"
	srv := newFileServer(files)
	site := scantest.NewSite(t, "big.test", allow, srv, nil)
	res := run(t, site, `{}`)

	if f, ok := findingTitled(res.Findings, "GitHub personal access token exposed in /big.js"); !ok || strings.Contains(f.Evidence, "also") {
		t.Errorf("want the token before the cut, and only it: %+v", res.Findings)
	}
	m := regexp.MustCompile(`(\d+) KiB scanned`).FindStringSubmatch(res.Outcome)
	if m == nil {
		t.Fatalf("outcome without the bytes read")
	}
	if kib, _ := strconv.Atoi(m[1]); kib > maxTotalBytes>>10 {
		t.Errorf("%d KiB read, more than the %d MiB per call", kib, maxTotalBytes>>20)
	}
	for _, o := range []string{"cut at the size limit", "18 more scripts not read (limit 8)", "not read (limit of 20 files and 4 MiB per call)"} {
		if !strings.Contains(res.Outcome, o) {
			t.Errorf("outcome does not contain %q", o)
		}
	}
	var requested int
	for _, r := range srv.requests("/") {
		_, n, _ := strings.Cut(r, "×")
		c, _ := strconv.Atoi(n)
		requested += c
	}
	if requested > maxFiles {
		t.Errorf("%d requests, more than the %d files per call", requested, maxFiles)
	}
	checkNoSecret(t, res, []string{fakeGitHubPage, fakeGitHubGit})
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "leaky.test", allow, nil, newFileServer(leakyFiles()))
	tests := []struct{ Name, Input string }{
		{"URL out of scope", `{"url": "https://evil.example/"}`},
		{"URL of a look-alike domain", `{"url": "https://leaky.test.evil.example/"}`},
		{"IP address", `{"url": "http://127.0.0.1/"}`},
		{"user info", `{"url": "https://a:b@leaky.test/"}`},
		{"file scheme", `{"url": "file:///etc/passwd"}`},
		{"javascript scheme", `{"url": "javascript:alert(1)"}`},
		{"URL too long", `{"url": "https://leaky.test/` + strings.Repeat("a", 3000) + `"}`},
		{"unknown field", `{"url": "https://leaky.test/", "depth": 3}`},
		{"wrong type", `{"url": 42}`},
		{"not an object", `["https://leaky.test/"]`},
	}
	refusals.Check(t, New(), site, tests)
}

func TestExplicitURLAndUnreachableSite(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/shop/":       `<html><head><script src="app.js"></script></head></html>`,
		"/shop/app.js": "var cfg={githubToken:\"" + fakeGitHubPage + "\"};\n",
	}
	site := scantest.NewSite(t, "shop.test", allow, newFileServer(files), nil, "www.shop.test")
	res := run(t, site, fmt.Sprintf(`{"url": %q}`, site.URL("http", "www.shop.test", "/shop/")))
	if len(res.Findings) != 1 || res.Findings[0].Host != "www.shop.test" || res.Findings[0].Title != "GitHub personal access token exposed in /shop/app.js" {
		t.Errorf("findings %+v, want the token of /shop/app.js on www.shop.test", res.Findings)
	}

	// The URL of a bundle: the bundle itself is read.
	res = run(t, site, fmt.Sprintf(`{"url": %q}`, site.URL("http", "shop.test", "/shop/app.js")))
	if len(res.Findings) != 1 || res.Findings[0].Title != "GitHub personal access token exposed in /shop/app.js" ||
		!strings.Contains(res.Outcome, "0 inline scripts, 1 script") {
		t.Errorf("findings %+v, want the token of the bundle given as the URL", res.Findings)
	}

	// Nothing listens: the tool fails (it examined nothing), quickly.
	down := scantest.NewSite(t, "down.test", allow, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := New().Run(ctx, down.Env, nil); err == nil || tools.IsInputError(err) {
		t.Errorf("Run on a site that is down = %v, want a tool error", err)
	}
}

func TestHangingScriptsAreBounded(t *testing.T) {
	t.Parallel()
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<html><script src="/a.js"></script><script src="/b.js"></script><script>var t={token:"`+fakeGitHubPage+`"};</script></html>`)
			return
		}
		<-r.Context().Done() // never answers
	})
	site := scantest.NewSite(t, "slow.test", allow, hang, nil)
	// The detector is built first: under -race on a busy machine building
	// it can take most of a short deadline, and the home page must still be
	// read before the deadline for the test to mean anything (CI failed
	// once on "context deadline exceeded" with 700 ms counted from here).
	if _, err := sharedDetector(); err != nil {
		t.Fatal(err)
	}
	res := scantest.RunBounded(t, New(), site.Env, nil, 2*time.Second)
	// What was read before the deadline is still reported.
	if len(res.Findings) != 1 || !strings.Contains(res.Outcome, "failed") {
		t.Errorf("outcome %q, %d findings: want the inline token and the failures", res.Outcome, len(res.Findings))
	}
}

func TestToolContract(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(New())
	tool, ok := reg.Get(Name)
	if !ok || tool.Cost() != 10 || tool.Timeout() > 18*time.Second {
		t.Errorf("tool %v: cost %d, timeout %s", ok, tool.Cost(), tool.Timeout())
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema["additionalProperties"] != false {
		t.Errorf("schema: %v %v", schema, err)
	}
	if maxScripts*2+1+gitFiles > maxFiles {
		t.Errorf("the file shares (%d scripts and their maps, the page, %d git files) pass maxFiles", maxScripts, gitFiles)
	}
}

// findingTitled returns the finding of a secret by its title: the finding
// titled so, or the merged finding whose evidence lists it (checks.Merge).
func findingTitled(fs []scans.Finding, title string) (scans.Finding, bool) {
	for _, f := range fs {
		if f.Title == title || strings.HasPrefix(f.Title, title+" (and ") || strings.Contains(f.Evidence, title+": ") {
			return f, true
		}
	}
	return scans.Finding{}, false
}

func checkFinding(t *testing.T, f scans.Finding) {
	t.Helper()
	if f.Check != checks.Secret.Code {
		t.Errorf("%q: check %q, want %s", f.Title, f.Check, checks.Secret.Code)
	}
	if f.Category != scans.CategoryCode || f.Host == "" || f.Port == nil || f.CWE == nil || *f.CWE != "CWE-798" {
		t.Errorf("%q: incomplete finding %+v", f.Title, f)
	}
	if f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("%q: evidence, description, remediation and references are required", f.Title)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("%q: reference %q is not https", f.Title, ref)
		}
	}
}

// checkNoSecret fails when any part of a secret past the shown prefix
// appears anywhere in the result as the agent would record it.
func checkNoSecret(t *testing.T, res tools.Result, secrets []string) {
	t.Helper()
	// The values only: a key such as the surface's "services" is no leak
	// of a Slack webhook's /services/ path.
	raw, err := json.Marshal([]any{res.Outcome, res.Findings, res.Services, res.Surface.Hosts, res.Surface.Services, res.Surface.Web})
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for _, s := range secrets {
		hidden := s[4:]
		for i := 0; i+8 <= len(hidden); i++ {
			if w := hidden[i : i+8]; strings.Contains(text, w) {
				t.Errorf("the result shows %q of a secret", w)
				break
			}
		}
	}
}

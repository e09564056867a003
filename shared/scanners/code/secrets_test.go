package code

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/logging"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
)

func scanText(t *testing.T, doc document) ([]sighting, dropped) {
	t.Helper()
	det, err := sharedDetector()
	if err != nil {
		t.Fatal(err)
	}
	if doc.firstLine == 0 {
		doc.firstLine, doc.firstColumn = 1, 1
	}
	return scanDocument(context.Background(), det, doc)
}

func fakeJWT(claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + "Q2xGm7tYv3Pz9Lk1Wd5Rb8Nc0Hs4Jf6Ae2Ug"
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		text     string
		code     bool
		rule     string
		severity scans.Severity
		note     string
		dropped  dropped
	}{
		{name: "GitHub token", text: `const t = "` + fakeGitHubPage + `";`, code: true, rule: "github-pat", severity: scans.High},
		{name: "AWS key alone", text: `accessKeyId: "` + fakeAWSKeyID + `"`, code: true, rule: ruleAWSKey, severity: scans.High},
		{name: "AWS key pair", text: "AWS_ACCESS_KEY_ID=" + fakeAWSKeyID + "\nAWS_SECRET_ACCESS_KEY=" + fakeAWSSecret + "\n", rule: ruleAWSKey, severity: scans.Critical},
		{name: "AWS documentation key", text: `key: "` + docAWSKeyID + `"`, code: true, rule: ruleAWSKey, severity: scans.High, note: "example key of AWS's documentation"},
		{name: "Google API key is a browser key", text: `firebase.initializeApp({apiKey: "AIza` + `SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"})`, code: true, rule: "gcp-api-key", severity: scans.Low, note: "HTTP referrers"},
		{name: "generic secret in a literal", text: `var cfg={clientSecret:"Zx8Cv6Bn4Mm2Ll0Kk9JjQw3Er5Ty7Ui"};`, code: true, rule: ruleGeneric, severity: scans.Medium, note: "generic rule"},
		{name: "generic match on code is an identifier", text: "ApiGateway.ApiKey = apiKey_1.default;", code: true, dropped: dropped{identifiers: 1}},
		{name: "property name in a string", text: `e.defineProperty(WebSocketApi.prototype,"arnForExecuteApiV2",{get:n});`, code: true, dropped: dropped{identifiers: 1}},
		{name: "mixed-case key is not a name", text: `var s={secret:"Zx8Cv6Bn4Mm2Ll0Kk9JjQw3"};`, code: true, rule: ruleGeneric, severity: scans.Medium},
		{name: "unquoted generic value in a config file", text: "[auth]\n\tsecret = Zx8Cv6Bn4Mm2Ll0Kk9JjQw3Er5Ty7Ui\n", rule: ruleGeneric, severity: scans.Medium},
		{name: "reCAPTCHA site key", text: `grecaptcha.render("c",{sitekey:"6LcR4tYpAAAAAHq9Zx8Vn3Mw7Kp2Lb5Jd4Fs1Gt0"});`, code: true, dropped: dropped{public: 1}},
		{name: "placeholder", text: `var c={authToken:"ghp_` + "DummyToken4Testing9Zq8Xw7Vb6Nm5Lk4Jh3G" + `"};`, code: true, dropped: dropped{placeholders: 1}},
		{name: "Supabase anon key", text: `createClient(url, "` + fakeJWT(`{"iss":"supabase","ref":"abcdefghijklmnopqrst","role":"anon","iat":1700000000}`) + `")`, code: true, rule: ruleJWT, severity: scans.Low, note: `"anon"`},
		{name: "service JWT", text: `headers: {Authorization: "Bearer ` + fakeJWT(`{"iss":"supabase","ref":"abcdefghijklmnopqrst","role":"service_role","iat":1700000000}`) + `"}`, code: true, rule: ruleJWT, severity: scans.High},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			found, skip := scanText(t, document{text: tc.text, code: tc.code, pathHint: "app.js"})
			if skip != tc.dropped {
				t.Errorf("set aside %+v, want %+v", skip, tc.dropped)
			}
			if tc.rule == "" {
				if len(found) != 0 {
					t.Errorf("found %+v, want nothing", found)
				}
				return
			}
			if len(found) != 1 {
				t.Fatalf("found %+v, want one %s", found, tc.rule)
			}
			s := found[0]
			if s.rule != tc.rule || s.severity != tc.severity || !strings.Contains(s.note, tc.note) {
				t.Errorf("got %s %s %q, want %s %s with a note containing %q", s.rule, s.severity, s.note, tc.rule, tc.severity, tc.note)
			}
		})
	}
}

func TestLongMinifiedLine(t *testing.T) {
	t.Parallel()
	// Secrets placed around the cuts of a 100 KiB line are each found
	// once, at their column.
	var b strings.Builder
	var want []int
	for i := 0; b.Len() < 100<<10; i++ {
		if i%250 == 125 {
			b.WriteString(`var t` + fmt.Sprint(i) + `={token:"`)
			want = append(want, b.Len()+1)
			b.WriteString(fakeGitHubPage + `"};`)
			continue
		}
		fmt.Fprintf(&b, "function f%d(a,b){return a*%d+b.length};", i, i)
	}
	found, _ := scanText(t, document{text: b.String(), code: true, pathHint: "main.js"})
	if len(found) != len(want) {
		t.Fatalf("found %d, want %d", len(found), len(want))
	}
	for i, s := range found {
		if s.line != 1 || s.col != want[i] {
			t.Errorf("sighting %d at line %d column %d, want line 1 column %d", i, s.line, s.col, want[i])
		}
	}
}

func TestSegments(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a=1;", 5000) // 20,000 bytes on one line
	texts := []string{
		"",
		"short\nlines\n",
		long,
		"head\n" + long + "\ntail\n",
		"head\n" + long,
		strings.Repeat("x", 3*maxSegmentLine), // no delimiter: hard cuts
	}
	for _, text := range texts {
		segs := segments(text)
		covered := 0 // every byte is in a segment, in order
		for _, s := range segs {
			if gap := text[min(covered, s.start):s.start]; strings.Trim(gap, "\n") != "" {
				t.Errorf("%q left out before offset %d", gap, s.start)
			}
			if text[s.start:s.start+len(s.text)] != s.text {
				t.Errorf("segment at %d is not the text there", s.start)
			}
			if strings.Contains(s.text, "\n") == false && len(s.text) > maxSegmentLine {
				t.Errorf("a %d-byte piece of a long line", len(s.text))
			}
			covered = max(covered, s.start+len(s.text))
		}
		if rest := strings.TrimLeft(text[covered:], "\n"); rest != "" {
			t.Errorf("%d bytes not covered", len(rest))
		}
	}
}

func TestPositions(t *testing.T) {
	t.Parallel()
	page := "<html>\n<head><script>var a=1;\n  var k={token:\"" + fakeGitHubPage + "\"};</script></head>\n<script>var t=\"" + fakeGitHubGit + "\"</script>\n"
	scripts := inlineScripts([]byte(page), 10)
	if len(scripts) != 2 {
		t.Fatalf("inline scripts %+v", scripts)
	}
	if s := scripts[0]; s.line != 2 || s.col != 15 || !strings.HasPrefix(s.text, "var a=1;") {
		t.Errorf("first script at %d:%d %q", s.line, s.col, s.text)
	}
	if s := scripts[1]; s.line != 4 || s.col != 9 {
		t.Errorf("second script at %d:%d", s.line, s.col)
	}
	// The secrets' places are the page's lines and columns.
	var got []string
	for _, s := range scripts {
		found, _ := scanText(t, document{text: s.text, firstLine: s.line, firstColumn: s.col, code: true})
		for _, f := range found {
			got = append(got, fmt.Sprintf("%d:%d", f.line, f.col))
		}
	}
	if strings.Join(got, " ") != "3:17 4:16" {
		t.Errorf("positions %v, want 3:17 4:16", got)
	}
	// Scripts with src, and empty ones, are not inline code.
	if s := inlineScripts([]byte(`<script src="/a.js">var x=1</script><script> </script><SCRIPT type="module">go()</SCRIPT>`), 10); len(s) != 1 || s[0].text != "go()" {
		t.Errorf("inline scripts %+v", s)
	}
}

func TestParseSourceMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		body  string
		ok    bool
		names string
	}{
		{"plain", `{"version":3,"sources":["a.js","b.js"],"sourcesContent":["A",null],"mappings":"AAAA"}`, true, "a.js"},
		{"anti-hijacking prefix", ")]}'\n" + `{"version":3,"sources":["a.js"],"sourcesContent":["A"],"mappings":""}`, true, "a.js"},
		{"index map", `{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["s.ts"],"sourcesContent":["S"],"mappings":"A"}}]}`, true, "s.ts"},
		{"no sourcesContent", `{"version":3,"sources":["a.js"],"mappings":"AAAA"}`, true, ""},
		{"more contents than names", `{"version":3,"sources":[],"sourcesContent":["X"],"mappings":"A"}`, true, ""},
		{"version 2", `{"version":2,"sources":["a.js"],"sourcesContent":["A"],"mappings":"A"}`, false, ""},
		{"HTML fallback", `<!doctype html><html></html>`, false, ""},
		{"other JSON", `{"version":3,"name":"package"}`, false, ""},
	}
	for _, tc := range tests {
		sources, ok := parseSourceMap([]byte(tc.body))
		var names []string
		for _, s := range sources {
			names = append(names, s.name)
		}
		if ok != tc.ok || strings.Join(names, ",") != tc.names {
			t.Errorf("%s: ok %v sources %v, want %v %q", tc.name, ok, names, tc.ok, tc.names)
		}
	}
}

func TestAnnouncedMap(t *testing.T) {
	t.Parallel()
	script, _ := url.Parse("https://site.test/js/app.js?v=3")
	inline := base64.StdEncoding.EncodeToString([]byte(`{"version":3,"sources":["x.js"],"sourcesContent":["X"],"mappings":"A"}`))
	tests := []struct {
		name, body, header, want string
		inline                   bool
	}{
		{name: "comment", body: "f();\n//# sourceMappingURL=app.js.map\n", want: "https://site.test/js/app.js.map"},
		{name: "old comment style, absolute", body: "f();\n//@ sourceMappingURL=/maps/app.map", want: "https://site.test/maps/app.map"},
		{name: "last comment wins", body: "//# sourceMappingURL=a.map\nf();\n//# sourceMappingURL=b.map\n", want: "https://site.test/js/b.map"},
		{name: "header", body: "f();", header: "app.map", want: "https://site.test/js/app.map"},
		{name: "none: beside the script", body: "f();", want: "https://site.test/js/app.js.map"},
		{name: "data URL", body: "f();\n//# sourceMappingURL=data:application/json;charset=utf-8;base64," + inline, inline: true},
	}
	for _, tc := range tests {
		resp := &httpprobe.Response{URL: script, Header: http.Header{}, Body: []byte(tc.body)}
		if tc.header != "" {
			resp.Header.Set("SourceMap", tc.header)
		}
		ref, body := announcedMap(resp)
		switch {
		case tc.inline:
			if sources, ok := parseSourceMap(body); !ok || len(sources) != 1 || ref != nil {
				t.Errorf("%s: inline map %q, ref %v", tc.name, body, ref)
			}
		case ref == nil || ref.String() != tc.want:
			t.Errorf("%s: map %v, want %s", tc.name, ref, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	scantest.CheckMapping(t, "redact", redact, map[string]string{
		fakeAWSKeyID:  "AKIA… (20 chars)",
		fakeSlackHook: "http… (82 chars)",
		"abcdef":      "ab… (6 chars)",
		"ab":          "… (2 chars)",
	})
}

func TestRuleNames(t *testing.T) {
	t.Parallel()
	scantest.CheckMapping(t, "ruleName", ruleName, map[string]string{
		"slack-webhook-url":     "Slack webhook URL",
		"digitalocean-pat":      "Digitalocean personal access token",
		"gitlab-cicd-job-token": "Gitlab CI/CD job token",
		"aws-access-token":      "AWS access key",
	})
}

func TestDetectorIsQuiet(t *testing.T) {
	t.Parallel()
	if _, err := sharedDetector(); err != nil {
		t.Fatal(err)
	}
	// gitleaks logs rejected candidates with their value at trace level.
	if lvl := logging.Logger.GetLevel(); lvl != zerolog.Disabled {
		t.Errorf("gitleaks logs at level %s", lvl)
	}
	// The rule change that keeps AWS's documentation keys applies.
	if found, _ := scanText(t, document{text: `k="` + docAWSKeyID + `"`}); len(found) != 1 {
		t.Errorf("the documentation key is not reported: %+v", found)
	}
}

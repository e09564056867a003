package dashboard

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func testConfig() Config {
	return Config{AuthorizeURL: "https://auth.example.com/oauth2/authorize", TokenURL: "https://auth.example.com/oauth2/token",
		LogoutURL: "https://auth.example.com/logout", ClientID: "client-1"}
}

func get(t *testing.T, h http.Handler, path string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The page is never cached and names its assets by content hash; the assets
// are cached for a year, gzipped when accepted; everything carries the CSP.
func TestPageAndAssets(t *testing.T) {
	t.Parallel()
	d, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	h := d.Handler()
	page := get(t, h, "/", nil)
	if page.Code != 200 || page.Header().Get("Cache-Control") != "no-cache" || page.Header().Get("Content-Security-Policy") != d.CSP() {
		t.Fatalf("page: %d %v", page.Code, page.Header())
	}
	body := page.Body.String()
	if !strings.Contains(body, `content="{&#34;authorize&#34;:&#34;https://auth.example.com/oauth2/authorize&#34;`) {
		t.Errorf("the page does not carry the identity provider's endpoints: %s", body)
	}
	assets := regexp.MustCompile(`/assets/([a-z]+\.[0-9a-f]{12}\.(?:js|css))`).FindAllStringSubmatch(body, -1)
	if len(assets) != len(scripts)+1 {
		t.Fatalf("the page names %d hashed assets, want the style sheet and %d scripts: %s", len(assets), len(scripts), body)
	}
	for _, a := range assets {
		plain := get(t, h, a[0], nil)
		if plain.Code != 200 || plain.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || plain.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: %d %v", a[0], plain.Code, plain.Header())
		}
		zipped := get(t, h, a[0], http.Header{"Accept-Encoding": {"br, gzip"}})
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatalf("%s gzip: %v", a[0], err)
		}
		unzipped, _ := io.ReadAll(zr)
		if zipped.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(unzipped, plain.Body.Bytes()) {
			t.Errorf("%s: gzip body differs", a[0])
		}
		if get(t, h, a[0], http.Header{"Accept-Encoding": {"gzip;q=0"}}).Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: gzip sent although refused", a[0])
		}
	}
	for _, path := range []string{"/assets/app.js", "/assets/app.000000000000.js", "/api/targets", "/index.html"} {
		if rec := get(t, h, path, nil); rec.Code != 404 {
			t.Errorf("%s: %d, want 404", path, rec.Code)
		}
	}
	// The first load: the page, its script and its stylesheet, gzipped
	// (the favicon and icons are inline, there are no fonts or images).
	index := get(t, h, "/", nil).Body.Bytes()
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(index)
	_ = zw.Close()
	first := d.GzipSize() + zipped.Len()
	t.Logf("first load: %d bytes gzipped (%d of JS and CSS, %d of HTML)", first, d.GzipSize(), zipped.Len())
	if first > 60<<10 {
		t.Errorf("first load %d bytes gzipped, the budget is 60 KB (issue 24)", first)
	}
}

// The policy admits no inline code, no third party but the token endpoint,
// and no framing.
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	d, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://auth.example.com; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	if d.CSP() != want {
		t.Errorf("CSP\n%s\nwant\n%s", d.CSP(), want)
	}
}

// The files never load anything from elsewhere, never build HTML from
// strings, and have no inline script or style.
func TestFilesAreSelfContained(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(files, "web", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		raw, _ := files.ReadFile(path)
		src := string(raw)
		// localStorage holds only the "signed in" hint, never a token.
		hint := strings.Count(src, "localStorage.getItem(SIGNED_IN)") + strings.Count(src, "localStorage.setItem(SIGNED_IN, '1')") +
			strings.Count(src, "localStorage.removeItem(SIGNED_IN)")
		if n := strings.Count(src, "localStorage"); n != hint {
			t.Errorf("%s uses localStorage %d times, %d of them for the signed-in hint: nothing else may be kept there", path, n, hint)
		}
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "<style", "style=", "onclick=", "@import", "url(http", "//fonts.", "//cdn"} {
			if strings.Contains(src, bad) {
				t.Errorf("%s contains %q", path, bad)
			}
		}
		if strings.HasSuffix(path, ".html") && strings.Count(src, "<script") != 1 {
			t.Errorf("%s: want exactly one <script src>, no inline script", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The local development provider lives on the page's origin: paths, and no
// other origin in the policy.
func TestSameOriginProvider(t *testing.T) {
	t.Parallel()
	d, err := New(Config{AuthorizeURL: "/dev/authorize", TokenURL: "/dev/token", LogoutURL: "/dev/logout", ClientID: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.CSP(), "connect-src 'self';") {
		t.Errorf("CSP %s", d.CSP())
	}
}

func TestConfigIsChecked(t *testing.T) {
	t.Parallel()
	for name, mutate := range map[string]func(*Config){
		"relative authorize": func(c *Config) { c.AuthorizeURL = "oauth2/authorize" },
		"other origin":       func(c *Config) { c.TokenURL = "//evil.example/token" },
		"no token endpoint":  func(c *Config) { c.TokenURL = "" },
		"javascript logout":  func(c *Config) { c.LogoutURL = "javascript:alert(1)" },
		"no client":          func(c *Config) { c.ClientID = "" },
	} {
		c := testConfig()
		mutate(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	env := map[string]string{"OIDC_AUTHORIZE_URL": " https://a.test/authorize ", "OIDC_CLIENT_ID": "x"}
	c := ConfigFromEnv(func(k string) string { return env[k] })
	if c.AuthorizeURL != "https://a.test/authorize" || c.ClientID != "x" || c.LogoutURL != "" {
		t.Errorf("ConfigFromEnv: %+v", c)
	}
}

// The page loads its scripts deferred, in order: app.js first (it holds the
// helpers and the router), then the pages that register with it.
func TestScriptsInOrder(t *testing.T) {
	t.Parallel()
	d, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, d.Handler(), "/", nil).Body.String()
	got := regexp.MustCompile(`<script src="/assets/([a-z]+)\.[0-9a-f]{12}\.js" defer></script>`).FindAllStringSubmatch(body, -1)
	var order []string
	for _, m := range got {
		order = append(order, m[1]+".js")
	}
	if strings.Join(order, " ") != strings.Join(scripts, " ") || order[0] != "app.js" {
		t.Errorf("the page runs %v, want %v, app.js first", order, scripts)
	}
}

// The page has a favicon, inline as a data: URL, which the CSP's img-src
// admits: no /favicon.ico request that would 404.
func TestFavicon(t *testing.T) {
	t.Parallel()
	raw, err := files.ReadFile("web/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,`) {
		t.Error("index.html has no inline SVG favicon")
	}
	d, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.CSP(), "img-src 'self' data:") {
		t.Errorf("the CSP does not admit the data: favicon: %s", d.CSP())
	}
}

// The gzipped copies are made at build time (gzip.go): each must hold its
// file as it is now, so an edit without `go generate` cannot ship stale code.
func TestGzippedAssetsAreCurrent(t *testing.T) {
	t.Parallel()
	names := append([]string{"app.css"}, scripts...)
	for _, name := range names {
		body, err := files.ReadFile("web/" + name)
		if err != nil {
			t.Fatal(err)
		}
		gz, err := files.ReadFile("web/gz/" + name + ".gz")
		if err != nil {
			t.Fatalf("%s: %v (run go generate ./shared/dashboard)", name, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("%s.gz: %v", name, err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, body) {
			t.Errorf("web/gz/%s.gz is not web/%s as it is now: run go generate ./shared/dashboard", name, name)
		}
	}
}

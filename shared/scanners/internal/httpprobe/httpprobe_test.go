package httpprobe

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/tools"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	env := tools.Env{Domain: "example.test"}
	tests := []struct {
		raw string
		ok  bool
	}{
		{"https://example.test/", true},
		{"http://www.example.test:8080/a?b=c", true},
		{"https://EXAMPLE.test./", true},
		{"https://example.test:0/", false},
		{"https://badexample.test/", false},
		{"https://example.test.evil.example/", false},
		{"https://127.0.0.1/", false},
		{"https://[::1]/", false},
		{"ftp://example.test/", false},
		{"//example.test/", false},
		{"/relative", false},
		{"https://user@example.test/", false},
		{"https://example.test@evil.example/", false},
		{"mailto:a@example.test", false},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.raw)
		if err != nil {
			if tc.ok {
				t.Errorf("url.Parse(%q): %v", tc.raw, err)
			}
			continue
		}
		if err := CheckURL(env, u); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", tc.raw, err, tc.ok)
		}
	}
	if _, err := ParseTarget(env, "https://evil.example/"); !tools.IsInputError(err) {
		t.Errorf("ParseTarget of an out-of-scope URL = %v, want an input error", err)
	}
	if u, err := ParseTarget(env, " https://example.test#frag "); err != nil || u.String() != "https://example.test/" {
		t.Errorf("ParseTarget = %v, %v; want https://example.test/", u, err)
	}
}

func TestFollowStaysInScopeAndBounded(t *testing.T) {
	t.Parallel()
	var outOfScopeHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) // endless in-scope redirects
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.example/steal", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/sub", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusFound)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Host, "site.test") {
			outOfScopeHits.Add(1)
		}
		w.Write([]byte(strings.Repeat("a", 100)))
	})
	site := scantest.NewSite(t, "site.test", netguard.Policy{AllowPrivate: true}, mux, nil)
	c, err := NewClient(site.Env, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	base, _ := url.Parse(site.URL("http", "site.test", "/"))

	chain, err := c.Follow(ctx, base.JoinPath("loop/"), 0)
	if err != nil || len(chain) != MaxRedirects+1 || !chain[len(chain)-1].IsRedirect() {
		t.Errorf("endless redirects: %d hops, %v; want %d hops ending on a redirect", len(chain), err, MaxRedirects+1)
	}
	chain, err = c.Follow(ctx, base.JoinPath("away"), 0)
	if err != nil || len(chain) != 1 || chain[0].Location.Host != "evil.example" {
		t.Errorf("out-of-scope redirect: %d hops, %v; want it returned, not followed", len(chain), err)
	}
	chain, err = c.Follow(ctx, base.JoinPath("sub"), 10)
	if err != nil || len(chain) != 2 || chain[1].Status != 200 || len(chain[1].Body) != 10 || !chain[1].Truncated {
		t.Errorf("in-scope redirect with a body limit: %+v, %v", chain, err)
	}
	if outOfScopeHits.Load() != 0 {
		t.Error("a request left the scope")
	}
	// A URL out of scope is refused by Do itself.
	if _, err := c.Do(ctx, Request{URL: &url.URL{Scheme: "https", Host: "evil.example", Path: "/"}}); err == nil || !strings.Contains(Describe(err), "outside") {
		t.Errorf("Do out of scope = %v", err)
	}
}

func TestDoBoundsTime(t *testing.T) {
	t.Parallel()
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	site := scantest.NewSite(t, "slow.test", netguard.Policy{AllowPrivate: true}, hang, nil)
	c, _ := NewClient(site.Env, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	u, _ := url.Parse(site.URL("http", "slow.test", "/"))
	start := time.Now()
	_, err := c.Do(ctx, Request{URL: u})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("Do on a hanging server = %v after %s", err, time.Since(start))
	}
	if got := Describe(err); got != "timed out" {
		t.Errorf("Describe = %q", got)
	}
}

func TestScriptSources(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("https://example.test/shop/index.html")
	body := []byte(`<html><head>
<script src="/js/a.js"></script>
<script src="b.js?v=1#x"></script>
<script src="//cdn.example.net/c.js"></script>
<script src="javascript:alert(1)"></script>
<script>inline()</script>
<script src="/js/a.js"></script>
<base href="https://static.example.test/assets/">
<script src="d.js"></script>`)
	got := ScriptSources(body, page, 10)
	want := []string{
		"https://example.test/js/a.js",
		"https://example.test/shop/b.js?v=1",
		"https://cdn.example.net/c.js",
		"https://static.example.test/assets/d.js",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("script %d = %s, want %s", i, got[i], want[i])
		}
	}
	if n := len(ScriptSources(body, page, 2)); n != 2 {
		t.Errorf("limit 2 returned %d", n)
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"a\r\nb\x00c\u202e", 100, "a bc"}, // controls and bidi dropped (safetext.Line)
		{"  lots   of  space ", 100, "lots of space"},
		{strings.Repeat("x", 10), 5, "xxxx…"}, // at most max runes, the ellipsis included
		{"\xff\xfeok", 100, "ok"},
	}
	for _, tc := range tests {
		if got := Clean(tc.in, tc.max); got != tc.want {
			t.Errorf("Clean(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

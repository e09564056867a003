package crawl

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"secscan/shared/scanners/internal/httpprobe"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/refusals"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

var allow = netguard.Policy{AllowPrivate: true}

// hits counts the requests a test server receives, per path.
type hits struct {
	mu sync.Mutex
	n  map[string]int
	// inflight and peak count concurrent requests (tree sites only).
	inflight, peak atomic.Int32
}

func newHits() *hits { return &hits{n: map[string]int{}} }

func (h *hits) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.n[r.Host+" "+r.Method+" "+r.URL.RequestURI()]++
		h.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// count returns the requests whose "host method uri" contains substr.
func (h *hits) count(substr string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	for k, n := range h.n {
		if strings.Contains(k, substr) {
			total += n
		}
	}
	return total
}

// uri counts the requests for exactly this path (any query string).
func (h *hits) uri(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	for k, n := range h.n {
		if strings.HasSuffix(k, " "+path) || strings.Contains(k, " "+path+"?") {
			total += n
		}
	}
	return total
}

// pages counts the page requests (everything but robots.txt).
func (h *hits) pages() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	for k, n := range h.n {
		if !strings.Contains(k, "/robots.txt") {
			total += n
		}
	}
	return total
}

// outOfScope is a server the crawl must never reach: the weak site links
// to it by name and by IP address.
func outOfScope(t *testing.T) (*httptest.Server, *hits) {
	h := newHits()
	srv := httptest.NewServer(h.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><a href=\"/more\">more</a></html>")
	})))
	t.Cleanup(srv.Close)
	return srv, h
}

// weakSite plants every weakness the crawl looks for, one page each,
// all one link away from the home page.
func weakSite(t *testing.T, other *httptest.Server) (*scantest.Site, *hits) {
	h := newHits()
	// The handler reads the site's ports; the pointer is published after
	// the servers start, before any request.
	var sitePtr atomic.Pointer[scantest.Site]
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "weak.test") {
			w.Header().Set("Server", "Apache/2.4.49 (Unix)")
		}
		if strings.HasPrefix(r.Host, "sub.weak.test") {
			html(w, 200, `<html><head><meta name="generator" content="WordPress 5.2.3"></head><body>blog</body></html>`)
			return
		}
		site := sitePtr.Load()
		otherPort := strings.TrimPrefix(other.URL, "http://127.0.0.1:")
		switch r.URL.Path {
		case "/":
			html(w, 200, fmt.Sprintf(`<html><head><script src="/static/app.js"></script></head><body>
<a href="%s">login</a> <a href="/signup">signup</a> <a href="/gallery">gallery</a>
<a href="/files/">files</a> <a href="/crash">crash</a> <a href="/missing-page">old</a> <a href="/away">away</a>
<a href="%s">blog</a>
<a href="/private/secret">secret</a> <a href="/logout">logout</a> <a href="/img/logo.png">logo</a>
<a href="http://other.test:%s/">partner</a> <a href="http://127.0.0.1:%s/steal">ip</a>
<a href="https://user:pw@weak.test:%d/account">userinfo</a> <a href="mailto:a@weak.test">mail</a> <a href="javascript:alert(1)">js</a>
</body></html>`, site.URL("http", "weak.test", "/login"), site.URL("https", "sub.weak.test", "/"),
				otherPort, otherPort, site.Env.Ports.HTTPSPort()))
		case "/login":
			html(w, 200, `<form method="post" action="/session"><input name="user"><input type="password" name="password"></form>`)
		case "/signup":
			html(w, 200, fmt.Sprintf(`<form method="post" action="%s"><input name="email"></form>
<form method="post" action="%s"><input name="user"><input type="password" name="pw"></form>`,
				site.URL("http", "weak.test", "/subscribe"), site.URL("http", "weak.test", "/register")))
		case "/gallery":
			html(w, 200, fmt.Sprintf(`<script src="http://cdn.example.net/lib.js"></script><img src="%s">`, site.URL("http", "weak.test", "/a.png")))
		case "/files/":
			html(w, 200, `<html><head><title>Index of /files</title></head><body><h1>Index of /files</h1><a href="report.pdf">report.pdf</a></body></html>`)
		case "/away":
			http.Redirect(w, r, "http://other.test:"+otherPort+"/landing", http.StatusFound)
		case "/crash":
			html(w, 500, "<pre>java.lang.IllegalStateException: cart is empty\n\tat com.example.shop.CartController.checkout(CartController.java:88)\n\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:883)\n</pre>")
		default:
			html(w, 404, "<html><body><h1>Not Found</h1><hr><address>Apache/2.4.49 (Unix) Server at weak.test Port 443</address></body></html>")
		}
	})
	handler := h.wrap(mux)
	site := scantest.NewSite(t, "weak.test", allow, handler, handler, "sub.weak.test", "other.test")
	sitePtr.Store(site)
	return site, h
}

// hardenedSite is well configured: the crawl must find nothing.
func hardenedSite(t *testing.T) (*scantest.Site, *hits) {
	h := newHits()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "nginx")
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", "default-src 'self'; upgrade-insecure-requests")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
	})
	mux.HandleFunc("/{$}", page(`<html><head><meta name="generator" content="Hugo"><link rel="stylesheet" href="/main.css"><script src="/app.js"></script></head>
<body><img src="/logo.png"><a href="/about">about</a> <a href="/login">login</a> <a href="/contact">contact</a>
<a href="https://partner.example.net/">partner</a><a href="/docs/">docs</a></body></html>`))
	mux.HandleFunc("/about", page(`<p>We explain errors such as Traceback (most recent call last): in our blog.</p><a href="/">home</a>`))
	mux.HandleFunc("/login", page(`<form method="post" action="/session"><input name="user"><input type="password" name="pw"></form>`))
	mux.HandleFunc("/contact", page(`<form method="post" action="https://hardened.test/send"><input name="email"></form>`))
	mux.HandleFunc("/docs/", page(`<title>Documentation index</title><a href="/docs/install">install</a>`))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nginx")
		http.Error(w, "not found", http.StatusNotFound)
	})
	site := scantest.NewSite(t, "hardened.test", allow, nil, h.wrap(mux))
	return site, h
}

type wantFinding struct {
	title    string
	host     string
	scheme   string // which server's port
	severity scans.Severity
}

func TestWebCrawl(t *testing.T) {
	t.Parallel()
	other, otherHits := outOfScope(t)
	weak, weakHits := weakSite(t, other)
	hardened, hardenedHits := hardenedSite(t)

	tests := []struct {
		name         string
		site         *scantest.Site
		input        string
		want         []wantFinding
		wantOutcome  []string
		wantNotFetch []string // request substrings the site must never see
	}{
		{
			name: "weak site", site: weak, input: `{}`,
			want: []wantFinding{
				{"Password field on a page served over HTTP", "weak.test", "http", scans.High},
				{"Form with a password field submits over plain HTTP", "weak.test", "https", scans.High},
				{"Form submits over plain HTTP", "weak.test", "https", scans.Medium},
				{"Mixed content: scripts, styles or frames loaded over HTTP", "weak.test", "https", scans.Medium},
				{"Mixed content: images or media loaded over HTTP", "weak.test", "https", scans.Low},
				{"Directory listing enabled", "weak.test", "https", scans.Medium},
				{"Error page reveals stack trace or debug information", "weak.test", "https", scans.Medium},
				{"Software version disclosed in page content", "weak.test", "https", scans.Low},
				{"Software version disclosed in page content", "sub.weak.test", "https", scans.Low},
				{"Server version disclosed in HTTP headers", "weak.test", "https", scans.Low},
				{"Server version disclosed in HTTP headers", "weak.test", "http", scans.Low},
			},
			wantOutcome: []string{
				"crawled 9 pages", "1 disallowed by robots.txt", "4 out of scope", "2 static files", "1 action-like links",
				"/session [password] on http://weak.test:", "/subscribe on /signup", "1 same-host script: https://weak.test:",
			},
			wantNotFetch: []string{"/private/secret", "/logout", "/img/logo.png", "/static/app.js", "POST", "/session", "/subscribe"},
		},
		{
			name: "hardened site", site: hardened, input: `{"max_depth": 3}`,
			want:        nil,
			wantOutcome: []string{"crawled 6 pages", "no findings", "1 out of scope", "forms: POST /session [password] on /login"},
		},
		{
			name: "start page only", site: weak, input: fmt.Sprintf(`{"url": %q, "max_depth": 0}`, weak.URL("https", "weak.test", "/gallery")),
			want: []wantFinding{
				{"Mixed content: scripts, styles or frames loaded over HTTP", "weak.test", "https", scans.Medium},
				{"Mixed content: images or media loaded over HTTP", "weak.test", "https", scans.Low},
				{"Server version disclosed in HTTP headers", "weak.test", "https", scans.Low},
			},
			wantOutcome: []string{"crawled 1 page (1 HTML)", "depth ≤ 0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := New(httpprobe.WithRootCAs(tc.site.Roots)).Run(context.Background(), tc.site.Env, json.RawMessage(tc.input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			scantest.CheckFindings(t, New(), res.Findings)
			t.Logf("outcome: %s", res.Outcome)
			got := map[string]scans.Finding{}
			for _, f := range res.Findings {
				k := fmt.Sprintf("%s|%s|%d", f.Title, f.Host, *f.Port)
				if _, dup := got[k]; dup {
					t.Errorf("%s reported twice", k)
				}
				got[k] = f
				checkFinding(t, f)
			}
			want := map[string]scans.Severity{}
			for _, w := range tc.want {
				port := tc.site.Env.Ports.HTTPSPort()
				if w.scheme == "http" {
					port = tc.site.Env.Ports.HTTPPort()
				}
				want[fmt.Sprintf("%s|%s|%d", w.title, w.host, port)] = w.severity
			}
			scantest.WantFindings(t, got, want)
			for _, s := range tc.wantOutcome {
				if !strings.Contains(res.Outcome, s) {
					t.Errorf("outcome does not contain %q", s)
				}
			}
			for _, s := range tc.wantNotFetch {
				if n := weakHits.count(s); n > 0 {
					t.Errorf("%d requests for %q, which the crawl must not fetch", n, s)
				}
			}
			if len(res.Services) == 0 {
				t.Error("no web service recorded")
			}
		})
	}
	if n := otherHits.pages(); n != 0 {
		t.Errorf("the out-of-scope server saw %d requests", n)
	}
	// robots.txt is read once per origin.
	if n := weakHits.count("/robots.txt"); n > 3*2 {
		t.Errorf("robots.txt fetched %d times", n)
	}
	if n := hardenedHits.count("GET /robots.txt"); n != 1 {
		t.Errorf("hardened robots.txt fetched %d times, want 1", n)
	}
}

// checkFinding checks the contract's finding shape.
func checkFinding(t *testing.T, f scans.Finding) {
	t.Helper()
	if f.Category != scans.CategoryWeb || f.Port == nil || f.Host == "" || f.CWE == nil {
		t.Errorf("%q: incomplete finding %+v", f.Title, f)
	}
	if f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("%q: evidence, description, remediation and references are required", f.Title)
	}
	if strings.Contains(f.Evidence, "pw@") || strings.Contains(f.Evidence, "user:pw") {
		t.Errorf("%q: evidence carries credentials: %s", f.Title, f.Evidence)
	}
}

// treeSite serves /p/N pages, each linking to `fanout` children, each of
// size bytes (links first, padding after).
func treeSite(t *testing.T, domain string, fanout, size int, extra func(n int) string) (*scantest.Site, *hits) {
	h := newHits()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := h.inflight.Add(1)
		defer h.inflight.Add(-1)
		for {
			peak := h.peak.Load()
			if now <= peak || h.peak.CompareAndSwap(peak, now) {
				break
			}
		}
		if r.URL.Path == "/hang" {
			<-r.Context().Done()
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil {
			http.Redirect(w, r, "/p/0", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString("<html><body>")
		for i := 1; i <= fanout; i++ {
			fmt.Fprintf(&b, `<a href="/p/%d">child</a>`, n*fanout+i)
		}
		if extra != nil {
			b.WriteString(extra(n))
		}
		b.WriteString("<p>")
		for b.Len() < size {
			b.WriteString("padding padding padding padding ")
		}
		b.WriteString("</p></body></html>")
		fmt.Fprint(w, b.String())
	})
	site := scantest.NewSite(t, domain, allow, nil, h.wrap(handler))
	return site, h
}

func TestCrawlLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		fanout      int
		size        int
		extra       func(n int) string
		start       string // default /p/0
		input       string
		wantPages   int
		wantNever   []string
		wantOutcome string
	}{
		{name: "redirects keep their depth", fanout: 2, size: 100, start: "/start", input: `{"max_depth": 0}`, wantPages: 2,
			wantNever: []string{"/p/1"}, wantOutcome: "pages: /start (302), /p/0"},
		{name: "max_pages", fanout: 2, size: 1000, input: `{"max_pages": 5, "max_depth": 3}`, wantPages: 5,
			wantNever: []string{"/p/7", "/p/8"}, wantOutcome: "stopped: reached max_pages (5)"},
		{name: "max_depth", fanout: 2, size: 1000, input: `{"max_pages": 50, "max_depth": 1}`, wantPages: 3,
			wantNever: []string{"/p/3", "/p/4", "/p/5", "/p/6"}, wantOutcome: "4 past max_depth"},
		{name: "depth 3 default pages", fanout: 2, size: 1000, input: `{"max_depth": 3}`, wantPages: 15,
			wantNever: []string{"/p/15"}},
		{name: "byte budget", fanout: 6, size: 300 << 10, input: `{"max_pages": 50, "max_depth": 2}`, wantPages: totalBytes / pageBytes,
			wantOutcome: "stopped: spent the byte budget (4 MiB)"},
		{name: "query variants", fanout: 0, size: 100, input: `{"max_depth": 1}`, wantPages: 1 + maxQueryVariants,
			extra: func(n int) string {
				var b strings.Builder
				for i := range 10 {
					fmt.Fprintf(&b, `<a href="/p/%d?sort=%d">sorted</a>`, n, i)
				}
				return b.String()
			},
			wantOutcome: "7 extra query variants"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site, h := treeSite(t, fmt.Sprintf("tree%d.test", i), tc.fanout, tc.size, tc.extra)
			start := cmp.Or(tc.start, "/p/0")
			input := strings.Replace(tc.input, "{", fmt.Sprintf(`{"url": %q, `, site.URL("https", fmt.Sprintf("tree%d.test", i), start)), 1)
			res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("outcome: %s", res.Outcome)
			if got := h.pages(); got != tc.wantPages {
				t.Errorf("the site saw %d page requests, want %d", got, tc.wantPages)
			}
			for _, p := range tc.wantNever {
				if n := h.uri(p); n > 0 {
					t.Errorf("%s was fetched %d times", p, n)
				}
			}
			if !strings.Contains(res.Outcome, tc.wantOutcome) {
				t.Errorf("outcome does not contain %q", tc.wantOutcome)
			}
			if len(res.Findings) != 0 {
				t.Errorf("findings on a plain site: %+v", res.Findings)
			}
			if peak := h.peak.Load(); peak > workers {
				t.Errorf("%d requests in flight at once, the limit is %d", peak, workers)
			}
		})
	}
}

// TestCrawlTimeBudget: a page that never answers costs the call its
// remaining time, not more; what was crawled is still reported. The
// budget leaves the start page and robots.txt time to be read on a busy
// machine under -race (with 500 ms, the hanging page was sometimes never
// requested).
func TestCrawlTimeBudget(t *testing.T) {
	t.Parallel()
	const budget = 1500 * time.Millisecond
	site, h := treeSite(t, "slow.test", 0, 100, func(int) string { return `<a href="/hang">slow</a>` })
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(ctx, site.Env, json.RawMessage(fmt.Sprintf(`{"url": %q}`, site.URL("https", "slow.test", "/p/0"))))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("outcome: %s", res.Outcome)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %s with a %s budget", elapsed, budget)
	}
	if !strings.Contains(res.Outcome, "time budget") || !strings.Contains(res.Outcome, "timed out") || h.uri("/hang") != 1 {
		t.Errorf("outcome %q: want the time budget and the timed-out request named", res.Outcome)
	}
}

func TestCrawlRefusals(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", allow, nil, http.NotFoundHandler())
	tests := []struct{ Name, Input string }{
		{"out of scope", `{"url": "https://evil.example/"}`},
		{"IP address", `{"url": "https://127.0.0.1/"}`},
		{"bad scheme", `{"url": "ftp://weak.test/"}`},
		{"user info", `{"url": "https://u:p@weak.test/"}`},
		{"too many pages", `{"max_pages": 51}`},
		{"no pages", `{"max_pages": 0}`},
		{"too deep", `{"max_depth": 4}`},
		{"negative depth", `{"max_depth": -1}`},
		{"fractional pages", `{"max_pages": 2.5}`},
		{"string depth", `{"max_depth": "2"}`},
		{"unknown field", `{"follow_external": true}`},
	}
	refusals.Check(t, New(), site, tests)
}

func TestCrawlUnreachable(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "down.test", allow, nil, nil)
	_, err := New().Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err == nil || tools.IsInputError(err) {
		t.Fatalf("Run = %v, want an error naming both attempts", err)
	}
	if !strings.Contains(err.Error(), "https://down.test") || !strings.Contains(err.Error(), "http://down.test") {
		t.Errorf("error %q does not name both attempts", err)
	}
}

func TestToolDefinition(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(New())
	tool, ok := reg.Get(Name)
	if !ok || tool.Cost() != 15 || tool.Timeout() > 18e9 {
		t.Fatalf("web_crawl not registered with cost 15 and a bound of at most 18 s")
	}
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Additional bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema.Type != "object" || schema.Additional {
		t.Fatalf("schema: %v %+v", err, schema)
	}
	if schema.Properties["max_pages"]["maximum"] != float64(MaxPages) || schema.Properties["max_depth"]["maximum"] != float64(MaxDepth) {
		t.Errorf("schema bounds: %+v", schema.Properties)
	}
}

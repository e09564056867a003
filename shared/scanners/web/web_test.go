package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/expect"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/refusals"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const cookieSecret = "s3cr3t-session-value"

// weakHandler plants every weakness http_check looks for.
func weakHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("url"), http.StatusFound)
	})
	mux.HandleFunc("/.well-known/security.txt", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "Apache/2.4.49 (Unix)")
		w.Header().Set("X-Powered-By", "PHP/5.6.40")
		if origin := r.Header.Get("Origin"); origin != "" {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
		}
		if r.Method == http.MethodTrace {
			w.Header().Set("Content-Type", "message/http")
			fmt.Fprintf(w, "TRACE %s HTTP/1.1\r\n", r.URL.RequestURI())
			_ = r.Header.Write(w)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: cookieSecret, Path: "/"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>weak</body></html>")
	})
	return mux
}

// hardenedHandler is a well-configured site: it must yield no finding.
func hardenedHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/security.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Contact: mailto:security@hardened.test\nExpires: 2999-01-01T00:00:00Z\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Server", "nginx")
		h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload")
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; object-src 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Query().Has("url") || r.URL.Query().Has("next") {
			http.Error(w, "bad redirect", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "__Host-session", Value: cookieSecret, Path: "/",
			Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
		h.Set("Content-Type", "text/html; charset=utf-8")
		// A catch-all: every path answers 200 with the same page.
		fmt.Fprint(w, "<html><body>hardened</body></html>")
	})
	return mux
}

// redirectToHTTPS answers plain HTTP with a 308 to the https port.
func redirectToHTTPS(httpsPort *int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		target := "https://" + net.JoinHostPort(host, strconv.Itoa(*httpsPort)) + r.URL.RequestURI()
		http.Redirect(w, r, target, http.StatusPermanentRedirect)
	})
}

var weakTitles = map[string]scans.Severity{
	"Missing Content-Security-Policy header":           scans.Low,
	"Missing Strict-Transport-Security header":         scans.Low,
	"Missing X-Frame-Options header":                   scans.Low,
	"Missing X-Content-Type-Options header":            scans.Low,
	"Missing Referrer-Policy header":                   scans.Info,
	"Missing Permissions-Policy header":                scans.Info,
	"Cookie without Secure flag":                       scans.Medium,
	"Cookie without HttpOnly flag":                     scans.Low,
	"Cookie without SameSite attribute":                scans.Low,
	"CORS reflects arbitrary origins with credentials": scans.High,
	"HTTP TRACE method enabled":                        scans.Low,
	"HTTP does not redirect to HTTPS":                  scans.Medium,
	"Server version disclosed in HTTP headers":         scans.Low,
	"Missing security.txt":                             scans.Info,
	"Open redirect":                                    scans.Medium,
}

func without(m map[string]scans.Severity, titles ...string) map[string]scans.Severity {
	out := map[string]scans.Severity{}
	for k, v := range m {
		if !slices.Contains(titles, k) {
			out[k] = v
		}
	}
	return out
}

func TestHTTPCheck(t *testing.T) {
	t.Parallel()
	allow := netguard.Policy{AllowPrivate: true}

	weak := scantest.NewSite(t, "weak.test", allow, weakHandler(), weakHandler())
	var hardenedHTTPS int
	hardened := scantest.NewSite(t, "hardened.test", allow, redirectToHTTPS(&hardenedHTTPS), hardenedHandler())
	hardenedHTTPS = hardened.Env.Ports.HTTPS
	httpOnly := scantest.NewSite(t, "plain.test", allow, weakHandler(), nil)

	tests := []struct {
		name        string
		site        *scantest.Site
		trustCA     bool
		input       string
		want        map[string]scans.Severity
		wantHost    string
		wantOutcome string
		wantService string
	}{
		{
			name: "weak site, default https URL", site: weak, trustCA: true, input: `{}`,
			want: weakTitles, wantHost: "weak.test", wantService: "https",
		},
		{
			name: "weak site, explicit plain http URL", site: weak, trustCA: true,
			input: fmt.Sprintf(`{"url": %q}`, weak.URL("http", "weak.test", "/")),
			// Over http there is no HSTS to judge and Secure cannot apply.
			want:     without(weakTitles, "Missing Strict-Transport-Security header", "Cookie without Secure flag"),
			wantHost: "weak.test", wantService: "http",
		},
		{
			name: "weak site with an untrusted certificate is still examined", site: weak, trustCA: false, input: `{}`,
			want: weakTitles, wantHost: "weak.test", wantOutcome: "did not verify",
		},
		{
			name: "no https: falls back to http", site: httpOnly, trustCA: false, input: `{}`,
			want:     without(weakTitles, "Missing Strict-Transport-Security header", "Cookie without Secure flag"),
			wantHost: "plain.test", wantOutcome: "http://plain.test:", wantService: "http",
		},
		{
			name: "hardened site: no findings", site: hardened, trustCA: true, input: `{}`,
			want: map[string]scans.Severity{}, wantOutcome: "no findings", wantService: "https",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []httpprobe.Option
			if tc.trustCA {
				opts = append(opts, httpprobe.WithRootCAs(tc.site.Roots))
			}
			res, err := New(opts...).Run(context.Background(), tc.site.Env, json.RawMessage(tc.input))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("outcome: %s", res.Outcome)
			got := map[string]scans.Severity{}
			for _, f := range res.Findings {
				if _, dup := got[f.Title]; dup {
					t.Errorf("finding %q reported twice", f.Title)
				}
				got[f.Title] = f.Severity
				checkFinding(t, f, tc.wantHost)
			}
			expect.Severities(t, got, tc.want)
			if tc.wantOutcome != "" && !strings.Contains(res.Outcome, tc.wantOutcome) {
				t.Errorf("outcome %q does not contain %q", res.Outcome, tc.wantOutcome)
			}
			if tc.wantService != "" && !hasService(res.Services, tc.wantService) {
				t.Errorf("services %+v: no %s service", res.Services, tc.wantService)
			}
		})
	}
}

func hasService(svcs []scans.Service, name string) bool {
	for _, s := range svcs {
		if s.Name == name && s.Port > 0 && s.Host != "" {
			return true
		}
	}
	return false
}

// checkFinding holds every finding to the contract's shape.
func checkFinding(t *testing.T, f scans.Finding, host string) {
	t.Helper()
	// Every web finding is its check's, worded by the catalogue.
	if c, ok := checks.Lookup(f.Check); !ok || c.Title != f.Title || !slices.Contains(New().(*Tool).Checks(), c) {
		t.Errorf("%q: check %q is not the tool's check of that title", f.Title, f.Check)
	}
	if f.Category != scans.CategoryWeb {
		t.Errorf("%q: category %q", f.Title, f.Category)
	}
	if host != "" && f.Host != host {
		t.Errorf("%q: host %q, want %q", f.Title, f.Host, host)
	}
	if f.Port == nil || *f.Port <= 0 {
		t.Errorf("%q: no port", f.Title)
	}
	if f.Evidence == "" || f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("%q: evidence, description, remediation and references are required: %+v", f.Title, f)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("%q: reference %q is not https", f.Title, ref)
		}
	}
	if f.Severity != scans.Info && f.CWE == nil {
		t.Errorf("%q: no CWE", f.Title)
	}
	if strings.Contains(f.Evidence, cookieSecret) {
		t.Errorf("%q: evidence shows a cookie value: %s", f.Title, f.Evidence)
	}
	// Every finding but the cookie flags (judged over a redirect chain)
	// is proven by the response that showed it; no proof shows a cookie.
	if !strings.HasPrefix(string(f.Check), "web.cookie.") && (f.Proof == nil || f.Proof.Kind != scans.ProofHTTP || f.Proof.Curl == nil) {
		t.Errorf("%q: proof %+v", f.Title, f.Proof)
	}
	if f.Proof != nil && strings.Contains(f.Proof.Response+f.Proof.Request, cookieSecret) {
		t.Errorf("%q: proof shows a cookie value: %s", f.Title, f.Proof.Response)
	}
}

func TestHTTPCheckRefusesBeforeConnecting(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, weakHandler(), weakHandler())
	tests := []struct{ Name, Input string }{
		{"host out of scope", `{"url": "https://evil.example/"}`},
		{"look-alike domain", `{"url": "https://badweak.test/"}`},
		{"IP literal", `{"url": "http://127.0.0.1/"}`},
		{"ftp scheme", `{"url": "ftp://weak.test/"}`},
		{"javascript scheme", `{"url": "javascript:alert(1)"}`},
		{"user info", `{"url": "https://user:pass@weak.test/"}`},
		{"user info hiding another host", `{"url": "https://weak.test@evil.example/"}`},
		{"unknown field", `{"url": "https://weak.test/", "method": "DELETE"}`},
		{"wrong type", `{"url": 42}`},
		{"too long", fmt.Sprintf(`{"url": "https://weak.test/%s"}`, strings.Repeat("a", 3000))},
	}
	refusals.Check(t, New(), site, tests)
}

func TestHTTPCheckPrivateNetworksOff(t *testing.T) {
	t.Parallel()
	// The names resolve to 127.0.0.1; with the production policy the
	// dialer refuses before any connection is made.
	site := scantest.NewSite(t, "weak.test", netguard.Policy{}, weakHandler(), weakHandler())
	_, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err == nil || tools.IsInputError(err) {
		t.Fatalf("Run = %v, want a refusal error", err)
	}
	if !strings.Contains(err.Error(), "resolves to a non-public address") || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("error %q does not say why, or reveals the resolved address", err)
	}
}

func TestToolDefinition(t *testing.T) {
	t.Parallel()
	tool := New()
	reg := tools.NewRegistry(tool) // panics on a bad cost or bound
	if got := reg.Names(); len(got) != 1 || got[0] != "http_check" {
		t.Errorf("names %v", got)
	}
	if tool.Cost() != 5 {
		t.Errorf("cost %d, want 5", tool.Cost())
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema is not an object schema: %v", err)
	}
}

func TestFramingAndHSTSParsing(t *testing.T) {
	t.Parallel()
	framing := []struct {
		xfo, csp string
		want     bool
	}{
		{"DENY", "", true},
		{"sameorigin", "", true},
		{"ALLOW-FROM https://a.example", "", false},
		{"", "default-src 'self'; frame-ancestors 'none'", true},
		{"", "default-src 'self'", false},
		{"", "", false},
	}
	for _, tc := range framing {
		if got := framingProtected(tc.xfo, tc.csp); got != tc.want {
			t.Errorf("framingProtected(%q, %q) = %v, want %v", tc.xfo, tc.csp, got, tc.want)
		}
	}
	hsts := []struct {
		v    string
		want int64
		ok   bool
	}{
		{"max-age=31536000; includeSubDomains", 31536000, true},
		{`max-age="600"`, 600, true},
		{"includeSubDomains", 0, false},
		{"max-age=abc", 0, false},
	}
	for _, tc := range hsts {
		got, ok := hstsMaxAge(tc.v)
		if got != tc.want || ok != tc.ok {
			t.Errorf("hstsMaxAge(%q) = %d, %v; want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func BenchmarkHTTPCheck(b *testing.B) {
	site := scantest.NewSite(b, "weak.test", netguard.Policy{AllowPrivate: true}, weakHandler(), weakHandler())
	tool := New(httpprobe.WithRootCAs(site.Roots))
	for b.Loop() {
		res, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{}`))
		if err != nil || len(res.Findings) != len(weakTitles) {
			b.Fatalf("Run: %v, %d findings", err, len(res.Findings))
		}
	}
}

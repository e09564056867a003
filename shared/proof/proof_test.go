package proof

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"secscan/shared/scans"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, leak, want string
		secrets        []string
	}{
		{in: "DB_PASSWORD=hunter2hunter2", leak: "hunter2hunter2", want: "DB_PASSWORD=hunt… (14 chars)"},
		{in: `{"api_key": "abcdef123456"}`, leak: "abcdef123456", want: `"api_key": "abcd… (12 chars)"`},
		{in: "define('DB_PASSWORD', 'supersecret1')", leak: "supersecret1", want: "'DB_PASSWORD', 'supe… (12 chars)'"},
		{in: "url = https://deploy:tok3nvalue@github.com/x", leak: "tok3nvalue", want: "https://[credentials redacted]@github.com"},
		{in: "key AKIAIOSFODNN7EXAMPLE here", leak: "AKIAIOSFODNN7EXAMPLE", want: "AKIA… (20 chars)"},
		{in: "admin:$apr1$xyzHASHabcdefghijklmnop", leak: "xyzHASHabcdef", want: "admin:$apr… (29 chars)"},
		{in: "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", leak: "MIIEow", want: "[private key redacted]"},
		{in: "Set-Cookie: session=abcdefgh12345678; HttpOnly", leak: "abcdefgh12345678", want: "Set-Cookie: sess… ("},
		{in: "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIz end", leak: "c2lnbmF0dXJlMTIz", want: "eyJh… ("},
		{in: `const k = "sk_live_51DemoAcmeWidgetsNotAReal";`, leak: "sk_live_51Demo", want: `"sk_l… (`},
		{in: "token ghp_abcdefghijklmnop1234567890", leak: "ghp_abcdefghijklmnop", want: "ghp_… ("},
		{in: "the value sk_live_0123456789 is set", leak: "sk_live_0123456789", want: "sk_l… (18 chars)", secrets: []string{"sk_live_0123456789"}},
	}
	for _, tc := range cases {
		got := Redact(tc.in, tc.secrets...)
		if strings.Contains(got, tc.leak) || !strings.Contains(got, tc.want) {
			t.Errorf("Redact(%q) = %q, want it to contain %q and not %q", tc.in, got, tc.want, tc.leak)
		}
	}
	if got := Redact("plain text about passwords in general"); got != "plain text about passwords in general" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

func TestCleanAndBound(t *testing.T) {
	t.Parallel()
	got := Clean("a\x1b[31mred\r\nnext\x00\xff\u202etail")
	if want := `a\x1b[31mred` + "\n" + `next\x00` + "\uFFFD" + `\u202etail`; got != want {
		t.Errorf("Clean = %q, want %q", got, want)
	}
	long := strings.Repeat("é", 3000)
	if b := Bound(long, 2048); utf8.RuneCountInString(b) != 2048 || !strings.HasSuffix(b, "…") || !utf8.ValidString(b) {
		t.Errorf("Bound: %d runes", utf8.RuneCountInString(b))
	}
}

func TestHTTPProofShapeAndBounds(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("filler line\n", 1000) + "EVIDENCE password=s3cr3tvalue here\n" + strings.Repeat("tail\n", 1000)
	u, _ := url.Parse("https://shop.test:8443/a path?q=1'$(id)")
	p := HTTP(HTTPExchange{
		Method: "GET", URL: u, RequestHeader: http.Header{"User-Agent": {"secscan/1.0"}, "Origin": {"https://evil.invalid"}},
		Proto: "HTTP/1.1", Status: 200, Header: http.Header{"Content-Type": {"text/plain"}, "X-Unrelated": {"x"}, "Set-Cookie": {"sid=verysecretcookie"}},
		Body: []byte(body), Needle: "EVIDENCE", Insecure: true, At: time.Date(2026, 11, 26, 10, 0, 0, 5, time.UTC),
	})
	if p.Kind != scans.ProofHTTP || !strings.HasPrefix(p.Request, "GET /a%20path?q=1'$(id) HTTP/1.1\nHost: shop.test:8443\n") {
		t.Errorf("request %q", p.Request)
	}
	if !strings.HasPrefix(p.Response, "HTTP/1.1 200 OK\nContent-Type: text/plain\nSet-Cookie: sid=… (") || strings.Contains(p.Response, "X-Unrelated") {
		t.Errorf("response head %q", p.Response[:200])
	}
	if !strings.Contains(p.Response, "EVIDENCE password=s3c… (11 chars)") || strings.Contains(p.Response, "s3cr3tvalue") || strings.Contains(p.Response, "verysecretcookie") {
		t.Errorf("excerpt does not show the evidence redacted: %q", p.Response)
	}
	if n := utf8.RuneCountInString(p.Response); n > scans.MaxProofResponse {
		t.Errorf("response is %d characters", n)
	}
	if !p.ObservedAt.Equal(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("observed_at %v", p.ObservedAt)
	}
	if p.Curl == nil || !strings.Contains(*p.Curl, "--insecure") {
		t.Fatalf("curl %v", p.Curl)
	}
}

// The curl line, run by a real shell, passes exactly the intended
// arguments: hostile quotes, $(…), backticks and newlines execute nothing.
func TestCurlQuotingInAShell(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("no sh on this machine")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	u, _ := url.Parse("http://shop.test/x?a='$(touch%20" + marker + ")'")
	u.RawQuery = "a='$(touch " + marker + ")'`touch " + marker + "`"
	h := http.Header{"X-Test": {"it's \"$(touch " + marker + ")\"\nInjected: 1"}}
	line := Curl("GET", u, h, false)
	// Replace curl by a script printing its arguments, one per line.
	script := "curl() { for a in \"$@\"; do printf '%s\\n' \"$a\"; done; }\n" + line + "\n"
	out, err := exec.Command(sh, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("sh: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the curl line executed a command")
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := []string{"-i", "--path-as-is", "--globoff", "-H", "X-Test: it's \"$(touch " + marker + ")\"Injected: 1", u.String()}
	if strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("arguments\n%q\nwant\n%q", args, want)
	}
}

// The curl line, run by the real curl against a local server, sends a URL
// with glob patterns once and as it is: pasted, "[1-1000000]" is one
// request, not a million.
func TestCurlDoesNotGlob(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl on this machine")
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/{a,b}/x")
	u.RawQuery = "q=[1-5]"
	line := Curl("GET", u, nil, false)
	if !strings.HasPrefix(line, "curl -i --path-as-is --globoff ") {
		t.Errorf("the line does not turn globbing off: %s", line)
	}
	script := "curl() { " + bin + " -s -o /dev/null --max-time 5 \"$@\"; }\n" + line + "\n"
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("sh: %v: %s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "/%7Ba,b%7D/x?q=[1-5]" && got[0] != "/{a,b}/x?q=[1-5]" {
		t.Errorf("requests %q, want one, of the URL as it is", got)
	}
}

func TestTranscriptBounds(t *testing.T) {
	t.Parallel()
	p := Transcript("PING", strings.Repeat("x", 5000)+"\x07", time.Time{}, "")
	if p.Kind != scans.ProofTranscript || p.Curl != nil || utf8.RuneCountInString(p.Response) != scans.MaxProofResponse || p.ObservedAt.IsZero() {
		t.Errorf("transcript %+v", p)
	}
	if got := FirstLines("a\nb\nc\nd", 2, 100); got != "a\nb\n…" {
		t.Errorf("FirstLines = %q", got)
	}
}

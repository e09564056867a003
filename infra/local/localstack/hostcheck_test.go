package localstack_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/devidp"
	"secscan/infra/local/localstack"
)

// hostCheckRouter is the local router on 127.0.0.1 with every function
// answering 200 and the development identity provider mounted.
func hostCheckRouter(t *testing.T) (base, port string) {
	t.Helper()
	routes := templateRoutes(t)
	endpoints := map[string]http.Handler{}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"ok":true}`) })
	for _, r := range routes {
		endpoints[r.Function] = ok
	}
	idp, err := devidp.New("http://127.0.0.1:3000/dev", "secscan-local")
	if err != nil {
		t.Fatal(err)
	}
	h, err := localstack.NewRouter(routes, endpoints, idp)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return srv.URL, u.Port()
}

// send makes one request to base with the given Host and headers.
func send(t *testing.T, method, base, path, host string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(raw)
}

// DNS rebinding: a page whose name now resolves to 127.0.0.1 calls the stack
// with its own name in Host. Only loopback Host values are answered.
func TestLocalRouterAnswersOnlyLoopbackHosts(t *testing.T) {
	t.Parallel()
	base, port := hostCheckRouter(t)
	for _, host := range []string{"evil.example:" + port, "evil.example:3000", "evil.example", "localhost.evil.example:" + port,
		"127.0.0.1.nip.io:" + port, "192.168.1.10:" + port, "0.0.0.0:" + port, "host.docker.internal:" + port,
		"127.0.0.1:1" + port, "localhost:1" + port} { // a loopback name on another port than the listener's
		for _, rq := range []struct{ method, path, body string }{
			{"GET", "/health", ""}, {"GET", "/api/auth/me", ""}, {"POST", "/dev/session", `{"email":"admin@example.com"}`},
			{"POST", "/api/scans", `{}`}, {"GET", "/", ""},
		} {
			status, body := send(t, rq.method, base, rq.path, host, nil, rq.body)
			var e struct{ Detail string }
			if status != http.StatusMisdirectedRequest || json.Unmarshal([]byte(body), &e) != nil || e.Detail == "" {
				t.Errorf("%s %s with Host %q: %d %s, want 421 with a JSON detail", rq.method, rq.path, host, status, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port, "[::1]:" + port, "127.0.0.1", "localhost"} {
		if status, body := send(t, "GET", base, "/health", host, nil, ""); status != http.StatusOK {
			t.Errorf("GET /health with Host %q: %d %s, want 200", host, status, body)
		}
	}
	// The public keys only, for the functions of `make sam-local` in their containers.
	if status, _ := send(t, "GET", base, "/dev/jwks.json", "host.docker.internal:3000", nil, ""); status != http.StatusOK {
		t.Errorf("GET /dev/jwks.json as host.docker.internal: %d, want 200", status)
	}
}

// A web page must not mint development sessions: a POST to the development
// identity provider with a foreign Origin is refused; the stack's own
// origin (the dashboard) and no Origin at all (curl, scripts) are not.
func TestDevIdPRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	base, port := hostCheckRouter(t)
	host := "127.0.0.1:" + port
	session := `{"email":"admin@example.com"}`
	for _, origin := range []string{"http://evil.example", "http://evil.example:" + port, "null", "https://127.0.0.1:" + port,
		"http://localhost:" + port + "1", "http://127.0.0.1:8080", "http://127.0.0.1.nip.io:" + port} {
		status, body := send(t, "POST", base, "/dev/session", host, map[string]string{"Origin": origin}, session)
		if status != http.StatusForbidden || !strings.Contains(body, `"detail"`) {
			t.Errorf("POST /dev/session with Origin %q: %d %s, want 403 with a detail", origin, status, body)
		}
		form := map[string]string{"Origin": origin, "Content-Type": "application/x-www-form-urlencoded"}
		for _, path := range []string{"/dev/token", "/dev/authorize"} {
			if status, body := send(t, "POST", base, path, host, form, "grant_type=refresh_token"); status != http.StatusForbidden {
				t.Errorf("POST %s with Origin %q: %d %s, want 403", path, origin, status, body)
			}
		}
	}
	for _, c := range []struct{ host, origin string }{{host, "http://127.0.0.1:" + port}, {"localhost:" + port, "http://localhost:" + port}, {host, ""}} {
		header := map[string]string{}
		if c.origin != "" {
			header["Origin"] = c.origin
		}
		status, body := send(t, "POST", base, "/dev/session", c.host, header, session)
		if status != http.StatusOK || !strings.Contains(body, `"token"`) {
			t.Errorf("POST /dev/session on %s with Origin %q: %d %s, want 200 with a token", c.host, c.origin, status, body)
		}
	}
}

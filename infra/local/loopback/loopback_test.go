package loopback_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"secscan/infra/local/loopback"
)

func TestHost(t *testing.T) {
	t.Parallel()
	for hostport, ok := range map[string]bool{
		"127.0.0.1:8000": true, "localhost:8000": true, "LocalHost:8000": true, "[::1]:8000": true,
		"127.5.6.7:8000": true, "[::ffff:127.0.0.1]:8000": true, "127.0.0.1": true, "localhost": true, "[::1]": true,
		"rebind.example:8000": false, "rebind.example": false, "localhost.rebind.example:8000": false,
		"127.0.0.1.nip.io:8000": false, "0.0.0.0:8000": false, "192.168.1.10:8000": false, "[::]:8000": false,
		"host.docker.internal:8000": false, "[fe80::1%lo]:8000": false, "": false, "localhost.:8000": false,
		"127.0.0.1:8001": false, "localhost:80": false, "[::1]:0": false,
	} {
		if got := loopback.Host(hostport, "8000"); got != ok {
			t.Errorf("Host(%q, 8000) = %v, want %v", hostport, got, ok)
		}
	}
	if !loopback.Host("127.0.0.1:1", "") {
		t.Error(`Host("127.0.0.1:1", "") = false: port "" accepts any port`)
	}
}

// Through a real listener: the port compared is the listener's own.
func TestMachineOnly(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	h := loopback.MachineOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served.Add(1) }),
		func(w http.ResponseWriter, status int, reason string) { http.Error(w, reason, status) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:1" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, "http://rebind.example:" + port, http.StatusForbidden},
		{"127.0.0.1:" + port, "null", http.StatusForbidden},
		{"127.0.0.1:" + port, "", http.StatusOK},
		{"localhost:" + port, "", http.StatusOK},
		{"[::1]:" + port, "", http.StatusOK},
	} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader("{}"))
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, res.StatusCode, c.want)
		}
	}
	if served.Load() != 3 {
		t.Errorf("handler served %d requests, want the 3 loopback ones", served.Load())
	}
}

// A listener that make sam-local's containers call accepts Docker's name for
// the host too, on its own port only, and still no Origin.
func TestRefusalWithDockerHost(t *testing.T) {
	t.Parallel()
	type verdict struct{ status int }
	got := make(chan verdict, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, _ := loopback.Refusal(r, loopback.DockerHost)
		got <- verdict{status}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"host.docker.internal:" + port, "", 0},
		{"Host.Docker.Internal:" + port, "", 0},
		{"127.0.0.1:" + port, "", 0},
		{"host.docker.internal:1" + port, "", http.StatusMisdirectedRequest},
		{"host.docker.internal", "", http.StatusMisdirectedRequest},
		{"rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"host.docker.internal:" + port, "http://host.docker.internal:" + port, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if v := <-got; v.status != c.want {
			t.Errorf("Host %q Origin %q: refusal %d, want %d", c.host, c.origin, v.status, c.want)
		}
	}
}

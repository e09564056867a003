package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"secscan/cmd/secscan/internal/client"
)

// A 429 is waited out for its Retry-After, and the user is told; a
// Retry-After beyond the bound is returned as the error instead.
func TestRateLimitWaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer pt_x" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"detail":"Invalid or expired token"}`)
			return
		}
		switch r.URL.Path {
		case "/api/auth/me":
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(429)
				fmt.Fprint(w, `{"detail":"Rate limit exceeded: 60 requests per minute"}`)
				return
			}
			fmt.Fprint(w, `{"id":"usr_1","email":"a@example.com","plan":"free","is_admin":false}`)
		case "/api/scans":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"detail":"Rate limit exceeded: 20 scans per hour"}`)
		}
	}))
	defer srv.Close()
	c := client.New(srv.URL, "pt_x")
	var told []string
	c.Notify = func(msg string) { told = append(told, msg) }
	me, err := c.Me(context.Background())
	if err != nil || me.Email != "a@example.com" || calls.Load() != 2 {
		t.Fatalf("Me: %+v %v after %d calls", me, err, calls.Load())
	}
	if len(told) != 1 || !strings.Contains(told[0], "Rate limit exceeded") || !strings.Contains(told[0], "waiting 1s") {
		t.Fatalf("told %q", told)
	}
	_, err = c.CreateScan(context.Background(), client.ScanRequest{Target: "a.test"}, "")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || err.Error() != "Rate limit exceeded: 20 scans per hour (HTTP 429)" {
		t.Fatalf("long Retry-After: %v", err)
	}
	_, err = client.New(srv.URL, "pt_bad").Me(context.Background())
	if err == nil || err.Error() != "Invalid or expired token (HTTP 401)" || client.StatusOf(err) != 401 {
		t.Fatalf("401: %v", err)
	}
}

// Lists follow rel="next" links to the end.
func TestListsFollowLinks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("cursor") {
		case "":
			w.Header().Set("Link", `</api/targets?cursor=two&limit=200>; rel="next"`)
			fmt.Fprint(w, `[{"id":"tgt_1","target":"a.test"}]`)
		case "two":
			fmt.Fprint(w, `[{"id":"tgt_2","target":"b.test"}]`)
		}
	}))
	defer srv.Close()
	ts, err := client.New(srv.URL, "pt_x").Targets(context.Background())
	if err != nil || len(ts) != 2 || ts[1].Target != "b.test" {
		t.Fatalf("%+v %v", ts, err)
	}
}

// A report's file name is the one Content-Disposition suggests when it is a
// plain name with the format's extension; a path, a hidden file, another
// extension or no header suggests none.
func TestOpenReportSuggestsASafeName(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		`attachment; filename="demo.test-2026-11-26-scn_01J00000000000000000000001.md"`: "demo.test-2026-11-26-scn_01J00000000000000000000001.md",
		`attachment; filename="../../.bashrc.md"`:                                       "",
		`attachment; filename="/etc/cron.d/x.md"`:                                       "",
		`attachment; filename=".hidden.md"`:                                             "",
		`attachment; filename="demo.test-2026-11-26-scn_x.sh"`:                          "",
		`attachment; filename="a b.md"`:                                                 "",
		`attachment`:                                                                    "",
		``:                                                                              "",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/scans/scn_x/report.md" {
				http.NotFound(w, r)
				return
			}
			if header != "" {
				w.Header().Set("Content-Disposition", header)
			}
			fmt.Fprint(w, "# report")
		}))
		name, body, err := client.New(srv.URL, "pt_x").OpenReport(context.Background(), "scn_x", "md")
		if err != nil {
			t.Fatalf("%q: %v", header, err)
		}
		raw, _ := io.ReadAll(body)
		body.Close()
		srv.Close()
		if name != want || string(raw) != "# report" {
			t.Errorf("%q: name %q, want %q (body %q)", header, name, want, raw)
		}
	}
}

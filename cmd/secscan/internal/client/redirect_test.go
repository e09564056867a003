package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/client"
)

// authSeen is a server on 127.0.0.1 that records the Authorization headers
// it receives and answers a user.
type authSeen struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newAuthSeen(t *testing.T, tls bool) *authSeen {
	s := &authSeen{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		fmt.Fprint(w, `{"id":"usr_1","email":"a@example.com","plan":"free","is_admin":false}`)
	})
	if tls {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func (s *authSeen) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// redirector is the API: every request is redirected to to+path.
func redirector(t *testing.T, tls bool, to func() string) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to()+r.URL.Path, http.StatusFound)
	})
	var s *httptest.Server
	if tls {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

// The API redirecting to another origin (another port of the same host
// here) does not take the token there: the redirect is refused.
func TestRedirectToAnotherOriginDoesNotCarryTheToken(t *testing.T) {
	t.Parallel()
	other := newAuthSeen(t, false)
	api := redirector(t, false, func() string { return other.URL })
	c := client.New(api.URL, "pt_secret")
	_, err := c.Me(context.Background())
	if !client.IsRedirectRefused(err) {
		t.Errorf("Me through a cross-origin redirect: %v, want the redirect refused", err)
	}
	for _, a := range other.seen() {
		if a != "" {
			t.Errorf("the other origin received Authorization %q", a)
		}
	}
}

// An https API redirecting to http is not followed with the token, even
// when the caller's http.Client has its own redirect policy.
func TestRedirectFromHTTPSToHTTPIsNotFollowed(t *testing.T) {
	t.Parallel()
	plain := newAuthSeen(t, false)
	var api *httptest.Server
	api = redirector(t, true, func() string { return plain.URL })
	c := client.New(api.URL, "pt_secret")
	c.HTTP = api.Client() // trusts the test certificate; default redirect policy
	c.HTTP.Timeout = 10 * time.Second
	_, err := c.Me(context.Background())
	if !client.IsRedirectRefused(err) {
		t.Errorf("Me through an https to http redirect: %v, want the redirect refused", err)
	}
	if got := plain.seen(); len(got) != 0 {
		t.Errorf("the http server was called (Authorization %q)", got)
	}
}

// A redirect within the API's origin is followed, with the token.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	t.Parallel()
	var calls []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/api/auth/me" {
			http.Redirect(w, r, "/api/auth/me/", http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, `{"id":"usr_1","email":"a@example.com","plan":"free","is_admin":false}`)
	}))
	defer srv.Close()
	me, err := client.New(srv.URL, "pt_secret").Me(context.Background())
	if err != nil || me.Email != "a@example.com" {
		t.Fatalf("Me: %+v %v", me, err)
	}
	if len(calls) != 2 || calls[1] != "/api/auth/me/ Bearer pt_secret" {
		t.Errorf("calls %q, want the redirect followed with the token", calls)
	}
}

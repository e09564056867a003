package devidp

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// pkceVerifier is the code verifier of the tests' code flows.
var pkceVerifier = strings.Repeat("v", 50)

// codeFlow is a provider (issuer http://127.0.0.1/dev, client client-1)
// served over real HTTP (authorize, token, logout), a client that does
// not follow redirects (and keeps cookies when keepCookies), and the authorize query of a
// PKCE code flow for pkceVerifier that comes back to redirect.
type codeFlow struct {
	p        *Provider
	srv      *httptest.Server
	client   *http.Client
	redirect string
	query    url.Values
}

// newCodeFlow starts the provider; the test's cleanup stops it.
func newCodeFlow(t *testing.T, keepCookies bool) *codeFlow {
	t.Helper()
	p, err := New("http://127.0.0.1/dev", "client-1")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/dev/authorize", p.ServeAuthorize)
	mux.HandleFunc("POST /dev/token", p.ServeToken)
	mux.HandleFunc("GET /dev/logout", p.ServeLogout)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if keepCookies {
		client.Jar, _ = cookiejar.New(nil)
	}
	sum := sha256.Sum256([]byte(pkceVerifier))
	redirect := srv.URL + "/"
	q := url.Values{"response_type": {"code"}, "client_id": {"client-1"}, "redirect_uri": {redirect},
		"state": {"s1"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	return &codeFlow{p: p, srv: srv, client: client, redirect: redirect, query: q}
}

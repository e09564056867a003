package devidp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// The code flow with PKCE over real HTTP: the page, the redirect with a
// one-time code, the exchange (verifier checked), the refresh, and the
// refusals that keep codes from going anywhere but loopback.
func TestAuthorizationCodeWithPKCE(t *testing.T) {
	t.Parallel()
	f := newCodeFlow(t, false)
	p, srv, client, q, redirect, verifier := f.p, f.srv, f.client, f.query, f.redirect, pkceVerifier

	res, err := client.Get(srv.URL + "/dev/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), `type="email"`) ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("authorize page: %d %s", res.StatusCode, page)
	}

	for name, bad := range map[string]url.Values{
		"remote redirect": with(q, "redirect_uri", "https://evil.example/"),
		"other client":    with(q, "client_id", "other"),
		"plain challenge": with(q, "code_challenge_method", "plain"),
	} {
		res, err := client.PostForm(srv.URL+"/dev/authorize", with(bad, "email", "a@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" {
			t.Errorf("%s: %d to %q, want 400 and no redirect", name, res.StatusCode, res.Header.Get("Location"))
		}
	}

	res, err = client.PostForm(srv.URL+"/dev/authorize", with(q, "email", " A@Example.com "))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || err != nil || loc.Query().Get("state") != "s1" || !strings.HasPrefix(loc.String(), redirect+"?") {
		t.Fatalf("authorize POST: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	code := loc.Query().Get("code")

	exchange := func(form url.Values) (int, map[string]any) {
		res, err := client.PostForm(srv.URL+"/dev/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, out
	}
	tokenForm := url.Values{"grant_type": {"authorization_code"}, "client_id": {"client-1"},
		"redirect_uri": {redirect}, "code": {code}, "code_verifier": {verifier}}
	if st, out := exchange(with(tokenForm, "code_verifier", strings.Repeat("w", 50))); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("wrong verifier: %d %v", st, out)
	}
	// A failed exchange burns the code, as with a real provider.
	if st, _ := exchange(tokenForm); st != 400 {
		t.Fatalf("code reused after a failed exchange: %d", st)
	}

	res, _ = client.PostForm(srv.URL+"/dev/authorize", with(q, "email", "a@example.com"))
	res.Body.Close()
	loc, _ = url.Parse(res.Header.Get("Location"))
	st, out := exchange(with(tokenForm, "code", loc.Query().Get("code")))
	if st != 200 || out["refresh_token"] == "" || out["expires_in"] != float64(3600) {
		t.Fatalf("exchange: %d %v", st, out)
	}
	claims := verify(t, p, out["id_token"].(string))
	if claims["email"] != "a@example.com" || claims["aud"] != "client-1" {
		t.Fatalf("claims %v", claims)
	}
	if st, _ := exchange(with(tokenForm, "code", loc.Query().Get("code"))); st != 400 {
		t.Fatal("a code was exchanged twice")
	}
	st, out = exchange(url.Values{"grant_type": {"refresh_token"}, "client_id": {"client-1"}, "refresh_token": {out["refresh_token"].(string)}})
	if st != 200 || verify(t, p, out["id_token"].(string))["email"] != "a@example.com" {
		t.Fatalf("refresh: %d %v", st, out)
	}

	res, _ = client.Get(srv.URL + "/dev/logout?" + url.Values{"client_id": {"client-1"}, "logout_uri": {redirect}}.Encode())
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != redirect {
		t.Fatalf("logout: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = client.Get(srv.URL + "/dev/logout?" + url.Values{"client_id": {"client-1"}, "logout_uri": {"https://evil.example/"}}.Encode())
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("logout to a remote address: %d", res.StatusCode)
	}
}

func with(v url.Values, key, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(key, value)
	return out
}

func verify(t *testing.T, p *Provider, token string) jwt.MapClaims {
	t.Helper()
	keys, err := p.Keyfunc()
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(token, claims, keys, jwt.WithIssuer(p.Issuer), jwt.WithAudience(p.Audience)); err != nil {
		t.Fatal(err)
	}
	return claims
}

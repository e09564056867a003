package devidp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The provider's browser session: a sign-in sets an HttpOnly cookie on
// /dev/, a later authorize request with it gets a code at once (no email
// page) for the same email, a forged or foreign cookie does not, and
// /dev/logout ends it.
func TestBrowserSessionSignsInSilently(t *testing.T) {
	t.Parallel()
	f := newCodeFlow(t, true)
	p, srv, client, q := f.p, f.srv, f.client, f.query
	authorize := func() (int, string) {
		res, err := client.Get(srv.URL + "/dev/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode == http.StatusSeeOther {
			return res.StatusCode, res.Header.Get("Location")
		}
		return res.StatusCode, string(b)
	}
	if st, body := authorize(); st != 200 || !strings.Contains(body, `type="email"`) {
		t.Fatalf("first visit: %d, want the email page", st)
	}
	res, err := client.PostForm(srv.URL+"/dev/authorize", with(q, "email", "a@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == browserCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.Path != "/dev/" || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("sign-in cookie %+v, want HttpOnly, path /dev/, SameSite=Lax", cookie)
	}
	st, loc := authorize()
	u, _ := url.Parse(loc)
	if st != http.StatusSeeOther || u.Query().Get("code") == "" || u.Query().Get("state") != "s1" {
		t.Fatalf("authorize with the session: %d %q, want a code at once", st, loc)
	}
	if g, ok := p.flows.takeCode(u.Query().Get("code")); !ok || g.email != "a@example.com" {
		t.Fatalf("the silent code is for %q (%v), want a@example.com", g.email, ok)
	}

	// Another provider's (or a forged) cookie is ignored.
	other, _ := New("http://127.0.0.1/dev", "client-1")
	rec := httptest.NewRecorder()
	if err := other.setBrowserSession(rec, "mallory@example.com"); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/dev/authorize", nil)
	for _, c := range rec.Result().Cookies() {
		req.AddCookie(c)
	}
	if email, ok := p.browserSession(req); ok {
		t.Errorf("a cookie signed by another key passed as %q", email)
	}

	res, err = client.Get(srv.URL + "/dev/logout?" + url.Values{"client_id": {"client-1"}, "logout_uri": {srv.URL + "/"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if st, _ := authorize(); st != 200 {
		t.Errorf("after logout: %d, want the email page again", st)
	}
}

package localstack_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"secscan/infra/local/devidp"
	"secscan/shared/ids"
)

// Every bad input gets its status and a JSON detail, and writes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	admin := s.newAccount("enterprise", true)
	other := s.newAccount("starter", false)
	otherTarget := s.call(http.MethodPost, "/api/targets", other.token, map[string]any{"target": "other.example.test", "method": "dns_txt"})
	ot := decoded[struct{ ID string }](t, otherTarget, http.StatusCreated)
	otherTok := s.call(http.MethodPost, "/api/tokens", other.session, map[string]any{"name": "theirs"})
	otk := decoded[struct{ ID string }](t, otherTok, http.StatusCreated)

	now := time.Now()
	jwtWith := func(mutate func(c jwt.MapClaims)) string {
		c := jwt.MapClaims{"iss": s.idp.Issuer, "aud": s.idp.Audience, "sub": "dev|x@example.com", "email": "x@example.com",
			"email_verified": true, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		mutate(c)
		tok, err := s.idp.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	strangerIdP, _ := devidp.New(s.idp.Issuer, s.idp.Audience) // same names, another key
	forged, _ := strangerIdP.SessionToken("x@example.com", true)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"iss": s.idp.Issuer, "aud": s.idp.Audience,
		"sub": "dev|x@example.com", "exp": now.Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": s.idp.Issuer, "aud": s.idp.Audience,
		"sub": "dev|x@example.com", "exp": now.Add(time.Hour).Unix()}).SignedString([]byte(s.idp.JWKS()))
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	es384, _ := jwt.NewWithClaims(jwt.SigningMethodES384, jwt.MapClaims{"iss": s.idp.Issuer, "aud": s.idp.Audience,
		"sub": "dev|x@example.com", "exp": now.Add(time.Hour).Unix()}).SignedString(p384)

	// Each case gets a fresh account (fresh rate limit) unless it names one.
	type tc struct {
		name         string
		method, path string
		auth         string // "token" (default), "session", "admin", "none" or a raw bearer value
		body         any
		status       int
		detail       string // a substring the detail must contain
		plan         string
	}
	long := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + ".example" // 263
	cases := []tc{
		// Malformed bodies.
		{name: "malformed JSON", method: "POST", path: "/api/targets", body: `{"target":`, status: 400, detail: "not valid JSON"},
		{name: "array body", method: "POST", path: "/api/targets", body: `[]`, status: 400, detail: "JSON object"},
		{name: "string body", method: "POST", path: "/api/targets", body: `"example.com"`, status: 400, detail: "JSON object"},
		{name: "null body", method: "POST", path: "/api/targets", body: `null`, status: 400, detail: "JSON object"},
		{name: "empty body", method: "POST", path: "/api/targets", body: ``, status: 400, detail: "JSON object"},
		{name: "two objects", method: "POST", path: "/api/targets", body: `{"target":"a.example","method":"dns_txt"} {}`, status: 400, detail: "single JSON object"},
		{name: "body over 64 KiB", method: "POST", path: "/api/targets", body: `{"target":"` + strings.Repeat("a", 70000) + `"}`, status: 413, detail: "64 KiB"},
		// Field problems on targets.
		{name: "target wrong type", method: "POST", path: "/api/targets", body: `{"target":5,"method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "method wrong type", method: "POST", path: "/api/targets", body: `{"target":"a.example","method":true}`, status: 422, detail: "method"},
		{name: "unknown field", method: "POST", path: "/api/targets", body: `{"target":"a.example","method":"dns_txt","owner":"me"}`, status: 422, detail: "owner"},
		{name: "missing target", method: "POST", path: "/api/targets", body: `{"method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "missing method", method: "POST", path: "/api/targets", body: `{"target":"a.example"}`, status: 422, detail: "method"},
		{name: "method outside enum", method: "POST", path: "/api/targets", body: `{"target":"a.example","method":"email"}`, status: 422, detail: "dns_txt or http_file"},
		{name: "empty domain", method: "POST", path: "/api/targets", body: `{"target":"","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "IPv4 literal", method: "POST", path: "/api/targets", body: `{"target":"192.0.2.10","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "IPv6 literal", method: "POST", path: "/api/targets", body: `{"target":"[2001:db8::1]","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "URL", method: "POST", path: "/api/targets", body: `{"target":"https://example.com/","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "path", method: "POST", path: "/api/targets", body: `{"target":"example.com/login","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "port", method: "POST", path: "/api/targets", body: `{"target":"example.com:8443","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "wildcard", method: "POST", path: "/api/targets", body: `{"target":"*.example.com","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "single label", method: "POST", path: "/api/targets", body: `{"target":"intranet","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "254+ characters", method: "POST", path: "/api/targets", body: `{"target":"` + long + `","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "space inside", method: "POST", path: "/api/targets", body: `{"target":"exa mple.com","method":"dns_txt"}`, status: 422, detail: "target"},
		{name: "underscore", method: "POST", path: "/api/targets", body: `{"target":"my_site.example.com","method":"dns_txt"}`, status: 422, detail: "target"},
		// Tokens.
		{name: "token name empty", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":""}`, status: 422, detail: "name"},
		{name: "token name 101 chars", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"` + strings.Repeat("n", 101) + `"}`, status: 422, detail: "name"},
		{name: "token name wrong type", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":5}`, status: 422, detail: "name"},
		{name: "token name missing", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{}`, status: 422, detail: "name"},
		{name: "expires_in_days 0", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"a","expires_in_days":0}`, status: 422, detail: "expires_in_days"},
		{name: "expires_in_days 366", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"a","expires_in_days":366}`, status: 422, detail: "expires_in_days"},
		{name: "expires_in_days fraction", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"a","expires_in_days":1.5}`, status: 422, detail: "expires_in_days"},
		{name: "expires_in_days string", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"a","expires_in_days":"30"}`, status: 422, detail: "expires_in_days"},
		{name: "token unknown field", method: "POST", path: "/api/tokens", auth: "session", plan: "starter", body: `{"name":"a","scopes":["all"]}`, status: 422, detail: "scopes"},
		{name: "free plan mints", method: "POST", path: "/api/tokens", auth: "session", body: `{"name":"a"}`, status: 403, detail: "starter"},
		{name: "api token mints", method: "POST", path: "/api/tokens", plan: "starter", body: `{"name":"a"}`, status: 403, detail: "browser session"},
		{name: "api token reads webhook secret", method: "GET", path: "/api/webhook-secret", plan: "starter", status: 403, detail: "browser session"},
		// Administration.
		{name: "not an admin", method: "POST", path: "/api/admin/users", body: `{"email":"a@example.com","plan":"free","is_admin":false}`, status: 403, detail: "Admin privileges required"},
		{name: "admin bad email", method: "POST", path: "/api/admin/users", auth: "admin", body: `{"email":"not-an-email","plan":"free","is_admin":false}`, status: 422, detail: "email"},
		{name: "admin bad plan", method: "POST", path: "/api/admin/users", auth: "admin", body: `{"email":"a@example.com","plan":"gold","is_admin":false}`, status: 422, detail: "plan"},
		{name: "admin missing is_admin", method: "POST", path: "/api/admin/users", auth: "admin", body: `{"email":"a@example.com","plan":"free"}`, status: 422, detail: "is_admin"},
		{name: "admin patch nothing", method: "PATCH", path: "/api/admin/users/" + other.user.ID, auth: "admin", body: `{}`, status: 422, detail: "plan"},
		{name: "admin patch wrong type", method: "PATCH", path: "/api/admin/users/" + other.user.ID, auth: "admin", body: `{"is_admin":"yes"}`, status: 422, detail: "is_admin"},
		{name: "admin patch unknown user", method: "PATCH", path: "/api/admin/users/" + ids.New(ids.User, now), auth: "admin", body: `{"plan":"pro"}`, status: 404, detail: "not found"},
		{name: "admin patch garbage id", method: "PATCH", path: "/api/admin/users/usr_garbage", auth: "admin", body: `{"plan":"pro"}`, status: 404, detail: "not found"},
		// Other users' ids are simply not found.
		{name: "verify another user's target", method: "POST", path: "/api/targets/" + ot.ID + "/verify", status: 404, detail: "not found"},
		{name: "delete another user's target", method: "DELETE", path: "/api/targets/" + ot.ID, status: 404, detail: "not found"},
		{name: "delete another user's token", method: "DELETE", path: "/api/tokens/" + otk.ID, auth: "session", status: 404, detail: "not found"},
		{name: "delete a malformed target id", method: "DELETE", path: "/api/targets/tgt_nope", status: 404, detail: "not found"},
		// Query parameters.
		{name: "limit 0", method: "GET", path: "/api/targets?limit=0", status: 422, detail: "limit"},
		{name: "limit 201", method: "GET", path: "/api/targets?limit=201", status: 422, detail: "limit"},
		{name: "limit not a number", method: "GET", path: "/api/targets?limit=ten", status: 422, detail: "limit"},
		{name: "forged cursor", method: "GET", path: "/api/targets?cursor=VE9LRU4jMDFI", status: 422, detail: "cursor"},
		// Authentication: one answer for every failure.
		{name: "no Authorization", method: "GET", path: "/api/auth/me", auth: "none", status: 401},
		{name: "Bearer without value", method: "GET", path: "/api/auth/me", auth: "", status: 401},
		{name: "garbled api token", method: "GET", path: "/api/auth/me", auth: "pt_!!!not*base62!!!!!!!!!!", status: 401},
		{name: "unknown api token", method: "GET", path: "/api/auth/me", auth: "pt_0000000000000000000000000000000000000000000", status: 401},
		{name: "random string", method: "GET", path: "/api/auth/me", auth: "hunter2", status: 401},
		{name: "jwt wrong issuer", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { c["iss"] = "https://evil.test/" }), status: 401},
		{name: "jwt wrong audience", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { c["aud"] = "someone-else" }), status: 401},
		{name: "jwt expired", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() }), status: 401},
		{name: "jwt without exp", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { delete(c, "exp") }), status: 401},
		{name: "jwt without sub", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { delete(c, "sub") }), status: 401},
		{name: "jwt not yet valid", method: "GET", path: "/api/auth/me", auth: jwtWith(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() }), status: 401},
		{name: "jwt signed by another key", method: "GET", path: "/api/auth/me", auth: forged, status: 401},
		{name: "jwt alg none", method: "GET", path: "/api/auth/me", auth: none, status: 401},
		{name: "jwt HS256 keyed with the JWKS", method: "GET", path: "/api/auth/me", auth: hs, status: 401},
		{name: "jwt ES384 unknown key", method: "GET", path: "/api/auth/me", auth: es384, status: 401},
		{name: "jwt tampered payload", method: "GET", path: "/api/auth/me", auth: tamper(jwtWith(func(jwt.MapClaims) {})), status: 401},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := c.plan
			if plan == "" {
				plan = "free"
			}
			acct := s.newAccount(plan, false)
			header := http.Header{}
			switch c.auth {
			case "token", "":
				if c.auth == "" && c.name == "Bearer without value" {
					header.Set("Authorization", "Bearer ")
				} else {
					header.Set("Authorization", "Bearer "+acct.token)
				}
			case "session":
				header.Set("Authorization", "Bearer "+acct.session)
			case "admin":
				header.Set("Authorization", "Bearer "+admin.session)
			case "none":
			default:
				header.Set("Authorization", "Bearer "+c.auth)
			}
			r := s.callWith(c.method, c.path, c.body, header)
			expect(t, r, c.status)
			d := r.detail(t)
			if c.status == 401 && d != "Invalid or expired token" {
				t.Fatalf("401 detail %q", d)
			}
			if !strings.Contains(d, c.detail) {
				t.Fatalf("detail %q does not contain %q", d, c.detail)
			}
			// Nothing was written for this account.
			if c.status != 401 {
				list := s.call(http.MethodGet, "/api/targets", acct.token, nil)
				if string(list.body) != "[]\n" {
					t.Fatalf("a refused request left targets behind: %s", list.body)
				}
			}
		})
	}
	// The other user's records survived every attempt on them.
	expect(t, s.call(http.MethodPost, "/api/targets/"+ot.ID+"/verify", other.token, nil), http.StatusBadRequest)
}

// tamper flips the payload of a signed token (its signature no longer matches).
func tamper(token string) string {
	parts := strings.Split(token, ".")
	parts[1] = parts[1][:len(parts[1])-2] + "QQ"
	return strings.Join(parts, ".")
}

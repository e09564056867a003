package localstack_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

func TestHealth(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	for _, path := range []string{"/health", "/api/health"} {
		r := s.callWith(http.MethodGet, path, nil, nil)
		h := decoded[struct{ Status, Version string }](t, r, http.StatusOK)
		if h.Status != "ok" || h.Version != "e2e" {
			t.Fatalf("%s = %+v", path, h)
		}
	}
}

// A newcomer's session: first sign-in creates a free user; an admin upgrades
// them; they mint an API token, use it, list it and revoke it.
func TestSessionTokensAndRevocation(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	admin := s.newAccount("enterprise", true)

	session, err := s.idp.SessionToken("newcomer@example.com", true)
	if err != nil {
		t.Fatal(err)
	}
	r := s.call(http.MethodGet, "/api/auth/me", session, nil)
	expect(t, r, http.StatusOK)
	var me struct {
		ID, Email, Plan string
		IsAdmin         bool `json:"is_admin"`
	}
	r.json(t, &me)
	if me.Email != "newcomer@example.com" || me.Plan != "free" || me.IsAdmin {
		t.Fatalf("first sign-in user = %+v", me)
	}
	if again := s.call(http.MethodGet, "/api/auth/me", session, nil); !strings.Contains(string(again.body), me.ID) {
		t.Fatalf("second sign-in made another user: %s", again.body)
	}

	r = s.call(http.MethodPost, "/api/tokens", session, map[string]any{"name": "ci"})
	expect(t, r, http.StatusForbidden)
	if d := r.detail(t); !strings.Contains(d, "starter") {
		t.Fatalf("free plan refusal should name the plan that allows it: %q", d)
	}

	r = s.call(http.MethodPatch, "/api/admin/users/"+me.ID, admin.session, map[string]any{"plan": "starter"})
	expect(t, r, http.StatusOK)

	r = s.call(http.MethodPost, "/api/tokens", session, map[string]any{"name": "ci", "expires_in_days": 30})
	expect(t, r, http.StatusCreated)
	var created struct {
		ID, Token string
		Prefix    string  `json:"token_prefix"`
		ExpiresAt *string `json:"expires_at"`
	}
	r.json(t, &created)
	if !strings.HasPrefix(created.Token, "pt_") || created.Prefix != created.Token[:10] || created.ExpiresAt == nil {
		t.Fatalf("created token = %+v", created)
	}
	stored, err := s.api.Store.TokenByHash(context.Background(), auth.HashToken(created.Token))
	if err != nil || stored.ID != created.ID {
		t.Fatalf("token not stored under its SHA-256: %v", err)
	}

	expect(t, s.call(http.MethodGet, "/api/auth/me", created.Token, nil), http.StatusOK)
	r = s.call(http.MethodPost, "/api/tokens", created.Token, map[string]any{"name": "x"})
	expect(t, r, http.StatusForbidden)
	if d := r.detail(t); d != "This action requires a browser session" {
		t.Fatalf("api token minting: %q", d)
	}

	r = s.call(http.MethodGet, "/api/tokens", session, nil)
	expect(t, r, http.StatusOK)
	if strings.Contains(string(r.body), created.Token) || !strings.Contains(string(r.body), created.ID) {
		t.Fatalf("token list must show the token but never its value: %s", r.body)
	}
	var listed []struct {
		LastUsedAt *string `json:"last_used_at"`
	}
	r.json(t, &listed)
	if len(listed) != 1 || listed[0].LastUsedAt == nil {
		t.Fatalf("last_used_at not recorded after use: %s", r.body)
	}

	expect(t, s.call(http.MethodDelete, "/api/tokens/"+created.ID, session, nil), http.StatusNoContent)
	r = s.call(http.MethodGet, "/api/auth/me", created.Token, nil)
	expect(t, r, http.StatusUnauthorized)
	if r.detail(t) != "Invalid or expired token" || r.header.Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("revoked token: %s %v", r.body, r.header)
	}
	expect(t, s.call(http.MethodDelete, "/api/tokens/"+created.ID, session, nil), http.StatusNotFound)
}

// Targets: register, fail verification with a precise reason, publish the
// record, verify, list, and delete; another user sees none of it.
func TestTargetLifecycle(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	owner, other := s.newAccount("free", false), s.newAccount("free", false)

	r := s.call(http.MethodPost, "/api/targets", owner.token, map[string]any{"target": "Shop.Example.TEST.", "method": "dns_txt"})
	expect(t, r, http.StatusCreated)
	var tgt struct {
		ID, Target, Method, Instructions string
		Token                            string `json:"verification_token"`
		Verified                         bool
		VerifiedAt                       *string `json:"verified_at"`
	}
	r.json(t, &tgt)
	if tgt.Target != "shop.example.test" || tgt.Verified || tgt.VerifiedAt != nil {
		t.Fatalf("created target = %+v", tgt)
	}
	if !strings.Contains(tgt.Instructions, "_service-challenge.shop.example.test") || !strings.Contains(tgt.Instructions, tgt.Token) {
		t.Fatalf("instructions lack the record name or value: %q", tgt.Instructions)
	}

	r = s.call(http.MethodPost, "/api/targets", owner.token, map[string]any{"target": "shop.example.test", "method": "http_file"})
	expect(t, r, http.StatusConflict)
	if !strings.Contains(r.detail(t), tgt.ID) {
		t.Fatalf("duplicate should name the existing id: %s", r.body)
	}
	// Another user may register the same domain: ownership is proven per user.
	expect(t, s.call(http.MethodPost, "/api/targets", other.token, map[string]any{"target": "shop.example.test", "method": "dns_txt"}), http.StatusCreated)

	r = s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", owner.token, nil)
	expect(t, r, http.StatusBadRequest)
	if d := r.detail(t); !strings.Contains(d, "_service-challenge.shop.example.test") || !strings.Contains(d, "NXDOMAIN") {
		t.Fatalf("verification failure should say what was looked up and found: %q", d)
	}
	s.dns.Add(t, `_service-challenge.shop.example.test. TXT "unrelated"`)
	r = s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", owner.token, nil)
	expect(t, r, http.StatusBadRequest)
	if d := r.detail(t); !strings.Contains(d, "unrelated") {
		t.Fatalf("wrong-value failure should show what was found: %q", d)
	}

	expect(t, s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", other.token, nil), http.StatusNotFound)
	expect(t, s.call(http.MethodDelete, "/api/targets/"+tgt.ID, other.token, nil), http.StatusNotFound)

	s.dns.Add(t, fmt.Sprintf(`_service-challenge.shop.example.test. TXT %q`, tgt.Token))
	r = s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", owner.token, nil)
	expect(t, r, http.StatusOK)
	r.json(t, &tgt)
	if !tgt.Verified || tgt.VerifiedAt == nil {
		t.Fatalf("verified target = %s", r.body)
	}
	firstVerifiedAt := *tgt.VerifiedAt
	r = s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", owner.token, nil)
	expect(t, r, http.StatusOK)
	r.json(t, &tgt)
	if *tgt.VerifiedAt != firstVerifiedAt {
		t.Fatal("re-verifying changed verified_at")
	}

	r = s.call(http.MethodGet, "/api/targets", owner.token, nil)
	list := decoded[[]struct{ ID string }](t, r, http.StatusOK)
	if len(list) != 1 || list[0].ID != tgt.ID {
		t.Fatalf("owner's list = %s", r.body)
	}

	expect(t, s.call(http.MethodDelete, "/api/targets/"+tgt.ID, owner.token, nil), http.StatusNoContent)
	r = s.call(http.MethodGet, "/api/targets", owner.token, nil)
	if string(r.body) != "[]\n" {
		t.Fatalf("after delete the list = %s", r.body)
	}
	// The domain is free again for this user.
	expect(t, s.call(http.MethodPost, "/api/targets", owner.token, map[string]any{"target": "shop.example.test", "method": "dns_txt"}), http.StatusCreated)
}

func TestTargetPagination(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	for i := range 5 {
		expect(t, s.call(http.MethodPost, "/api/targets", a.token, map[string]any{"target": fmt.Sprintf("site%d.example.test", i), "method": "dns_txt"}), http.StatusCreated)
	}
	var seen []string
	for _, p := range allPages[struct{ Target string }](t, s, a, "/api/targets?limit=2") {
		seen = append(seen, p.Target)
	}
	want := "site4.example.test site3.example.test site2.example.test site1.example.test site0.example.test"
	if got := strings.Join(seen, " "); got != want {
		t.Fatalf("paged newest first = %q, want %q", got, want)
	}
}

func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	free, paid := s.newAccount("free", false), s.newAccount("starter", false)
	expect(t, s.call(http.MethodGet, "/api/webhook-secret", free.session, nil), http.StatusForbidden)
	expect(t, s.call(http.MethodGet, "/api/webhook-secret", paid.token, nil), http.StatusForbidden)

	var first, again, rotated struct{ Secret string }
	r := s.call(http.MethodGet, "/api/webhook-secret", paid.session, nil)
	expect(t, r, http.StatusOK)
	r.json(t, &first)
	s.call(http.MethodGet, "/api/webhook-secret", paid.session, nil).json(t, &again)
	if !strings.HasPrefix(first.Secret, "whsec_") || again.Secret != first.Secret {
		t.Fatalf("secret not stable: %q then %q", first.Secret, again.Secret)
	}
	r = s.call(http.MethodPost, "/api/webhook-secret/rotate", paid.session, nil)
	expect(t, r, http.StatusOK)
	r.json(t, &rotated)
	s.call(http.MethodGet, "/api/webhook-secret", paid.session, nil).json(t, &again)
	if rotated.Secret == first.Secret || again.Secret != rotated.Secret {
		t.Fatalf("rotation: old %q, rotated %q, now %q", first.Secret, rotated.Secret, again.Secret)
	}
}

func TestAdminUsers(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	admin, user := s.newAccount("enterprise", true), s.newAccount("free", false)

	// An admin's API token cannot administer: a leaked one must not mint
	// durable footholds (security review, item 1).
	r := s.call(http.MethodPost, "/api/admin/users", admin.token, map[string]any{"email": "x@example.com", "plan": "enterprise", "is_admin": true})
	expect(t, r, http.StatusForbidden)
	if d := r.detail(t); d != "This action requires a browser session" {
		t.Fatalf("admin action with an API token: %q", d)
	}
	expect(t, s.call(http.MethodPatch, "/api/admin/users/"+user.user.ID, admin.token, map[string]any{"plan": "pro"}), http.StatusForbidden)
	expect(t, s.call(http.MethodPost, "/api/admin/users", user.session, map[string]any{"email": "x@example.com", "plan": "pro", "is_admin": false}), http.StatusForbidden)

	r = s.call(http.MethodPost, "/api/admin/users", admin.session, map[string]any{"email": "Ops@Example.com", "plan": "pro", "is_admin": false})
	expect(t, r, http.StatusCreated)
	var created struct {
		ID, Email, Plan, Token string
	}
	r.json(t, &created)
	if created.Email != "ops@example.com" || created.Plan != "pro" || !strings.HasPrefix(created.Token, "pt_") {
		t.Fatalf("created = %s", r.body)
	}
	expect(t, s.call(http.MethodGet, "/api/auth/me", created.Token, nil), http.StatusOK)
	r = s.call(http.MethodPost, "/api/admin/users", admin.session, map[string]any{"email": "ops@example.com", "plan": "pro", "is_admin": false})
	expect(t, r, http.StatusConflict)

	// A new admin gets no token: it signs in with a browser session.
	r = s.call(http.MethodPost, "/api/admin/users", admin.session, map[string]any{"email": "second-admin@example.com", "plan": "enterprise", "is_admin": true})
	expect(t, r, http.StatusCreated)
	if !strings.Contains(string(r.body), `"token":null`) || strings.Contains(string(r.body), "pt_") {
		t.Fatalf("a new admin was given an API token: %s", r.body)
	}

	// An unverified email is never linked to an existing account.
	unverified, _ := s.idp.Sign(map[string]any{"iss": s.idp.Issuer, "aud": s.idp.Audience, "sub": "other|ops",
		"email": "ops@example.com", "email_verified": false, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	r = s.call(http.MethodGet, "/api/auth/me", unverified, nil)
	expect(t, r, http.StatusOK)
	if strings.Contains(string(r.body), created.ID) {
		t.Fatal("an unverified email took over an existing account")
	}
	// A look-alike address (Kelvin sign for K) is not the same email.
	lookalike := s.session(t, "kelvin|ops", "\u212Aate@example.com")
	r = s.call(http.MethodPost, "/api/admin/users", admin.session, map[string]any{"email": "kate@example.com", "plan": "pro", "is_admin": false})
	kate := decoded[struct{ ID string }](t, r, http.StatusCreated)
	if r := s.call(http.MethodGet, "/api/auth/me", lookalike, nil); strings.Contains(string(r.body), kate.ID) || r.status != http.StatusOK {
		t.Fatalf("a Kelvin-sign address claimed kate's account: %d %s", r.status, r.body)
	}
	expect(t, s.call(http.MethodPost, "/api/admin/users", admin.session, map[string]any{"email": "\u212Aate@example.com", "plan": "pro", "is_admin": false}), http.StatusUnprocessableEntity)

	// The admin-created user signs in with a verified email: linked, not duplicated.
	session := s.session(t, "dev|ops-first", "ops@example.com")
	r = s.call(http.MethodGet, "/api/auth/me", session, nil)
	expect(t, r, http.StatusOK)
	if !strings.Contains(string(r.body), created.ID) || !strings.Contains(string(r.body), `"plan":"pro"`) {
		t.Fatalf("verified sign-in not linked to the admin-created user: %s", r.body)
	}
	// Linking is one-shot: another identity with the same verified email
	// (another IdP account) gets an account of its own.
	if r := s.call(http.MethodGet, "/api/auth/me", s.session(t, "other-idp|ops", "ops@example.com"), nil); strings.Contains(string(r.body), created.ID) {
		t.Fatalf("a second identity took over a linked account: %s", r.body)
	}
	// A user that signed up by itself is never taken over by email.
	if r := s.call(http.MethodGet, "/api/auth/me", s.session(t, "attacker|1", user.user.Email), nil); strings.Contains(string(r.body), user.user.ID) {
		t.Fatalf("a self-registered account was taken over by email: %s", r.body)
	}

	r = s.call(http.MethodPatch, "/api/admin/users/"+user.user.ID, admin.session, map[string]any{"is_admin": true})
	expect(t, r, http.StatusOK)
	r = s.call(http.MethodGet, "/api/auth/me", user.token, nil)
	if !strings.Contains(string(r.body), `"is_admin":true`) {
		t.Fatalf("promotion not effective on the next request: %s", r.body)
	}
}

// The per-user limit: exactly 60 of 80 concurrent requests pass, the rest get
// 429 with Retry-After and the rate-limit headers.
func TestRateLimitIsExactOverHTTP(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	var mu sync.Mutex
	codes := map[int]int{}
	var limited response
	var wg sync.WaitGroup
	for range 80 {
		wg.Go(func() {
			r := s.call(http.MethodGet, "/api/auth/me", a.token, nil)
			mu.Lock()
			defer mu.Unlock()
			codes[r.status]++
			if r.status == http.StatusTooManyRequests {
				limited = r
			}
		})
	}
	wg.Wait()
	if codes[200] != 60 || codes[429] != 20 {
		t.Fatalf("status counts %v, want 60×200 and 20×429", codes)
	}
	if d := limited.detail(t); d != "Rate limit exceeded: 60 requests per minute" {
		t.Fatalf("429 detail %q", d)
	}
	if ra, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q", limited.header.Get("Retry-After"))
	}
	if limited.header.Get("X-RateLimit-Remaining") != "0" || limited.header.Get("X-RateLimit-Limit") != "60" {
		t.Fatalf("rate-limit headers on 429: %v", limited.header)
	}
}

// Guessing tokens from one address is cut off at 100 failures a minute.
func TestFailedAuthenticationsAreLimitedPerIP(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	for i := range 100 {
		r := s.call(http.MethodGet, "/api/auth/me", fmt.Sprintf("pt_guess%040d", i), nil)
		expect(t, r, http.StatusUnauthorized)
	}
	r := s.call(http.MethodGet, "/api/auth/me", "pt_guess0000000000000000000000000000000000000101", nil)
	expect(t, r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After on the per-IP refusal")
	}
	// The block answers that address's failures only: a valid credential from
	// the same address (an office behind one NAT) still works.
	a := s.newAccount("free", false)
	expect(t, s.call(http.MethodGet, "/api/auth/me", a.token, nil), http.StatusOK)
	expect(t, s.call(http.MethodGet, "/api/auth/me", a.session, nil), http.StatusOK)
	expect(t, s.call(http.MethodGet, "/api/auth/me", "pt_guess0000000000000000000000000000000000000102", nil), http.StatusTooManyRequests)
	expect(t, s.call(http.MethodGet, "/api/auth/me", "not-even-a-token", nil), http.StatusTooManyRequests)
}

// Round trips to DynamoDB per request, including authentication and rate
// limiting (the figure the issue asks for; goal: at most 3).
func TestDynamoDBRoundTrips(t *testing.T) {
	s := startStack(t)
	a := s.newAccount("starter", false)
	scanID := seedScan(t, s, a, 30, 50)
	cases := []struct {
		name, path, bearer string
		max                int64
	}{
		{"GET /api/scans/<id> (30 steps, 50 findings) with an API token", "/api/scans/" + scanID, a.token, 4},
		{"GET /api/scans/<id> (30 steps, 50 findings) with a session", "/api/scans/" + scanID, a.session, 3},
		{"GET /api/scans with an API token", "/api/scans", a.token, 3},
		{"GET /api/targets with an API token", "/api/targets", a.token, 3},
		// /me also reads the month's credit counter (its own item: it is
		// updated in the scan transactions), one round trip more.
		{"GET /api/auth/me with an API token", "/api/auth/me", a.token, 3},
		{"GET /api/checks with an API token", "/api/checks", a.token, 2},
		{"GET /api/targets with a session", "/api/targets", a.session, 2},
		{"GET /api/auth/me with a session", "/api/auth/me", a.session, 2},
	}
	// Warm up: the first session request looks up the identity, the first
	// token request records last_used_at (at most once per 5 minutes).
	s.call(http.MethodGet, "/api/auth/me", a.token, nil)
	s.call(http.MethodGet, "/api/auth/me", a.session, nil)
	for _, c := range cases {
		before := s.roundTrip.Load()
		expect(t, s.call(http.MethodGet, c.path, c.bearer, nil), http.StatusOK)
		got := s.roundTrip.Load() - before
		t.Logf("%s: %d DynamoDB round trips", c.name, got)
		if got > c.max {
			t.Errorf("%s: %d round trips, want at most %d", c.name, got, c.max)
		}
	}
}

func TestExpiredTokenIsRefused(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	value, _ := auth.NewAPIToken()
	past := time.Now().Add(-time.Minute)
	err := s.api.Store.CreateToken(context.Background(), store.Token{ID: ids.New(ids.Token, time.Now()), UserID: a.user.ID,
		Name: "old", Prefix: auth.DisplayPrefix(value), Hash: auth.HashToken(value), CreatedAt: past.Add(-time.Hour), ExpiresAt: &past})
	if err != nil {
		t.Fatal(err)
	}
	r := s.call(http.MethodGet, "/api/auth/me", value, nil)
	expect(t, r, http.StatusUnauthorized)
	if r.detail(t) != "Invalid or expired token" {
		t.Fatalf("detail %q", r.body)
	}
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	req := func(method, path string) response {
		// Not in openapi.yaml by definition, so not validated against it.
		hreq, _ := http.NewRequest(method, s.base+path, nil)
		hreq.Header.Set("Authorization", "Bearer "+a.token)
		res, err := http.DefaultClient.Do(hreq)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		return response{status: res.StatusCode, header: res.Header}
	}
	if r := req(http.MethodGet, "/api/nothing"); r.status != 404 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("unknown path: %d %v", r.status, r.header)
	}
	if r := req(http.MethodPut, "/api/targets"); r.status != 405 || r.header.Get("Allow") != "GET, POST" {
		t.Fatalf("wrong method: %d Allow=%q", r.status, r.header.Get("Allow"))
	}
}

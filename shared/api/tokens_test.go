package api

import (
	"net/http"
	"strings"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

func TestCreateToken(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	create := accountAction(createToken(m, clock))

	want(t, serve(create, user("free"), request{method: http.MethodPost, body: `{"name":"ci"}`}), http.StatusForbidden,
		"API tokens are available on the starter plan and above; your plan is free")
	viaToken := user("pro")
	viaToken.Via = auth.ViaAPIToken
	want(t, serve(create, viaToken, request{method: http.MethodPost, body: `{"name":"ci"}`}), http.StatusForbidden,
		"This action requires a browser session")
	if len(m.tokens) != 0 {
		t.Fatal("a refused request minted a token")
	}

	alice := user("starter")
	w := serve(create, alice, request{method: http.MethodPost, body: `{"name":"ci","expires_in_days":30}`})
	want(t, w, http.StatusCreated, "")
	got := decode[map[string]any](t, w)
	value, _ := got["token"].(string)
	prefix, _ := got["token_prefix"].(string)
	if value == "" || prefix == "" || !strings.HasPrefix(value, strings.TrimSuffix(prefix, "…")) ||
		got["expires_at"] != "2026-04-03T05:06:07Z" || got["last_used_at"] != nil {
		t.Errorf("token = %v", got)
	}
	for _, rec := range m.tokens {
		if rec.Hash != auth.HashToken(value) || strings.Contains(rec.Hash, value) {
			t.Error("the store must keep the token's hash, never its value")
		}
	}

	for _, tc := range []struct{ body, detail string }{
		{`{}`, "name: is required"},
		{`{"name":""}`, "name: must be 1 to 100 characters"},
		{`{"name":"` + strings.Repeat("x", 101) + `"}`, "name: must be 1 to 100 characters"},
		{`{"name":"ci","expires_in_days":366}`, "expires_in_days: must be an integer from 1 to 365"},
		{`{"name":"ci","expires_in_days":"30"}`, ""},
	} {
		want(t, serve(create, alice, request{method: http.MethodPost, body: tc.body}), http.StatusUnprocessableEntity, tc.detail)
	}
}

func TestTokensAreTheCallers(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("pro"), user("pro")
	mine := store.Token{ID: ids.New(ids.Token, clockNow), UserID: alice.User.ID, Name: "mine", Prefix: "sk_ab", Hash: "h1", CreatedAt: clockNow}
	theirs := store.Token{ID: ids.New(ids.Token, clockNow), UserID: bob.User.ID, Name: "theirs", Prefix: "sk_cd", Hash: "h2", CreatedAt: clockNow}
	m.tokens[mine.ID], m.tokens[theirs.ID] = mine, theirs

	w := serve(listTokens(m), alice, request{})
	want(t, w, http.StatusOK, "")
	got := decode[[]map[string]any](t, w)
	if len(got) != 1 || got[0]["id"] != mine.ID {
		t.Fatalf("alice's tokens = %v", got)
	}
	if _, shown := got[0]["token"]; shown {
		t.Error("a listed token shows its value")
	}

	del := deleteToken(m)
	want(t, serve(del, alice, request{method: http.MethodDelete, path: map[string]string{"id": theirs.ID}}),
		http.StatusNotFound, "Token "+theirs.ID+" not found")
	want(t, serve(del, alice, request{method: http.MethodDelete, path: map[string]string{"id": mine.ID}}), http.StatusNoContent, "")
	if _, ok := m.tokens[theirs.ID]; !ok {
		t.Error("another user's token was revoked")
	}
	if _, ok := m.tokens[mine.ID]; ok {
		t.Error("token not revoked")
	}
}

func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	get, rotate := getWebhookSecret(m, clock), rotateWebhookSecret(m, clock)
	want(t, serve(get, user("free"), request{}), http.StatusForbidden,
		"Webhooks are available on the starter plan and above; your plan is free")

	alice := user("starter")
	first := decode[map[string]any](t, serve(get, alice, request{}))
	again := decode[map[string]any](t, serve(get, alice, request{}))
	if first["secret"] == "" || first["secret"] != again["secret"] || first["created_at"] != "2026-03-04T05:06:07Z" {
		t.Errorf("the secret is made once: %v then %v", first, again)
	}
	w := serve(rotate, alice, request{method: http.MethodPost})
	want(t, w, http.StatusOK, "")
	if got := decode[map[string]any](t, w); got["secret"] == first["secret"] || got["secret"] != m.secrets[alice.User.ID].Secret {
		t.Errorf("rotation answered %v, stored %v", got, m.secrets[alice.User.ID])
	}
	m.rotated = true
	want(t, serve(rotate, alice, request{method: http.MethodPost}), http.StatusConflict,
		"The webhook secret was rotated by a concurrent request; read it with GET /api/webhook-secret")
}

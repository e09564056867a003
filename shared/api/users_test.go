package api

import (
	"net/http"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

func TestMe(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	m.credits = store.Credits{Used: 120, Reserved: 30}
	w := serve(me(m, clock), user("starter"), request{})
	want(t, w, http.StatusOK, "")
	got := decode[map[string]any](t, w)
	c, _ := got["credits"].(map[string]any)
	if c["used"] != 120.0 || c["reserved"] != 30.0 || c["allowance"] != 20000.0 || c["renews_at"] != "2026-04-01T00:00:00Z" {
		t.Errorf("credits = %v", c)
	}
	w = serve(me(m, clock), user("enterprise"), request{})
	if c, _ := decode[map[string]any](t, w)["credits"].(map[string]any); c["allowance"] != nil {
		t.Errorf("an unlimited plan's allowance = %v, want null", c["allowance"])
	}
}

// admin is an admin signed in with a browser session.
func admin() auth.Principal {
	p := user("enterprise")
	p.User.IsAdmin = true
	return p
}

func TestAdminCreateUser(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	create := adminOnly(adminCreateUser(m, clock))

	want(t, serve(create, user("enterprise"), request{method: http.MethodPost, body: `{}`}), http.StatusForbidden, "Admin privileges required")
	w := serve(create, admin(), request{method: http.MethodPost, body: `{"email":"Dev@Example.com","plan":"pro","is_admin":false}`})
	want(t, w, http.StatusCreated, "")
	got := decode[map[string]any](t, w)
	if got["email"] != "dev@example.com" || got["plan"] != "pro" || got["token"] == nil || len(m.tokens) != 1 {
		t.Errorf("user = %v; tokens %d", got, len(m.tokens))
	}
	// An admin's only credential is its own sign-in: no token.
	w = serve(create, admin(), request{method: http.MethodPost, body: `{"email":"root@example.com","plan":"free","is_admin":true}`})
	want(t, w, http.StatusCreated, "")
	if got := decode[map[string]any](t, w); got["token"] != nil || len(m.tokens) != 1 {
		t.Errorf("an admin got a token: %v", got)
	}
	want(t, serve(create, admin(), request{method: http.MethodPost, body: `{"email":"dev@example.com","plan":"pro","is_admin":false}`}),
		http.StatusConflict, "A user with email dev@example.com already exists ("+got["id"].(string)+")")
	for _, tc := range []struct{ body, detail string }{
		{`{"plan":"pro","is_admin":false}`, "email: is required"},
		{`{"email":"a@example.com","is_admin":false}`, "plan: is required (free, starter, pro or enterprise)"},
		{`{"email":"a@example.com","plan":"gold","is_admin":false}`, "plan: must be one of free, starter, pro, enterprise"},
		{`{"email":"a@example.com","plan":"pro"}`, "is_admin: is required (true or false)"},
	} {
		want(t, serve(create, admin(), request{method: http.MethodPost, body: tc.body}), http.StatusUnprocessableEntity, tc.detail)
	}
}

func TestAdminUpdateUser(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	u := store.User{ID: ids.New(ids.User, clockNow), Email: "a@example.com", Plan: "free"}
	m.users[u.ID] = u
	update := adminOnly(adminUpdateUser(m))

	w := serve(update, admin(), request{method: http.MethodPatch, path: map[string]string{"id": u.ID}, body: `{"plan":"pro"}`})
	want(t, w, http.StatusOK, "")
	if got := decode[map[string]any](t, w); got["plan"] != "pro" || got["is_admin"] != false {
		t.Errorf("user = %v", got)
	}
	missing := ids.New(ids.User, clockNow)
	want(t, serve(update, admin(), request{method: http.MethodPatch, path: map[string]string{"id": missing}, body: `{"plan":"pro"}`}),
		http.StatusNotFound, "User "+missing+" not found")
	want(t, serve(update, admin(), request{method: http.MethodPatch, path: map[string]string{"id": u.ID}, body: `{}`}),
		http.StatusUnprocessableEntity, "plan: give plan and/or is_admin to change")
}

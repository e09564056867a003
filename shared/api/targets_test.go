package api

import (
	"net/http"
	"slices"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

func TestCreateTarget(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("free"), user("free")
	create := createTarget(m, clock)

	w := serve(create, alice, request{method: http.MethodPost, body: `{"target":"Example.COM.","method":"dns_txt"}`})
	want(t, w, http.StatusCreated, "")
	got := decode[map[string]any](t, w)
	id, _ := got["id"].(string)
	if !ids.Valid(ids.Target, id) || got["target"] != "example.com" || got["verified"] != false ||
		got["verification_token"] == "" || got["verified_at"] != nil || got["created_at"] != "2026-03-04T05:06:07Z" {
		t.Errorf("target = %v", got)
	}
	if loc := w.Header().Get("Location"); loc != "/api/targets/"+id {
		t.Errorf("Location %q", loc)
	}

	// The same domain again is the 409 naming the target that holds it;
	// another user may register it.
	want(t, serve(create, alice, request{method: http.MethodPost, body: `{"target":"example.com","method":"http_file"}`}),
		http.StatusConflict, "Target example.com is already registered as "+id)
	want(t, serve(create, bob, request{method: http.MethodPost, body: `{"target":"example.com","method":"http_file"}`}),
		http.StatusCreated, "")

	for _, tc := range []struct{ body, detail string }{
		{`{"method":"dns_txt"}`, "target: is required"},
		{`{"target":"example.com"}`, "method: is required (dns_txt or http_file)"},
		{`{"target":"example.com","method":"email"}`, "method: must be dns_txt or http_file"},
		{`{"target":"example.com","method":"dns_txt","extra":1}`, "extra: unknown field"},
	} {
		want(t, serve(create, alice, request{method: http.MethodPost, body: tc.body}), http.StatusUnprocessableEntity, tc.detail)
	}
	want(t, serve(create, alice, request{method: http.MethodPost, body: `[]`}), http.StatusBadRequest, "Request body must be a JSON object")
}

// target adds a target of owner for domain to m.
func target(m *memStore, owner, domain string, verified bool) store.Target {
	t := store.Target{ID: ids.New(ids.Target, clockNow), UserID: owner, Domain: domain, Method: "dns_txt",
		VerificationToken: "tok", Verified: verified, CreatedAt: clockNow}
	m.targets[t.ID] = t
	return t
}

// tenants is two users of one plan, each with a verified target: alice's
// a.example (mine) and another user's b.example (theirs).
type tenants struct {
	alice        auth.Principal
	mine, theirs store.Target
}

func twoTenants(m *memStore, plan string) tenants {
	alice, bob := user(plan), user(plan)
	return tenants{alice: alice, mine: target(m, alice.User.ID, "a.example", true), theirs: target(m, bob.User.ID, "b.example", true)}
}

func TestListTargetsIsTheCallers(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("free"), user("free")
	mine := target(m, alice.User.ID, "a.example", false)
	target(m, bob.User.ID, "b.example", false)
	w := serve(listTargets(m), alice, request{})
	want(t, w, http.StatusOK, "")
	got := decode[[]map[string]any](t, w)
	if len(got) != 1 || got[0]["id"] != mine.ID || got[0]["instructions"] == "" {
		t.Errorf("alice's targets = %v", got)
	}
}

func TestVerifyTarget(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("free"), user("free")
	ok := target(m, alice.User.ID, "ok.example", false)
	failing := target(m, alice.User.ID, "nope.example", false)
	theirs := target(m, bob.User.ID, "ok.example", false)
	verify := verifyTarget(m, challenges{pass: map[string]bool{"ok.example": true}}, clock)

	w := serve(verify, alice, request{method: http.MethodPost, path: map[string]string{"id": ok.ID}})
	want(t, w, http.StatusOK, "")
	if got := decode[map[string]any](t, w); got["verified"] != true || got["verified_at"] != "2026-03-04T05:06:07Z" {
		t.Errorf("verified target = %v", got)
	}
	want(t, serve(verify, alice, request{method: http.MethodPost, path: map[string]string{"id": failing.ID}}),
		http.StatusBadRequest, "Verification of nope.example failed: TXT record not found")
	if m.targets[failing.ID].Verified {
		t.Error("a failed challenge verified the target")
	}
	want(t, serve(verify, alice, request{method: http.MethodPost, path: map[string]string{"id": theirs.ID}}),
		http.StatusNotFound, "Target "+theirs.ID+" not found")
	if m.targets[theirs.ID].Verified {
		t.Error("another user's target was verified")
	}
}

func TestDeleteTargetRemovesItsSchedulesFirst(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	ten := twoTenants(m, "pro")
	alice, tgt, theirs := ten.alice, ten.mine, ten.theirs
	sch := store.Schedule{ID: ids.New(ids.Schedule, clockNow), UserID: alice.User.ID, TargetID: tgt.ID}
	m.schedules[sch.ID] = sch
	svc := &deployed{}
	del := deleteTarget(m, func() ScheduleService { return svc })

	want(t, serve(del, alice, request{method: http.MethodDelete, path: map[string]string{"id": theirs.ID}}),
		http.StatusNotFound, "Target "+theirs.ID+" not found")
	if _, ok := m.targets[theirs.ID]; !ok {
		t.Fatal("another user's target was deleted")
	}
	w := serve(del, alice, request{method: http.MethodDelete, path: map[string]string{"id": tgt.ID}})
	want(t, w, http.StatusNoContent, "")
	if w.Body.Len() != 0 {
		t.Errorf("204 with a body: %s", w.Body)
	}
	if _, ok := m.targets[tgt.ID]; ok {
		t.Error("target kept")
	}
	if _, ok := m.schedules[sch.ID]; ok || !slices.Equal(svc.deleted, []string{sch.ID}) {
		t.Errorf("schedule record kept or not undeployed: deployed deletions %v", svc.deleted)
	}
	// Locally there is no deployed schedule to delete (nil service).
	tgt2 := target(m, alice.User.ID, "c.example", true)
	want(t, serve(deleteTarget(m, func() ScheduleService { return nil }), alice, request{method: http.MethodDelete, path: map[string]string{"id": tgt2.ID}}),
		http.StatusNoContent, "")
}

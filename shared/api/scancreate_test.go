package api

import (
	"errors"
	"net/http"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// creationRig is POST /api/scans on fakes: alice has a verified and an
// unverified target; bob has one of his own.
type creationRig struct {
	m        *memStore
	limiter  *window
	starter  *machine
	create   AuthedHandler
	verified store.Target
	pending  store.Target
	bobs     store.Target
}

func newCreationRig(alice, bob string) *creationRig {
	rig := &creationRig{m: newMemStore(), limiter: &window{limit: 3}, starter: &machine{}}
	rig.verified = target(rig.m, alice, "ok.example", true)
	rig.pending = target(rig.m, alice, "pending.example", false)
	rig.bobs = target(rig.m, bob, "bob.example", true)
	rig.create = createScan(scanCreation{store: rig.m, limiter: rig.limiter, starter: rig.starter, now: clock})
	return rig
}

func post(body string) request { return request{method: http.MethodPost, body: body} }

func TestCreateScan(t *testing.T) {
	t.Parallel()
	alice, bob := user("starter"), user("pro")
	rig := newCreationRig(alice.User.ID, bob.User.ID)

	w := serve(rig.create, alice, post(`{"target":"OK.example","scan_type":"web","tier":"standard","max_credits":9999}`))
	want(t, w, http.StatusAccepted, "")
	got := decode[map[string]any](t, w)
	id, _ := got["id"].(string)
	if !ids.Valid(ids.Scan, id) || got["status"] != "queued" || got["target_id"] != rig.verified.ID ||
		got["max_credits"] != float64(plans.CreditCeiling[plans.Standard]) || got["callback_url"] != nil || got["current_step"] != nil || got["risk_rating"] != nil {
		t.Errorf("scan = %v (max_credits is capped at the tier's ceiling)", got)
	}
	if w.Header().Get("Location") != "/api/scans/"+id || len(rig.starter.started) != 1 || rig.starter.started[0] != id {
		t.Errorf("Location %q; executions started %v", w.Header().Get("Location"), rig.starter.started)
	}

	// Another user's target is as unknown as a missing one; an unverified
	// one says how to verify it. Neither counts toward the hourly limit.
	for _, tc := range []struct{ body, detail string }{
		{`{"target":"` + rig.bobs.ID + `","scan_type":"web","tier":"quick"}`, "Target " + rig.bobs.ID + " is not registered"},
		{`{"target":"bob.example","scan_type":"web","tier":"quick"}`, "Target bob.example is not registered"},
		{`{"target":"pending.example","scan_type":"web","tier":"quick"}`, "Target pending.example is not verified; complete its dns_txt challenge and call POST /api/targets/" + rig.pending.ID + "/verify"},
		{`{"scan_type":"web","tier":"quick"}`, "target: is required"},
		{`{"target":"ok.example","tier":"quick"}`, "scan_type: is required (one of full, network, web, vuln, ssl, code)"},
		{`{"target":"ok.example","scan_type":"web","tier":"huge"}`, "tier: must be one of quick, standard, deep"},
		{`{"target":"ok.example","scan_type":"full","tier":"quick"}`, "tier: a full scan needs tier standard or deep"},
		{`{"target":"ok.example","scan_type":"web","tier":"quick","max_credits":0}`, "max_credits: must be a positive integer"},
		{`{"target":"ok.example","scan_type":"web","tier":"quick","options":[1]}`, "options: must be a JSON object"},
		{`{"target":"ok.example","scan_type":"web","tier":"quick","callback_url":"http://hooks.example/x"}`, "callback_url: must use https"},
		{`{"target":"ok.example","scan_type":"web","tier":"quick","callback_url":"https://10.0.0.1/x"}`, ""},
	} {
		want(t, serve(rig.create, alice, post(tc.body)), http.StatusUnprocessableEntity, tc.detail)
	}
	if rig.limiter.used != 1 {
		t.Errorf("refused creations took %d slots of the hourly limit", rig.limiter.used-1)
	}

	// The plan decides the tier (403); the free plan's callback_url is
	// ignored, not even checked.
	want(t, serve(rig.create, user("free"), post(`{"target":"ok.example","scan_type":"web","tier":"deep"}`)),
		http.StatusForbidden, "Tier deep is not available on the free plan; it needs the pro plan or higher")
	free := user("free")
	free.User.ID = alice.User.ID
	w = serve(rig.create, free, post(`{"target":"ok.example","scan_type":"web","tier":"quick","callback_url":"ftp://x"}`))
	want(t, w, http.StatusAccepted, "")
	if got := decode[map[string]any](t, w); got["callback_url"] != nil {
		t.Errorf("a free plan's callback_url was kept: %v", got["callback_url"])
	}
}

func TestCreateScanLimitsAndFailures(t *testing.T) {
	t.Parallel()
	alice := user("pro")
	rig := newCreationRig(alice.User.ID, user("pro").User.ID)
	body := `{"target":"ok.example","scan_type":"ssl","tier":"quick"}`

	// An Idempotency-Key replay answers the same scan and is no creation.
	keyed := post(body)
	first := serve(rig.create, alice, keyed)
	want(t, first, http.StatusAccepted, "")
	r := serve(idempotent(rig.create, "k1"), alice, keyed)
	want(t, r, http.StatusAccepted, "")
	r2 := serve(idempotent(rig.create, "k1"), alice, keyed)
	if decode[map[string]any](t, r)["id"] != decode[map[string]any](t, r2)["id"] || rig.limiter.used != 2 {
		t.Errorf("a replay made another scan or kept its slot: %d slots used", rig.limiter.used)
	}

	// The month's allowance: 403, and the slot is given back.
	rig.m.exhausted = &store.AllowanceError{Month: "2026-03", Used: 100000, Allowance: 100000}
	want(t, serve(rig.create, alice, post(body)), http.StatusForbidden,
		"Monthly credit allowance exhausted: 100000 of 100000 credits used; it renews on 2026-04-01")
	if rig.limiter.used != 2 {
		t.Errorf("an exhausted allowance kept its slot: %d used", rig.limiter.used)
	}
	rig.m.exhausted = nil

	// The state machine down: 503, the scan failed (never left queued), its
	// key and slot freed.
	rig.starter.fail = errors.New("throttled")
	w := serve(idempotent(rig.create, "k2"), alice, post(body))
	want(t, w, http.StatusServiceUnavailable, "The scan service is unavailable; retry shortly")
	if w.Header().Get("Retry-After") == "" || len(rig.m.released) != 1 || rig.limiter.used != 2 {
		t.Errorf("Retry-After %q; keys released %v; slots used %d", w.Header().Get("Retry-After"), rig.m.released, rig.limiter.used)
	}
	for _, sc := range rig.m.scans {
		if sc.Status == scans.Queued && sc.ID != decode[map[string]any](t, first)["id"] && sc.ID != decode[map[string]any](t, r)["id"] {
			t.Errorf("scan %s left queued", sc.ID)
		}
	}
	rig.starter.fail = nil

	// The hourly limit: 429 with Retry-After.
	want(t, serve(rig.create, alice, post(body)), http.StatusAccepted, "")
	w = serve(rig.create, alice, post(body))
	want(t, w, http.StatusTooManyRequests, "Rate limit exceeded: 20 scans per hour")
	if w.Header().Get("Retry-After") != "90" {
		t.Errorf("Retry-After %q, want 90", w.Header().Get("Retry-After"))
	}
}

// idempotent sends h's requests with an Idempotency-Key.
func idempotent(h AuthedHandler, key string) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		r.Header.Set("Idempotency-Key", key)
		return h(w, r, p)
	}
}

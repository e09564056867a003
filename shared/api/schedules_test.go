package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/schedules"
	"secscan/shared/store"
)

// scheduleRig is the schedule endpoints on fakes: alice (starter) has a
// verified target, bob (pro) one of his own; svc is the deployed schedules.
type scheduleRig struct {
	m          *memStore
	svc        *deployed
	alice, bob store.User
	aliceT     store.Target
	bobT       store.Target
}

func newScheduleRig() *scheduleRig {
	rig := &scheduleRig{m: newMemStore(), svc: &deployed{}, alice: user("starter").User, bob: user("pro").User}
	rig.aliceT = target(rig.m, rig.alice.ID, "ok.example", true)
	rig.bobT = target(rig.m, rig.bob.ID, "bob.example", true)
	rig.m.users[rig.alice.ID], rig.m.users[rig.bob.ID] = rig.alice, rig.bob
	return rig
}

// services is the rig's ScheduleService as the endpoints ask for it.
func (rig *scheduleRig) services() ScheduleService { return rig.svc }

// creation is the create endpoint on the rig, alice and a valid weekly
// schedule's body.
func (rig *scheduleRig) creation() (AuthedHandler, auth.Principal, string) {
	return createSchedule(rig.m, CallbackPolicy{}, rig.services, clock), principal(rig.alice),
		`{"target":"ok.example","scan_type":"web","tier":"quick","cadence":"weekly"}`
}

// at is a request on the schedule of the path id.
func at(method, id, body string) request {
	return request{method: method, body: body, path: map[string]string{"id": id}}
}

func TestCreateSchedule(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	create, alice, body := rig.creation()

	w := serve(create, alice, post(body))
	want(t, w, http.StatusCreated, "")
	got := decode[map[string]any](t, w)
	id, _ := got["id"].(string)
	next := schedules.Next(plans.Weekly, clockNow, clockNow)
	if !ids.Valid(ids.Schedule, id) || got["target_id"] != rig.aliceT.ID || got["enabled"] != true ||
		got["next_run_at"] != timestamp(next) || got["max_credits"] != float64(plans.CreditCeiling[plans.Quick]) {
		t.Errorf("schedule = %v", got)
	}
	if w.Header().Get("Location") != "/api/schedules/"+id || len(rig.svc.put) != 1 || rig.svc.put[0].ID != id {
		t.Errorf("Location %q; deployed %v", w.Header().Get("Location"), rig.svc.put)
	}

	// The body, the plan and the target, each refused before anything is written.
	for _, tc := range []struct {
		plan, body, detail string
		status             int
	}{
		{"starter", `{"target":"ok.example","scan_type":"web","tier":"quick"}`, "cadence: is required (daily, weekly or monthly)", 422},
		{"starter", `{"target":"ok.example","scan_type":"web","tier":"quick","cadence":"hourly"}`, "cadence: must be one of daily, weekly, monthly", 422},
		{"starter", `{"target":"ok.example","scan_type":"web","cadence":"weekly"}`, "tier: is required (quick, standard or deep)", 422},
		{"starter", `{"target":"` + rig.bobT.ID + `","scan_type":"web","tier":"quick","cadence":"weekly"}`, "Target " + rig.bobT.ID + " is not registered", 422},
		{"free", body, "Schedules are not available on the free plan; they need the starter plan or higher", 403},
		{"starter", `{"target":"ok.example","scan_type":"web","tier":"quick","cadence":"daily"}`, "Cadence daily is not available on the starter plan; it needs the pro plan or higher", 403},
	} {
		p := alice
		p.User.Plan = tc.plan
		want(t, serve(create, p, post(tc.body)), tc.status, tc.detail)
	}
	if len(rig.m.schedules) != 1 || len(rig.svc.put) != 1 {
		t.Errorf("refused creations wrote %d records, %d deployed schedules", len(rig.m.schedules)-1, len(rig.svc.put)-1)
	}

	// The plan's count: starter holds 3.
	for range 2 {
		want(t, serve(create, alice, post(body)), http.StatusCreated, "")
	}
	want(t, serve(create, alice, post(body)), http.StatusForbidden, "The starter plan allows 3 schedules; 4 need the pro plan or higher")
}

func TestCreateScheduleDependencies(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	create, alice, body := rig.creation()

	// The scheduler down: 503, and no record is written.
	rig.svc.fail = errors.New("throttled")
	want(t, serve(create, alice, post(body)), http.StatusServiceUnavailable, "The scheduler is unavailable; retry shortly")
	rig.svc.fail = nil

	// The record cannot be written: 503, and the deployed schedule goes again.
	rig.m.down["CreateSchedule"] = dbDown
	want(t, serve(create, alice, post(body)), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
	if len(rig.m.schedules) != 0 || len(rig.svc.put) != 1 || !slices.Equal(rig.svc.deleted, []string{rig.svc.put[0].ID}) {
		t.Errorf("records %v; deployed %v, deleted again %v", rig.m.schedules, rig.svc.put, rig.svc.deleted)
	}
	delete(rig.m.down, "CreateSchedule")

	// Locally there is no deployed schedule (nil service).
	local := createSchedule(rig.m, CallbackPolicy{}, func() ScheduleService { return nil }, clock)
	want(t, serve(local, alice, post(body)), http.StatusCreated, "")
}

func TestListAndGetSchedules(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	theirs := schedule(rig.m, rig.bob.ID, rig.bobT)
	alice := principal(rig.alice)

	w := serve(listSchedules(rig.m), alice, request{})
	want(t, w, http.StatusOK, "")
	if got := decode[[]map[string]any](t, w); len(got) != 1 || got[0]["id"] != mine.ID || got[0]["callback_url"] != nil {
		t.Errorf("alice's schedules = %v", got)
	}
	want(t, serve(listSchedules(rig.m), alice, request{target: "/?limit=0"}), http.StatusUnprocessableEntity, "limit: must be an integer from 1 to 200")

	get := getSchedule(rig.m)
	want(t, serve(get, alice, at(http.MethodGet, mine.ID, "")), http.StatusOK, "")
	want(t, serve(get, alice, at(http.MethodGet, theirs.ID, "")), http.StatusNotFound, "Schedule "+theirs.ID+" not found")
	want(t, serve(get, alice, at(http.MethodGet, "sch_x", "")), http.StatusNotFound, `Schedule "sch_x" not found`)
	rig.m.down["GetSchedule"] = dbDown
	want(t, serve(get, alice, at(http.MethodGet, mine.ID, "")), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
}

func TestUpdateSchedule(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	theirs := schedule(rig.m, rig.bob.ID, rig.bobT)
	alice := principal(rig.alice)
	update := updateSchedule(rig.m, CallbackPolicy{}, rig.services, clock)

	// A new cadence re-anchors the grid at now; the deployed schedule follows.
	w := serve(update, alice, at(http.MethodPatch, mine.ID, `{"cadence":"monthly","enabled":false,"callback_url":"https://hooks.example/x"}`))
	want(t, w, http.StatusOK, "")
	got := rig.m.schedules[mine.ID]
	if got.Cadence != "monthly" || got.Enabled || got.CallbackURL != "https://hooks.example/x" ||
		got.NextRunAt != schedules.Next(plans.Monthly, clockNow, clockNow).Unix() || len(rig.svc.put) != 1 {
		t.Errorf("updated schedule %+v; deployed %v", got, rig.svc.put)
	}
	if body := decode[map[string]any](t, w); body["next_run_at"] != nil {
		t.Errorf("a disabled schedule has a next run: %v", body["next_run_at"])
	}
	// callback_url null removes it.
	want(t, serve(update, alice, at(http.MethodPatch, mine.ID, `{"callback_url":null}`)), http.StatusOK, "")
	if rig.m.schedules[mine.ID].CallbackURL != "" {
		t.Error("callback_url null kept the URL")
	}

	for _, tc := range []struct {
		id, body, detail string
		status           int
	}{
		{theirs.ID, `{"enabled":false}`, "Schedule " + theirs.ID + " not found", 404},
		{mine.ID, `{"callback_url":7}`, "callback_url: must be a string or null", 422},
		{mine.ID, `{"tier":"huge"}`, "tier: must be one of quick, standard, deep", 422},
		{mine.ID, `{"cadence":"daily"}`, "Cadence daily is not available on the starter plan; it needs the pro plan or higher", 403},
		{mine.ID, `{"tier":"deep"}`, "Tier deep is not available on the starter plan; it needs the pro plan or higher", 403},
	} {
		want(t, serve(update, alice, at(http.MethodPatch, tc.id, tc.body)), tc.status, tc.detail)
	}
	if rig.m.schedules[theirs.ID].Enabled != true {
		t.Error("another user's schedule was changed")
	}
}

// A run that writes between a PATCH's read and its write is kept: the
// PATCH is applied again to a fresh read (once), and a record that keeps
// changing is the 409 of a conflict.
func TestUpdateScheduleRacingARun(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	alice := principal(rig.alice)
	update := updateSchedule(rig.m, CallbackPolicy{}, rig.services, clock)
	run := func(scanID string) func() {
		return func() {
			if _, err := rig.m.RecordScheduleRun(context.Background(), rig.alice.ID, mine.ID, scanID, "", clockNow); err != nil {
				t.Error(err)
			}
		}
	}
	rig.m.meanwhile = []func(){run("scn_RUN1")}
	w := serve(update, alice, at(http.MethodPatch, mine.ID, `{"tier":"standard"}`))
	want(t, w, http.StatusOK, "")
	if got := rig.m.schedules[mine.ID]; got.Tier != "standard" || got.LastScanID != "scn_RUN1" {
		t.Errorf("after a PATCH that raced a run: %+v", got)
	}
	if body := decode[map[string]any](t, w); body["last_scan_id"] != "scn_RUN1" || body["tier"] != "standard" {
		t.Errorf("answer %v, want the run's scan and the new tier", body)
	}
	rig.m.meanwhile = []func(){run("scn_RUN2"), run("scn_RUN3")}
	want(t, serve(update, alice, at(http.MethodPatch, mine.ID, `{"tier":"quick"}`)), http.StatusConflict, store.ScheduleChanged)
	if got := rig.m.schedules[mine.ID]; got.Tier != "standard" || got.LastScanID != "scn_RUN3" {
		t.Errorf("after a refused PATCH: %+v", got)
	}
}

func TestUpdateScheduleDependencies(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	alice := principal(rig.alice)
	update := updateSchedule(rig.m, CallbackPolicy{}, rig.services, clock)
	patch := at(http.MethodPatch, mine.ID, `{"enabled":false}`)

	// The record cannot be written: 503, and the old deployed schedule is put back.
	rig.m.down["UpdateSchedule"] = dbDown
	want(t, serve(update, alice, patch), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
	if len(rig.svc.put) != 2 || rig.svc.put[1] != mine || !rig.m.schedules[mine.ID].Enabled {
		t.Errorf("deployed %v after a failed write (want the change, then the old one back)", rig.svc.put)
	}
	// Deleted meanwhile: its 404, and the deployed schedule goes too.
	rig.m.down["UpdateSchedule"] = &store.NotFoundError{Kind: "schedule", ID: mine.ID}
	want(t, serve(update, alice, patch), http.StatusNotFound, "Schedule "+mine.ID+" not found")
	if !slices.Equal(rig.svc.deleted, []string{mine.ID}) {
		t.Errorf("deployed schedules deleted: %v", rig.svc.deleted)
	}
	delete(rig.m.down, "UpdateSchedule")
	rig.svc.fail = errors.New("throttled")
	want(t, serve(update, alice, patch), http.StatusServiceUnavailable, "The scheduler is unavailable; retry shortly")
}

func TestDeleteSchedule(t *testing.T) {
	t.Parallel()
	rig := newScheduleRig()
	mine := schedule(rig.m, rig.alice.ID, rig.aliceT)
	theirs := schedule(rig.m, rig.bob.ID, rig.bobT)
	alice := principal(rig.alice)
	del := deleteSchedule(rig.m, rig.services)

	want(t, serve(del, alice, at(http.MethodDelete, theirs.ID, "")), http.StatusNotFound, "Schedule "+theirs.ID+" not found")
	rig.svc.fail = errors.New("throttled")
	want(t, serve(del, alice, at(http.MethodDelete, mine.ID, "")), http.StatusServiceUnavailable, "The scheduler is unavailable; retry shortly")
	if _, ok := rig.m.schedules[mine.ID]; !ok {
		t.Fatal("the record went although its deployed schedule stayed")
	}
	rig.svc.fail = nil
	w := serve(del, alice, at(http.MethodDelete, mine.ID, ""))
	want(t, w, http.StatusNoContent, "")
	if _, ok := rig.m.schedules[mine.ID]; ok || !slices.Equal(rig.svc.deleted, []string{mine.ID}) || len(rig.m.schedules) != 1 {
		t.Errorf("records %v; deployed deleted %v", rig.m.schedules, rig.svc.deleted)
	}
}

// principal is u signed in with a browser session.
func principal(u store.User) auth.Principal { return auth.Principal{User: u, Via: auth.ViaSession} }

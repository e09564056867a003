package api

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// retestRig is the retest endpoints on fakes: alice's completed scan of
// her verified target has the issue tls_weak, found by one tls_check call.
type retestRig struct {
	m        *memStore
	limiter  *window
	launcher *launcher
	create   AuthedHandler
	scan     scans.Scan
}

func newRetestRig(alice string) *retestRig {
	rig := &retestRig{m: newMemStore(), limiter: &window{limit: 3}, launcher: &launcher{}}
	tgt := target(rig.m, alice, "ok.example", true)
	rig.scan = scanOf(rig.m, alice, scans.Completed)
	rig.scan.TargetID, rig.scan.Target = tgt.ID, tgt.Domain
	rig.m.scans[rig.scan.ID] = rig.scan
	rig.m.findings[rig.scan.ID+"/tls_weak"] = []store.SourcedFinding{{Finding: scans.Finding{Issue: "tls_weak"}, Tool: "tls_check"}}
	rig.create = createRetest(rig.m, rig.limiter, func() RetestLauncher { return rig.launcher }, clock)
	return rig
}

// issue is a POST on the issue key of scan id.
func issue(id, key string) request {
	return request{method: http.MethodPost, path: map[string]string{"id": id, "key": key}}
}

// noReap is a reaper with nothing stale.
func noReap(_ context.Context, rt scans.Retest, _ time.Time) (scans.Retest, error) { return rt, nil }

func TestCreateRetest(t *testing.T) {
	t.Parallel()
	alice, bob := user("starter"), user("starter")
	rig := newRetestRig(alice.User.ID)

	w := serve(rig.create, alice, issue(rig.scan.ID, "tls_weak"))
	want(t, w, http.StatusAccepted, "")
	got := decode[map[string]any](t, w)
	id, _ := got["id"].(string)
	if !ids.Valid(ids.Retest, id) || got["status"] != "queued" || got["issue_key"] != "tls_weak" || got["scan_id"] != rig.scan.ID {
		t.Errorf("retest = %v", got)
	}
	if w.Header().Get("Location") != "/api/retests/"+id || rig.m.retests[id].Reserved != 5 ||
		len(rig.launcher.launched) != 1 || rig.launcher.launched[0].RetestID != id {
		t.Errorf("Location %q; reserved %d; launched %v", w.Header().Get("Location"), rig.m.retests[id].Reserved, rig.launcher.launched)
	}

	// The scan, its state, its target and the issue, each refused before
	// the hourly limit counts.
	running := scanOf(rig.m, alice.User.ID, scans.Running)
	for _, tc := range []struct {
		p       bool // bob asks
		id, key string
		status  int
		detail  string
	}{
		{true, rig.scan.ID, "tls_weak", 404, "Scan " + rig.scan.ID + " not found"},
		{false, rig.scan.ID, "nope", 404, `Issue "nope" not found in scan ` + rig.scan.ID},
		{false, rig.scan.ID, "a/b", 404, `Issue "a/b" not found`},
		{false, running.ID, "tls_weak", 409, "Scan " + running.ID + " is running; only a completed scan's issues can be retested"},
	} {
		p := alice
		if tc.p {
			p = bob
		}
		want(t, serve(rig.create, p, issue(tc.id, tc.key)), tc.status, tc.detail)
	}

	// The target lost its verification, or was deleted.
	tgt := rig.m.targets[rig.scan.TargetID]
	tgt.Verified, tgt.VerificationError = false, "TXT record not found"
	rig.m.targets[tgt.ID] = tgt
	want(t, serve(rig.create, alice, issue(rig.scan.ID, "tls_weak")), http.StatusConflict,
		"Target ok.example is no longer verified (its ownership could not be re-verified: TXT record not found); verify it again before retesting")
	delete(rig.m.targets, tgt.ID)
	want(t, serve(rig.create, alice, issue(rig.scan.ID, "tls_weak")), http.StatusConflict,
		"Target ok.example was deleted; its issues cannot be retested")
	if rig.limiter.used != 1 {
		t.Errorf("refused retests took %d slots", rig.limiter.used-1)
	}
}

func TestCreateRetestLimitsAndFailures(t *testing.T) {
	t.Parallel()
	alice := user("starter")
	rig := newRetestRig(alice.User.ID)
	post := issue(rig.scan.ID, "tls_weak")

	// The month's allowance: 403, and the slot is given back.
	rig.m.exhausted = &store.AllowanceError{Month: "2026-03", Used: 20000, Allowance: 20000}
	want(t, serve(rig.create, alice, post), http.StatusForbidden,
		"Monthly credit allowance exhausted: 20000 of 20000 credits used; it renews on 2026-04-01")
	rig.m.exhausted = nil

	// The launch fails: 503, the retest failed (nothing reserved stays), the slot given back.
	rig.launcher.fail = errors.New("throttled")
	want(t, serve(rig.create, alice, post), http.StatusServiceUnavailable, "The retest service is unavailable; retry shortly")
	if len(rig.m.retests) != 1 || rig.limiter.used != 0 {
		t.Fatalf("retests %v; slots used %d", rig.m.retests, rig.limiter.used)
	}
	for _, rt := range rig.m.retests {
		if rt.Status != scans.RetestFailed || rt.FinishedAt == nil {
			t.Errorf("an unlaunched retest is %s", rt.Status)
		}
	}
	rig.launcher.fail = nil

	// The store down: 503 before anything is written.
	rig.m.down["SourcedFindings"] = dbDown
	want(t, serve(rig.create, alice, post), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
	delete(rig.m.down, "SourcedFindings")

	// The hourly limit: 429 with Retry-After.
	for range 3 {
		want(t, serve(rig.create, alice, post), http.StatusAccepted, "")
	}
	w := serve(rig.create, alice, post)
	want(t, w, http.StatusTooManyRequests, "Rate limit exceeded: 60 retests per hour")
	if w.Header().Get("Retry-After") != "90" {
		t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
	}
}

// retestOf adds a retest of owner in status to m.
func retestOf(m *memStore, owner string, status scans.RetestStatus) scans.Retest {
	rt := scans.Retest{ID: ids.New(ids.Retest, clockNow), UserID: owner, ScanID: ids.New(ids.Scan, clockNow), IssueKey: "tls_weak",
		Status: status, Reserved: 5, CreatedAt: clockNow}
	m.retests[rt.ID] = rt
	return rt
}

func TestGetRetest(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("starter"), user("starter")
	mine := retestOf(m, alice.User.ID, scans.RetestRunning)
	theirs := retestOf(m, bob.User.ID, scans.RetestQueued)

	w := serve(getRetest(m, noReap, clock), alice, request{path: map[string]string{"id": mine.ID}})
	want(t, w, http.StatusOK, "")
	if got := decode[map[string]any](t, w); got["status"] != "running" || got["results"] == nil || got["finished_at"] != nil {
		t.Errorf("retest = %v", got)
	}
	want(t, serve(getRetest(m, noReap, clock), alice, request{path: map[string]string{"id": theirs.ID}}),
		http.StatusNotFound, "Retest "+theirs.ID+" not found")

	// A retest whose run was lost is answered as the reaper ended it.
	reaped := func(_ context.Context, rt scans.Retest, now time.Time) (scans.Retest, error) {
		rt.Status, rt.FinishedAt = scans.RetestFailed, &now
		return rt, nil
	}
	w = serve(getRetest(m, reaped, clock), alice, request{path: map[string]string{"id": mine.ID}})
	if got := decode[map[string]any](t, w); got["status"] != "failed" || got["finished_at"] != "2026-03-04T05:06:07Z" {
		t.Errorf("reaped retest = %v", got)
	}
	m.down["GetRetest"] = dbDown
	want(t, serve(getRetest(m, noReap, clock), alice, request{path: map[string]string{"id": mine.ID}}),
		http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
}

func TestCancelRetest(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("starter"), user("starter")
	cancel := cancelRetest(m, noReap, clock)
	del := func(id string) request { return request{method: http.MethodDelete, path: map[string]string{"id": id}} }

	// A queued retest ends at once, its reservation given back.
	queued := retestOf(m, alice.User.ID, scans.RetestQueued)
	w := serve(cancel, alice, del(queued.ID))
	want(t, w, http.StatusAccepted, "")
	if got := m.retests[queued.ID]; got.Status != scans.RetestFailed || got.Error != scans.RetestCancelled || got.CreditsUsed != 0 || got.FinishedAt == nil {
		t.Errorf("cancelled queued retest %+v", got)
	}
	// A running one gets its flag.
	running := retestOf(m, alice.User.ID, scans.RetestRunning)
	w = serve(cancel, alice, del(running.ID))
	want(t, w, http.StatusAccepted, "")
	if got := decode[map[string]any](t, w); got["cancel_requested"] != true || !m.retests[running.ID].CancelRequested {
		t.Errorf("cancelled running retest %v", got)
	}
	// An ended one, another user's, and a store that is down.
	want(t, serve(cancel, alice, del(queued.ID)), http.StatusConflict,
		"Retest "+queued.ID+" has already ended (failed); only a queued or running retest can be cancelled")
	theirs := retestOf(m, bob.User.ID, scans.RetestQueued)
	want(t, serve(cancel, alice, del(theirs.ID)), http.StatusNotFound, "Retest "+theirs.ID+" not found")
	if m.retests[theirs.ID].Status != scans.RetestQueued {
		t.Error("another user's retest was cancelled")
	}
	m.down["GetRetest"] = dbDown
	want(t, serve(cancel, alice, del(running.ID)), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
}

// A retest that moves on between the read and the write is read again: one
// that ended meanwhile is the 409.
func TestCancelRetestThatEndedMeanwhile(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice := user("starter")
	rt := retestOf(m, alice.User.ID, scans.RetestQueued)
	stale := func(_ context.Context, read scans.Retest, _ time.Time) (scans.Retest, error) {
		// The run starts and ends after the handler's read.
		ended := read
		ended.Status = scans.RetestCompleted
		m.retests[read.ID] = ended
		return read, nil
	}
	want(t, serve(cancelRetest(m, stale, clock), alice, request{method: http.MethodDelete, path: map[string]string{"id": rt.ID}}),
		http.StatusConflict, "Retest "+rt.ID+" has already ended (completed); only a queued or running retest can be cancelled")
}

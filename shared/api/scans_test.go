package api

import (
	"net/http"
	"testing"

	"secscan/shared/ids"
	"secscan/shared/scans"
)

// scanOf adds a scan of owner in status to m.
func scanOf(m *memStore, owner string, status scans.Status) scans.Scan {
	s := scans.Scan{ID: ids.New(ids.Scan, clockNow), UserID: owner, Target: "example.com", TargetID: ids.New(ids.Target, clockNow),
		Type: scans.Full, Tier: "standard", Status: status, MaxCredits: 20, CreatedAt: clockNow}
	m.scans[s.ID] = s
	return s
}

func TestGetScan(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("pro"), user("pro")
	mine := scanOf(m, alice.User.ID, scans.Running)
	theirs := scanOf(m, bob.User.ID, scans.Completed)
	get := getScan(m)

	w := serve(get, alice, request{path: map[string]string{"id": mine.ID}})
	want(t, w, http.StatusOK, "")
	got := decode[map[string]any](t, w)
	if got["id"] != mine.ID || got["status"] != "running" || got["target"] != "example.com" {
		t.Errorf("scan = %v", got)
	}
	// The lists of the full record are arrays, never null.
	for _, k := range []string{"findings", "agent_steps", "issues", "fixed_issues", "webhook_deliveries"} {
		if _, ok := got[k].([]any); !ok {
			t.Errorf("%s = %#v, want an array", k, got[k])
		}
	}

	// Another user's scan is a 404 with the very body of a missing one.
	foreign := serve(get, alice, request{path: map[string]string{"id": theirs.ID}})
	want(t, foreign, http.StatusNotFound, "Scan "+theirs.ID+" not found")
	missingID := ids.New(ids.Scan, clockNow)
	missing := serve(get, alice, request{path: map[string]string{"id": missingID}})
	want(t, missing, http.StatusNotFound, "Scan "+missingID+" not found")

	// A malformed id names nothing: 404, quoted, without reaching the store.
	want(t, serve(get, alice, request{path: map[string]string{"id": "tgt_x"}}), http.StatusNotFound, `Scan "tgt_x" not found`)
}

func TestListScans(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("free"), user("free")
	scanOf(m, alice.User.ID, scans.Completed)
	scanOf(m, alice.User.ID, scans.Running)
	scanOf(m, bob.User.ID, scans.Completed)
	list := listScans(m)

	w := serve(list, alice, request{target: "/api/scans?status=completed&target=Example.COM."})
	want(t, w, http.StatusOK, "")
	got := decode[[]map[string]any](t, w)
	if len(got) != 1 || got[0]["status"] != "completed" {
		t.Errorf("completed scans of alice = %v", got)
	}
	if m.lastFilter.Target != "example.com" {
		t.Errorf("target filter %q, want the normalised domain", m.lastFilter.Target)
	}
	for _, tc := range []struct{ query, detail string }{
		{"status=done", "status: must be one of queued, running, completed, failed, cancelled"},
		{"limit=0", "limit: must be an integer from 1 to 200"},
		{"target=no_such..name", ""},
	} {
		w := serve(list, alice, request{target: "/api/scans?" + tc.query})
		want(t, w, http.StatusUnprocessableEntity, tc.detail)
	}
}

func TestCancelScan(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, bob := user("pro"), user("pro")
	queued := scanOf(m, alice.User.ID, scans.Queued)
	running := scanOf(m, alice.User.ID, scans.Running)
	ended := scanOf(m, alice.User.ID, scans.Completed)
	theirs := scanOf(m, bob.User.ID, scans.Running)
	cancel := cancelScan(m, clock)

	w := serve(cancel, alice, request{method: http.MethodDelete, path: map[string]string{"id": queued.ID}})
	want(t, w, http.StatusAccepted, "")
	if got := decode[map[string]any](t, w); got["status"] != "cancelled" || got["cancel_requested"] != true {
		t.Errorf("a queued scan is cancelled at once: %v", got)
	}
	w = serve(cancel, alice, request{method: http.MethodDelete, path: map[string]string{"id": running.ID}})
	want(t, w, http.StatusAccepted, "")
	if got := decode[map[string]any](t, w); got["status"] != "running" || got["cancel_requested"] != true {
		t.Errorf("a running scan keeps running with the flag set: %v", got)
	}
	want(t, serve(cancel, alice, request{method: http.MethodDelete, path: map[string]string{"id": ended.ID}}), http.StatusConflict,
		"Scan "+ended.ID+" has already ended (completed); only queued or running scans can be cancelled")
	want(t, serve(cancel, alice, request{method: http.MethodDelete, path: map[string]string{"id": theirs.ID}}), http.StatusNotFound,
		"Scan "+theirs.ID+" not found")
	if m.scans[theirs.ID].CancelRequested {
		t.Error("another user's scan was flagged")
	}
}

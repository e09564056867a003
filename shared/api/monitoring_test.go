package api

import (
	"net/http"
	"testing"

	"secscan/shared/auth"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// ledgerOf gives target id of m two issues, one open and one fixed.
func ledgerOf(m *memStore, targetID string) {
	m.ledgers[targetID] = map[string]scans.LedgerEntry{
		"tls_weak": {Key: "tls_weak", Check: "tls_weak", Title: "Weak TLS", Severity: scans.Medium, Status: scans.IssueOpen,
			FirstSeenAt: clockNow, LastSeenAt: clockNow, LastScanID: "scn_1"},
		"hsts_missing": {Key: "hsts_missing", Check: "hsts_missing", Title: "No HSTS", Severity: scans.Low, Status: scans.IssueFixed,
			FirstSeenAt: clockNow, LastSeenAt: clockNow, LastScanID: "scn_1", FixedAt: &clockNow},
	}
}

// ledgers is two users' targets (twoTenants), each with ledgerOf's issues.
func ledgers(m *memStore) (alice auth.Principal, mine, theirs store.Target) {
	ten := twoTenants(m, "pro")
	ledgerOf(m, ten.mine.ID)
	ledgerOf(m, ten.theirs.ID)
	return ten.alice, ten.mine, ten.theirs
}

func TestListTargetIssues(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, mine, theirs := ledgers(m)
	list := listTargetIssues(m, clock)

	w := serve(list, alice, request{target: "/?status=open", path: map[string]string{"id": mine.ID}})
	want(t, w, http.StatusOK, "")
	got := decode[[]map[string]any](t, w)
	if len(got) != 1 || got[0]["key"] != "tls_weak" || got[0]["triage"] != nil || got[0]["fixed_at"] != nil {
		t.Errorf("open issues = %v", got)
	}
	want(t, serve(list, alice, request{path: map[string]string{"id": theirs.ID}}), http.StatusNotFound, "Target "+theirs.ID+" not found")
	want(t, serve(list, alice, request{target: "/?status=closed", path: map[string]string{"id": mine.ID}}),
		http.StatusUnprocessableEntity, "status: must be open or fixed")
	want(t, serve(list, alice, request{target: "/?state=ignored", path: map[string]string{"id": mine.ID}}),
		http.StatusUnprocessableEntity, "state: must be open, accepted_risk or false_positive")
}

func TestPutTargetIssue(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	alice, mine, theirs := ledgers(m)
	put := putTargetIssue(m, clock)
	at := func(id, key string) map[string]string { return map[string]string{"id": id, "key": key} }

	w := serve(put, alice, request{method: http.MethodPut, path: at(mine.ID, "tls_weak"),
		body: `{"state":"accepted_risk","reason":"  behind a VPN ","expires_at":"2026-06-01T00:00:00Z"}`})
	want(t, w, http.StatusOK, "")
	got := decode[map[string]any](t, w)
	tr, _ := got["triage"].(map[string]any)
	if tr["state"] != "accepted_risk" || tr["reason"] != "behind a VPN" || tr["updated_by"] != alice.User.ID {
		t.Errorf("triage = %v", got["triage"])
	}

	// Another user's target: the same 404 as a missing one, and their
	// ledger untouched.
	want(t, serve(put, alice, request{method: http.MethodPut, path: at(theirs.ID, "tls_weak"), body: `{"state":"open"}`}),
		http.StatusNotFound, "Target "+theirs.ID+" not found")
	if m.ledgers[theirs.ID]["tls_weak"].Triage != nil {
		t.Error("another user's issue was triaged")
	}
	// An unknown key is the store's 404, quoted; a malformed one never reaches it.
	want(t, serve(put, alice, request{method: http.MethodPut, path: at(mine.ID, "nope"), body: `{"state":"open"}`}),
		http.StatusNotFound, `Issue "nope" not found`)
	want(t, serve(put, alice, request{method: http.MethodPut, path: at(mine.ID, "a#b"), body: `{"state":"open"}`}),
		http.StatusNotFound, `Issue "a#b" not found`)

	for _, tc := range []struct{ body, detail string }{
		{`{}`, "state: is required (open, accepted_risk or false_positive)"},
		{`{"state":"ignored"}`, "state: must be open, accepted_risk or false_positive"},
		{`{"state":"false_positive"}`, "reason: is required for false_positive"},
		{`{"state":"false_positive","reason":"   "}`, "reason: must not be empty"},
		{`{"state":"false_positive","reason":"a\u0007b"}`, "reason: must not contain control characters"},
		{`{"state":"false_positive","reason":"r","expires_at":"2026-06-01T00:00:00Z"}`, "expires_at: is allowed only with accepted_risk"},
		{`{"state":"accepted_risk","reason":"r","expires_at":"2026-01-01T00:00:00Z"}`, "expires_at: must be in the future"},
		{`{"state":"accepted_risk","reason":"r","expires_at":"tomorrow"}`, "expires_at: must be an RFC 3339 timestamp"},
	} {
		want(t, serve(put, alice, request{method: http.MethodPut, path: at(mine.ID, "tls_weak"), body: tc.body}),
			http.StatusUnprocessableEntity, tc.detail)
	}
}

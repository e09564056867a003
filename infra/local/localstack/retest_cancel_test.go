package localstack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/testseed"
	"secscan/shared/retest"
	"secscan/shared/store"
)

// heldLauncher accepts retests and never runs them: a run that was lost.
type heldLauncher struct{}

func (heldLauncher) LaunchRetest(context.Context, retest.Request) error { return nil }

// retestRecord is a retest as the API answers it, with the fields the
// cancellation and the reaper set.
type retestRecord struct {
	retestView
	CancelRequested bool    `json:"cancel_requested"`
	Error           *string `json:"error"`
}

// seedWebIssue records, directly in the store, a completed scan of domain
// (a target verified at verifiedAt) whose web.header.csp issue was found on
// each of hosts (on port) by its own http_check call, and returns the
// scan's id.
func (s *stack) seedWebIssue(a account, domain string, verifiedAt time.Time, port int, hosts ...string) string {
	s.t.Helper()
	id, err := testseed.NewWebIssue(context.Background(), s.api.Store, testseed.WebIssue{UserID: a.user.ID, Domain: domain,
		VerifiedAt: verifiedAt, Port: port, Hosts: hosts})
	if err != nil {
		s.t.Fatal(err)
	}
	return id
}

// awaitRetest polls the retest until it leaves queued and running, or ok.
func (s *stack) awaitRetest(a account, id string, ok func(retestRecord) bool) retestRecord {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := s.patient(http.MethodGet, "/api/retests/"+id, a.token, nil)
		v := decoded[retestRecord](s.t, r, http.StatusOK)
		if ok(v) || v.Status != "queued" && v.Status != "running" {
			return v
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("retest %s still %s", id, v.Status)
		}
		time.Sleep(250 * time.Millisecond) // well under the API's rate limit
	}
}

// postRetest asks for a retest of the scan's CSP issue: 202, queued.
func (s *stack) postRetest(a account, scanID string) retestRecord {
	s.t.Helper()
	r := s.patient(http.MethodPost, "/api/scans/"+scanID+"/issues/web.header.csp/retest", a.token, nil)
	return decoded[retestRecord](s.t, r, http.StatusAccepted)
}

// monthCredits is the month's counters of a's user.
func (s *stack) monthCredits(a account) store.Credits {
	s.t.Helper()
	c, err := s.api.Store.Credits(context.Background(), a.user.ID, store.CreditMonth(time.Now()))
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// DELETE /api/retests/{id} on a running retest: 202 with cancel_requested;
// the run reads the flag before each call and ends the retest failed with
// "Cancelled by the user" well within 30 s, the calls it did not make
// uncharged and their locations errors that say so; the month is charged
// exactly what the retest used and holds nothing reserved. Another user's
// retest is 404, an ended one 409.
func TestRetestCancelRunning(t *testing.T) {
	t.Parallel()
	slow, requests := slowSite(t) // every request of a call takes a while: the calls overlap the cancellation
	s := startStack(t, withWebPorts(portOf(t, slow.URL), closedPort(t)))
	owner, other := s.newAccount("starter", false), s.newAccount("starter", false)
	hosts := s.loopbackHosts("cancel.test", 8)
	scanID := s.seedWebIssue(owner, "cancel.test", time.Now().UTC(), portOf(t, slow.URL), hosts...)
	before := s.monthCredits(owner)

	v := s.postRetest(owner, scanID)
	// Running, with its first call under way (the runner marks the retest
	// running before it makes a call).
	if w := s.awaitRetest(owner, v.ID, func(v retestRecord) bool { return v.Status == "running" && requests.Load() > 0 }); w.Status != "running" {
		t.Fatalf("retest ended before it could be cancelled: %+v", w)
	}
	expect(t, s.call(http.MethodDelete, "/api/retests/"+v.ID, other.token, nil), http.StatusNotFound)
	asked := time.Now()
	r := s.call(http.MethodDelete, "/api/retests/"+v.ID, owner.token, nil)
	expect(t, r, http.StatusAccepted)
	r.json(t, &v)
	if v.Status != "running" || !v.CancelRequested {
		t.Fatalf("DELETE on a running retest answered %s", r.body)
	}
	v = s.awaitRetest(owner, v.ID, func(retestRecord) bool { return false })
	took := finishedAfter(t, v, asked)
	t.Logf("cancelled retest ended %v after DELETE: %d credits, results %+v", took, v.CreditsUsed, v.Results)
	if v.Status != "failed" || v.Error == nil || *v.Error != "Cancelled by the user" || took > 30*time.Second {
		t.Fatalf("cancelled retest: %s %v after %v", v.Status, v.Error, took)
	}
	wantCancelledCalls(t, v, len(hosts))
	if after := s.monthCredits(owner); after.Used != before.Used+v.CreditsUsed || after.Reserved != before.Reserved {
		t.Errorf("month credits %+v → %+v; the retest used %d", before, after, v.CreditsUsed)
	}
	r = s.call(http.MethodDelete, "/api/retests/"+v.ID, owner.token, nil)
	if r.status != http.StatusConflict || !strings.Contains(r.detail(t), "already ended") {
		t.Errorf("DELETE on an ended retest: %d %s", r.status, r.body)
	}
}

// wantCancelledCalls checks a retest cancelled while its first calls ran:
// some calls ran and are charged (5 credits each), the others did not run,
// are not charged, and their locations say so.
func wantCancelledCalls(t *testing.T, v retestRecord, locations int) {
	t.Helper()
	notRun := 0
	for _, res := range v.Results {
		if res.Outcome == "error" && strings.Contains(res.Detail, "cancelled before this call") {
			notRun++
		}
	}
	if len(v.Results) != locations || notRun == 0 || v.CreditsUsed != 5*(locations-notRun) || v.CreditsUsed == 0 {
		t.Errorf("%d results, %d not run, %d credits; want some calls not run and only the others charged (5 each)", len(v.Results), notRun, v.CreditsUsed)
	}
}

// A queued retest is cancelled at once (its run, when it comes, finds it
// ended and runs nothing) and a lost one — its run never came — is reaped
// when read 15 minutes after its creation; both give their whole
// reservation back.
func TestRetestCancelQueuedAndReap(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	s.dns.Add(t, "queued.test. 60 IN A 127.0.0.1")
	scanID := s.seedWebIssue(a, "queued.test", time.Now().UTC(), 80, "queued.test")
	before := s.monthCredits(a)
	s.api.Retests = heldLauncher{}

	v := s.postRetest(a, scanID)
	if held := s.monthCredits(a); held.Reserved != before.Reserved+5 {
		t.Fatalf("reserved %d → %d, want the call's 5", before.Reserved, held.Reserved)
	}
	r := s.call(http.MethodDelete, "/api/retests/"+v.ID, a.token, nil)
	expect(t, r, http.StatusAccepted)
	r.json(t, &v)
	if v.Status != "failed" || v.Error == nil || *v.Error != "Cancelled by the user" || v.FinishedAt == nil || v.CreditsUsed != 0 {
		t.Errorf("DELETE on a queued retest answered %s", r.body)
	}
	if after := s.monthCredits(a); after != before {
		t.Errorf("credits %+v → %+v after cancelling a queued retest", before, after)
	}

	lost := s.postRetest(a, scanID)
	s.api.Now = func() time.Time { return time.Now().Add(retest.StaleAfter + time.Minute) }
	got := s.awaitRetest(a, lost.ID, func(retestRecord) bool { return true })
	if got.Status != "failed" || got.Error == nil || !strings.Contains(*got.Error, "did not finish") || got.CreditsUsed != 0 {
		t.Errorf("a lost retest read after 16 minutes: %s %v", got.Status, got.Error)
	}
	if after := s.monthCredits(a); after != before {
		t.Errorf("credits %+v → %+v after reaping a lost retest", before, after)
	}
}

// A retest of a target whose last ownership check is older than 7 days
// re-checks it first; when the challenge is gone the retest ends failed
// with "Target ownership could not be re-verified: <reason>", runs no call,
// charges nothing, and the target becomes unverified with the reason.
func TestRetestReverifiesOwnership(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	s.dns.Add(t, "lapsed.test. 60 IN A 127.0.0.1") // no TXT challenge any more
	scanID := s.seedWebIssue(a, "lapsed.test", time.Now().UTC().Add(-8*24*time.Hour), 80, "lapsed.test")
	before := s.monthCredits(a)

	v := s.postRetest(a, scanID)
	v = s.awaitRetest(a, v.ID, func(retestRecord) bool { return false })
	if v.Status != "failed" || v.Error == nil || !strings.HasPrefix(*v.Error, "Target ownership could not be re-verified: ") ||
		len(*v.Error) <= len("Target ownership could not be re-verified: ") || v.CreditsUsed != 0 || len(v.Results) != 0 {
		t.Fatalf("retest of a lapsed target: %s %v, %d credits, %d results", v.Status, v.Error, v.CreditsUsed, len(v.Results))
	}
	if after := s.monthCredits(a); after != before {
		t.Errorf("credits %+v → %+v", before, after)
	}
	sc, err := s.api.Store.GetScan(context.Background(), a.user.ID, scanID)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := s.api.Store.GetTarget(context.Background(), a.user.ID, sc.TargetID)
	if err != nil || tgt.Verified || tgt.VerificationError == "" {
		t.Errorf("target after the failed re-check: verified %v, error %q (%v)", tgt.Verified, tgt.VerificationError, err)
	}
	r := s.call(http.MethodPost, "/api/scans/"+scanID+"/issues/web.header.csp/retest", a.token, nil)
	if r.status != http.StatusConflict || !strings.Contains(r.detail(t), "could not be re-verified") {
		t.Errorf("a second retest: %d %s, want 409 naming why", r.status, r.body)
	}
}

// finishedAfter is how long after asked the retest v finished.
func finishedAfter(t *testing.T, v retestRecord, asked time.Time) time.Duration {
	t.Helper()
	if v.FinishedAt == nil {
		t.Fatalf("ended retest without finished_at: %+v", v)
	}
	finished, err := time.Parse(time.RFC3339Nano, *v.FinishedAt)
	if err != nil {
		t.Fatal(err)
	}
	return finished.Sub(asked)
}

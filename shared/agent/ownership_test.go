package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"secscan/shared/agent"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scans"
	"secscan/shared/verification"
)

// Ownership is proved again when a scan starts and the last successful check
// is older than 7 days (security review item 3): a domain that lapsed and
// was registered by someone else must not stay scannable.
func TestOwnershipIsRecheckedAtStart(t *testing.T) {
	t.Parallel()
	dns := resolvertest.Start(t)
	res, err := resolver.New(dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.a.Ownership = &verification.Verifier{Resolver: res}
	ctx := context.Background()

	kept := f.target("kept.example.test", 8*24*time.Hour)
	dns.Add(t, `_service-challenge.kept.example.test. TXT "`+kept.VerificationToken+`"`)
	lapsed := f.target("lapsed.example.test", 8*24*time.Hour)
	dns.Add(t, `_service-challenge.lapsed.example.test. TXT "service-verify-someone-elses-token"`)
	recent := f.target("recent.example.test", 6*24*time.Hour) // no record: not re-checked yet

	start := func(sc scans.Scan) string {
		t.Helper()
		return f.do(f.task(agent.ActionStart, sc)).(agent.Result).Status
	}

	before := time.Now()
	if got := start(f.scanOf(kept, 50)); got != "running" {
		t.Fatalf("a still-published challenge: start = %s, want running", got)
	}
	tgt, _ := f.st.GetTarget(ctx, f.user, kept.ID)
	if !tgt.Verified || tgt.VerifiedAt == nil || tgt.VerifiedAt.Before(before) || tgt.VerificationError != "" {
		t.Fatalf("a successful re-check must move verified_at: %+v", tgt)
	}

	sc := f.scanOf(lapsed, 50)
	if got := start(sc); got != "failed" {
		t.Fatalf("a lapsed challenge: start = %s, want failed", got)
	}
	d := f.get(sc)
	if !strings.HasPrefix(d.Scan.Error, "Target ownership could not be re-verified: ") ||
		!strings.Contains(d.Scan.Error, "_service-challenge.lapsed.example.test") || len(d.Steps) != 0 {
		t.Fatalf("failed scan: error %q, %d steps", d.Scan.Error, len(d.Steps))
	}
	t.Logf("scan error: %s", d.Scan.Error)
	tgt, _ = f.st.GetTarget(ctx, f.user, lapsed.ID)
	if tgt.Verified || tgt.VerificationError == "" || !strings.Contains(d.Scan.Error, tgt.VerificationError) {
		t.Fatalf("the target must become unverified and keep the reason: %+v", tgt)
	}
	// The state machine's re-delivery of start changes nothing.
	if got := start(sc); got != "failed" {
		t.Fatalf("re-delivered start = %s", got)
	}

	if got := start(f.scanOf(recent, 50)); got != "running" {
		t.Fatalf("a check 6 days old is not re-done: start = %s, want running", got)
	}

	// A target deleted after the scan was queued proves nothing.
	gone := f.target("gone.example.test", time.Minute)
	sc = f.scanOf(gone, 50)
	if err := f.st.DeleteTarget(ctx, f.user, gone.ID); err != nil {
		t.Fatal(err)
	}
	if got := start(sc); got != "failed" {
		t.Fatalf("deleted target: start = %s, want failed", got)
	}
}

package testseed

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// VerifiedTarget writes a target of userID's for domain, verified (by DNS
// TXT) at verifiedAt.
func VerifiedTarget(ctx context.Context, st *store.Store, userID, domain string, verifiedAt time.Time) (store.Target, error) {
	now := time.Now().UTC()
	tgt := store.Target{ID: ids.New(ids.Target, now), UserID: userID, Domain: domain, Method: "dns_txt",
		VerificationToken: "service-verify-" + strings.Repeat("x", 22), Verified: true, VerifiedAt: &verifiedAt, CreatedAt: now}
	return tgt, st.CreateTarget(ctx, tgt)
}

// RunningScan writes sc (queued, as the API would) and starts it, at
// sc.CreatedAt.
func RunningScan(ctx context.Context, st *store.Store, sc scans.Scan) error {
	if _, _, err := st.CreateScan(ctx, sc, nil, sc.CreatedAt); err != nil {
		return err
	}
	_, err := st.StartScan(ctx, sc.UserID, sc.ID, sc.CreatedAt)
	return err
}

// WebIssue is a completed quick web scan of Domain (a target verified at
// VerifiedAt) whose web.header.csp issue was found on each of Hosts (at
// Port, over Scheme) by its own http_check call.
type WebIssue struct {
	UserID, Domain string
	VerifiedAt     time.Time
	Scheme         string // "http" when empty
	Port           int
	Hosts          []string
}

// NewWebIssue writes the scan and returns its id.
func NewWebIssue(ctx context.Context, st *store.Store, w WebIssue) (string, error) {
	now := time.Now().UTC()
	tgt, err := VerifiedTarget(ctx, st, w.UserID, w.Domain, w.VerifiedAt)
	if err != nil {
		return "", err
	}
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: w.UserID, Target: w.Domain, TargetID: tgt.ID, Type: scans.Web,
		Tier: "quick", Status: scans.Queued, MaxCredits: 50, CreditMonth: store.CreditMonth(now), CreatedAt: now}
	if err := RunningScan(ctx, st, sc); err != nil {
		return "", err
	}
	for i, h := range w.Hosts {
		if err := recordCSPCall(ctx, st, sc, i+1, w, h); err != nil {
			return "", err
		}
	}
	_, err = st.EndScan(ctx, w.UserID, sc.ID, scans.Completed, "", nil, now)
	return sc.ID, err
}

// recordCSPCall records the scan's step seq: the http_check of host that
// found no CSP header.
func recordCSPCall(ctx context.Context, st *store.Store, sc scans.Scan, seq int, w WebIssue, host string) error {
	port := w.Port
	f := scans.Finding{Check: "web.header.csp", Title: "No CSP", Severity: scans.Low, Category: scans.CategoryWeb, Host: host, Port: &port, Evidence: "no header"}
	scheme := w.Scheme
	if scheme == "" {
		scheme = "http"
	}
	input, _ := json.Marshal(map[string]string{"url": fmt.Sprintf("%s://%s:%d/", scheme, host, port)})
	step := scans.Step{Seq: seq, Tool: "http_check", Input: input, Status: scans.StepOK, Outcome: "ok", Credits: 5, StartedAt: sc.CreatedAt}
	_, err := st.RecordStep(ctx, sc.UserID, sc.ID, step, []scans.Finding{f}, sc.CreatedAt)
	return err
}

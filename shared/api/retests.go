package api

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/ratelimit"
	"secscan/shared/retest"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// RetestLauncher starts the run of a queued retest asynchronously: deployed,
// an asynchronous invocation of RunRetestFunction; locally, a goroutine
// running the same retest.Runner.
type RetestLauncher interface {
	LaunchRetest(ctx context.Context, req retest.Request) error
}

type retestJSON struct {
	ID          string               `json:"id"`
	ScanID      string               `json:"scan_id"`
	TargetID    string               `json:"target_id"`
	IssueKey    string               `json:"issue_key"`
	Status      scans.RetestStatus   `json:"status"`
	Results     []scans.RetestResult `json:"results"`
	CreditsUsed int                  `json:"credits_used"`
	// CancelRequested is true once DELETE /api/retests/{id} was asked of a
	// running retest, until its run ends it.
	CancelRequested bool    `json:"cancel_requested"`
	Error           *string `json:"error"`
	// LedgerNote says why a retest that reproduced the issue nowhere did
	// not mark it fixed in the target's ledger (a newer scan); null otherwise.
	LedgerNote *string `json:"ledger_note"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

func renderRetest(rt scans.Retest) retestJSON {
	out := retestJSON{ID: rt.ID, ScanID: rt.ScanID, TargetID: rt.TargetID, IssueKey: rt.IssueKey, Status: rt.Status,
		Results: rt.Results, CreditsUsed: rt.CreditsUsed, CancelRequested: rt.CancelRequested, Error: optional(rt.Error), LedgerNote: optional(rt.LedgerNote), CreatedAt: timestamp(rt.CreatedAt),
		FinishedAt: optionalTimestamp(rt.FinishedAt)}
	if out.Results == nil {
		out.Results = []scans.RetestResult{}
	}
	return out
}

// The retest endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	// retestCreator reads the scan, its target and the issue's findings,
	// writes the retest and, when its run cannot be launched, fails it.
	retestCreator interface {
		targetGetter
		GetScan(ctx context.Context, userID, id string) (scans.Scan, error)
		SourcedFindings(ctx context.Context, scanID, issueKey string) ([]store.SourcedFinding, error)
		CreateRetest(ctx context.Context, r scans.Retest, allowance int, limited bool) error
		StartRetest(ctx context.Context, userID, id string) (scans.Retest, error)
		FinishRetest(ctx context.Context, r scans.Retest) error
	}
	retestGetter interface {
		GetRetest(ctx context.Context, userID, id string) (scans.Retest, error)
	}
	retestCanceller interface {
		retestGetter
		EndRetest(ctx context.Context, r scans.Retest, from ...scans.RetestStatus) error
		RequestRetestCancel(ctx context.Context, userID, id string) error
	}
)

// reaper ends a retest whose run was lost (retest.Reap on the store) and
// returns it as it stands at now.
type reaper func(ctx context.Context, rt scans.Retest, now time.Time) (scans.Retest, error)

// reap is a's reaper: retest.Reap on a's store.
func (a *API) reap(ctx context.Context, rt scans.Retest, now time.Time) (scans.Retest, error) {
	return retest.Reap(ctx, a.Store, rt, now)
}

// retestLauncher is the RetestLauncher when a handler is called: the local
// stack's tests set it after the endpoints are built.
func (a *API) retestLauncher() RetestLauncher { return a.Retests }

// createRetest queues a retest of one issue of a completed scan: the scan
// (404, 409 unless completed), its target (409 deleted or unverified), the
// issue (404), the hourly limit (429), the allowance (403), then the launch
// (503 when it cannot start; the retest is failed and its credits freed).
func createRetest(st retestCreator, limiter creationLimiter, launcher func() RetestLauncher, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		ctx := r.Context()
		sc, found, err := retestable(ctx, st, r, p.User.ID)
		if err != nil {
			return err
		}
		_, cost, _ := retest.Plan(found, retest.PublishedCost)
		at := now().UTC()
		release, err := hourlySlot(ctx, limiter, p.User.ID, ratelimit.Retests, httpapi.RequestID(ctx), at)
		if err != nil {
			return err
		}
		rt := scans.Retest{ID: ids.New(ids.Retest, at), UserID: p.User.ID, ScanID: sc.ID, TargetID: sc.TargetID,
			IssueKey: found[0].Finding.Issue, Status: scans.RetestQueued, Reserved: cost, CreditMonth: store.CreditMonth(at), CreatedAt: at}
		allowance, limited := plans.Plan(p.User.Plan).MonthlyAllowance()
		if err := st.CreateRetest(ctx, rt, allowance, limited); err != nil {
			release()
			return err // an *AllowanceError is the 403 of an exhausted allowance
		}
		if err := launcher().LaunchRetest(ctx, retest.Request{RetestID: rt.ID, UserID: rt.UserID}); err != nil {
			release()
			return abandonRetest(ctx, st, rt, err, now)
		}
		httpapi.Logger(ctx).InfoContext(ctx, "retest queued", "retest_id", rt.ID, "scan_id", sc.ID, "issue", rt.IssueKey, "reserved", cost)
		w.Header().Set("Location", "/api/retests/"+rt.ID)
		httpapi.WriteJSON(w, http.StatusAccepted, renderRetest(rt))
		return nil
	}
}

// retestable returns the scan and the issue's findings when the issue may
// be retested.
func retestable(ctx context.Context, st retestCreator, r *http.Request, userID string) (scans.Scan, []store.SourcedFinding, error) {
	id, err := scanID(r)
	if err != nil {
		return scans.Scan{}, nil, err
	}
	sc, err := st.GetScan(ctx, userID, id)
	if err != nil {
		return sc, nil, err
	}
	key, err := retestIssueKey(r)
	if err != nil {
		return sc, nil, err
	}
	if sc.Status != scans.Completed {
		return sc, nil, apierr.New(apierr.Conflict, "Scan %s is %s; only a completed scan's issues can be retested", sc.ID, sc.Status)
	}
	if err := stillVerified(ctx, st, userID, sc); err != nil {
		return sc, nil, err
	}
	found, err := st.SourcedFindings(ctx, sc.ID, key)
	if err != nil {
		return sc, nil, err
	}
	if len(found) == 0 {
		return sc, nil, apierr.New(apierr.NotFound, "Issue %s not found in scan %s", quote(key), sc.ID)
	}
	return sc, found, nil
}

// retestIssueKey is the issue key of the path; one no issue can have is
// the 404.
func retestIssueKey(r *http.Request) (string, error) {
	key := r.PathValue("key")
	if key == "" || len(key) > maxIssueKey || !utf8.ValidString(key) || strings.ContainsAny(key, "#/") {
		return key, apierr.New(apierr.NotFound, "Issue %s not found", quote(key))
	}
	return key, nil
}

// stillVerified is the 409 of a scan whose target was deleted or is no
// longer verified.
func stillVerified(ctx context.Context, st targetGetter, userID string, sc scans.Scan) error {
	t, err := st.GetTarget(ctx, userID, sc.TargetID)
	if store.IsNotFound(err) {
		return apierr.New(apierr.Conflict, "Target %s was deleted; its issues cannot be retested", sc.Target)
	}
	if err != nil {
		return err
	}
	if t.Verified {
		return nil
	}
	why := "its ownership is not verified"
	if t.VerificationError != "" {
		why = "its ownership could not be re-verified: " + t.VerificationError
	}
	return apierr.New(apierr.Conflict, "Target %s is no longer verified (%s); verify it again before retesting", t.Domain, why)
}

// abandonRetest records a retest whose run could not be launched as failed
// (its reservation given back) and answers 503.
func abandonRetest(reqCtx context.Context, st retestCreator, rt scans.Retest, cause error, now func() time.Time) error {
	ctx := context.WithoutCancel(reqCtx)
	httpapi.Logger(ctx).ErrorContext(ctx, "launch retest", "retest_id", rt.ID, "error", cause.Error())
	if _, err := st.StartRetest(ctx, rt.UserID, rt.ID); err == nil {
		at := now().UTC()
		rt.Status, rt.Error, rt.FinishedAt = scans.RetestFailed, "The retest could not be started; no credits were used. Please retry.", &at
		if err := st.FinishRetest(ctx, rt); err != nil {
			httpapi.Logger(ctx).ErrorContext(ctx, "abandon retest", "retest_id", rt.ID, "error", err.Error())
		}
	}
	return dependency.Unavailable(dependency.Retests, cause)
}

// getRetest is the caller's retest of the path, reaped when its run was lost.
func getRetest(st retestGetter, reap reaper, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		rt, err := ownRetest(r, p.User.ID, st, reap, now)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, renderRetest(rt))
		return nil
	}
}

// ownRetest reads the caller's retest of the path (another user's is 404)
// and reaps it when its run was lost (retest.Reap).
func ownRetest(r *http.Request, userID string, st retestGetter, reap reaper, now func() time.Time) (scans.Retest, error) {
	id, err := httpapi.PathID(r, ids.Retest, ids.Valid, "Retest")
	if err != nil {
		return scans.Retest{}, err
	}
	ctx := r.Context()
	rt, err := st.GetRetest(ctx, userID, id)
	if err != nil {
		return rt, err
	}
	reaped, err := reap(context.WithoutCancel(ctx), rt, now())
	if err != nil {
		return rt, err
	}
	if reaped.Status != rt.Status {
		httpapi.Logger(ctx).WarnContext(ctx, "stale retest reaped", "retest_id", rt.ID, "was", rt.Status, "created_at", rt.CreatedAt)
	}
	return reaped, nil
}

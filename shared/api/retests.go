package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
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
	CreatedAt       string  `json:"created_at"`
	FinishedAt      *string `json:"finished_at"`
}

func renderRetest(rt scans.Retest) retestJSON {
	out := retestJSON{ID: rt.ID, ScanID: rt.ScanID, TargetID: rt.TargetID, IssueKey: rt.IssueKey, Status: rt.Status,
		Results: rt.Results, CreditsUsed: rt.CreditsUsed, CancelRequested: rt.CancelRequested, Error: optional(rt.Error), CreatedAt: timestamp(rt.CreatedAt),
		FinishedAt: optionalTimestamp(rt.FinishedAt)}
	if out.Results == nil {
		out.Results = []scans.RetestResult{}
	}
	return out
}

// createRetest queues a retest of one issue of a completed scan: the scan
// (404, 409 unless completed), its target (409 deleted or unverified), the
// issue (404), the hourly limit (429), the allowance (403), then the launch
// (503 when it cannot start; the retest is failed and its credits freed).
func (a *API) createRetest(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	ctx := r.Context()
	sc, found, err := a.retestable(ctx, r, p.User.ID)
	if err != nil {
		return err
	}
	_, cost, _ := retest.Plan(found, retest.PublishedCost)
	now := a.Now().UTC()
	limitKey, slot := ratelimit.Target{Key: store.UserKey(p.User.ID), MustExist: true}, httpapi.RequestID(ctx)
	d, err := a.Auth.Limiter.Take(ctx, limitKey, ratelimit.Retests, slot, now)
	if err != nil {
		return err
	}
	release := func() {
		// Best effort: a rejected creation does not count; a lost release
		// only makes the limit stricter.
		if err := a.Auth.Limiter.Release(context.WithoutCancel(ctx), limitKey, ratelimit.Retests, slot); err != nil {
			httpapi.Logger(ctx).WarnContext(ctx, "release retest slot", "error", err.Error())
		}
	}
	if !d.Allowed {
		e := apierr.New(apierr.RateLimited, "Rate limit exceeded: %d retests per hour", ratelimit.Retests.Limit)
		e.RetryAfter = ratelimit.Seconds(d.RetryAfter)
		return e
	}
	rt := scans.Retest{ID: ids.New(ids.Retest, now), UserID: p.User.ID, ScanID: sc.ID, TargetID: sc.TargetID,
		IssueKey: found[0].Finding.Issue, Status: scans.RetestQueued, Reserved: cost, CreditMonth: store.CreditMonth(now), CreatedAt: now}
	allowance, limited := plans.Plan(p.User.Plan).MonthlyAllowance()
	err = a.Store.CreateRetest(ctx, rt, allowance, limited)
	var exhausted *store.AllowanceError
	if errors.As(err, &exhausted) {
		release()
		return allowanceExhausted(exhausted)
	}
	if err != nil {
		release()
		return err
	}
	if err := a.Retests.LaunchRetest(ctx, retest.Request{RetestID: rt.ID, UserID: rt.UserID}); err != nil {
		release()
		return a.abandonRetest(ctx, rt, err)
	}
	httpapi.Logger(ctx).InfoContext(ctx, "retest queued", "retest_id", rt.ID, "scan_id", sc.ID, "issue", rt.IssueKey, "reserved", cost)
	w.Header().Set("Location", "/api/retests/"+rt.ID)
	httpapi.WriteJSON(w, http.StatusAccepted, renderRetest(rt))
	return nil
}

// retestable returns the scan and the issue's findings when the issue may
// be retested.
func (a *API) retestable(ctx context.Context, r *http.Request, userID string) (scans.Scan, []store.SourcedFinding, error) {
	id, err := scanID(r)
	if err != nil {
		return scans.Scan{}, nil, err
	}
	sc, err := a.Store.GetScan(ctx, userID, id)
	if err != nil {
		return sc, nil, err
	}
	key := r.PathValue("key")
	if key == "" || len(key) > maxIssueKey || !utf8.ValidString(key) || strings.ContainsAny(key, "#/") {
		return sc, nil, apierr.New(apierr.NotFound, "Issue %s not found", quote(key))
	}
	if sc.Status != scans.Completed {
		return sc, nil, apierr.New(apierr.Conflict, "Scan %s is %s; only a completed scan's issues can be retested", sc.ID, sc.Status)
	}
	t, err := a.Store.GetTarget(ctx, userID, sc.TargetID)
	if store.IsNotFound(err) {
		return sc, nil, apierr.New(apierr.Conflict, "Target %s was deleted; its issues cannot be retested", sc.Target)
	}
	if err != nil {
		return sc, nil, err
	}
	if !t.Verified {
		why := "its ownership is not verified"
		if t.VerificationError != "" {
			why = "its ownership could not be re-verified: " + t.VerificationError
		}
		return sc, nil, apierr.New(apierr.Conflict, "Target %s is no longer verified (%s); verify it again before retesting", t.Domain, why)
	}
	found, err := a.Store.SourcedFindings(ctx, sc.ID, key)
	if err != nil {
		return sc, nil, err
	}
	if len(found) == 0 {
		return sc, nil, apierr.New(apierr.NotFound, "Issue %s not found in scan %s", quote(key), sc.ID)
	}
	return sc, found, nil
}

// abandonRetest records a retest whose run could not be launched as failed
// (its reservation given back) and answers 503.
func (a *API) abandonRetest(reqCtx context.Context, rt scans.Retest, cause error) error {
	ctx := context.WithoutCancel(reqCtx)
	httpapi.Logger(ctx).ErrorContext(ctx, "launch retest", "retest_id", rt.ID, "error", cause.Error())
	if _, err := a.Store.StartRetest(ctx, rt.UserID, rt.ID); err == nil {
		now := a.Now().UTC()
		rt.Status, rt.Error, rt.FinishedAt = scans.RetestFailed, "The retest could not be started; no credits were used. Please retry.", &now
		if err := a.Store.FinishRetest(ctx, rt); err != nil {
			httpapi.Logger(ctx).ErrorContext(ctx, "abandon retest", "retest_id", rt.ID, "error", err.Error())
		}
	}
	return dependency.Unavailable(dependency.Retests, cause)
}

func (a *API) getRetest(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	rt, err := a.ownRetest(r, p.User.ID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, renderRetest(rt))
	return nil
}

// ownRetest reads the caller's retest of the path (another user's is 404)
// and reaps it when its run was lost (retest.Reap).
func (a *API) ownRetest(r *http.Request, userID string) (scans.Retest, error) {
	id, err := httpapi.PathID(r, ids.Retest, ids.Valid, "Retest")
	if err != nil {
		return scans.Retest{}, err
	}
	ctx := r.Context()
	rt, err := a.Store.GetRetest(ctx, userID, id)
	if err != nil {
		return rt, err
	}
	reaped, err := retest.Reap(context.WithoutCancel(ctx), a.Store, rt, a.Now())
	if err != nil {
		return rt, err
	}
	if reaped.Status != rt.Status {
		httpapi.Logger(ctx).WarnContext(ctx, "stale retest reaped", "retest_id", rt.ID, "was", rt.Status, "created_at", rt.CreatedAt)
	}
	return reaped, nil
}

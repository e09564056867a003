package api

import (
	"context"
	"errors"
	"net/http"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// cancelRetest is DELETE /api/retests/{id}: another user's retest is 404,
// an ended one 409. A queued retest ends at once, failed with
// scans.RetestCancelled and its whole reservation given back (its run,
// when it arrives, finds it ended and leaves it alone); a running one gets
// its cancellation flag, which the runner reads before each call and ends
// the retest failed within 30 s, charging only the calls it made. Either
// way: 202 with the record.
func (a *API) cancelRetest(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	rt, err := a.ownRetest(r, p.User.ID)
	if err != nil {
		return err
	}
	ctx := r.Context()
	// queued → running → ended only moves forward: a third look sees an end.
	for range 3 {
		switch rt.Status {
		case scans.RetestQueued:
			rt, err = a.cancelQueuedRetest(ctx, rt)
		case scans.RetestRunning:
			rt, err = a.flagRetestCancel(ctx, rt)
		default:
			return apierr.New(apierr.Conflict, "Retest %s has already ended (%s); only a queued or running retest can be cancelled", rt.ID, rt.Status)
		}
		if !errors.Is(err, store.ErrConflict) {
			break
		}
		if rt, err = a.Store.GetRetest(ctx, p.User.ID, rt.ID); err != nil {
			return err
		}
	}
	if errors.Is(err, store.ErrConflict) {
		return apierr.New(apierr.Conflict, "Retest %s has already ended; only a queued or running retest can be cancelled", rt.ID)
	}
	if err != nil {
		return err
	}
	httpapi.Logger(ctx).InfoContext(ctx, "retest cancellation requested", "retest_id", rt.ID, "status", rt.Status)
	httpapi.WriteJSON(w, http.StatusAccepted, renderRetest(rt))
	return nil
}

// cancelQueuedRetest ends a queued retest failed, its reservation given
// back; ErrConflict when it is not queued any more.
func (a *API) cancelQueuedRetest(ctx context.Context, rt scans.Retest) (scans.Retest, error) {
	now := a.Now().UTC()
	ended := rt
	ended.Status, ended.Error, ended.FinishedAt, ended.CreditsUsed = scans.RetestFailed, scans.RetestCancelled, &now, 0
	ended.Results = []scans.RetestResult{}
	if err := a.Store.EndRetest(context.WithoutCancel(ctx), ended, scans.RetestQueued); err != nil {
		return rt, err
	}
	return ended, nil
}

// flagRetestCancel sets a running retest's cancellation flag; ErrConflict
// when it is not running any more.
func (a *API) flagRetestCancel(ctx context.Context, rt scans.Retest) (scans.Retest, error) {
	if err := a.Store.RequestRetestCancel(ctx, rt.UserID, rt.ID); err != nil {
		return rt, err
	}
	rt.CancelRequested = true
	return rt, nil
}

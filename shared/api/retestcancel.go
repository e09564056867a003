package api

import (
	"context"
	"errors"
	"net/http"
	"time"

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
func cancelRetest(st retestCanceller, reap reaper, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		rt, err := ownRetest(r, p.User.ID, st, reap, now)
		if err != nil {
			return err
		}
		ctx := r.Context()
		if rt, err = cancelOnce(ctx, st, rt, now); err != nil {
			return err
		}
		httpapi.Logger(ctx).InfoContext(ctx, "retest cancellation requested", "retest_id", rt.ID, "status", rt.Status)
		httpapi.WriteJSON(w, http.StatusAccepted, renderRetest(rt))
		return nil
	}
}

// cancelOnce cancels rt as its status says, reading it again when a
// concurrent change won; 409 once it has ended.
func cancelOnce(ctx context.Context, st retestCanceller, rt scans.Retest, now func() time.Time) (scans.Retest, error) {
	var err error
	// queued → running → ended only moves forward: a third look sees an end.
	for range 3 {
		switch rt.Status {
		case scans.RetestQueued:
			rt, err = cancelQueuedRetest(ctx, st, rt, now().UTC())
		case scans.RetestRunning:
			rt, err = flagRetestCancel(ctx, st, rt)
		default:
			return rt, apierr.New(apierr.Conflict, "Retest %s has already ended (%s); only a queued or running retest can be cancelled", rt.ID, rt.Status)
		}
		if !errors.Is(err, store.ErrConflict) {
			return rt, err
		}
		if rt, err = st.GetRetest(ctx, rt.UserID, rt.ID); err != nil {
			return rt, err
		}
	}
	return rt, apierr.New(apierr.Conflict, "Retest %s has already ended; only a queued or running retest can be cancelled", rt.ID)
}

// cancelQueuedRetest ends a queued retest failed, its reservation given
// back; ErrConflict when it is not queued any more.
func cancelQueuedRetest(ctx context.Context, st retestCanceller, rt scans.Retest, now time.Time) (scans.Retest, error) {
	ended := rt
	ended.Status, ended.Error, ended.FinishedAt, ended.CreditsUsed = scans.RetestFailed, scans.RetestCancelled, &now, 0
	ended.Results = []scans.RetestResult{}
	if err := st.EndRetest(context.WithoutCancel(ctx), ended, scans.RetestQueued); err != nil {
		return rt, err
	}
	return ended, nil
}

// flagRetestCancel sets a running retest's cancellation flag; ErrConflict
// when it is not running any more.
func flagRetestCancel(ctx context.Context, st retestCanceller, rt scans.Retest) (scans.Retest, error) {
	if err := st.RequestRetestCancel(ctx, rt.UserID, rt.ID); err != nil {
		return rt, err
	}
	rt.CancelRequested = true
	return rt, nil
}

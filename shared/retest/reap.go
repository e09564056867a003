package retest

import (
	"context"
	"errors"
	"time"

	"secscan/shared/scans"
	"secscan/shared/store"
)

// StaleAfter is how long after its creation a retest may still be queued
// or running. A run is bounded well below it: deployed, the asynchronous
// invocation of RunRetestFunction is dropped after 10 minutes in Lambda's
// queue (MaximumEventAgeInSeconds 600) and the run is stopped at 180 s (its
// Timeout); locally it starts at once and is bounded by runTimeout (3 min).
// A retest older than this has lost its run (the function crashed or timed
// out) and is reaped: ended failed, its reservation given back.
const StaleAfter = 15 * time.Minute

// staleError is the error of a reaped retest, in plain words.
const staleError = "The retest did not finish: its run stopped without a result. No credits were used; please retry."

// Stale reports whether rt is queued or running and older than StaleAfter.
func Stale(rt scans.Retest, now time.Time) bool {
	open := rt.Status == scans.RetestQueued || rt.Status == scans.RetestRunning
	return open && now.Sub(rt.CreatedAt) > StaleAfter
}

// Reap ends rt failed when it is stale, giving its whole reservation back,
// and returns the retest as it now stands. It runs lazily where a retest is
// read (GET and DELETE /api/retests/{id}), so no always-on sweeper is
// needed. Concurrent reapers, or the run finishing at the same moment,
// settle the reservation exactly once (store.EndRetest's condition): the
// losers read the retest back.
func Reap(ctx context.Context, st *store.Store, rt scans.Retest, now time.Time) (scans.Retest, error) {
	if !Stale(rt, now) {
		return rt, nil
	}
	ended := rt
	fin := now.UTC()
	ended.Status, ended.Error, ended.FinishedAt, ended.CreditsUsed = scans.RetestFailed, staleError, &fin, 0
	ended.Results = []scans.RetestResult{}
	err := st.EndRetest(ctx, ended, scans.RetestQueued, scans.RetestRunning)
	if errors.Is(err, store.ErrConflict) {
		return st.GetRetest(ctx, rt.UserID, rt.ID)
	}
	if err != nil {
		return rt, err
	}
	return ended, nil
}

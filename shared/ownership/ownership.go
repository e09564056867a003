// Package ownership re-checks a target's ownership before work starts on
// it (CONTRACT "Targets"): when the last successful check is older than
// ReverifyAfter, the challenge is looked up again and the result recorded
// on the target. Scans (shared/agent) and retests (shared/retest) share it.
package ownership

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"secscan/shared/safetext"
	"secscan/shared/store"
	"secscan/shared/verification"
)

// ReverifyAfter is how old the last successful ownership check may be when
// a scan or a retest starts: a domain that lapsed and was registered by
// someone else must not stay scannable by its former owner.
const ReverifyAfter = 7 * 24 * time.Hour

// maxReason bounds the reason recorded on the target, in bytes.
const maxReason = 500

// Verifier checks a target's challenge (verification.Verifier); a failure
// to find it is a *verification.Failure.
type Verifier interface {
	Verify(ctx context.Context, method, domain, token string) error
}

// Work names what is about to run on the target, for the logs.
type Work struct {
	UserID, TargetID, Domain string
	// Kind and ID name the scan or retest ("scan_id", "scn_…").
	Kind, ID string
}

// Recheck re-checks the challenge of w's target when its last successful
// check is older than ReverifyAfter, and records the result on the target.
// It returns why ownership is not proved ("" when it is); an error only for
// an outage worth retrying. A nil v proves nothing that needs re-checking.
func Recheck(ctx context.Context, st *store.Store, v Verifier, log *slog.Logger, w Work, now time.Time) (string, error) {
	tgt, err := st.GetTarget(ctx, w.UserID, w.TargetID)
	if store.IsNotFound(err) {
		return "the target " + w.Domain + " is no longer registered", nil
	}
	if err != nil {
		return "", err
	}
	if why, skip := skipRecheck(tgt, v != nil, now); skip {
		return why, nil
	}
	reason, err := verifyAgain(ctx, v, log, w, tgt)
	if err != nil {
		return "", err
	}
	if err := st.RecordOwnershipCheck(ctx, w.UserID, tgt.ID, now, reason); err != nil && !store.IsNotFound(err) {
		return "", err
	}
	log.InfoContext(ctx, "ownership re-checked", w.Kind, w.ID, "target_id", tgt.ID, "verified", reason == "")
	return reason, nil
}

// skipRecheck says why ownership of tgt is not proved without a check (a
// target never verified; no verifier, when configured is false), or that
// its last check is recent enough (""); skip is false when it needs one.
func skipRecheck(tgt store.Target, configured bool, now time.Time) (why string, skip bool) {
	switch {
	case !tgt.Verified:
		return "the target is not verified", true
	case tgt.VerifiedAt != nil && now.Sub(*tgt.VerifiedAt) < ReverifyAfter:
		return "", true
	case !configured:
		return "ownership checks are not configured", true
	}
	return "", false
}

// verifyAgain checks tgt's challenge: why it failed ("" when it passed), or
// an error for an outage.
func verifyAgain(ctx context.Context, v Verifier, log *slog.Logger, w Work, tgt store.Target) (string, error) {
	err := v.Verify(ctx, tgt.Method, tgt.Domain, tgt.VerificationToken)
	if err == nil {
		return "", nil
	}
	var failure *verification.Failure
	if !errors.As(err, &failure) {
		log.ErrorContext(ctx, "ownership re-check failed", w.Kind, w.ID, "target_id", tgt.ID, "error", err.Error())
		return "", err
	}
	return safetext.Line(failure.Detail, maxReason), nil
}

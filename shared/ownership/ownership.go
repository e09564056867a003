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
	if !tgt.Verified {
		return "the target is not verified", nil
	}
	if tgt.VerifiedAt != nil && now.Sub(*tgt.VerifiedAt) < ReverifyAfter {
		return "", nil
	}
	if v == nil {
		return "ownership checks are not configured", nil
	}
	reason := ""
	if err := v.Verify(ctx, tgt.Method, tgt.Domain, tgt.VerificationToken); err != nil {
		var failure *verification.Failure
		if !errors.As(err, &failure) {
			log.ErrorContext(ctx, "ownership re-check failed", w.Kind, w.ID, "target_id", tgt.ID, "error", err.Error())
			return "", err
		}
		reason = safetext.Line(failure.Detail, maxReason)
	}
	if err := st.RecordOwnershipCheck(ctx, w.UserID, tgt.ID, now, reason); err != nil && !store.IsNotFound(err) {
		return "", err
	}
	log.InfoContext(ctx, "ownership re-checked", w.Kind, w.ID, "target_id", tgt.ID, "verified", reason == "")
	return reason, nil
}

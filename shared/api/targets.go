package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/domainname"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/store"
	"secscan/shared/verification"
)

type targetJSON struct {
	ID                string  `json:"id"`
	Target            string  `json:"target"`
	Method            string  `json:"method"`
	VerificationToken string  `json:"verification_token"`
	Instructions      string  `json:"instructions"`
	Verified          bool    `json:"verified"`
	VerifiedAt        *string `json:"verified_at"`
	VerificationError *string `json:"verification_error"`
	CreatedAt         string  `json:"created_at"`
}

func renderTarget(t store.Target) targetJSON {
	return targetJSON{
		ID: t.ID, Target: t.Domain, Method: t.Method, VerificationToken: t.VerificationToken,
		Instructions: verification.Instructions(t.Method, t.Domain, t.VerificationToken, t.ID),
		Verified:     t.Verified, VerifiedAt: optionalTimestamp(t.VerifiedAt),
		VerificationError: optional(t.VerificationError), CreatedAt: timestamp(t.CreatedAt),
	}
}

type targetCreate struct {
	Target *string `json:"target"`
	Method *string `json:"method"`
}

// The target endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	targetCreator interface {
		CreateTarget(ctx context.Context, t store.Target) error
	}
	targetLister interface {
		ListTargets(ctx context.Context, userID string, page store.Page) ([]store.Target, string, error)
	}
	targetGetter interface {
		GetTarget(ctx context.Context, userID, id string) (store.Target, error)
	}
	targetVerifier interface {
		targetGetter
		MarkTargetVerified(ctx context.Context, userID, id string, at time.Time) (store.Target, error)
	}
	// targetRemover deletes a target and, first, its schedules.
	targetRemover interface {
		scheduleDeleter
		SchedulesOfTarget(ctx context.Context, userID, targetID string) ([]store.Schedule, error)
		DeleteTarget(ctx context.Context, userID, id string) error
	}
)

// createTarget registers a domain with its verification challenge (201);
// a domain registered twice is the store's 409.
func createTarget(st targetCreator, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		var in targetCreate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		domain, method, err := checkTargetCreate(in)
		if err != nil {
			return err
		}
		token, err := verification.NewToken()
		if err != nil {
			return err
		}
		at := now().UTC()
		t := store.Target{
			ID: ids.New(ids.Target, at), UserID: p.User.ID, Domain: domain, Method: method,
			VerificationToken: token, CreatedAt: at,
		}
		if err := st.CreateTarget(r.Context(), t); err != nil {
			return err // a *DuplicateTargetError is the 409 naming the existing target
		}
		w.Header().Set("Location", "/api/targets/"+t.ID)
		httpapi.WriteJSON(w, http.StatusCreated, renderTarget(t))
		return nil
	}
}

// checkTargetCreate checks the body of POST /api/targets (422).
func checkTargetCreate(in targetCreate) (domain, method string, err error) {
	if in.Target == nil {
		return "", "", apierr.Field("target", "is required")
	}
	domain, err = domainname.Normalize(*in.Target)
	if err != nil {
		return "", "", apierr.Field("target", "%s", err.Error())
	}
	if in.Method == nil {
		return "", "", apierr.Field("method", "is required (dns_txt or http_file)")
	}
	if *in.Method != verification.MethodDNSTXT && *in.Method != verification.MethodHTTPFile {
		return "", "", apierr.Field("method", "must be dns_txt or http_file")
	}
	return domain, *in.Method, nil
}

// listTargets is a page of the caller's targets, newest first.
func listTargets(st targetLister) AuthedHandler { return listOwn(st.ListTargets, renderTarget) }

// ownedTarget reads the caller's target of the path; a malformed, unknown
// or foreign id is the same 404.
func ownedTarget(r *http.Request, p auth.Principal, st targetGetter) (store.Target, error) {
	id, err := httpapi.PathID(r, ids.Target, ids.Valid, "Target")
	if err != nil {
		return store.Target{}, err
	}
	return st.GetTarget(r.Context(), p.User.ID, id)
}

// verifyTarget checks the target's challenge (400 with the reason when it
// fails) and records the first success; a verified target is answered as is.
func verifyTarget(st targetVerifier, v Verifier, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		t, err := ownedTarget(r, p, st)
		if err != nil {
			return err
		}
		if !t.Verified {
			err := v.Verify(r.Context(), t.Method, t.Domain, t.VerificationToken)
			var failure *verification.Failure
			if errors.As(err, &failure) {
				return apierr.New(apierr.BadRequest, "Verification of %s failed: %s", t.Domain, failure.Detail)
			}
			if err != nil {
				return err
			}
			if t, err = st.MarkTargetVerified(r.Context(), p.User.ID, t.ID, now()); err != nil {
				return err
			}
			httpapi.Logger(r.Context()).InfoContext(r.Context(), "target verified", "target_id", t.ID, "method", t.Method)
		}
		httpapi.WriteJSON(w, http.StatusOK, renderTarget(t))
		return nil
	}
}

// deleteTarget removes the target (204). Its schedules go first (deployed
// schedule, then record), so a failure leaves the target to delete again;
// its scans are kept. schedules gives the ScheduleService, nil locally; it
// is asked per request because the schedule endpoints, which share it, read
// API.Schedules when called (the local stack's tests set it after start).
func deleteTarget(st targetRemover, schedules func() ScheduleService) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		id, err := httpapi.PathID(r, ids.Target, ids.Valid, "Target")
		if err != nil {
			return err
		}
		owned, err := st.SchedulesOfTarget(r.Context(), p.User.ID, id)
		if err != nil {
			return err
		}
		for _, sch := range owned {
			// One deleted meanwhile is already what this wants.
			if err := removeSchedule(r.Context(), st, schedules(), sch); err != nil && !store.IsNotFound(err) {
				return err
			}
		}
		if err := st.DeleteTarget(r.Context(), p.User.ID, id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

package api

import (
	"errors"
	"net/http"

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

func (a *API) createTarget(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	var in targetCreate
	if err := httpapi.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	if in.Target == nil {
		return apierr.Field("target", "is required")
	}
	domain, err := domainname.Normalize(*in.Target)
	if err != nil {
		return apierr.Field("target", "%s", err.Error())
	}
	if in.Method == nil {
		return apierr.Field("method", "is required (dns_txt or http_file)")
	}
	if *in.Method != verification.MethodDNSTXT && *in.Method != verification.MethodHTTPFile {
		return apierr.Field("method", "must be dns_txt or http_file")
	}
	token, err := verification.NewToken()
	if err != nil {
		return err
	}
	now := a.Now().UTC()
	t := store.Target{
		ID: ids.New(ids.Target, now), UserID: p.User.ID, Domain: domain, Method: *in.Method,
		VerificationToken: token, CreatedAt: now,
	}
	if err := a.Store.CreateTarget(r.Context(), t); err != nil {
		return err // a *DuplicateTargetError is the 409 naming the existing target
	}
	w.Header().Set("Location", "/api/targets/"+t.ID)
	httpapi.WriteJSON(w, http.StatusCreated, renderTarget(t))
	return nil
}

func (a *API) listTargets(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	page, err := PageOf(r)
	if err != nil {
		return err
	}
	targets, next, err := a.Store.ListTargets(r.Context(), p.User.ID, page)
	if err != nil {
		return err
	}
	out := make([]targetJSON, len(targets))
	for i, t := range targets {
		out[i] = renderTarget(t)
	}
	SetNextLink(w, r, page, next)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) ownedTarget(r *http.Request, p auth.Principal) (store.Target, error) {
	id, err := httpapi.PathID(r, ids.Target, ids.Valid, "Target")
	if err != nil {
		return store.Target{}, err
	}
	return a.Store.GetTarget(r.Context(), p.User.ID, id)
}

func (a *API) verifyTarget(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	t, err := a.ownedTarget(r, p)
	if err != nil {
		return err
	}
	if !t.Verified {
		err := a.Verifier.Verify(r.Context(), t.Method, t.Domain, t.VerificationToken)
		var failure *verification.Failure
		if errors.As(err, &failure) {
			return apierr.New(apierr.BadRequest, "Verification of %s failed: %s", t.Domain, failure.Detail)
		}
		if err != nil {
			return err
		}
		if t, err = a.Store.MarkTargetVerified(r.Context(), p.User.ID, t.ID, a.Now()); err != nil {
			return err
		}
		httpapi.Logger(r.Context()).InfoContext(r.Context(), "target verified", "target_id", t.ID, "method", t.Method)
	}
	httpapi.WriteJSON(w, http.StatusOK, renderTarget(t))
	return nil
}

func (a *API) deleteTarget(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	id, err := httpapi.PathID(r, ids.Target, ids.Valid, "Target")
	if err != nil {
		return err
	}
	// Its schedules go first (deployed schedule, then record), so a failure
	// leaves the target to delete again; its scans are kept.
	owned, err := a.Store.SchedulesOfTarget(r.Context(), p.User.ID, id)
	if err != nil {
		return err
	}
	for _, sch := range owned {
		if err := a.removeSchedule(r.Context(), sch); err != nil && !store.IsNotFound(err) {
			return err
		}
	}
	if err := a.Store.DeleteTarget(r.Context(), p.User.ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

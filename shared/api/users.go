package api

import (
	"context"
	"net/http"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/store"
)

// The user endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	creditReader interface {
		Credits(ctx context.Context, userID, month string) (store.Credits, error)
	}
	userCreator interface {
		CreateUser(ctx context.Context, n store.NewUser) error
		UserIDByEmail(ctx context.Context, email string) (string, error)
	}
	userUpdater interface {
		UpdateUser(ctx context.Context, id string, plan *string, isAdmin *bool) (store.User, error)
	}
)

type userJSON struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Plan      string `json:"plan"`
	IsAdmin   bool   `json:"is_admin"`
	CreatedAt string `json:"created_at"`
}

func renderUser(u store.User) userJSON {
	return userJSON{ID: u.ID, Email: u.Email, Plan: u.Plan, IsAdmin: u.IsAdmin, CreatedAt: timestamp(u.CreatedAt)}
}

// meJSON is GET /api/auth/me: the user and this month's credits.
type meJSON struct {
	userJSON
	Credits creditsJSON `json:"credits"`
}

// creditsJSON is the month's allowance (CONTRACT "Plans"); Allowance is
// null on a plan without a limit.
type creditsJSON struct {
	Used      int    `json:"used"`
	Reserved  int    `json:"reserved"`
	Allowance *int   `json:"allowance"`
	RenewsAt  string `json:"renews_at"`
}

// me is the caller and this month's credits.
func me(st creditReader, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		month := store.CreditMonth(now())
		c, err := st.Credits(r.Context(), p.User.ID, month)
		if err != nil {
			return err
		}
		out := meJSON{userJSON: renderUser(p.User), Credits: creditsJSON{
			Used: c.Used, Reserved: c.Reserved, RenewsAt: timestamp(store.RenewsAt(month)),
		}}
		if allowance, limited := plans.Plan(p.User.Plan).MonthlyAllowance(); limited {
			out.Credits.Allowance = &allowance
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

// adminOnly guards the admin endpoints: an admin, signed in with a browser
// session. An API token never administers, even an admin's, so a leaked token
// cannot create durable admins or raise plans.
func adminOnly(h AuthedHandler) AuthedHandler {
	session := accountAction(h)
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if !p.User.IsAdmin {
			return apierr.New(apierr.Forbidden, "Admin privileges required")
		}
		return session(w, r, p)
	}
}

type adminUserCreate struct {
	Email   *string `json:"email"`
	Plan    *string `json:"plan"`
	IsAdmin *bool   `json:"is_admin"`
}

func validPlan(field string, plan *string) error {
	if plan != nil && !plans.Valid(*plan) {
		return apierr.Field(field, "must be one of free, starter, pro, enterprise")
	}
	return nil
}

// adminCreateUser creates a user (201) with a first API token unless an
// admin; an email taken is a 409 naming its user.
func adminCreateUser(st userCreator, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
		var in adminUserCreate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		email, err := checkAdminUserCreate(in)
		if err != nil {
			return err
		}
		plan := *in.Plan
		at := now().UTC()
		u := store.User{ID: ids.New(ids.User, at), Email: email, Plan: plan, IsAdmin: *in.IsAdmin, CreatedAt: at}
		created := store.NewUser{User: u, ClaimEmail: true, Linkable: true}
		// An admin gets no token: admins act through browser sessions only, so
		// the only credential of a new admin is its own sign-in.
		var token string
		if !u.IsAdmin {
			var record store.Token
			if token, record, err = newTokenRecord(u.ID, "initial", nil, at); err != nil {
				return err
			}
			created.FirstToken = &record
		}
		if err := st.CreateUser(r.Context(), created); err != nil {
			return emailTaken(r.Context(), st, email, err)
		}
		httpapi.WriteJSON(w, http.StatusCreated, struct {
			userJSON
			Token *string `json:"token"`
		}{renderUser(u), optional(token)})
		return nil
	}
}

// checkAdminUserCreate checks an admin's new user (422 naming the field)
// and returns its comparable email.
func checkAdminUserCreate(in adminUserCreate) (string, error) {
	if in.Email == nil {
		return "", apierr.Field("email", "is required")
	}
	email, err := auth.NormalizeEmail(*in.Email)
	switch {
	case err != nil:
		return "", apierr.Field("email", "%v", err)
	case in.Plan == nil:
		return "", apierr.Field("plan", "is required (free, starter, pro or enterprise)")
	}
	if err := validPlan("plan", in.Plan); err != nil {
		return "", err
	}
	if in.IsAdmin == nil {
		return "", apierr.Field("is_admin", "is required (true or false)")
	}
	return email, nil
}

// emailTaken turns the store's conflict on a new user into a 409 naming the
// user that holds the email; other errors pass through.
func emailTaken(ctx context.Context, st userCreator, email string, err error) error {
	if !store.IsConflict(err) {
		return err
	}
	detail := "A user with email " + email + " already exists"
	if id, err := st.UserIDByEmail(ctx, email); err == nil {
		detail += " (" + id + ")"
	}
	return apierr.New(apierr.Conflict, "%s", detail)
}

type adminUserUpdate struct {
	Plan    *string `json:"plan"`
	IsAdmin *bool   `json:"is_admin"`
}

// adminUpdateUser changes a user's plan and/or admin flag.
func adminUpdateUser(st userUpdater) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
		id, err := httpapi.PathID(r, ids.User, ids.Valid, "User")
		if err != nil {
			return err
		}
		var in adminUserUpdate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		if in.Plan == nil && in.IsAdmin == nil {
			return apierr.Field("plan", "give plan and/or is_admin to change")
		}
		if err := validPlan("plan", in.Plan); err != nil {
			return err
		}
		u, err := st.UpdateUser(r.Context(), id, in.Plan, in.IsAdmin)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, renderUser(u))
		return nil
	}
}

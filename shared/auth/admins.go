package auth

import (
	"strings"
	"time"

	"secscan/shared/plans"
	"secscan/shared/store"
)

// AdminEmails are the first admins of a deployed stack (the template
// parameter AdminEmails, comma-separated; CONTRACT "Users and
// administration"), in their comparable form.
//
// The list is read only when a user is created, on the first sign-in of an
// identity: a user whose verified email is listed starts as an admin on the
// enterprise plan. It never changes an existing user: adding an email later
// promotes nobody who has signed in before, and removing one demotes nobody
// (an admin does that with PATCH /api/admin/users/<id>). A user an admin
// created beforehand keeps what the admin gave it when its identity links.
type AdminEmails map[string]bool

// ParseAdminEmails reads a comma-separated list; blanks, and addresses
// NormalizeEmail refuses (never comparable, so never matched), are skipped.
func ParseAdminEmails(list string) AdminEmails {
	admins := AdminEmails{}
	for _, e := range strings.Split(list, ",") {
		if e, err := NormalizeEmail(e); err == nil {
			admins[e] = true
		}
	}
	return admins
}

// firstSignIn is the user created for a new identity: free, or an admin on
// the enterprise plan when its verified email is one of a.Admins. email is
// already in its comparable form.
func (a *Authenticator) firstSignIn(id, email string, verified bool, now time.Time) store.User {
	u := store.User{ID: id, Email: email, Plan: string(plans.Free), CreatedAt: now.UTC()}
	if verified && a.Admins[email] {
		u.Plan, u.IsAdmin = string(plans.Enterprise), true
		a.Logger.Info("first admin signed in", "user_id", id)
	}
	return u
}

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
// enterprise plan, provided the email belongs to no user yet and the list
// has never promoted it before. Each promotion is recorded for the life of
// the stack (store.NewUser.AdminPromotion), so an admin demoted with PATCH
// cannot become one again by signing up with a new identity (a deleted
// provider account, a second identity provider), even once their user is
// gone. The list never changes an existing user: adding an email later
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
// the enterprise plan when promote (provision decides: a verified, listed
// email that no user holds). email is already in its comparable form.
func firstSignIn(id, email string, promote bool, now time.Time) store.User {
	u := store.User{ID: id, Email: email, Plan: string(plans.Free), CreatedAt: now.UTC()}
	if promote {
		u.Plan, u.IsAdmin = string(plans.Enterprise), true
	}
	return u
}

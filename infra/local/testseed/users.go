// Package testseed writes set-up data straight to the store: users with an
// API token, verified targets, running scans and a completed scan with a
// web issue. It is the set-up of the local stack's tests, the CLI's tests
// and the agent evaluation, not the code under test.
package testseed

import (
	"cmp"
	"context"
	"strings"
	"time"

	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

// User describes the user to create; the zero values are the usual ones.
type User struct {
	Plan         string
	Admin        bool
	EmailDomain  string     // "example.com" when empty
	TokenName    string     // "setup" when empty
	TokenCreated time.Time  // now when zero
	TokenExpires *time.Time // nil: the token does not expire
	// Issuer, when set, is the identity provider whose "dev|<email>"
	// identity signs in as this user (the email is claimed too).
	Issuer string
}

// NewUser creates the user with its first API token and returns the user
// and the token's value.
func NewUser(ctx context.Context, st *store.Store, spec User) (store.User, string, error) {
	now := time.Now().UTC()
	domain := cmp.Or(spec.EmailDomain, "example.com")
	email := strings.ToLower(ids.New("u", now)) + "@" + domain
	u := store.User{ID: ids.New(ids.User, now), Email: email, Plan: spec.Plan, IsAdmin: spec.Admin, CreatedAt: now}
	value, err := auth.NewAPIToken()
	if err != nil {
		return store.User{}, "", err
	}
	created := spec.TokenCreated
	if created.IsZero() {
		created = now
	}
	tok := store.Token{ID: ids.New(ids.Token, now), Name: cmp.Or(spec.TokenName, "setup"), Prefix: auth.DisplayPrefix(value),
		Hash: auth.HashToken(value), CreatedAt: created, ExpiresAt: spec.TokenExpires}
	nu := store.NewUser{User: u, FirstToken: &tok}
	if spec.Issuer != "" {
		nu.ClaimEmail, nu.IdentityISS, nu.IdentitySub = true, spec.Issuer, "dev|"+email
	}
	if err := st.CreateUser(ctx, nu); err != nil {
		return store.User{}, "", err
	}
	return u, value, nil
}

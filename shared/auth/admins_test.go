package auth_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/shared/auth"
	"secscan/shared/store"
)

func TestParseAdminEmails(t *testing.T) {
	t.Parallel()
	got := auth.ParseAdminEmails(" Boss@Example.COM, ,ops@example.com,")
	if len(got) != 2 || !got["boss@example.com"] || !got["ops@example.com"] {
		t.Errorf("ParseAdminEmails = %v, want boss@example.com and ops@example.com", got)
	}
	if len(auth.ParseAdminEmails("")) != 0 {
		t.Error("an empty parameter names admins")
	}
}

// AdminEmails applies once, when a user is created on its first sign-in
// with a verified email, and never changes an existing user afterwards.
func TestAdminEmailsPromoteOnFirstVerifiedSignInOnly(t *testing.T) {
	t.Parallel()
	db, table := dynamotest.NewTable(t)
	st := store.New(db, table)
	idp, _ := devidp.New("https://idp.test/", "client-1")
	keys, _ := idp.Keyfunc()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	authenticator := func(admins string) *auth.Authenticator {
		a := auth.New(st, auth.NewJWTVerifier(keys, idp.Issuer, idp.Audience), logger)
		a.Admins = auth.ParseAdminEmails(admins)
		return a
	}
	signIn := func(a *auth.Authenticator, email string, verified bool) store.User {
		t.Helper()
		tok, _ := idp.SessionToken(email, verified)
		r := httptest.NewRequest("GET", "/api/auth/me", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		p, _, err := a.Authenticate(context.Background(), r, "req")
		if err != nil {
			t.Fatalf("sign-in of %s: %v", email, err)
		}
		return p.User
	}

	first := authenticator("Boss@Example.com, unverified@example.com")
	if u := signIn(first, "boss@example.com", true); !u.IsAdmin || u.Plan != "enterprise" {
		t.Errorf("listed, verified: %+v, want an admin on enterprise", u)
	}
	if u := signIn(first, "unverified@example.com", false); u.IsAdmin || u.Plan != "free" {
		t.Errorf("listed, unverified: %+v, want a free non-admin", u)
	}
	if u := signIn(first, "dev@example.com", true); u.IsAdmin || u.Plan != "free" {
		t.Errorf("not listed: %+v, want a free non-admin", u)
	}

	// The parameter changes: nobody is demoted or promoted silently (a new
	// process, so no identity is cached).
	changed := authenticator("dev@example.com")
	if u := signIn(changed, "boss@example.com", true); !u.IsAdmin || u.Plan != "enterprise" {
		t.Errorf("removed from the list: %+v, want still an admin on enterprise", u)
	}
	if u := signIn(changed, "dev@example.com", true); u.IsAdmin || u.Plan != "free" {
		t.Errorf("added to the list after the first sign-in: %+v, want still a free non-admin", u)
	}
}

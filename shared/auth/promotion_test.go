package auth_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/golang-jwt/jwt/v5"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/shared/auth"
	"secscan/shared/store"
)

// promotionRig signs identities of its own choosing (issuer and subject) in
// against DynamoDB Local, each sign-in through a fresh Authenticator (a new
// process: nothing cached), with AdminEmails = boss@example.com.
type promotionRig struct {
	t     *testing.T
	db    *dynamodb.Client
	table string
	st    *store.Store
	idp   *devidp.Provider
}

func newPromotionRig(t *testing.T) *promotionRig {
	db, table := dynamotest.NewTable(t)
	idp, err := devidp.New("https://idp.test/", "client-1")
	if err != nil {
		t.Fatal(err)
	}
	return &promotionRig{t: t, db: db, table: table, st: store.New(db, table), idp: idp}
}

// signIn authenticates a session of (sub, email, verified) and returns its user.
func (r *promotionRig) signIn(sub, email string, verified bool) store.User {
	r.t.Helper()
	keys, _ := r.idp.Keyfunc()
	a := auth.New(r.st, auth.NewJWTVerifier(keys, r.idp.Issuer, r.idp.Audience), slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.Admins = auth.ParseAdminEmails("boss@example.com")
	now := time.Now()
	tok, err := r.idp.Sign(jwt.MapClaims{"iss": r.idp.Issuer, "aud": r.idp.Audience, "sub": sub, "email": email,
		"email_verified": verified, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		r.t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	p, _, err := a.Authenticate(context.Background(), req, "req-"+sub)
	if err != nil {
		r.t.Fatalf("sign-in of %s (%s): %v", email, sub, err)
	}
	return p.User
}

// demote is PATCH /api/admin/users/<id> {"plan":"free","is_admin":false}.
func (r *promotionRig) demote(id string) {
	r.t.Helper()
	plan, no := "free", false
	if _, err := r.st.UpdateUser(context.Background(), id, &plan, &no); err != nil {
		r.t.Fatal(err)
	}
}

// forget deletes a user's profile and email claim, as removing the account would.
func (r *promotionRig) forget(u store.User) {
	r.t.Helper()
	for _, k := range [][2]string{{"USER#" + u.ID, "PROFILE"}, {"EMAIL#" + u.Email, "EMAIL"}} {
		_, err := r.db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: &r.table,
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k[0]}, "sk": &types.AttributeValueMemberS{Value: k[1]}}})
		if err != nil {
			r.t.Fatal(err)
		}
	}
}

func wantPlain(t *testing.T, what string, u store.User) {
	t.Helper()
	if u.IsAdmin || u.Plan != "free" {
		t.Errorf("%s: %+v, want a free non-admin", what, u)
	}
}

// A demoted AdminEmails admin who deletes their provider account (or uses a
// second identity provider) and signs up again is not promoted again.
func TestAdminEmailsDemotedAdminStaysDemoted(t *testing.T) {
	t.Parallel()
	r := newPromotionRig(t)
	boss := r.signIn("cognito|1", "boss@example.com", true)
	if !boss.IsAdmin || boss.Plan != "enterprise" {
		t.Fatalf("first verified sign-in of a listed email: %+v, want an admin on enterprise", boss)
	}
	r.demote(boss.ID)
	again := r.signIn("cognito|2", "Boss@Example.com", true)
	wantPlain(t, "a new identity of the demoted admin", again)
	if again.ID == boss.ID {
		t.Errorf("the new identity was linked to the demoted user %s", boss.ID)
	}
	other := r.signIn("https://other-idp.example|boss", "boss@example.com", true)
	wantPlain(t, "a second identity provider's identity of the demoted admin", other)
	if id, _, err := r.st.AdminPromotion(context.Background(), "boss@example.com"); err != nil || id != boss.ID {
		t.Errorf("AdminPromotion = %q, %v; want the one promotion, of %s, recorded", id, err, boss.ID)
	}
}

// An identity whose verified email already belongs to a user is never
// promoted, even when the email's one promotion has not been used.
func TestAdminEmailsNeverPromoteAnEmailThatBelongsToAUser(t *testing.T) {
	t.Parallel()
	r := newPromotionRig(t)
	// The email already belongs to a user (here one created, and linked to
	// an identity, before the address was added to AdminEmails).
	holder := store.User{ID: "usr_01JHOLDER0000000000000000", Email: "boss@example.com", Plan: "free", CreatedAt: time.Now().UTC()}
	if err := r.st.CreateUser(context.Background(), store.NewUser{User: holder, ClaimEmail: true,
		IdentityISS: r.idp.Issuer, IdentitySub: "cognito|holder"}); err != nil {
		t.Fatal(err)
	}
	second := r.signIn("cognito|second", "boss@example.com", true)
	wantPlain(t, "a second identity for an email that belongs to a user", second)
	if _, _, err := r.st.AdminPromotion(context.Background(), "boss@example.com"); !store.IsNotFound(err) {
		t.Errorf("AdminPromotion = %v, want none recorded", err)
	}
}

// The record that the email was promoted outlives the user: with the user
// and its email claim gone, a new sign-up with the email is not promoted.
func TestAdminEmailsPromotionRecordOutlivesTheUser(t *testing.T) {
	t.Parallel()
	r := newPromotionRig(t)
	boss := r.signIn("cognito|1", "boss@example.com", true)
	if !boss.IsAdmin {
		t.Fatalf("first verified sign-in of a listed email: %+v, want an admin", boss)
	}
	r.forget(boss)
	if _, err := r.st.UserIDByEmail(context.Background(), "boss@example.com"); !store.IsNotFound(err) {
		t.Fatalf("the email claim is still there: %v", err)
	}
	again := r.signIn("cognito|new", "boss@example.com", true)
	wantPlain(t, "a sign-up after the promoted user was deleted", again)
	if id, _, err := r.st.AdminPromotion(context.Background(), "boss@example.com"); err != nil || id != boss.ID {
		t.Errorf("AdminPromotion after the user went = %q, %v; want it kept", id, err)
	}
	if u, err := r.st.UserIDByEmail(context.Background(), "boss@example.com"); err != nil || u != again.ID {
		t.Errorf("the free email is claimed by %q (%v), want the new user %s", u, err, again.ID)
	}
}

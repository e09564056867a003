package auth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/store"
)

// jwksServer serves idp's JWKS on loopback (status 200) or fails (any other
// status), counting the fetches.
func jwksServer(t *testing.T, idp *devidp.Provider, status *atomic.Int32) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if s := int(status.Load()); s != http.StatusOK {
			w.WriteHeader(s)
			return
		}
		idp.ServeJWKS(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/jwks.json", &hits
}

func TestRemoteKeysAreFetchedOnFirstUseOnly(t *testing.T) {
	t.Parallel()
	idp, err := devidp.New("https://idp.test/", "client-1")
	if err != nil {
		t.Fatal(err)
	}
	var status atomic.Int32
	status.Store(http.StatusOK)
	url, hits := jwksServer(t, idp, &status)

	v := auth.NewJWTVerifier(auth.RemoteKeys(url), idp.Issuer, idp.Audience)
	if n := hits.Load(); n != 0 {
		t.Fatalf("JWKS fetched %d times before any token was verified, want 0 (cold starts must not wait for it)", n)
	}
	tok, _ := idp.SessionToken("a@example.com", true)
	for range 3 {
		if _, err := v.Verify(tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times for three verifications, want 1 (cached)", n)
	}
}

func TestRemoteKeysOutageIsNotABadToken(t *testing.T) {
	t.Parallel()
	idp, _ := devidp.New("https://idp.test/", "client-1")
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	url, hits := jwksServer(t, idp, &status)
	v := auth.NewJWTVerifier(auth.RemoteKeys(url), idp.Issuer, idp.Audience)
	tok, _ := idp.SessionToken("a@example.com", true)

	for range 2 {
		if _, err := v.Verify(tok); !errors.Is(err, auth.ErrKeysUnavailable) {
			t.Fatalf("Verify with the JWKS down: %v, want ErrKeysUnavailable", err)
		}
	}
	// The failure is remembered for a few seconds: a burst of requests does
	// not each wait for the provider.
	if n := hits.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times for two verifications during an outage, want 1", n)
	}
}

// Cognito's two token shapes (ARCHITECTURE "Facts for this round's work"):
// the API accepts ID tokens and refuses access tokens.
func TestCognitoTokenShapes(t *testing.T) {
	t.Parallel()
	const clientID = "4example5clientid6"
	idp, _ := devidp.New("https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example", clientID)
	keys, _ := idp.Keyfunc()
	v := auth.NewJWTVerifier(keys, idp.Issuer, clientID)
	now := time.Now()
	base := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": idp.Issuer, "sub": "6f1c2a9e-0000-4000-8000-000000000001",
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "auth_time": now.Unix()}
	}
	for _, tc := range []struct {
		name         string
		claims       map[string]any
		ok, verified bool
	}{
		{"ID token", map[string]any{"token_use": "id", "aud": clientID, "email": "a@example.com",
			"email_verified": true, "cognito:username": "a"}, true, true},
		{"ID token, email_verified as a string", map[string]any{"token_use": "id", "aud": clientID,
			"email": "a@example.com", "email_verified": "true"}, true, true},
		{"ID token, unverified email", map[string]any{"token_use": "id", "aud": clientID,
			"email": "a@example.com", "email_verified": "false"}, true, false},
		{"access token (client_id, no aud)", map[string]any{"token_use": "access", "client_id": clientID,
			"scope": "openid email"}, false, false},
		{"access token with an aud", map[string]any{"token_use": "access", "aud": clientID, "client_id": clientID}, false, false},
		{"ID token of another app client", map[string]any{"token_use": "id", "aud": "other-client",
			"email": "a@example.com", "email_verified": true}, false, false},
		{"email_verified neither boolean nor string", map[string]any{"token_use": "id", "aud": clientID,
			"email": "a@example.com", "email_verified": 1}, false, false},
	} {
		claims := base()
		for k, val := range tc.claims {
			claims[k] = val
		}
		raw, err := idp.Sign(claims)
		if err != nil {
			t.Fatal(err)
		}
		c, err := v.Verify(raw)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Verify error %v, want ok=%v", tc.name, err, tc.ok)
			continue
		}
		if err == nil && c.EmailVerified != tc.verified {
			t.Errorf("%s: email_verified read as %v, want %v", tc.name, c.EmailVerified, tc.verified)
		}
	}
}

// An identity provider whose keys cannot be fetched is an outage the client
// should retry (503 naming it), not a bad token (401) and not a 500.
func TestAuthenticateAnswers503WhenTheKeysAreUnavailable(t *testing.T) {
	t.Parallel()
	idp, _ := devidp.New("https://idp.test/", "client-1")
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	url, _ := jwksServer(t, idp, &status)
	db, table := dynamotest.NewTable(t)
	a := auth.New(store.New(db, table), auth.NewJWTVerifier(auth.RemoteKeys(url), idp.Issuer, idp.Audience),
		slog.New(slog.NewJSONHandler(io.Discard, nil)))
	tok, _ := idp.SessionToken("a@example.com", true)
	r := httptest.NewRequest(http.MethodGet, "/api/auth/me", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	_, _, err := a.Authenticate(context.Background(), r, "req-1")
	e, ok := apierr.As(err)
	if !ok || e.Kind != apierr.Unavailable || e.Detail != "The identity provider is unavailable; retry shortly" || e.RetryAfter == 0 {
		t.Fatalf("Authenticate with the JWKS down: %v, want a 503 naming the identity provider with Retry-After", err)
	}
}

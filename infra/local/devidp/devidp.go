// Package devidp is the local stack's development identity provider: an
// ES256 key made at start, its JWKS, `POST /dev/session` that signs a
// session JWT for any email, and the OpenID Connect authorization code flow
// with PKCE the dashboard signs in with (oidc.go). It exists only in the local stack and the tests,
// so browser-session flows run without a real IdP. Never deployed.
package devidp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"sync/atomic"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"secscan/shared/httpapi"
)

// Provider signs session tokens.
type Provider struct {
	Issuer   string
	Audience string
	key      *ecdsa.PrivateKey
	kid      string
	jwks     []byte
	flows    flows
	// Tests change these while the provider serves (atomics, so no race).
	sessionTTL atomic.Int64 // nanoseconds; zero means one hour
	noRefresh  atomic.Bool
}

// SetSessionTTL sets how long the tokens signed from now on last.
func (p *Provider) SetSessionTTL(d time.Duration) { p.sessionTTL.Store(int64(d)) }

// SetRefreshTokens turns the refresh tokens of the code exchange on (the
// default) or off, as some providers configure public clients: the dashboard
// must then send the user back through sign-in when a session ends.
func (p *Provider) SetRefreshTokens(on bool) { p.noRefresh.Store(!on) }

func (p *Provider) ttl() time.Duration {
	if d := time.Duration(p.sessionTTL.Load()); d > 0 {
		return d
	}
	return time.Hour
}

// New makes a provider with a fresh key.
func New(issuer, audience string) (*Provider, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return NewWithKey(issuer, audience, key)
}

// NewWithKey makes a provider that signs with key (the local stack keeps
// one in its data folder, so sessions outlive a restart). The key id is
// derived from the public key: the same key always has the same id.
func NewWithKey(issuer, audience string, key *ecdsa.PrivateKey) (*Provider, error) {
	if key == nil || key.Curve != elliptic.P256() {
		return nil, errors.New("devidp: the signing key must be ECDSA P-256")
	}
	pub := sha256.Sum256(append(key.PublicKey.X.Bytes(), key.PublicKey.Y.Bytes()...))
	p := &Provider{Issuer: issuer, Audience: audience, key: key, kid: "dev-" + hex.EncodeToString(pub[:6])}
	var err error
	pad := func(b []byte) string {
		out := make([]byte, 32)
		copy(out[32-len(b):], b)
		return base64.RawURLEncoding.EncodeToString(out)
	}
	p.jwks, err = json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": p.kid,
		"x": pad(key.PublicKey.X.Bytes()), "y": pad(key.PublicKey.Y.Bytes()),
	}}})
	return p, err
}

// JWKS is the provider's public key set.
func (p *Provider) JWKS() []byte { return p.jwks }

// Keyfunc verifies the provider's tokens through the same JWKS code path a
// remote identity provider uses.
func (p *Provider) Keyfunc() (jwt.Keyfunc, error) {
	k, err := keyfunc.NewJWKSetJSON(p.jwks)
	if err != nil {
		return nil, err
	}
	return k.Keyfunc, nil
}

// Sign signs claims with the provider's key (tests use it to craft tokens).
func (p *Provider) Sign(claims jwt.MapClaims) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["kid"] = p.kid
	return t.SignedString(p.key)
}

// SessionToken returns a session token for email, valid for the provider's TTL.
func (p *Provider) SessionToken(email string, verified bool) (string, error) {
	now := time.Now()
	return p.Sign(jwt.MapClaims{
		"iss": p.Issuer, "aud": p.Audience, "sub": "dev|" + email,
		"email": email, "email_verified": verified,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(p.ttl()).Unix(),
	})
}

// ServeJWKS answers GET /dev/jwks.json.
func (p *Provider) ServeJWKS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(p.jwks)
}

// ServeSession answers POST /dev/session {"email": "...", "email_verified": true}.
// A POST whose Origin is another web page's is refused (403; origin.go).
func (p *Provider) ServeSession(w http.ResponseWriter, r *http.Request) {
	if refuseForeignOrigin(w, r) {
		return
	}
	var in struct {
		Email         *string `json:"email"`
		EmailVerified *bool   `json:"email_verified"`
	}
	if err := httpapi.DecodeJSON(w, r, &in); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if in.Email == nil {
		httpapi.WriteJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "email: is required"})
		return
	}
	email := strings.ToLower(strings.TrimSpace(*in.Email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		httpapi.WriteJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "email: must be an email address"})
		return
	}
	verified := in.EmailVerified == nil || *in.EmailVerified
	token, err := p.SessionToken(email, verified)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"token": token})
}

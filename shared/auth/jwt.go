package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// SessionClaims are the claims of an identity provider's session JWT that the
// service uses.
type SessionClaims struct {
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
	jwt.RegisteredClaims
}

// JWTVerifier checks session JWTs: signature by a key of the provider's JWKS
// (RS256 or ES256 only, so `alg: none` and HMAC confusion are refused),
// issuer, audience, expiry (required), not-before and issued-at.
type JWTVerifier struct {
	keys   jwt.Keyfunc
	parser *jwt.Parser
}

// maxJWTLength bounds what the parser is given.
const maxJWTLength = 8192

// NewJWTVerifier verifies tokens against keys.
func NewJWTVerifier(keys jwt.Keyfunc, issuer, audience string) *JWTVerifier {
	return &JWTVerifier{keys: keys, parser: jwt.NewParser(
		jwt.WithValidMethods([]string{"RS256", "ES256"}),
		jwt.WithIssuer(issuer),
		jwt.WithAudience(audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(30*time.Second),
	)}
}

// RemoteKeys fetches and caches the JWKS at url (refreshed hourly and, rate
// limited, on an unknown key id) with bounded HTTP calls. The JWKS URL is
// configuration, not user input, so it does not go through the guarded dialer.
func RemoteKeys(ctx context.Context, url string) (jwt.Keyfunc, error) {
	k, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{url}, keyfunc.Override{
		Client:           &http.Client{Timeout: 5 * time.Second},
		HTTPTimeout:      5 * time.Second,
		RateLimitWaitMax: 500 * time.Millisecond, // never hold a request long for an unknown kid
	})
	if err != nil {
		return nil, fmt.Errorf("jwks %s: %w", url, err)
	}
	return k.Keyfunc, nil
}

// Verify returns the claims of a valid token.
func (v *JWTVerifier) Verify(raw string) (*SessionClaims, error) {
	if len(raw) > maxJWTLength {
		return nil, errors.New("jwt too long")
	}
	claims := &SessionClaims{}
	if _, err := v.parser.ParseWithClaims(raw, claims, v.keys); err != nil {
		return nil, err
	}
	if strings.TrimSpace(claims.Subject) == "" {
		return nil, errors.New("jwt without sub")
	}
	return claims, nil
}

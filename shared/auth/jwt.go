package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// SessionClaims are the claims of an identity provider's session JWT that the
// service uses.
//
// Amazon Cognito issues two kinds of JWT: ID tokens (`token_use: id`, `aud` =
// the app client id, `email` and `email_verified`) and access tokens
// (`token_use: access`, `client_id` and no `aud`, no email). The API accepts
// ID tokens only: they name the user's verified email, which first-admin
// promotion and account linking need, and an access token fails the audience
// check anyway. TokenUse refuses an access token explicitly all the same, in
// case a provider puts an `aud` in its access tokens too.
type SessionClaims struct {
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
	TokenUse      string `json:"token_use,omitempty"`
	jwt.RegisteredClaims
}

// UnmarshalJSON reads email_verified as a JSON boolean or as the strings
// "true"/"false": some providers (Cognito among them, for users of a
// federated provider) send it as a string.
func (c *SessionClaims) UnmarshalJSON(data []byte) error {
	type plain SessionClaims // the fields without this method
	aux := struct {
		*plain
		EmailVerified flexBool `json:"email_verified"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	c.EmailVerified = bool(aux.EmailVerified)
	return nil
}

type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = true
	case "false", `"false"`, "null":
		*b = false
	default:
		return fmt.Errorf("email_verified is not a boolean: %.20s", data)
	}
	return nil
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

// ErrKeysUnavailable marks a session JWT that could not be checked because
// the provider's JWKS could not be fetched: an outage, not a bad token.
var ErrKeysUnavailable = errors.New("identity provider keys unavailable")

// RemoteKeys returns the keys of the JWKS at url, fetched lazily: nothing is
// fetched until the first JWT is verified, so a function's cold start never
// waits for the identity provider and functions that authenticate no JWT
// never fetch it. Once fetched, the set is cached and refreshed hourly and,
// rate limited, on an unknown key id. A failed fetch is answered with
// ErrKeysUnavailable and retried no sooner than retryAfter later, so an
// unreachable provider does not hold every request for the HTTP timeout.
// The JWKS URL is configuration, not user input, so it does not go through
// the guarded dialer.
func RemoteKeys(url string) jwt.Keyfunc {
	l := &lazyKeys{url: url, now: time.Now}
	return l.keyfunc
}

// retryAfter is how long a failed JWKS fetch is remembered.
const retryAfter = 5 * time.Second

type lazyKeys struct {
	url string
	now func() time.Time

	mu       sync.Mutex
	keys     jwt.Keyfunc
	failedAt time.Time
	err      error
}

func (l *lazyKeys) keyfunc(t *jwt.Token) (any, error) {
	keys, err := l.load()
	if err != nil {
		return nil, err
	}
	return keys(t)
}

func (l *lazyKeys) load() (jwt.Keyfunc, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys != nil {
		return l.keys, nil
	}
	if l.err != nil && l.now().Sub(l.failedAt) < retryAfter {
		return nil, l.err
	}
	// Background, not the request, is the context: it is the lifetime of
	// the refresh goroutine keyfunc starts, and HTTPTimeout bounds each fetch.
	// A failed first fetch is an error here (by default keyfunc would
	// start with an empty set and not fetch again for five minutes).
	returnFirstError := false // the option is named for its opposite
	k, err := keyfunc.NewDefaultOverrideCtx(context.Background(), []string{l.url}, keyfunc.Override{
		Client:                    &http.Client{Timeout: 5 * time.Second},
		HTTPTimeout:               5 * time.Second,
		NoErrorReturnFirstHTTPReq: &returnFirstError,
		RateLimitWaitMax:          500 * time.Millisecond, // never hold a request long for an unknown kid
	})
	if err != nil {
		l.failedAt, l.err = l.now(), fmt.Errorf("%w: jwks %s: %v", ErrKeysUnavailable, l.url, err)
		return nil, l.err
	}
	l.keys, l.err = k.Keyfunc, nil
	return l.keys, nil
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
	if claims.TokenUse != "" && claims.TokenUse != "id" {
		return nil, fmt.Errorf("jwt token_use %q: only ID tokens are accepted", claims.TokenUse)
	}
	return claims, nil
}

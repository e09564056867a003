// Package auth decides who is calling: a `pt_` API token (looked up by its
// SHA-256) or an identity provider's session JWT (users are created on first
// use). It also applies the per-user request limit — folded into the same
// DynamoDB write that loads the user — and the per-IP limit on failures.
//
// Round trips per authenticated request: an API token costs one GetItem (the
// token) and one UpdateItem (admit the request and read the user); a session
// JWT costs the UpdateItem only once its (iss, sub) is cached in the process.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
	"secscan/shared/dependency"
	"secscan/shared/ids"
	"secscan/shared/ratelimit"
	"secscan/shared/store"
)

// Via says how a principal authenticated.
type Via string

// The two ways in.
const (
	ViaAPIToken Via = "api_token"
	ViaSession  Via = "session"
)

// Principal is the authenticated caller.
type Principal struct {
	User    store.User
	Via     Via
	TokenID string // when Via is ViaAPIToken
}

// Authenticator authenticates requests.
type Authenticator struct {
	Store   *store.Store
	Limiter *ratelimit.Limiter
	JWT     *JWTVerifier // nil: session JWTs are refused
	Now     func() time.Time
	Logger  *slog.Logger

	// Admins are the emails whose first sign-in, verified, makes an admin
	// (the template's AdminEmails; see firstSignIn).
	Admins AdminEmails

	// LastUsedGranularity bounds how stale a token's last_used_at may be; it
	// is written at most once per this interval per token.
	LastUsedGranularity time.Duration

	identities sync.Map // "iss sub" -> user id: immutable once created
	blocked    ipBlocks
}

// New returns an Authenticator with the defaults.
func New(st *store.Store, jwtVerifier *JWTVerifier, logger *slog.Logger) *Authenticator {
	return &Authenticator{
		Store:               st,
		Limiter:             &ratelimit.Limiter{DB: st.DB(), Table: st.Table()},
		JWT:                 jwtVerifier,
		Now:                 time.Now,
		Logger:              logger,
		LastUsedGranularity: 5 * time.Minute,
	}
}

// Authenticate identifies the caller of r and admits the request under the
// per-user limit. requestID names the request in the limiter's log. Errors are
// *apierr.Error: 401 for every authentication failure, 429 when a limit is hit.
func (a *Authenticator) Authenticate(ctx context.Context, r *http.Request, requestID string) (Principal, ratelimit.Decision, error) {
	ip := clientIP(r)
	now := a.Now()
	// A valid credential is admitted even from an address blocked for
	// failing too often (an office or NAT egress shares one address); the
	// block only answers that address's failures.
	p, userItemKey, touch, err := a.identify(ctx, r, now)
	if err != nil {
		if errors.Is(err, errInvalid) {
			return Principal{}, ratelimit.Decision{}, a.failed(ctx, ip, requestID, now, err)
		}
		return Principal{}, ratelimit.Decision{}, err
	}

	var wg sync.WaitGroup
	if touch != nil {
		wg.Go(func() {
			if err := a.Store.TouchToken(context.WithoutCancel(ctx), *touch, now, a.LastUsedGranularity); err != nil {
				a.Logger.WarnContext(ctx, "token last_used_at not recorded", "token_id", touch.ID, "error", err)
			}
		})
	}
	d, err := a.Limiter.Take(ctx, ratelimit.Target{Key: userItemKey, MustExist: true}, ratelimit.Requests, requestID, now)
	wg.Wait()
	switch {
	case errors.Is(err, ratelimit.ErrNoItem): // token or identity of a deleted user
		return Principal{}, ratelimit.Decision{}, a.failed(ctx, ip, requestID, now, err)
	case err != nil:
		return Principal{}, ratelimit.Decision{}, dependencyDown(err)
	case !d.Allowed:
		e := apierr.New(apierr.RateLimited, "Rate limit exceeded: %d requests per minute", ratelimit.Requests.Limit)
		e.RetryAfter = ratelimit.Seconds(d.RetryAfter)
		return Principal{}, d, e
	}
	if p.User, err = store.DecodeUser(d.Item); err != nil {
		return Principal{}, ratelimit.Decision{}, fmt.Errorf("authenticate: %w", err)
	}
	return p, d, nil
}

// errInvalid marks an authentication failure (as opposed to an outage).
var errInvalid = errors.New("invalid credentials")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalid, fmt.Sprintf(format, args...))
}

// identify resolves the bearer credential to a user id, without the user record.
func (a *Authenticator) identify(ctx context.Context, r *http.Request, now time.Time) (Principal, map[string]types.AttributeValue, *store.Token, error) {
	raw, ok := bearer(r)
	switch {
	case !ok:
		return Principal{}, nil, nil, invalid("no bearer token")
	case strings.HasPrefix(raw, TokenPrefix):
		return a.identifyToken(ctx, raw, now)
	case a.JWT == nil || strings.Count(raw, ".") != 2:
		return Principal{}, nil, nil, invalid("not an api token or a jwt")
	}
	userID, err := a.identifySession(ctx, raw, now)
	if err != nil {
		return Principal{}, nil, nil, err
	}
	return Principal{Via: ViaSession}, store.UserKey(userID), nil, nil
}

// identifyToken resolves a pt_ API token: known by its hash, not expired.
func (a *Authenticator) identifyToken(ctx context.Context, raw string, now time.Time) (Principal, map[string]types.AttributeValue, *store.Token, error) {
	if !plausibleAPIToken(raw) {
		return Principal{}, nil, nil, invalid("malformed api token")
	}
	t, err := a.Store.TokenByHash(ctx, HashToken(raw))
	switch {
	case store.IsNotFound(err):
		return Principal{}, nil, nil, invalid("unknown api token")
	case err != nil:
		return Principal{}, nil, nil, dependencyDown(err)
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return Principal{}, nil, nil, invalid("expired api token %s", t.ID)
	}
	return Principal{Via: ViaAPIToken, TokenID: t.ID}, store.UserKey(t.UserID), &t, nil
}

// identifySession verifies an identity provider's JWT and returns its user's
// id (the user is created on first use).
func (a *Authenticator) identifySession(ctx context.Context, raw string, now time.Time) (string, error) {
	claims, err := a.JWT.Verify(raw)
	if errors.Is(err, ErrKeysUnavailable) {
		// Not a bad token: the keys to judge it could not be had (503).
		return "", dependency.Unavailable(dependency.IdentityProvider, err)
	}
	if err != nil {
		return "", invalid("jwt: %v", err)
	}
	return a.userForIdentity(ctx, claims, now)
}

// userForIdentity finds (or on first use creates) the user of a session.
func (a *Authenticator) userForIdentity(ctx context.Context, c *SessionClaims, now time.Time) (string, error) {
	cacheKey := c.Issuer + " " + c.Subject
	if id, ok := a.identities.Load(cacheKey); ok {
		return id.(string), nil
	}
	// Two passes: a concurrent first request may create the user between our
	// read and our write, in which case the second read finds it.
	for range 2 {
		id, err := a.Store.UserIDByIdentity(ctx, c.Issuer, c.Subject)
		if err == nil {
			a.identities.Store(cacheKey, id)
			return id, nil
		}
		if !store.IsNotFound(err) {
			return "", dependencyDown(err)
		}
		id, err = a.provision(ctx, c, now)
		if err == nil {
			a.identities.Store(cacheKey, id)
			return id, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return "", dependencyDown(err)
		}
	}
	return "", dependencyDown(errors.New("identity provisioning kept conflicting"))
}

// provision links a session's identity to the user an admin created for its
// verified email (once: a user that has been linked, or that signed up by
// itself, is never taken over), or creates a new user: free, or an admin
// when AdminEmails lists its verified email, no user holds that email, and
// the email has never been promoted before (admins.go).
func (a *Authenticator) provision(ctx context.Context, c *SessionClaims, now time.Time) (string, error) {
	email, err := NormalizeEmail(c.Email)
	if err != nil {
		email = "" // not comparable: never linked, never claimed
	}
	claim := c.EmailVerified && email != ""
	if claim {
		id, linked, err := a.linkAdminCreated(ctx, c, email)
		if err != nil || linked {
			return id, err
		}
		claim = id == "" // an id not linked: the address belongs to another account
	}
	return a.createOnFirstSignIn(ctx, c, email, claim, now)
}

// linkAdminCreated links the identity to the user an admin created for its
// verified email. It returns linked false, and the id of the user holding
// the email (or "" when none does), when the identity is not linked.
func (a *Authenticator) linkAdminCreated(ctx context.Context, c *SessionClaims, email string) (id string, linked bool, err error) {
	id, err = a.Store.UserIDByEmail(ctx, email)
	switch {
	case store.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	err = a.Store.LinkIdentity(ctx, c.Issuer, c.Subject, email, id)
	switch {
	case errors.Is(err, store.ErrNotLinkable):
		return id, false, nil
	case err != nil:
		return "", false, err
	}
	a.Logger.InfoContext(ctx, "identity linked to an admin-created user", "user_id", id, "issuer", c.Issuer)
	return id, true, nil
}

// createOnFirstSignIn creates the user of a new identity, taking the email
// when claim is set. Only a user that takes a free email may be promoted by
// AdminEmails: an address that already belongs to someone never makes a
// second identity an admin.
func (a *Authenticator) createOnFirstSignIn(ctx context.Context, c *SessionClaims, email string, claim bool, now time.Time) (string, error) {
	promote := claim && a.Admins[email]
	n := store.NewUser{
		User:           firstSignIn(ids.New(ids.User, now), email, promote, now),
		ClaimEmail:     claim,
		IdentityISS:    c.Issuer,
		IdentitySub:    c.Subject,
		AdminPromotion: promote,
	}
	err := a.Store.CreateUser(ctx, n)
	if errors.Is(err, store.ErrPromotionUsed) {
		// The email was promoted once before (that user since demoted or
		// deleted): this identity is a plain user.
		a.Logger.WarnContext(ctx, "admin email promoted before: new identity not promoted", "issuer", c.Issuer)
		n.User, n.AdminPromotion = firstSignIn(n.User.ID, email, false, now), false
		err = a.Store.CreateUser(ctx, n)
	}
	if err != nil {
		return "", err
	}
	if n.User.IsAdmin {
		a.Logger.InfoContext(ctx, "first admin signed in (AdminEmails)", "user_id", n.User.ID)
	}
	a.Logger.InfoContext(ctx, "user created on first sign-in", "user_id", n.User.ID, "issuer", c.Issuer)
	return n.User.ID, nil
}

// failed records an authentication failure of ip and answers 401, or 429 once
// the IP has failed too often. A blocked address's failures are answered
// from memory without a database write.
func (a *Authenticator) failed(ctx context.Context, ip, requestID string, now time.Time, cause error) error {
	if until, ok := a.blocked.get(ip, now); ok {
		return tooManyFailures(until.Sub(now))
	}
	a.Logger.InfoContext(ctx, "authentication failed", "ip", ip, "reason", cause.Error())
	d, err := a.Limiter.Take(ctx, ratelimit.Target{Key: store.AuthFailureKey(ip)}, ratelimit.AuthFailures, requestID, now)
	if err != nil {
		a.Logger.WarnContext(ctx, "authentication failure not recorded", "error", err)
		return apierr.ErrUnauthenticated
	}
	if !d.Allowed {
		a.blocked.set(ip, now.Add(d.RetryAfter), now)
		return tooManyFailures(d.RetryAfter)
	}
	return apierr.ErrUnauthenticated
}

func tooManyFailures(wait time.Duration) error {
	e := apierr.New(apierr.RateLimited, "Rate limit exceeded: %d failed authentications per minute from this address", ratelimit.AuthFailures.Limit)
	e.RetryAfter = max(1, ratelimit.Seconds(wait))
	return e
}

func dependencyDown(err error) error {
	if _, ok := apierr.As(err); ok {
		return err
	}
	return fmt.Errorf("authenticate: %w", err)
}

// bearer extracts the credential of an `Authorization: Bearer` header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, value, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	value = strings.TrimSpace(value)
	return value, value != ""
}

// clientIP is the caller's address: API Gateway puts its sourceIp in
// RemoteAddr (no port), a plain server "ip:port". Forwarding headers are
// never trusted: a client could write any address there.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// ipBlocks remembers, per process, addresses refused for failing too often,
// so a guessing client stops costing database round trips. Bounded.
type ipBlocks struct {
	mu    sync.Mutex
	until map[string]time.Time
}

const maxBlockedIPs = 10000

func (b *ipBlocks) get(ip string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.until[ip]
	if ok && !now.Before(t) {
		delete(b.until, ip)
		return time.Time{}, false
	}
	return t, ok
}

func (b *ipBlocks) set(ip string, until, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.until == nil {
		b.until = map[string]time.Time{}
	}
	if len(b.until) >= maxBlockedIPs {
		for k, t := range b.until {
			if !now.Before(t) {
				delete(b.until, k)
			}
		}
		if len(b.until) >= maxBlockedIPs {
			return // the database limit still applies
		}
	}
	b.until[ip] = until
}

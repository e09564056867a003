// Package lambdaenv builds a deployed function's clients from its
// environment (shared/config), one constructor per client. Each function's
// main calls Load and then only the constructors its handler needs, so a
// function builds and links nothing else: health builds no client at all,
// no API function links the scanners, and the identity provider's JWKS is
// fetched on the first JWT to verify, never at start-up (auth.RemoteKeys).
// The local stack (shared/app) builds the whole service from the same
// constructors.
//
// Configuration errors stop the process: Lambda reports them in the
// function's log and fails the invocation.
package lambdaenv

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/golang-jwt/jwt/v5"

	"secscan/shared/auth"
	"secscan/shared/config"
	"secscan/shared/httpapi"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/store"
)

// Env is a function's configuration and logger.
type Env struct {
	Config config.Config
	Logger *slog.Logger
}

// Load reads the configuration from the environment.
func Load() Env {
	cfg, err := config.FromEnv()
	if err != nil {
		fail(err)
	}
	return Env{Config: cfg, Logger: NewLogger(cfg.LogLevel)}
}

// Store is the DynamoDB store.
func (e Env) Store() *store.Store { return Must(NewStore(context.Background(), e.Config)) }

// Authenticator authenticates API tokens and session JWTs of the configured
// identity provider.
func (e Env) Authenticator(st *store.Store) *auth.Authenticator {
	return NewAuthenticator(e.Config, st, nil, e.Logger)
}

// Resolver resolves every name the service looks up (DNS_SERVER or the
// system's resolver).
func (e Env) Resolver() *resolver.Resolver { return Must(NewResolver(e.Config)) }

// Dialer is the guarded dialer every outbound connection to a customer's
// host goes through.
func (e Env) Dialer(res *resolver.Resolver) *netguard.Dialer {
	return netguard.New(res, netguard.Policy{AllowPrivate: e.Config.AllowPrivateNetworks})
}

// NewStore returns the store of cfg; opts adjust the DynamoDB client (tests
// count round trips).
func NewStore(ctx context.Context, cfg config.Config, opts ...func(*dynamodb.Options)) (*store.Store, error) {
	db, err := store.NewClient(ctx, cfg.DynamoDBEndpoint, opts...)
	if err != nil {
		return nil, err
	}
	return store.New(db, cfg.TableName), nil
}

// NewAuthenticator returns the authenticator of cfg. Session JWTs are
// checked against keys, or the JWKS at cfg.JWTJWKSURL when keys is nil
// (fetched lazily), and refused when neither is given.
func NewAuthenticator(cfg config.Config, st *store.Store, keys jwt.Keyfunc, logger *slog.Logger) *auth.Authenticator {
	if keys == nil && cfg.JWTJWKSURL != "" {
		keys = auth.RemoteKeys(cfg.JWTJWKSURL)
	}
	var verifier *auth.JWTVerifier
	if keys != nil {
		verifier = auth.NewJWTVerifier(keys, cfg.JWTIssuer, cfg.JWTAudience)
	}
	a := auth.New(st, verifier, logger)
	a.Admins = auth.ParseAdminEmails(cfg.AdminEmails)
	return a
}

// NewResolver returns the resolver of cfg.
func NewResolver(cfg config.Config) (*resolver.Resolver, error) {
	return resolver.New(cfg.DNSServer, 5*time.Second)
}

// NewLogger returns the JSON logger at level (DEBUG, INFO, WARN, ERROR).
func NewLogger(level string) *slog.Logger { return httpapi.NewLogger(level) }

// Must returns v, or stops the process when err is set: for the clients a
// single function builds itself (the scan starter of create-scan), so that
// this package does not link them into every function.
func Must[T any](v T, err error) T {
	if err != nil {
		fail(err)
	}
	return v
}

func fail(err error) {
	slog.Error("startup failed", "error", err.Error())
	os.Exit(1)
}

// Package app wires the service from its configuration: real clients built
// from the environment, handed to the handlers. Lambda mains and the local
// stack both start here, so they run the same code.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/golang-jwt/jwt/v5"

	"secscan/shared/api"
	"secscan/shared/auth"
	"secscan/shared/config"
	"secscan/shared/lambdahttp"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/store"
	"secscan/shared/verification"
)

// Options are the parts a caller may supply instead of the configuration's.
type Options struct {
	// SessionKeys verifies session JWTs instead of fetching cfg.JWTJWKSURL
	// (the local stack's development identity provider).
	SessionKeys jwt.Keyfunc
	Logger      *slog.Logger
	// DynamoDBOptions adjust the DynamoDB client (tests count round trips).
	DynamoDBOptions []func(*dynamodb.Options)
}

// Build returns the API of cfg.
func Build(ctx context.Context, cfg config.Config, opts Options) (*api.API, error) {
	logger := opts.Logger
	if logger == nil {
		logger = NewLogger(cfg.LogLevel)
	}
	db, err := store.NewClient(ctx, cfg.DynamoDBEndpoint, opts.DynamoDBOptions...)
	if err != nil {
		return nil, err
	}
	st := store.New(db, cfg.TableName)

	res, err := resolver.New(cfg.DNSServer, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("resolver: %w", err)
	}
	dialer := netguard.New(res, netguard.Policy{AllowPrivate: cfg.AllowPrivateNetworks})

	var verifier *auth.JWTVerifier
	keys := opts.SessionKeys
	if keys == nil && cfg.JWTJWKSURL != "" {
		if keys, err = auth.RemoteKeys(ctx, cfg.JWTJWKSURL); err != nil {
			return nil, err
		}
	}
	if keys != nil {
		verifier = auth.NewJWTVerifier(keys, cfg.JWTIssuer, cfg.JWTAudience)
	}
	return &api.API{
		Store:    st,
		Auth:     auth.New(st, verifier, logger),
		Verifier: &verification.Verifier{Resolver: res, Dialer: dialer},
		Now:      time.Now,
		Version:  cfg.Version,
		Logger:   logger,
	}, nil
}

// NewLogger returns the JSON logger at level (DEBUG, INFO, WARN, ERROR).
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// ServeLambda runs the endpoint of template function logicalID as this
// process's Lambda. Configuration errors stop the process: Lambda reports
// them in the function's logs and the invocation fails.
func ServeLambda(logicalID string) {
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		fail(err)
	}
	a, err := Build(ctx, cfg, Options{})
	if err != nil {
		fail(err)
	}
	h, ok := a.Endpoints()[logicalID]
	if !ok {
		fail(fmt.Errorf("no endpoint for %s", logicalID))
	}
	lambdahttp.Start(h)
}

func fail(err error) {
	slog.Error("startup failed", "error", err.Error())
	os.Exit(1)
}

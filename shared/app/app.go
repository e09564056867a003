// Package app wires the service from its configuration: real clients built
// from the environment, handed to the handlers. Lambda mains and the local
// stack both start here, so they run the same code.
package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/golang-jwt/jwt/v5"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/agent"
	"secscan/shared/api"
	"secscan/shared/auth"
	"secscan/shared/config"
	"secscan/shared/lambdahttp"
	"secscan/shared/netguard"
	"secscan/shared/planner"
	"secscan/shared/resolver"
	"secscan/shared/scanners"
	"secscan/shared/stepfn"
	"secscan/shared/store"
	"secscan/shared/tools"
	"secscan/shared/verification"
	"secscan/shared/webhook"
)

// Options are the parts a caller may supply instead of the configuration's.
type Options struct {
	// SessionKeys verifies session JWTs instead of fetching cfg.JWTJWKSURL
	// (the local stack's development identity provider).
	SessionKeys jwt.Keyfunc
	Logger      *slog.Logger
	// DynamoDBOptions adjust the DynamoDB client (tests count round trips).
	DynamoDBOptions []func(*dynamodb.Options)
	// WebPorts replace 80 and 443 for verification and scans (the local
	// stack's demo target listens on unprivileged ports).
	WebPorts tools.Ports
	// ScanRootCAs are trusted by the scanners instead of the system roots
	// (the local stack's demo target has its own CA).
	ScanRootCAs *x509.CertPool
	// WebhookTLS verifies webhook receivers instead of the system roots
	// (tests with their own certificates).
	WebhookTLS *tls.Config
	// Now is the API's clock (report retention); nil means time.Now.
	Now func() time.Time
}

// Service is everything the functions run: the API endpoints and the scan
// agent, sharing one store, resolver and guarded dialer.
type Service struct {
	API   *api.API
	Agent *agent.Agent
}

// Build returns the service of cfg.
func Build(ctx context.Context, cfg config.Config, opts Options) (*Service, error) {
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
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sfnClient, err := stepfn.NewClient(ctx, cfg.StepFunctionsEndpoint)
	if err != nil {
		return nil, err
	}
	registry := scanners.Registry(opts.ScanRootCAs)
	return &Service{
		API: &api.API{
			Store: st,
			Auth:  auth.New(st, verifier, logger),
			Verifier: &verification.Verifier{Resolver: res, Dialer: dialer,
				HTTPPort: opts.WebPorts.HTTP, HTTPSPort: opts.WebPorts.HTTPS},
			Scans:     &stepfn.Starter{Client: sfnClient, StateMachineARN: cfg.StateMachineARN},
			Callbacks: api.CallbackPolicy{AllowInsecure: cfg.AllowInsecureCallbacks, AllowPrivate: cfg.AllowPrivateNetworks},
			Now:       now,
			Version:   cfg.Version,
			Logger:    logger,
		},
		Agent: &agent.Agent{
			Store: st, Tools: registry, Planner: planner.Playbook{Tools: registry},
			Dialer: dialer, Resolver: res, Ports: opts.WebPorts, Now: time.Now, Logger: logger,
			Webhooks: &webhook.Deliverer{Store: st, Dialer: dialer, AllowInsecure: cfg.AllowInsecureCallbacks,
				TLS: opts.WebhookTLS, Now: time.Now, Logger: logger},
		},
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
	svc := mustBuild()
	h, ok := svc.API.Endpoints()[logicalID]
	if !ok {
		fail(fmt.Errorf("no endpoint for %s", logicalID))
	}
	lambdahttp.Start(h)
}

// ServeAgent runs the scan agent (ScanAgentFunction, ScanStepFunction,
// WebhookFunction) as
// this process's Lambda; the state machine says which action to perform.
func ServeAgent() {
	lambda.Start(mustBuild().Agent.Handle)
}

func mustBuild() *Service {
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		fail(err)
	}
	svc, err := Build(ctx, cfg, Options{})
	if err != nil {
		fail(err)
	}
	return svc
}

func fail(err error) {
	slog.Error("startup failed", "error", err.Error())
	os.Exit(1)
}

// Package app wires the whole service in one process, for the local stack
// and its tests: every client (built by the same shared/lambdaenv
// constructors each function's main uses), the API's handlers and the scan
// agent. Endpoints is the one table of all API handlers by function; a
// deployed function never imports this package, so it links only what its
// own handler needs.
package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/golang-jwt/jwt/v5"

	"secscan/shared/agent"
	"secscan/shared/api"
	"secscan/shared/api/reports"
	"secscan/shared/config"
	"secscan/shared/lambdaenv"
	"secscan/shared/modelplanner"
	"secscan/shared/netguard"
	"secscan/shared/report/pdf"
	"secscan/shared/retest"
	"secscan/shared/scanners"
	"secscan/shared/stepfn"
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
		logger = lambdaenv.NewLogger(cfg.LogLevel)
	}
	st, err := lambdaenv.NewStore(ctx, cfg, opts.DynamoDBOptions...)
	if err != nil {
		return nil, err
	}
	res, err := lambdaenv.NewResolver(cfg)
	if err != nil {
		return nil, fmt.Errorf("resolver: %w", err)
	}
	dialer := netguard.New(res, netguard.Policy{AllowPrivate: cfg.AllowPrivateNetworks})
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sfnClient, err := stepfn.NewClient(ctx, cfg.StepFunctionsEndpoint)
	if err != nil {
		return nil, err
	}
	registry := scanners.Registry(opts.ScanRootCAs)
	plan, err := modelplanner.FromConfig(ctx, cfg, registry, logger)
	if err != nil {
		return nil, fmt.Errorf("planner: %w", err)
	}
	challenges := &verification.Verifier{Resolver: res, Dialer: dialer,
		HTTPPort: opts.WebPorts.HTTP, HTTPSPort: opts.WebPorts.HTTPS}
	// Locally a retest runs in a goroutine of this process, through the same
	// Runner that RunRetestFunction runs when deployed.
	retests := retest.InProcess{Runner: &retest.Runner{Store: st, Tools: registry, Dialer: dialer, Resolver: res,
		Ports: opts.WebPorts, Ownership: challenges, Now: time.Now, Logger: logger}, Function: "RunRetestFunction"}
	return &Service{
		API: &api.API{
			Store:     st,
			Auth:      lambdaenv.NewAuthenticator(cfg, st, opts.SessionKeys, logger),
			Verifier:  challenges,
			Scans:     &stepfn.Starter{Client: sfnClient, StateMachineARN: cfg.StateMachineARN},
			Retests:   retests,
			Callbacks: api.CallbackPolicy{AllowInsecure: cfg.AllowInsecureCallbacks, AllowPrivate: cfg.AllowPrivateNetworks},
			Now:       now,
			Version:   cfg.Version,
			Logger:    logger,
		},
		Agent: &agent.Agent{
			Store: st, Tools: registry, Planner: plan,
			Dialer: dialer, Resolver: res, Ports: opts.WebPorts, Ownership: challenges, Now: time.Now, Logger: logger,
			Webhooks: &webhook.Deliverer{Store: st, Dialer: dialer, AllowInsecure: cfg.AllowInsecureCallbacks,
				TLS: opts.WebhookTLS, Now: time.Now, Logger: logger},
		},
	}, nil
}

// Endpoints is every API function of template.yaml by logical id, mapped to
// the endpoint its functions/<name>/main.go serves: the local stack mounts
// these on the template's routes.
var Endpoints = map[string]func(*api.API) http.Handler{
	"HealthFunction":              (*api.API).Health,
	"MeFunction":                  (*api.API).Me,
	"ListTargetsFunction":         (*api.API).ListTargets,
	"CreateTargetFunction":        (*api.API).CreateTarget,
	"VerifyTargetFunction":        (*api.API).VerifyTarget,
	"DeleteTargetFunction":        (*api.API).DeleteTarget,
	"CreateTokenFunction":         (*api.API).CreateToken,
	"ListTokensFunction":          (*api.API).ListTokens,
	"DeleteTokenFunction":         (*api.API).DeleteToken,
	"GetWebhookSecretFunction":    (*api.API).GetWebhookSecret,
	"RotateWebhookSecretFunction": (*api.API).RotateWebhookSecret,
	"AdminCreateUserFunction":     (*api.API).AdminCreateUser,
	"AdminUpdateUserFunction":     (*api.API).AdminUpdateUser,
	"CreateScanFunction":          (*api.API).CreateScan,
	"ListScansFunction":           (*api.API).ListScans,
	"GetScanFunction":             (*api.API).GetScan,
	"CancelScanFunction":          (*api.API).CancelScan,
	"ReportMarkdownFunction":      func(a *api.API) http.Handler { return reports.Of(a, nil).Markdown() },
	"ReportHTMLFunction":          func(a *api.API) http.Handler { return reports.Of(a, nil).HTML() },
	"ReportPDFFunction":           func(a *api.API) http.Handler { return reports.Of(a, pdf.Render).PDF() },
	"FindingsCSVFunction":         func(a *api.API) http.Handler { return reports.Of(a, nil).CSV() },
	"ListChecksFunction":          (*api.API).ListChecks,
	"ListTargetIssuesFunction":    (*api.API).ListTargetIssues,
	"PutTargetIssueFunction":      (*api.API).PutTargetIssue,
	"ListTargetAssetsFunction":    (*api.API).ListTargetAssets,
	"CreateScheduleFunction":      (*api.API).CreateSchedule,
	"ListSchedulesFunction":       (*api.API).ListSchedules,
	"GetScheduleFunction":         (*api.API).GetSchedule,
	"UpdateScheduleFunction":      (*api.API).UpdateSchedule,
	"DeleteScheduleFunction":      (*api.API).DeleteSchedule,
	"RunScheduleFunction":         (*api.API).RunSchedule,
	"CreateRetestFunction":        (*api.API).CreateRetest,
	"GetRetestFunction":           (*api.API).GetRetest,
	"CancelRetestFunction":        (*api.API).CancelRetest,
}

// Handlers returns a's handler of every entry of Endpoints.
func Handlers(a *api.API) map[string]http.Handler {
	hs := make(map[string]http.Handler, len(Endpoints))
	for name, endpoint := range Endpoints {
		hs[name] = endpoint(a)
	}
	return hs
}

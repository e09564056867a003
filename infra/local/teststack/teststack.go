// Package teststack serves the whole service for end-to-end tests, as make
// run does: the API with the dashboard and the development identity
// provider over real HTTP on 127.0.0.1, scans on the real state machine
// (aws-local-stepfunctions), against a fresh DynamoDB Local table. The
// local stack's tests and the CLI's tests build on it.
package teststack

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/infra/local/localstack"
	"secscan/shared/api"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/dashboard"
	"secscan/shared/samtemplate"
	"secscan/shared/syncio"
)

// Service is the running service of one test.
type Service struct {
	Base  string // the server's URL
	API   *api.API
	Dash  *dashboard.Dashboard
	IdP   *devidp.Provider
	Scans *localstack.Scans
	Logs  *syncio.Buffer // the service's JSON logs, shown when the test fails
}

// Setup is what a test chooses of its service.
type Setup struct {
	Audience string // the identity provider's client id
	// Configure fills in the configuration (DNS, version, ...) and the
	// options; the identity provider, the session keys, the logger and
	// DynamoDB Local's endpoint are set already, and the table and the
	// state machine are set after it.
	Configure func(*config.Config, *app.Options)
	// Wrap, when set, wraps each API function's handler.
	Wrap func(function string, h http.Handler) http.Handler
}

// Start builds and serves the service; the test's cleanup stops it.
func Start(t testing.TB, setup Setup) *Service {
	t.Helper()
	s := &Service{Logs: &syncio.Buffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stack logs:\n%s", s.Logs.String())
		}
	})
	keys := s.startIdP(t, setup.Audience)
	cfg := config.Config{DynamoDBEndpoint: dynamotest.Endpoint(t), AllowPrivateNetworks: true,
		JWTIssuer: s.IdP.Issuer, JWTAudience: s.IdP.Audience}
	opts := app.Options{SessionKeys: keys, Logger: slog.New(slog.NewJSONHandler(s.Logs, nil))}
	if setup.Configure != nil {
		setup.Configure(&cfg, &opts)
	}
	_, cfg.TableName = dynamotest.NewTableAt(t, cfg.DynamoDBEndpoint)
	root, tpl := dynamotest.Template(t)
	s.startScans(t, root, tpl, &cfg)
	svc, err := app.Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Scans.Serve(svc.Agent)
	s.API = svc.API
	s.serve(t, tpl, setup.Wrap)
	return s
}

// startIdP makes the development identity provider for the client
// audience and returns the keys that check its sessions.
func (s *Service) startIdP(t testing.TB, audience string) jwt.Keyfunc {
	t.Helper()
	var err error
	if s.IdP, err = devidp.New("https://idp.test/", audience); err != nil {
		t.Fatal(err)
	}
	keys, err := s.IdP.Keyfunc()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// startScans starts the scan state machine (the template's ASL on
// aws-local-stepfunctions) and points cfg at it.
func (s *Service) startScans(t testing.TB, root string, tpl *samtemplate.Template, cfg *config.Config) {
	t.Helper()
	var err error
	if s.Scans, err = localstack.StartScans(context.Background(), root, tpl, s.Logs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Scans.Close)
	cfg.StepFunctionsEndpoint, cfg.StateMachineARN = s.Scans.Endpoint(), s.Scans.StateMachineARN()
}

// serve mounts the API, the dashboard and the identity provider as the
// template routes them and serves them on 127.0.0.1.
func (s *Service) serve(t testing.TB, tpl *samtemplate.Template, wrap func(string, http.Handler) http.Handler) {
	t.Helper()
	var err error
	if s.Dash, err = dashboard.New(localstack.DashboardConfig(s.IdP, nil, "")); err != nil {
		t.Fatal(err)
	}
	h, err := localstack.Mount(tpl, s.API, s.Dash.Handler(), s.IdP, wrap)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	t.Cleanup(srv.Close)
	s.Base = srv.URL
}

package localstack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/infra/local/localstack"
	"secscan/infra/local/testseed"
	"secscan/infra/local/teststack"
	"secscan/shared/api"
	"secscan/shared/apispec"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/dashboard"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/samtemplate"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

// stack is the local API over real HTTP on 127.0.0.1, with a fresh
// DynamoDB Local table, the development identity provider and a local DNS
// server. Every response it receives is checked against openapi.yaml.
type stack struct {
	t         testing.TB
	base      string
	api       *api.API
	idp       *devidp.Provider
	dash      *dashboard.Dashboard
	dns       *resolvertest.Server
	spec      *apispec.Spec
	roundTrip atomic.Int64 // DynamoDB operations made by the API
	scans     *localstack.Scans
}

var specOnce = struct {
	spec *apispec.Spec
	err  error
}{}

// stackOption changes how startStack builds the stack.
type stackOption func(*config.Config, *app.Options)

// withWebPorts points verification and scans at local web servers instead
// of ports 80 and 443 (as make run does for its demo target).
func withWebPorts(http, https int) stackOption {
	return func(_ *config.Config, o *app.Options) { o.WebPorts = tools.Ports{HTTP: http, HTTPS: https} }
}

// withDNS resolves through addr instead of the stack's resolvertest server.
func withDNS(addr string) stackOption {
	return func(c *config.Config, _ *app.Options) { c.DNSServer = addr }
}

// withoutPrivateNetworks keeps the deployed default: no loopback or private
// addresses for verification, scans and callbacks.
func withoutPrivateNetworks() stackOption {
	return func(c *config.Config, _ *app.Options) { c.AllowPrivateNetworks = false }
}

// withInsecureCallbacks accepts http:// callback URLs (a receiver on loopback).
func withInsecureCallbacks() stackOption {
	return func(c *config.Config, _ *app.Options) { c.AllowInsecureCallbacks = true }
}

func startStack(t testing.TB, options ...stackOption) *stack {
	t.Helper()
	s := &stack{t: t, dns: resolvertest.Start(t)}
	count := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("CountRoundTrips",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					s.roundTrip.Add(1)
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
	svc := teststack.Start(t, teststack.Setup{Audience: "secscan-test", Wrap: asFunction,
		Configure: func(cfg *config.Config, opts *app.Options) {
			cfg.DNSServer, cfg.Version = s.dns.Addr, "e2e"
			opts.DynamoDBOptions = []func(*dynamodb.Options){count, recordCalls}
			for _, o := range options {
				o(cfg, opts)
			}
		}})
	s.base, s.api, s.idp, s.dash, s.scans = svc.Base, svc.API, svc.IdP, svc.Dash, svc.Scans
	var err error
	if s.spec, err = apispec.LoadRepoSpec(); err != nil {
		t.Fatal(err)
	}
	return s
}

// account is a user of the stack with both kinds of credential.
type account struct {
	user    store.User
	token   string // pt_ API token
	session string // session JWT of the dev identity provider
}

// newAccount creates a user directly in the store (setup, not under test),
// with an API token and an identity the dev provider's sessions map to.
func (s *stack) newAccount(plan string, admin bool) account {
	s.t.Helper()
	u, value, err := testseed.NewUser(context.Background(), s.api.Store, testseed.User{Plan: plan, Admin: admin, Issuer: s.idp.Issuer})
	if err != nil {
		s.t.Fatal(err)
	}
	session, err := s.idp.SessionToken(u.Email, true)
	if err != nil {
		s.t.Fatal(err)
	}
	return account{user: u, token: value, session: session}
}

// storedTarget writes a's target for domain, verified at verifiedAt,
// straight to the store (setup, not under test).
func (s *stack) storedTarget(a account, domain string, verifiedAt time.Time) store.Target {
	s.t.Helper()
	tgt, err := testseed.VerifiedTarget(context.Background(), s.api.Store, a.user.ID, domain, verifiedAt)
	if err != nil {
		s.t.Fatal(err)
	}
	return tgt
}

// runningScan writes sc straight to the store and starts it, as the API
// and the state machine would (setup, not under test).
func (s *stack) runningScan(sc scans.Scan) {
	s.t.Helper()
	if err := testseed.RunningScan(context.Background(), s.api.Store, sc); err != nil {
		s.t.Fatal(err)
	}
}

// allPages reads a's list at path page by page, following each page's
// Link to the next (at most 5 pages), and returns every item in order.
func allPages[T any](t *testing.T, s *stack, a account, path string) []T {
	t.Helper()
	var all []T
	for range 5 {
		r := s.call(http.MethodGet, path, a.token, nil)
		all = append(all, decoded[[]T](t, r, http.StatusOK)...)
		link := r.header.Get("Link")
		if link == "" {
			break
		}
		path = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
	}
	return all
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// session signs a verified-email session JWT for the identity sub.
func (s *stack) session(t *testing.T, sub, email string) string {
	t.Helper()
	now := time.Now()
	tok, err := s.idp.Sign(map[string]any{"iss": s.idp.Issuer, "aud": s.idp.Audience, "sub": sub,
		"email": email, "email_verified": true, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (r response) detail(t testing.TB) string {
	t.Helper()
	var e struct{ Detail string }
	r.json(t, &e)
	return e.Detail
}

// call sends a request; body is a string (sent raw) or a value (sent as JSON).
func (s *stack) call(method, path, bearer string, body any) response {
	s.t.Helper()
	return s.callWith(method, path, body, http.Header{"Authorization": {"Bearer " + bearer}})
}

func (s *stack) callWith(method, path string, body any, header http.Header) response {
	s.t.Helper()
	var reader io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		reader = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.base+path, reader)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		if k == "Authorization" && v[0] == "Bearer " {
			continue
		}
		req.Header[k] = v
	}
	client := &http.Client{Timeout: 20 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if !strings.HasPrefix(path, "/dev/") {
		if err := s.spec.ValidateResponse(req, res.StatusCode, res.Header, raw); err != nil {
			s.t.Errorf("response does not match openapi.yaml: %v\nbody: %s", err, raw)
		}
	}
	return response{status: res.StatusCode, header: res.Header, body: raw}
}

func expect(t testing.TB, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
}

// decoded checks r's status (expect) and decodes its JSON body into a T.
func decoded[T any](t testing.TB, r response, status int) T {
	t.Helper()
	expect(t, r, status)
	var v T
	r.json(t, &v)
	return v
}

// templateRoutes reads the routes of the repository's template.yaml.
func templateRoutes(t testing.TB) []samtemplate.Route {
	t.Helper()
	_, tpl := dynamotest.Template(t)
	routes, err := tpl.Routes()
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

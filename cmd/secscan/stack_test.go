package main_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/cli"
	"secscan/infra/local/demotarget"
	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/infra/local/localstack"
	"secscan/infra/local/slowsite"
	"secscan/shared/app"
	"secscan/shared/auth"
	"secscan/shared/config"
	"secscan/shared/dashboard"
	"secscan/shared/ids"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/store"
	"secscan/shared/syncio"
	"secscan/shared/tools"
)

// stack is the whole service on loopback, as make run starts it: DynamoDB
// Local, the scan state machine on aws-local-stepfunctions, the API with the
// development identity provider, and the demo target with its DNS server.
// Names outside the demo zone are forwarded to a test DNS server (dns), where
// slow.test points at a deliberately slow web site, for interrupt tests.
type stack struct {
	base  string
	store *store.Store
	idp   *devidp.Provider
	demo  *demotarget.Target
	dns   *resolvertest.Server
	logs  *syncio.Buffer
}

// slowHost is where slow.test lives: another loopback address, so that its
// web site can use the demo's HTTP port number (the stack's web checks use
// one port for every target).
const slowHost = "127.0.0.3"

func startStack(t *testing.T) *stack {
	t.Helper()
	ctx := context.Background()
	_, table := dynamotest.NewTable(t)
	s := &stack{dns: resolvertest.Start(t), logs: &syncio.Buffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stack logs:\n%s", s.logs.String())
		}
	})
	var err error
	s.demo, err = demotarget.Start(ctx, demotarget.Config{
		Domain: "demo.test", Host: "127.0.0.1", DNSAddr: "127.0.0.1:0", Upstream: s.dns.Addr,
		MySQLPort: demotarget.PortDisabled, FTPPort: demotarget.PortDisabled, SSHPort: demotarget.PortDisabled,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.demo.Close() })
	httpPort, httpsPort := s.demo.HTTPPort(), s.demo.HTTPSPort()
	slowsite.Start(t, net.JoinHostPort(slowHost, strconv.Itoa(httpPort)), 200*time.Millisecond)
	s.dns.Add(t, "slow.test. 60 IN A "+slowHost)

	if s.idp, err = devidp.New("https://idp.test/", "secscan-cli-test"); err != nil {
		t.Fatal(err)
	}
	keys, err := s.idp.Keyfunc()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{
		TableName: table, DynamoDBEndpoint: dynamotest.Endpoint(t), DNSServer: s.demo.DNSAddr(),
		AllowPrivateNetworks: true, JWTIssuer: s.idp.Issuer, JWTAudience: s.idp.Audience, Version: "cli-e2e",
	}
	root, tpl := dynamotest.Template(t)
	scans, err := localstack.StartScans(ctx, root, tpl, s.logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(scans.Close)
	cfg.StepFunctionsEndpoint, cfg.StateMachineARN = scans.Endpoint(), scans.StateMachineARN()
	svc, err := app.Build(ctx, cfg, app.Options{
		SessionKeys: keys, Logger: slog.New(slog.NewJSONHandler(s.logs, nil)),
		WebPorts: tools.Ports{HTTP: httpPort, HTTPS: httpsPort},
	})
	if err != nil {
		t.Fatal(err)
	}
	scans.Serve(svc.Agent)
	s.store = svc.API.Store
	dash, err := dashboard.New(localstack.DashboardConfig(s.idp, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	h, err := localstack.Mount(tpl, svc.API, dash.Handler(), s.idp, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	t.Cleanup(srv.Close)
	s.base = srv.URL
	return s
}

// newUser creates a user on plan with an API token (setup, not under test);
// expires, when set, is the token's expiry.
func (s *stack) newUser(t *testing.T, plan string, expires *time.Time) string {
	t.Helper()
	now := time.Now().UTC()
	email := strings.ToLower(ids.New("u", now)) + "@example.com"
	u := store.User{ID: ids.New(ids.User, now), Email: email, Plan: plan, CreatedAt: now}
	value, err := auth.NewAPIToken()
	if err != nil {
		t.Fatal(err)
	}
	tok := store.Token{ID: ids.New(ids.Token, now), Name: "cli", Prefix: auth.DisplayPrefix(value), Hash: auth.HashToken(value),
		CreatedAt: now.Add(-time.Hour), ExpiresAt: expires}
	err = s.store.CreateUser(context.Background(), store.NewUser{User: u, ClaimEmail: true,
		IdentityISS: s.idp.Issuer, IdentitySub: "dev|" + email, FirstToken: &tok})
	if err != nil {
		t.Fatal(err)
	}
	return value
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// cliRun describes one in-process run of the CLI.
type cliRun struct {
	s          *stack
	token      string
	stdin      io.Reader
	env        map[string]string
	configDir  string
	interrupts chan os.Signal
	terminal   bool // stdin is a terminal (questions may be asked)
	stderr     *syncio.Buffer
}

func (s *stack) cli(token string) *cliRun { return &cliRun{s: s, token: token} }

// run executes secscan with args, the stack's URL and the token in the
// environment (as CI sets them), and returns what it printed.
func (r *cliRun) run(t *testing.T, args ...string) result {
	t.Helper()
	env := map[string]string{"SECSCAN_API_URL": r.s.base, "SECSCAN_TOKEN": r.token}
	for k, v := range r.env {
		env[k] = v
	}
	var stdout bytes.Buffer
	stderr := r.stderr
	if stderr == nil {
		stderr = &syncio.Buffer{}
	}
	configDir := r.configDir
	if configDir == "" {
		configDir = t.TempDir()
	}
	code := cli.Run(context.Background(), args, cli.Env{
		Stdin: r.stdin, Stdout: &stdout, Stderr: stderr,
		Getenv:        func(k string) string { return env[k] },
		Interrupts:    r.interrupts,
		StdinTerminal: r.terminal,
		ConfigDir:     func() (string, error) { return configDir, nil },
		Version:       "test",
	})
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func expectCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// await polls cond every 20 ms for up to a minute.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

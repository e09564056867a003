package main_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/cli"
	"secscan/infra/local/demotarget"
	"secscan/infra/local/devidp"
	"secscan/infra/local/slowsite"
	"secscan/infra/local/testseed"
	"secscan/infra/local/teststack"
	"secscan/shared/app"
	"secscan/shared/config"
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
}

// slowHost is where slow.test lives: another loopback address, so that its
// web site can use the demo's HTTP port number (the stack's web checks use
// one port for every target).
const slowHost = "127.0.0.3"

func startStack(t *testing.T) *stack {
	t.Helper()
	s := &stack{dns: resolvertest.Start(t)}
	var err error
	s.demo, err = demotarget.Start(context.Background(), demotarget.Config{
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

	svc := teststack.Start(t, teststack.Setup{Audience: "secscan-cli-test",
		Configure: func(cfg *config.Config, opts *app.Options) {
			cfg.DNSServer, cfg.Version = s.demo.DNSAddr(), "cli-e2e"
			opts.WebPorts = tools.Ports{HTTP: httpPort, HTTPS: httpsPort}
		}})
	s.base, s.store, s.idp = svc.Base, svc.API.Store, svc.IdP
	return s
}

// newUser creates a user on plan with an API token (setup, not under test);
// expires, when set, is the token's expiry.
func (s *stack) newUser(t *testing.T, plan string, expires *time.Time) string {
	t.Helper()
	_, value := s.createUser(t, plan, expires)
	return value
}

// createUser is newUser that also returns the user.
func (s *stack) createUser(t *testing.T, plan string, expires *time.Time) (store.User, string) {
	t.Helper()
	u, value, err := testseed.NewUser(context.Background(), s.store, testseed.User{Plan: plan, TokenName: "cli",
		TokenCreated: time.Now().UTC().Add(-time.Hour), TokenExpires: expires, Issuer: s.idp.Issuer})
	if err != nil {
		t.Fatal(err)
	}
	return u, value
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

// Command local runs the whole service on one machine, without Docker:
// DynamoDB Local (unless DYNAMODB_ENDPOINT points at one), the table(s) of
// template.yaml, the development identity provider, the API on
// http://127.0.0.1:3000 with the same handlers the Lambdas run, the scan
// state machine of infra/statemachine executed by aws-local-stepfunctions,
// and a deliberately weak demo target on loopback (DEMO_TARGET=false: off).
//
//	make run            # or: go run ./infra/local -addr 127.0.0.1:3000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/miekg/dns"

	"secscan/infra/local/demotarget"
	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/localstack"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/dashboard"
	"secscan/shared/lambdaenv"
	"secscan/shared/samtemplate"
	"secscan/shared/store"
	"secscan/shared/tools"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "local stack:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", envOr("ADDR", "127.0.0.1:3000"), "address to serve the API on (loopback)")
	root := flag.String("root", ".", "repository root (where template.yaml is)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &stack{addr: *addr, root: *root}
	stopped := false
	defer func() {
		s.close()
		if stopped {
			printStopped(os.Stdout, s.data)
		}
	}()
	for _, phase := range []func(context.Context) error{s.configure, s.storage, s.demoTarget, s.stateMachine, s.identity} {
		if err := phase(ctx); err != nil {
			return err
		}
	}
	srv, ln, err := s.server(ctx)
	if err != nil {
		return err
	}
	if err := serveUntilStopped(ctx, srv, ln); err != nil {
		return err
	}
	stopped = true
	return nil
}

// serveUntilStopped serves on ln until ctx ends (Ctrl-C, SIGTERM), then
// shuts the server down; a server that fails is an error.
func serveUntilStopped(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	// run's s.close then stops the state machine runner, the demo target
	// and DynamoDB Local; each is bounded, so the whole stops within 10 s.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // requests still open after 3 s are cut
	return nil
}

// stack is what run starts, phase by phase; close stops it in reverse order.
type stack struct {
	addr, root string
	cfg        config.Config
	logger     *slog.Logger
	logDir     string // this process's logs, in a directory of its own
	tpl        *samtemplate.Template
	data       *localstack.DataDir // nil: in memory (LOCAL_DATA=memory)
	db         *dynamodb.Client
	demo       *demotarget.Target
	sfnLog     *os.File
	scans      *localstack.Scans
	idp        *devidp.Provider
	opts       app.Options
	closers    []func()
}

// onClose registers f to run when the stack stops (last registered, first run).
func (s *stack) onClose(f func()) { s.closers = append(s.closers, f) }

func (s *stack) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// configure reads the environment and template.yaml.
func (s *stack) configure(context.Context) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.JWTJWKSURL == "" {
		// The development identity provider signs a session for any email,
		// the bootstrap admin's included: it must never be reachable from
		// another machine.
		if err := localstack.LoopbackOnly(s.addr); err != nil {
			return fmt.Errorf("ADDR %s: %w (the development identity provider is on because JWT_JWKS_URL is unset)", s.addr, err)
		}
	}
	s.cfg, s.logger = cfg, lambdaenv.NewLogger(cfg.LogLevel)
	s.opts = app.Options{Logger: s.logger}
	// Two stacks on one machine never write into each other's log files.
	if s.logDir, err = os.MkdirTemp("", "secscan-local-"); err != nil {
		return err
	}
	s.tpl, err = samtemplate.Load(filepath.Join(s.root, "template.yaml"))
	return err
}

// storage opens .local, starts DynamoDB Local unless DYNAMODB_ENDPOINT names
// one, and creates the tables of template.yaml.
func (s *stack) storage(ctx context.Context) error {
	data, err := openData(s.root)
	if err != nil {
		return err
	}
	if data != nil {
		s.data = data
		s.onClose(func() { data.Close() })
	}
	if s.cfg.DynamoDBEndpoint == "" {
		endpoint, stopDB, err := startDynamoDB(ctx, s.root, s.logDir, s.data)
		if err != nil {
			return err
		}
		s.onClose(stopDB)
		s.cfg.DynamoDBEndpoint = endpoint
	}
	if s.db, err = store.NewClient(ctx, s.cfg.DynamoDBEndpoint); err != nil {
		return err
	}
	return dynamolocal.CreateTables(ctx, s.db, s.tpl, s.cfg.TableName)
}

// demoTarget starts the demo target unless DEMO_TARGET=false.
func (s *stack) demoTarget(ctx context.Context) error {
	on, err := demoEnabled()
	if err != nil || !on {
		return err
	}
	demo, err := startDemo(ctx, &s.cfg)
	if err != nil {
		return err
	}
	s.demo = demo
	s.onClose(func() { demo.Close() })
	s.opts.WebPorts = tools.Ports{HTTP: demo.Config().HTTPPort, HTTPS: demo.Config().HTTPSPort, DNS: demo.DNSPort()}
	s.opts.ScanRootCAs = demo.RootCAs()
	return nil
}

// stateMachine starts aws-local-stepfunctions on the scan state machine.
func (s *stack) stateMachine(ctx context.Context) error {
	sfnLog, err := os.Create(filepath.Join(s.logDir, "stepfunctions.log"))
	if err != nil {
		return err
	}
	s.sfnLog = sfnLog
	s.onClose(func() { sfnLog.Close() })
	scans, err := localstack.StartScans(ctx, s.root, s.tpl, sfnLog)
	if err != nil {
		return err
	}
	s.scans = scans
	s.onClose(func() { scans.Close() })
	s.cfg.StepFunctionsEndpoint, s.cfg.StateMachineARN = scans.Endpoint(), scans.StateMachineARN()
	return nil
}

// identity starts the development identity provider unless JWT_JWKS_URL
// names a real one.
func (s *stack) identity(context.Context) error {
	if s.cfg.JWTJWKSURL != "" {
		return nil
	}
	s.cfg.JWTIssuer, s.cfg.JWTAudience = "http://"+s.addr+"/dev", "secscan-local"
	var err error
	if s.idp, err = newIdP(s.cfg, s.data); err != nil {
		return err
	}
	s.opts.SessionKeys, err = s.idp.Keyfunc()
	return err
}

// server builds the service, the schedule ticker and the router, prints the
// banner and returns the server with its listener.
func (s *stack) server(ctx context.Context) (*http.Server, net.Listener, error) {
	svc, err := app.Build(ctx, s.cfg, s.opts)
	if err != nil {
		return nil, nil, err
	}
	s.scans.Serve(svc.Agent)
	api := svc.API
	// EventBridge Scheduler's part: fire due schedules every LOCAL_SCHEDULER_INTERVAL.
	ticker := localstack.StartScheduler(ctx, api, s.cfg.LocalSchedulerInterval, s.logger)
	s.onClose(ticker.Close)
	admin, err := prepareUsers(ctx, &s.cfg, s.data, s.db, api.Store)
	if err != nil {
		return nil, nil, err
	}
	routes, err := s.tpl.Routes()
	if err != nil {
		return nil, nil, err
	}
	dash, err := dashboard.New(localstack.DashboardConfig(s.idp, os.Getenv, s.cfg.JWTAudience))
	if err != nil {
		return nil, nil, fmt.Errorf("dashboard: %w", err)
	}
	handlers := app.Handlers(api)
	handlers[localstack.DashboardFunction] = dash.Handler()
	handler, err := localstack.NewRouter(routes, handlers, s.idp)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w (is another local stack running? set ADDR to use another port)", s.addr, err)
	}
	// A client that sends slowly, reads slowly or idles cannot hold a connection:
	// bodies are at most 64 KiB, and the slowest endpoint (a report, a
	// verification) answers well within its function's timeout of 30 s at most.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn)}
	printBanner(os.Stdout, s.addr, s.cfg, s.idp != nil, len(routes), s.demo, s.sfnLog.Name(), admin)
	return srv, ln, nil
}

// printStopped is the one line Ctrl-C leaves, printed once everything the
// stack started has stopped (run defers it first, so it runs last).
func printStopped(w io.Writer, data *localstack.DataDir) {
	if data == nil {
		fmt.Fprintln(w, "\nStopped the API, the scan runner, the demo target and DynamoDB Local (in memory: nothing kept).")
		return
	}
	fmt.Fprintf(w, "\nStopped the API, the scan runner, the demo target and DynamoDB Local; data kept in %s (make reset wipes it).\n", data.Path)
}

func printBanner(w io.Writer, addr string, cfg config.Config, devIdP bool, routes int, demo *demotarget.Target, sfnLog string, admin adminInfo) {
	base := "http://" + addr
	fmt.Fprintf(w, "\nAPI listening on %s (%d routes from template.yaml)\n", base, routes)
	fmt.Fprintf(w, "Dashboard: %s/ (sign in through the identity provider)\n", base)
	fmt.Fprintf(w, "DynamoDB: %s, table %q\n", cfg.DynamoDBEndpoint, cfg.TableName)
	fmt.Fprintf(w, "Scans: infra/statemachine/scan.asl.json on aws-local-stepfunctions\n")
	fmt.Fprintf(w, "Schedules: due ones fire every %s (LOCAL_SCHEDULER_INTERVAL)\n", cfg.LocalSchedulerInterval)
	fmt.Fprintf(w, "Logs of DynamoDB Local and the state machine runner: %s\n", filepath.Dir(sfnLog))
	if devIdP {
		fmt.Fprintf(w, "\nGet a browser-session token from the development identity provider:\n")
		fmt.Fprintf(w, "  export SESSION=$(curl -s -X POST %s/dev/session -d '{\"email\":\"you@example.com\"}' | sed -E 's/.*\"token\":\"([^\"]+)\".*/\\1/')\n", base)
		fmt.Fprintf(w, "  curl -s %s/api/auth/me -H \"Authorization: Bearer $SESSION\"\n", base)
	}
	admin.print(w, base, cfg.BootstrapAdminToken)
	if demo != nil {
		fmt.Fprintf(w, "\n%s", demo.Summary())
		fmt.Fprintf(w, "  The README's walkthrough registers, verifies and scans %s in a few commands.\n", demo.Domain())
	}
	fmt.Fprintf(w, "\nPress Ctrl-C to stop.\n")
}

// demoEnabled reads DEMO_TARGET (default true).
func demoEnabled() (bool, error) {
	v := strings.TrimSpace(os.Getenv("DEMO_TARGET"))
	if v == "" {
		return true, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("DEMO_TARGET must be true or false, got %q", v)
	}
	return on, nil
}

// startDemo starts the demo target. Without DNS_SERVER, the stack resolves
// through the demo's DNS server, which answers the demo zone and forwards
// every other name to the system's resolver; the stack may reach loopback.
func startDemo(ctx context.Context, cfg *config.Config) (*demotarget.Target, error) {
	dcfg, err := demotarget.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	if cfg.DNSServer == "" {
		dcfg.Upstream = systemResolver()
	}
	demo, err := demotarget.Start(ctx, dcfg)
	if err != nil {
		return nil, err
	}
	if cfg.DNSServer == "" {
		cfg.DNSServer = demo.DNSAddr()
	}
	// The demo lives on loopback: the local stack must be allowed to reach it.
	cfg.AllowPrivateNetworks = true
	return demo, nil
}

// systemResolver is the first nameserver of /etc/resolv.conf ("" when none).
func systemResolver() string {
	conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
	if err != nil || len(conf.Servers) == 0 {
		return ""
	}
	return net.JoinHostPort(conf.Servers[0], conf.Port)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

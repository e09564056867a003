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
	var data *localstack.DataDir
	stopped := false
	defer func() {
		if stopped {
			printStopped(os.Stdout, data)
		}
	}()

	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.JWTJWKSURL == "" {
		// The development identity provider signs a session for any email,
		// the bootstrap admin's included: it must never be reachable from
		// another machine.
		if err := localstack.LoopbackOnly(*addr); err != nil {
			return fmt.Errorf("ADDR %s: %w (the development identity provider is on because JWT_JWKS_URL is unset)", *addr, err)
		}
	}
	logger := lambdaenv.NewLogger(cfg.LogLevel)
	// This process's logs, in a directory of its own: two stacks on one
	// machine never write into each other's files.
	logDir, err := os.MkdirTemp("", "secscan-local-")
	if err != nil {
		return err
	}
	tpl, err := samtemplate.Load(filepath.Join(*root, "template.yaml"))
	if err != nil {
		return err
	}

	if data, err = openData(*root); err != nil {
		return err
	}
	if data != nil {
		defer data.Close()
	}
	if cfg.DynamoDBEndpoint == "" {
		endpoint, stopDB, err := startDynamoDB(ctx, *root, logDir, data)
		if err != nil {
			return err
		}
		defer stopDB()
		cfg.DynamoDBEndpoint = endpoint
	}
	db, err := store.NewClient(ctx, cfg.DynamoDBEndpoint)
	if err != nil {
		return err
	}
	if err := dynamolocal.CreateTables(ctx, db, tpl, cfg.TableName); err != nil {
		return err
	}

	opts := app.Options{Logger: logger}
	var demo *demotarget.Target
	if demoOn, err := demoEnabled(); err != nil {
		return err
	} else if demoOn {
		if demo, err = startDemo(ctx, &cfg); err != nil {
			return err
		}
		defer demo.Close()
		opts.WebPorts = tools.Ports{HTTP: demo.Config().HTTPPort, HTTPS: demo.Config().HTTPSPort, DNS: demo.DNSPort()}
		opts.ScanRootCAs = demo.RootCAs()
	}

	sfnLog, err := os.Create(filepath.Join(logDir, "stepfunctions.log"))
	if err != nil {
		return err
	}
	defer sfnLog.Close()
	scans, err := localstack.StartScans(ctx, *root, tpl, sfnLog)
	if err != nil {
		return err
	}
	defer scans.Close()
	cfg.StepFunctionsEndpoint, cfg.StateMachineARN = scans.Endpoint(), scans.StateMachineARN()

	var idp *devidp.Provider
	if cfg.JWTJWKSURL == "" {
		cfg.JWTIssuer, cfg.JWTAudience = "http://"+*addr+"/dev", "secscan-local"
		if idp, err = newIdP(cfg, data); err != nil {
			return err
		}
		if opts.SessionKeys, err = idp.Keyfunc(); err != nil {
			return err
		}
	}
	svc, err := app.Build(ctx, cfg, opts)
	if err != nil {
		return err
	}
	scans.Serve(svc.Agent)
	api := svc.API
	// EventBridge Scheduler's part: fire due schedules every LOCAL_SCHEDULER_INTERVAL.
	ticker := localstack.StartScheduler(ctx, api, cfg.LocalSchedulerInterval, logger)
	defer ticker.Close()
	admin, err := prepareUsers(ctx, &cfg, data, db, api.Store)
	if err != nil {
		return err
	}
	routes, err := tpl.Routes()
	if err != nil {
		return err
	}
	dash, err := dashboard.New(localstack.DashboardConfig(idp, os.Getenv, cfg.JWTAudience))
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	handlers := app.Handlers(api)
	handlers[localstack.DashboardFunction] = dash.Handler()
	handler, err := localstack.NewRouter(routes, handlers, idp)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another local stack running? set ADDR to use another port)", *addr, err)
	}
	// A client that sends slowly, reads slowly or idles cannot hold a connection:
	// bodies are at most 64 KiB, and the slowest endpoint (a report, a
	// verification) answers well within its function's timeout of 30 s at most.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	printBanner(os.Stdout, *addr, cfg, idp != nil, len(routes), demo, sfnLog.Name(), admin)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	// The deferred stops (state machine runner, demo target, DynamoDB Local)
	// run after this; each is bounded, so the whole stops within 10 s.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // requests still open after 3 s are cut
	stopped = true
	return nil
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

// Package cli is the secscan command line: the commands, their flags and
// help, configuration (flags, environment, the file written by login), the
// wait loop with its progress display and interrupt handling, and the
// mapping of every outcome to an exit code. The process itself (signals,
// terminal detection, os.Exit) is wired in cmd/secscan's main.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/progress"
)

// Exit codes (documented in the root command's help and the README).
const (
	ExitOK     = 0 // success; the quality gate, if any, passed
	ExitGate   = 1 // the quality gate failed
	ExitError  = 2 // usage error, API error, or an interrupted wait
	ExitFailed = 3 // the scan failed or was cancelled
)

// Env is what the commands may touch of the process: streams, environment,
// interrupts and the terminal. main fills it from the real process; tests
// fill it with pipes and channels.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Interrupts delivers Ctrl-C (SIGINT) and SIGTERM.
	Interrupts <-chan os.Signal
	// StdinTerminal: questions may be asked on stdin.
	StdinTerminal bool
	// StderrTerminal: progress is a live line on stderr (else plain lines).
	StderrTerminal bool
	// TermWidth is stderr's width in columns (0 when unknown).
	TermWidth func() int
	// StdoutWidth is stdout's width in columns when it is a terminal (0
	// otherwise, or nil): tables fit it.
	StdoutWidth func() int
	// ReadSecret reads a line from the terminal without echo (login).
	ReadSecret func() (string, error)
	// ConfigDir is the user's configuration directory (os.UserConfigDir).
	ConfigDir func() (string, error)
	Version   string
}

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error // nil: the command already said everything
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err (possibly nil) with an exit code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// usageError is a problem with the command line (exit 2).
func usageError(format string, args ...any) error {
	return withCode(ExitError, fmt.Errorf(format, args...))
}

// app is the state shared by the commands of one invocation.
type app struct {
	env     Env
	ctx     context.Context
	apiURL  string
	token   string
	cfgPath string
	jsonOut bool
	// savedFor is the API URL of the saved login when it is not the one in
	// use: its token was not loaded, and a command needing one says so.
	savedFor string
	// rawStdout is stdout without the CI-log filter, for report downloads.
	rawStdout io.Writer

	mu      sync.Mutex
	claim   chan os.Signal    // while set, interrupts go here instead of ending the command
	display progress.Reporter // while set, messages clear its live line first
}

// Run executes one command line and returns its exit code.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.TermWidth == nil {
		env.TermWidth = func() int { return 0 }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	// Text output is made safe for CI logs (cilog.go); stderr on a terminal
	// is left alone for the live progress line. Report downloads to stdout
	// keep their bytes (rawStdout).
	rawStdout := env.Stdout
	stdout := newLogSafe(env.Stdout)
	env.Stdout = stdout
	defer stdout.Flush()
	if !env.StderrTerminal {
		stderr := newLogSafe(env.Stderr)
		env.Stderr = stderr
		defer stderr.Flush()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &app{env: env, ctx: ctx, rawStdout: rawStdout}
	if env.Interrupts != nil {
		go a.routeInterrupts(cancel)
	}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			a.printError(ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown command or flag, wrong number of arguments.
	a.printError(err)
	fmt.Fprintln(env.Stderr, "Run 'secscan --help' for usage.")
	return ExitError
}

// routeInterrupts ends the running command on an interrupt, unless a wait
// loop has claimed interrupts to ask or cancel first.
func (a *app) routeInterrupts(cancel context.CancelFunc) {
	for {
		select {
		case <-a.ctx.Done():
			return
		case sig, ok := <-a.env.Interrupts:
			if !ok {
				return
			}
			a.mu.Lock()
			claim := a.claim
			a.mu.Unlock()
			if claim != nil {
				select {
				case claim <- sig:
					continue
				default:
				}
			}
			cancel()
		}
	}
}

// claimInterrupts routes interrupts to the returned channel until release.
func (a *app) claimInterrupts() (ch <-chan os.Signal, release func()) {
	c := make(chan os.Signal, 2)
	a.mu.Lock()
	a.claim = c
	a.mu.Unlock()
	return c, func() {
		a.mu.Lock()
		a.claim = nil
		a.mu.Unlock()
	}
}

// printError shows an error: an API error as its detail with the HTTP
// status, an expired or revoked token with what to do about it.
func (a *app) printError(err error) {
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		msg := fmt.Sprintf("error: %s (HTTP %d)", apiErr.Detail, apiErr.Status)
		if apiErr.Status == 401 {
			msg += "\nThe token was refused: it may be mistyped, expired or revoked. Create a new API token and run 'secscan login', or set SECSCAN_TOKEN."
		}
		if a.jsonOut {
			a.writeJSONTo(a.env.Stderr, map[string]any{"error": apiErr.Detail, "status": apiErr.Status})
			return
		}
		fmt.Fprintln(a.env.Stderr, msg)
		return
	}
	if errors.Is(err, context.Canceled) {
		err = errors.New("interrupted")
	}
	if a.jsonOut {
		a.writeJSONTo(a.env.Stderr, map[string]any{"error": err.Error()})
		return
	}
	fmt.Fprintln(a.env.Stderr, "error: "+err.Error())
}

func (a *app) writeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printJSON writes v to stdout as indented JSON.
func (a *app) printJSON(v any) error { return a.writeJSONTo(a.env.Stdout, v) }

// out is stdout; info is for messages that are not the command's result.
func (a *app) out() io.Writer { return a.env.Stdout }

func (a *app) info(format string, args ...any) {
	a.mu.Lock()
	display := a.display
	a.mu.Unlock()
	if display != nil {
		display.Pause()
	}
	fmt.Fprintf(a.env.Stderr, format+"\n", args...)
}

// apiError turns an API or transport error into exit code 2.
func apiError(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return withCode(ExitError, err)
}

const rootLong = `secscan drives the security scanning service from a terminal or a CI pipeline:
register and verify targets, start scans and wait for them with live progress,
download reports, and turn findings into SARIF, JUnit or Markdown with a
quality gate that fails the build.

Configuration, first match wins:
  --api-url, --token                 flags
  SECSCAN_API_URL, SECSCAN_TOKEN      environment
  the file written by 'secscan login' (mode 0600, in your user config directory);
  its token is used only with the API URL it was saved for

Output meant for terminals and CI logs (not report downloads) has control
characters removed, and a line that would start with '::' (a GitHub Actions
workflow command) loses those colons, whatever the scanned targets said.

Exit codes:
  0  success; the quality gate, if any, passed
  1  the quality gate failed (a finding at or above --fail-on; findings of
     issues triaged false_positive or accepted_risk count only with
     --include-triaged)
  2  usage error, API error (shown as its detail and HTTP status), or an
     interrupted wait that left the scan running
  3  the scan failed or was cancelled`

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "secscan",
		Short:         "Security scans from the command line and CI",
		Long:          rootLong,
		Version:       a.env.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Example: `  secscan login --api-url https://scan.example.com
  secscan targets add example.com --method dns_txt
  secscan targets verify example.com
  secscan scan example.com --type full --tier standard --wait --fail-on high --sarif results.sarif
  secscan schedules create example.com --cadence weekly
  secscan issues example.com --status open
  secscan triage example.com web.header.csp --state false_positive --reason "set by the CDN"`,
		PersistentPreRunE: func(*cobra.Command, []string) error { return a.loadConfig() },
	}
	root.PersistentFlags().StringVar(&a.apiURL, "api-url", "", "base URL of the service (env SECSCAN_API_URL)")
	root.PersistentFlags().StringVar(&a.token, "token", "", "API token, pt_… (env SECSCAN_TOKEN); prefer the environment or login, flags show in process lists")
	root.PersistentFlags().StringVar(&a.cfgPath, "config", "", "configuration file (default: secscan/config.json in your user config directory)")
	root.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "print results (and errors, on stderr) as JSON for scripts")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%v", err) })
	root.AddCommand(a.loginCommand(), a.targetsCommand(), a.scanCommand(), a.scansCommand(),
		a.reportCommand(), a.findingsCommand(), a.schedulesCommand(), a.issuesCommand(), a.triageCommand(),
		a.retestCommand(), a.webhookCommand())
	return root
}

// client returns an API client for the configured URL and token.
func (a *app) client() (*client.Client, error) {
	if a.apiURL == "" {
		return nil, usageError("no API URL: pass --api-url, set SECSCAN_API_URL or run 'secscan login'")
	}
	if a.token == "" && a.savedFor != "" {
		return nil, usageError("the saved login is for %s, not %s: its token is not sent to another API. "+
			"Run 'secscan login --api-url %s', or set SECSCAN_TOKEN", a.savedFor, a.apiURL, a.apiURL)
	}
	if a.token == "" {
		return nil, usageError("no API token: set SECSCAN_TOKEN, pass --token or run 'secscan login'")
	}
	c := client.New(a.apiURL, a.token)
	c.UserAgent = "secscan-cli/" + a.env.Version
	c.Notify = func(msg string) { a.info("%s", msg) }
	return c, nil
}

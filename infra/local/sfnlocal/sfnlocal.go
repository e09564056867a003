// Package sfnlocal runs the project's ASL state machine locally, as AWS Step Functions would:
// a Node process (runner.mjs, over the npm package aws-local-stepfunctions) serves the
// Step Functions API that the Go SDK's sfn client speaks, and calls the Lambda Invoke API of an
// Invoker, which dispatches to the very Go handlers deployed as Lambda functions. It owns the
// local ARNs, the CloudFormation-style definition substitution and the runner's life cycle.
package sfnlocal

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"secscan/shared/syncio"
)

// Region and Account are what the local ARNs claim; nothing is ever sent to AWS.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// startTimeout bounds the runner's start (Node start, library and SDK import, validation).
const startTimeout = 20 * time.Second

//go:embed runner.mjs
var runnerScript []byte

// FunctionARN is the local ARN of the Lambda function with the template's logical ID.
func FunctionARN(logicalID string) string {
	return "arn:aws:lambda:" + Region + ":" + Account + ":function:" + logicalID
}

// StateMachineARN is the local ARN of the state machine called name.
func StateMachineARN(name string) string {
	return "arn:aws:states:" + Region + ":" + Account + ":stateMachine:" + name
}

var placeholder = regexp.MustCompile(`\$\{([^${}]*)\}`)

// Substitute replaces ${Name} placeholders as CloudFormation's DefinitionSubstitutions does
// (raw text, no escaping), and fails naming every placeholder that has no value, because a
// leftover placeholder would only surface later as a confusing validation or runtime error.
func Substitute(definition []byte, subs map[string]string) ([]byte, error) {
	var missing []string
	out := placeholder.ReplaceAllFunc(definition, func(m []byte) []byte {
		name := string(m[2 : len(m)-1])
		value, ok := subs[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return m
		}
		return []byte(value)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("substitute definition: no value for ${%s}", strings.Join(missing, "}, ${"))
	}
	return out, nil
}

// Options configure Start.
type Options struct {
	// NodeModulesDir is the folder holding node_modules (infra/local), set up by `make deps`.
	NodeModulesDir string
	// Definition is the ASL JSON, placeholders already substituted.
	Definition []byte
	// StateMachineName names the state machine in its ARN (StateMachineARN); default "StateMachine".
	StateMachineName string
	// LambdaEndpoint is the loopback base URL of the Lambda Invoke API (an Invoker), e.g. http://127.0.0.1:9001.
	LambdaEndpoint string
	// StatusChangeFunction, when set, is the function ARN invoked with the EventBridge
	// "Step Functions Execution Status Change" event when an execution fails, times out or is aborted.
	StatusChangeFunction string
	// Log receives the runner's JSON log lines; default os.Stderr.
	Log io.Writer
	// Port is the loopback port to serve on; 0 picks a free one. A restarted runner
	// takes its predecessor's, so Step Functions clients keep their endpoint.
	Port int
}

// Runner is a running local Step Functions endpoint.
type Runner struct {
	endpoint        string
	stateMachineARN string
	cmd             *exec.Cmd
	exited          chan struct{} // closed once the process is reaped
	stopOnce        sync.Once
}

// Endpoint is the base URL for the sfn client (sfn.Options.BaseEndpoint).
func (r *Runner) Endpoint() string { return r.endpoint }

// StateMachineARN is the ARN StartExecution must name.
func (r *Runner) StateMachineARN() string { return r.stateMachineARN }

// Exited is closed once the runner's process has exited, whatever ended it.
func (r *Runner) Exited() <-chan struct{} { return r.exited }

// Pid is the runner's process id.
func (r *Runner) Pid() int { return r.cmd.Process.Pid }

// Port is the loopback port the runner serves on.
func (r *Runner) Port() int {
	u, err := url.Parse(r.endpoint)
	if err != nil {
		return 0
	}
	port, _ := strconv.Atoi(u.Port())
	return port
}

// Stop kills the runner and waits for it to exit. Executions live only in the runner's memory,
// so running ones are lost. Safe to call more than once.
func (r *Runner) Stop() {
	r.stopOnce.Do(func() {
		_ = r.cmd.Process.Kill()
		<-r.exited
	})
}

// Start runs the state machine's runner; it is killed by Stop or when ctx ends.
func Start(ctx context.Context, opts Options) (*Runner, error) {
	localDir, node, err := checkOptions(&opts)
	if err != nil {
		return nil, err
	}
	tempDir, err := os.MkdirTemp("", "sfnlocal-")
	if err != nil {
		return nil, fmt.Errorf("sfnlocal: %w", err)
	}
	started := false
	defer func() {
		if !started {
			_ = os.RemoveAll(tempDir)
		}
	}()
	cmd, err := command(ctx, opts, localDir, node, tempDir)
	if err != nil {
		return nil, err
	}
	stderrTail := &tailBuffer{max: 4096}
	cmd.Stderr = io.MultiWriter(syncio.NewWriter(opts.Log), stderrTail)
	portLine := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = portLine
	// The runner exits when this pipe closes, so it cannot outlive a crashed parent.
	if _, err := cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("sfnlocal: %w", err)
	}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sfnlocal: start %s: %w", node, err)
	}
	started = true
	r := &Runner{stateMachineARN: StateMachineARN(opts.StateMachineName), cmd: cmd, exited: make(chan struct{})}

	go func() { // also reaps the process when ctx ends it
		_ = cmd.Wait()
		_ = os.RemoveAll(tempDir)
		close(r.exited)
	}()
	if err := r.awaitPort(ctx, portLine, stderrTail); err != nil {
		return nil, err
	}
	// The runner has read both files; removing them now leaves nothing behind if we crash.
	_ = os.RemoveAll(tempDir)
	return r, nil
}

// checkOptions validates opts and fills in the defaults; it returns the
// folder holding node_modules and the node binary in it.
func checkOptions(opts *Options) (localDir, node string, err error) {
	localDir, err = filepath.Abs(opts.NodeModulesDir) // the runner runs in its own folder
	if err != nil {
		return "", "", fmt.Errorf("sfnlocal: %w", err)
	}
	node = filepath.Join(localDir, "node_modules", ".bin", "node")
	library := filepath.Join(localDir, "node_modules", "aws-local-stepfunctions", "build", "main.node.esm.js")
	for _, f := range []string{node, library} {
		if _, err := os.Stat(f); err != nil {
			return "", "", fmt.Errorf("sfnlocal: %s is missing: run `make deps` (npm ci in infra/local): %w", f, err)
		}
	}
	if !json.Valid(opts.Definition) {
		return "", "", errors.New("sfnlocal: the state machine definition is not valid JSON")
	}
	if err := requireLoopback(opts.LambdaEndpoint); err != nil {
		return "", "", err
	}
	if opts.StateMachineName == "" {
		opts.StateMachineName = "StateMachine"
	}
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	return localDir, node, nil
}

// command writes the runner script and the definition into tempDir and
// returns the runner's command.
func command(ctx context.Context, opts Options, localDir, node, tempDir string) (*exec.Cmd, error) {
	script := filepath.Join(tempDir, "runner.mjs")
	definition := filepath.Join(tempDir, "definition.asl.json")
	if err := os.WriteFile(script, runnerScript, 0o600); err != nil {
		return nil, fmt.Errorf("sfnlocal: %w", err)
	}
	if err := os.WriteFile(definition, opts.Definition, 0o600); err != nil {
		return nil, fmt.Errorf("sfnlocal: %w", err)
	}
	cmd := exec.CommandContext(ctx, node, script,
		"--local-dir", localDir,
		"--definition", definition,
		"--state-machine-arn", StateMachineARN(opts.StateMachineName),
		"--status-change-function", opts.StatusChangeFunction,
		"--port", strconv.Itoa(opts.Port))
	cmd.Dir = tempDir
	// A clean environment: dummy credentials, and no profile, config file or endpoint
	// inherited from the developer's shell can send a call anywhere but our Invoker.
	cmd.Env = []string{
		"AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_LAMBDA=" + opts.LambdaEndpoint,
	}
	return cmd, nil
}

// awaitPort waits for the runner to print its port, stopping it when it
// prints something else, exits, takes longer than startTimeout or ctx ends.
func (r *Runner) awaitPort(ctx context.Context, portLine *firstLine, stderrTail *tailBuffer) error {
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case line := <-portLine.line:
		port, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || port <= 0 || port > 65535 {
			r.Stop()
			return fmt.Errorf("sfnlocal: runner printed %q instead of its port: %s", line, stderrTail.String())
		}
		r.endpoint = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		return nil
	case <-r.exited:
		return fmt.Errorf("sfnlocal: runner exited before it was ready: %s", stderrTail.String())
	case <-timer.C:
		r.Stop()
		return fmt.Errorf("sfnlocal: runner not ready after %s: %s", startTimeout, stderrTail.String())
	case <-ctx.Done():
		r.Stop()
		return fmt.Errorf("sfnlocal: start: %w", ctx.Err())
	}
}

// requireLoopback keeps Task invocations on this machine whatever the configuration says.
func requireLoopback(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("sfnlocal: LambdaEndpoint %q is not an http://host:port URL", endpoint)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("sfnlocal: LambdaEndpoint %q is not a loopback address", endpoint)
	}
	return nil
}

// firstLine is the runner's stdout: it hands over the first line (the port) and drops the rest.
type firstLine struct {
	buf  []byte
	done bool
	line chan string
}

func (f *firstLine) Write(p []byte) (int, error) { // exec calls Write from one goroutine
	if f.done {
		return len(p), nil
	}
	f.buf = append(f.buf, p...)
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 || len(f.buf) > 64 {
		if i < 0 {
			i = len(f.buf)
		}
		f.done = true
		f.line <- string(f.buf[:i])
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes written, to explain a failed start.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

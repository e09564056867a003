package localstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/infra/local/sfnlocal"
	"secscan/shared/agent"
	"secscan/shared/samtemplate"
)

// ScanStateMachine is the template's logical id of the scan state machine.
const ScanStateMachine = "ScanStateMachine"

// statusChangeFunction receives the execution status change events, as the
// template's ScanExecutionEndedRule routes them on AWS.
const statusChangeFunction = "ScanAgentFunction"

// Scans executes scans locally exactly as on AWS: the ASL file the template
// deploys runs in aws-local-stepfunctions, and its Task states call a local
// Lambda Invoke API that serves the same agent handler the Lambdas run.
type Scans struct {
	runner  *sfnlocal.Runner
	invoker *sfnlocal.Invoker
	server  *http.Server
	ln      net.Listener
}

// StartScans starts the state machine runner of the template in root.
// Executions call the functions once Serve has been given the agent.
func StartScans(ctx context.Context, root string, tpl *samtemplate.Template, log io.Writer) (*Scans, error) {
	sm, err := tpl.StateMachine(ScanStateMachine)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, sm.DefinitionURI))
	if err != nil {
		return nil, fmt.Errorf("read state machine: %w", err)
	}
	subs := map[string]string{}
	timeouts := map[string]time.Duration{statusChangeFunction: tpl.FunctionTimeout(statusChangeFunction)}
	for name, fn := range sm.Substitutions {
		subs[name] = sfnlocal.FunctionARN(fn)
		timeouts[fn] = tpl.FunctionTimeout(fn)
	}
	definition, err := sfnlocal.Substitute(raw, subs)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the local Lambda API: %w", err)
	}
	concurrency, err := LambdaConcurrency()
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Scans{ln: ln, invoker: &sfnlocal.Invoker{Timeouts: timeouts, Concurrency: concurrency}}
	s.runner, err = sfnlocal.Start(ctx, sfnlocal.Options{
		NodeModulesDir:       filepath.Join(root, "infra", "local"),
		Definition:           definition,
		StateMachineName:     ScanStateMachine,
		LambdaEndpoint:       "http://" + ln.Addr().String(),
		StatusChangeFunction: sfnlocal.FunctionARN(statusChangeFunction),
		Log:                  log,
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	return s, nil
}

// Endpoint is the local Step Functions endpoint (STEPFUNCTIONS_ENDPOINT).
func (s *Scans) Endpoint() string { return s.runner.Endpoint() }

// StateMachineARN is the local state machine's ARN (STATE_MACHINE_ARN).
func (s *Scans) StateMachineARN() string { return s.runner.StateMachineARN() }

// Serve answers the state machine's Lambda invocations with a: every
// function the state machine calls runs the agent, as on AWS.
func (s *Scans) Serve(a *agent.Agent) {
	// Every instance of every function is the agent, which is safe for
	// concurrent use; the pool still caps how many run at once.
	instance := func() lambda.Handler { return agentHandler{a} }
	s.invoker.Functions = map[string]func() lambda.Handler{}
	longest := time.Duration(0)
	for fn, timeout := range s.invoker.Timeouts {
		s.invoker.Functions[fn] = instance
		longest = max(longest, timeout)
	}
	// An invocation answers within its function's timeout (plus the wait
	// for a free instance, bounded the same way); the server's own
	// timeouts only catch a caller that stalls.
	s.server = &http.Server{Handler: s.invoker, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 2*longest + 10*time.Second, IdleTimeout: 2 * time.Minute}
	go func() { _ = s.server.Serve(s.ln) }()
}

// Close stops the runner (running executions are lost) and the Lambda API.
func (s *Scans) Close() {
	s.runner.Stop()
	if s.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.server.Shutdown(ctx)
	} else {
		s.ln.Close()
	}
}

// DefaultLambdaConcurrency is the number of instances of each function the
// local stack runs at once unless LOCAL_LAMBDA_CONCURRENCY says otherwise.
const DefaultLambdaConcurrency = 8

// LambdaConcurrency reads LOCAL_LAMBDA_CONCURRENCY (1 to 256, default 8):
// how many invocations of one function run at once, as that many Lambda
// instances would; more wait for a free instance.
func LambdaConcurrency() (int, error) {
	v := strings.TrimSpace(os.Getenv("LOCAL_LAMBDA_CONCURRENCY"))
	if v == "" {
		return DefaultLambdaConcurrency, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 256 {
		return 0, fmt.Errorf("LOCAL_LAMBDA_CONCURRENCY must be an integer from 1 to 256, got %q", v)
	}
	return n, nil
}

// agentHandler is the agent as a lambda.Handler. Unlike lambda.NewHandler
// it keeps no shared buffer, so concurrent scans invoke it concurrently, as
// Lambda would run several instances.
type agentHandler struct{ a *agent.Agent }

func (h agentHandler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var t agent.Task
	if err := json.Unmarshal(payload, &t); err != nil {
		return nil, fmt.Errorf("decode task: %w", err)
	}
	out, err := h.a.Handle(ctx, t)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errors.New("agent returned no result")
	}
	return json.Marshal(out)
}

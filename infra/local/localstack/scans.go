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
	"sync"
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
//
// If the runner dies (a crash, an operator's kill), its executions die with
// it: Scans starts a new runner on the same port, so the API's endpoint stays
// valid, and fails the scans whose executions were lost, as the template's
// ScanExecutionEndedRule does on AWS for an execution that ended abnormally,
// so none stays running.
type Scans struct {
	invoker *sfnlocal.Invoker
	server  *http.Server
	ln      net.Listener
	ctx     context.Context
	opts    sfnlocal.Options
	log     io.Writer

	mu       sync.Mutex
	runner   *sfnlocal.Runner
	agent    *agent.Agent
	inflight map[string]string // scan id → user id, for the executions running now
	closing  bool
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
	s := &Scans{ln: ln, invoker: &sfnlocal.Invoker{Timeouts: timeouts, Concurrency: concurrency}, ctx: ctx, log: log,
		inflight: map[string]string{}}
	s.opts = sfnlocal.Options{
		NodeModulesDir:       filepath.Join(root, "infra", "local"),
		Definition:           definition,
		StateMachineName:     ScanStateMachine,
		LambdaEndpoint:       "http://" + ln.Addr().String(),
		StatusChangeFunction: sfnlocal.FunctionARN(statusChangeFunction),
		Log:                  log,
	}
	s.runner, err = sfnlocal.Start(ctx, s.opts)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.opts.Port = s.runner.Port()
	go s.supervise(s.runner)
	return s, nil
}

// Endpoint is the local Step Functions endpoint (STEPFUNCTIONS_ENDPOINT).
func (s *Scans) Endpoint() string { return s.current().Endpoint() }

// StateMachineARN is the local state machine's ARN (STATE_MACHINE_ARN).
func (s *Scans) StateMachineARN() string { return s.current().StateMachineARN() }

// RunnerPID is the process id of the Node runner now serving, for an
// operator (or a fault test) who wants to see what its loss does.
func (s *Scans) RunnerPID() int { return s.current().Pid() }

func (s *Scans) current() *sfnlocal.Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runner
}

// supervise waits for r to exit; unless Close ended it, it starts the next
// runner on the same port and fails the scans whose executions were lost.
func (s *Scans) supervise(r *sfnlocal.Runner) {
	<-r.Exited()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	lost := s.inflight
	s.inflight = map[string]string{}
	a := s.agent
	s.mu.Unlock()
	fmt.Fprintf(s.log, `{"component":"localstack","msg":"state machine runner exited; restarting it","lost_executions":%d}`+"\n", len(lost))

	if !s.restart() || a == nil {
		return
	}
	s.failLost(a, lost)
}

// restart starts the next runner on the same port (five attempts) and
// supervises it; false when Close came first.
func (s *Scans) restart() bool {
	for attempt := 1; ; attempt++ {
		next, err := sfnlocal.Start(s.ctx, s.opts)
		if err == nil {
			s.mu.Lock()
			if s.closing {
				s.mu.Unlock()
				next.Stop()
				return false
			}
			s.runner = next
			s.mu.Unlock()
			go s.supervise(next)
			return true
		}
		if s.ctx.Err() != nil || attempt == 5 {
			fmt.Fprintf(s.log, `{"component":"localstack","msg":"state machine runner did not restart","error":%q}`+"\n", err.Error())
			return true
		}
		time.Sleep(time.Duration(attempt) * time.Second) // the old port may take a moment to free
	}
}

// failLost fails the scans (id to user id) whose executions the exited
// runner lost, as Step Functions' execution-ended event would.
func (s *Scans) failLost(a *agent.Agent, lost map[string]string) {
	for scanID, userID := range lost {
		input, _ := json.Marshal(map[string]string{"scan_id": scanID, "user_id": userID})
		ev := agent.Task{DetailType: "Step Functions Execution Status Change",
			Detail: &agent.StatusChange{Name: scanID, Status: "FAILED", Input: string(input)}}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 30*time.Second)
		if _, err := a.Handle(ctx, ev); err != nil {
			fmt.Fprintf(s.log, `{"component":"localstack","msg":"lost scan not failed","scan_id":%q,"error":%q}`+"\n", scanID, err.Error())
		}
		cancel()
	}
}

// track keeps the set of scans whose executions run now: a Task of a scan
// says its execution runs, the final DeliverWebhook or an execution-ended
// event that it does not any more.
func (s *Scans) track(t agent.Task, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if running {
		s.inflight[t.ScanID] = t.UserID
	} else {
		delete(s.inflight, t.ScanID)
	}
}

// Serve answers the state machine's Lambda invocations with a: every
// function the state machine calls runs the agent, as on AWS.
func (s *Scans) Serve(a *agent.Agent) {
	// Every instance of every function is the agent, which is safe for
	// concurrent use; the pool still caps how many run at once.
	s.mu.Lock()
	s.agent = a
	s.mu.Unlock()
	instance := func() lambda.Handler { return agentHandler{a: a, track: s.track} }
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
	s.mu.Lock()
	s.closing = true
	r := s.runner
	s.mu.Unlock()
	r.Stop()
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
type agentHandler struct {
	a     *agent.Agent
	track func(t agent.Task, running bool)
}

func (h agentHandler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var t agent.Task
	if err := json.Unmarshal(payload, &t); err != nil {
		return nil, fmt.Errorf("decode task: %w", err)
	}
	switch {
	case t.Detail != nil:
		var in agent.Task
		if json.Unmarshal([]byte(t.Detail.Input), &in) == nil {
			h.track(in, false)
		}
	case t.Action == agent.ActionDeliverWebhook:
		defer h.track(t, false)
	case t.ScanID != "":
		h.track(t, true)
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

package sfnlocal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"secscan/infra/local/sfnlocal"
)

// localDir is infra/local, where `make deps` installs node_modules.
const localDir = ".."

type FlakyError struct{}

func (*FlakyError) Error() string { return "flaky: try again" }

type PermanentError struct{ Reason string }

func (e *PermanentError) Error() string { return "permanent: " + e.Reason }

// statusEvent is the part of the EventBridge event the tests look at.
type statusEvent struct {
	Source     string `json:"source"`
	DetailType string `json:"detail-type"`
	Detail     struct {
		ExecutionArn    string  `json:"executionArn"`
		StateMachineArn string  `json:"stateMachineArn"`
		Name            string  `json:"name"`
		Status          string  `json:"status"`
		StartDate       int64   `json:"startDate"`
		StopDate        int64   `json:"stopDate"`
		Input           string  `json:"input"`
		Error           *string `json:"error"`
	} `json:"detail"`
}

// statusEvents records the status-change events a function receives, per execution.
type statusEvents struct {
	mu     sync.Mutex
	byExec map[string]chan statusEvent
}

func (l *statusEvents) of(executionArn string) chan statusEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byExec == nil {
		l.byExec = map[string]chan statusEvent{}
	}
	if l.byExec[executionArn] == nil {
		l.byExec[executionArn] = make(chan statusEvent, 4)
	}
	return l.byExec[executionArn]
}

func (l *statusEvents) handler() lambda.Handler {
	return lambda.NewHandler(func(e statusEvent) error {
		select {
		case l.of(e.Detail.ExecutionArn) <- e:
			return nil
		default:
			return errors.New("too many events for one execution")
		}
	})
}

// await waits for the status-change event of one execution.
func (l *statusEvents) await(t *testing.T, executionArn string) statusEvent {
	t.Helper()
	select {
	case e := <-l.of(executionArn):
		return e
	case <-time.After(10 * time.Second):
		t.Fatalf("no status-change event for %s", executionArn)
		return statusEvent{}
	}
}

// startStack serves functions over the Lambda Invoke API and starts a runner for the test ASL.
func startStack(t *testing.T, aslFile string, functions map[string]lambda.Handler, statusChange string) (*sfnlocal.Runner, *sfn.Client) {
	t.Helper()
	instances := map[string]func() lambda.Handler{}
	for name, h := range functions {
		instances[name] = func() lambda.Handler { return h } // one instance each (Concurrency 1)
	}
	lambdaAPI := httptest.NewServer(&sfnlocal.Invoker{Functions: instances})
	t.Cleanup(lambdaAPI.Close)

	asl, err := os.ReadFile("testdata/" + aslFile)
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string]string{}
	for name := range functions {
		subs[name] = sfnlocal.FunctionARN(name)
	}
	definition, err := sfnlocal.Substitute(asl, subs)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	runner, err := sfnlocal.Start(t.Context(), sfnlocal.Options{
		NodeModulesDir:       localDir,
		Definition:           definition,
		StateMachineName:     "Test",
		LambdaEndpoint:       lambdaAPI.URL,
		StatusChangeFunction: statusChange,
		Log:                  t.Output(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("runner for %s started in %s", aslFile, time.Since(begin).Round(time.Millisecond))
	t.Cleanup(runner.Stop)

	client := sfn.NewFromConfig(aws.Config{
		Region:      sfnlocal.Region,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(runner.Endpoint()) })
	return runner, client
}

func startExecution(t *testing.T, client *sfn.Client, runner *sfnlocal.Runner, name, input string) (*sfn.StartExecutionOutput, error) {
	t.Helper()
	return client.StartExecution(t.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(runner.StateMachineARN()),
		Name:            aws.String(name),
		Input:           aws.String(input),
	})
}

// awaitEnd polls DescribeExecution until the execution leaves RUNNING.
func awaitEnd(t *testing.T, client *sfn.Client, executionArn string) *sfn.DescribeExecutionOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		out, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(executionArn)})
		if err != nil {
			t.Fatalf("describe %s: %v", executionArn, err)
		}
		if out.Status != types.ExecutionStatusRunning {
			return out
		}
		select {
		case <-ctx.Done():
			t.Fatalf("execution %s still RUNNING", executionArn)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestStateMachine(t *testing.T) {
	t.Parallel()
	var countCalls, flakyCalls, doomedCalls, recoverCalls atomic.Int32
	var flakyTimes []time.Time
	var flakyMu sync.Mutex
	events := &statusEvents{}
	functions := map[string]lambda.Handler{
		"CountFunction": lambda.NewHandler(func(in struct{ Counter int }) (int, error) {
			countCalls.Add(1)
			return in.Counter + 1, nil
		}),
		"FlakyFunction": lambda.NewHandler(func(context.Context) (string, error) {
			flakyMu.Lock()
			flakyTimes = append(flakyTimes, time.Now())
			flakyMu.Unlock()
			if flakyCalls.Add(1) == 1 {
				return "", &FlakyError{}
			}
			return "ok", nil
		}),
		"DoomedFunction": lambda.NewHandler(func() error {
			doomedCalls.Add(1)
			return &PermanentError{Reason: "target unreachable"}
		}),
		"RecoverFunction": lambda.NewHandler(func(in struct{ Caught struct{ Error string } }) (string, error) {
			recoverCalls.Add(1)
			return "recovered from " + in.Caught.Error, nil
		}),
		"BigFunction": lambda.NewHandler(func() (string, error) {
			return strings.Repeat("x", 300<<10), nil
		}),
		"StatusChangeFunction": events.handler(),
	}
	runner, client := startStack(t, "loop-retry-catch.asl.json", functions, sfnlocal.FunctionARN("StatusChangeFunction"))

	t.Run("loop, retry and catch run as on AWS", func(t *testing.T) {
		t.Parallel()
		begin := time.Now()
		started, err := startExecution(t, client, runner, "scan-1", `{"scanId":"s-1"}`)
		if err != nil {
			t.Fatal(err)
		}
		end := awaitEnd(t, client, *started.ExecutionArn)
		elapsed := time.Since(begin)
		if end.Status != types.ExecutionStatusSucceeded {
			t.Fatalf("status %s, error %q, cause %q", end.Status, aws.ToString(end.Error), aws.ToString(end.Cause))
		}
		var out struct {
			ScanID  string `json:"scanId"`
			Context struct {
				ExecutionID    string `json:"executionId"`
				ExecutionName  string `json:"executionName"`
				StateMachineID string `json:"stateMachineId"`
			} `json:"context"`
			Counter int    `json:"counter"`
			Flaky   string `json:"flaky"`
			Caught  struct {
				Error string `json:"Error"`
				Cause string `json:"Cause"`
			} `json:"caught"`
			Recovered string `json:"recovered"`
		}
		if err := json.Unmarshal([]byte(aws.ToString(end.Output)), &out); err != nil {
			t.Fatalf("output %q: %v", aws.ToString(end.Output), err)
		}
		wantExecutionArn := "arn:aws:states:us-east-1:123456789012:execution:Test:scan-1"
		checks := []struct {
			what      string
			got, want any
		}{
			{"executionArn", *started.ExecutionArn, wantExecutionArn},
			{"input kept", out.ScanID, "s-1"},
			{"$$.Execution.Id", out.Context.ExecutionID, wantExecutionArn},
			{"$$.Execution.Name", out.Context.ExecutionName, "scan-1"},
			{"$$.StateMachine.Id", out.Context.StateMachineID, runner.StateMachineARN()},
			{"counter", out.Counter, 3},
			{"flaky result", out.Flaky, "ok"},
			{"caught error", out.Caught.Error, "PermanentError"},
			// AWS passes the function's error document as Cause.
			{"caught cause", out.Caught.Cause, `{"errorMessage":"permanent: target unreachable","errorType":"PermanentError"}`},
			{"recovered", out.Recovered, "recovered from PermanentError"},
			{"Count calls", countCalls.Load(), int32(3)},
			{"Flaky calls", flakyCalls.Load(), int32(2)},
			{"Doomed calls", doomedCalls.Load(), int32(1)},
			{"Recover calls", recoverCalls.Load(), int32(1)},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
			}
		}
		flakyMu.Lock()
		defer flakyMu.Unlock()
		if len(flakyTimes) == 2 {
			if pause := flakyTimes[1].Sub(flakyTimes[0]); pause < 950*time.Millisecond || pause > 1900*time.Millisecond {
				t.Errorf("retry after %s, want IntervalSeconds 1", pause)
			}
			// 7 Task invocations; the rest of the time is the 1 s retry pause.
			t.Logf("execution took %s: %s per Task beyond the retry pause",
				elapsed.Round(time.Millisecond), ((elapsed - flakyTimes[1].Sub(flakyTimes[0])) / 7).Round(time.Microsecond))
		}
	})

	t.Run("same name: same input is idempotent, other input conflicts; stop aborts and notifies", func(t *testing.T) {
		t.Parallel()
		const input = `{"mode":"wait"}`
		first, err := startExecution(t, client, runner, "scan-2", input)
		if err != nil {
			t.Fatal(err)
		}
		again, err := startExecution(t, client, runner, "scan-2", input)
		if err != nil {
			t.Fatalf("same name and input while running: %v", err)
		}
		if *again.ExecutionArn != *first.ExecutionArn || !again.StartDate.Equal(*first.StartDate) {
			t.Errorf("second start = %s %s, want the first execution %s %s", *again.ExecutionArn, again.StartDate, *first.ExecutionArn, first.StartDate)
		}
		_, err = startExecution(t, client, runner, "scan-2", `{"mode":"wait","other":true}`)
		var exists *types.ExecutionAlreadyExists
		if !errors.As(err, &exists) {
			t.Fatalf("same name, other input: err = %v, want ExecutionAlreadyExists", err)
		}

		if _, err := client.StopExecution(t.Context(), &sfn.StopExecutionInput{
			ExecutionArn: first.ExecutionArn, Error: aws.String("Cancelled"), Cause: aws.String("user asked"),
		}); err != nil {
			t.Fatal(err)
		}
		end := awaitEnd(t, client, *first.ExecutionArn)
		if end.Status != types.ExecutionStatusAborted || aws.ToString(end.Error) != "Cancelled" || end.StopDate == nil {
			t.Errorf("after stop: status %s, error %q, stopDate %v", end.Status, aws.ToString(end.Error), end.StopDate)
		}
		event := events.await(t, *first.ExecutionArn)
		if event.Detail.Status != "ABORTED" || event.Detail.ExecutionArn != *first.ExecutionArn ||
			event.Detail.Input != input || aws.ToString(event.Detail.Error) != "Cancelled" {
			t.Errorf("status-change event = %+v", event)
		}
		// Once closed, the name cannot be reused even with the same input.
		if _, err := startExecution(t, client, runner, "scan-2", input); !errors.As(err, &exists) {
			t.Errorf("restart of a closed execution: err = %v, want ExecutionAlreadyExists", err)
		}
	})

	t.Run("a result over 256 KiB fails the execution and notifies", func(t *testing.T) {
		t.Parallel()
		started, err := startExecution(t, client, runner, "scan-big", `{"mode":"big"}`)
		if err != nil {
			t.Fatal(err)
		}
		end := awaitEnd(t, client, *started.ExecutionArn)
		if end.Status != types.ExecutionStatusFailed || aws.ToString(end.Error) != "States.DataLimitExceeded" {
			t.Errorf("status %s, error %q, want FAILED States.DataLimitExceeded", end.Status, aws.ToString(end.Error))
		}
		event := events.await(t, *started.ExecutionArn)
		if event.Detail.Status != "FAILED" || aws.ToString(event.Detail.Error) != "States.DataLimitExceeded" {
			t.Errorf("status-change event = %+v", event)
		}
	})

	t.Run("API errors", func(t *testing.T) {
		t.Parallel()
		_, err := client.DescribeExecution(t.Context(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String("arn:aws:states:us-east-1:123456789012:execution:Test:nope")})
		var noExecution *types.ExecutionDoesNotExist
		if !errors.As(err, &noExecution) {
			t.Errorf("describe unknown: err = %v, want ExecutionDoesNotExist", err)
		}
		_, err = client.StartExecution(t.Context(), &sfn.StartExecutionInput{StateMachineArn: aws.String(sfnlocal.StateMachineARN("Other"))})
		var noMachine *types.StateMachineDoesNotExist
		if !errors.As(err, &noMachine) {
			t.Errorf("start other machine: err = %v, want StateMachineDoesNotExist", err)
		}
		_, err = startExecution(t, client, runner, "bad name", `{}`)
		var badName *types.InvalidName
		if !errors.As(err, &badName) {
			t.Errorf("name with a space: err = %v, want InvalidName", err)
		}
		_, err = startExecution(t, client, runner, "bad-input", `{`)
		var badInput *types.InvalidExecutionInput
		if !errors.As(err, &badInput) {
			t.Errorf("input not JSON: err = %v, want InvalidExecutionInput", err)
		}

		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, runner.Endpoint()+"/", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AWSStepFunctions.ListExecutions")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Type string `json:"__type"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusBadRequest || body.Type != "UnknownOperationException" {
			t.Errorf("unknown operation: %d %q", res.StatusCode, body.Type)
		}
	})
}

func TestTimedOutExecutionNotifiesStatusChange(t *testing.T) {
	t.Parallel()
	events := &statusEvents{}
	runner, client := startStack(t, "timeout.asl.json", map[string]lambda.Handler{"StatusChangeFunction": events.handler()},
		sfnlocal.FunctionARN("StatusChangeFunction"))

	const input = `{"scanId":"s-timeout"}`
	started, err := startExecution(t, client, runner, "scan-timeout", input)
	if err != nil {
		t.Fatal(err)
	}
	end := awaitEnd(t, client, *started.ExecutionArn)
	if end.Status != types.ExecutionStatusTimedOut {
		t.Fatalf("status %s, want TIMED_OUT", end.Status)
	}
	if took := end.StopDate.Sub(*end.StartDate); took < 2*time.Second || took > 4*time.Second {
		t.Errorf("timed out after %s, want TimeoutSeconds 2", took)
	}
	event := events.await(t, *started.ExecutionArn)
	want := fmt.Sprintf("%s %s %s %s %s %s", "aws.states", "Step Functions Execution Status Change", "TIMED_OUT",
		*started.ExecutionArn, runner.StateMachineARN(), input)
	got := fmt.Sprintf("%s %s %s %s %s %s", event.Source, event.DetailType, event.Detail.Status,
		event.Detail.ExecutionArn, event.Detail.StateMachineArn, event.Detail.Input)
	if got != want {
		t.Errorf("event = %s\nwant    %s", got, want)
	}
	if event.Detail.StartDate != started.StartDate.UnixMilli() || event.Detail.StopDate < event.Detail.StartDate+2000 {
		t.Errorf("event dates %d..%d, execution started %d", event.Detail.StartDate, event.Detail.StopDate, started.StartDate.UnixMilli())
	}
}

func TestLambdaAPIFailuresAreNamedAsOnAWS(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more
	tests := []struct{ name, endpoint, wantError string }{
		{"nothing listening", closed.URL, "Lambda.SdkClientException"},
		{"unknown function", "", "Lambda.ResourceNotFoundException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			endpoint := tt.endpoint
			if endpoint == "" {
				lambdaAPI := httptest.NewServer(&sfnlocal.Invoker{})
				t.Cleanup(lambdaAPI.Close)
				endpoint = lambdaAPI.URL
			}
			runner, err := sfnlocal.Start(t.Context(), sfnlocal.Options{
				NodeModulesDir: localDir,
				Definition:     []byte(`{"StartAt":"Call","States":{"Call":{"Type":"Task","Resource":"` + sfnlocal.FunctionARN("Missing") + `","End":true}}}`),
				LambdaEndpoint: endpoint,
				Log:            t.Output(),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(runner.Stop)
			client := sfn.NewFromConfig(aws.Config{
				Region:      sfnlocal.Region,
				Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
			}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(runner.Endpoint()) })
			started, err := startExecution(t, client, runner, "call", `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if end := awaitEnd(t, client, *started.ExecutionArn); end.Status != types.ExecutionStatusFailed || aws.ToString(end.Error) != tt.wantError {
				t.Errorf("status %s, error %q, want FAILED %s", end.Status, aws.ToString(end.Error), tt.wantError)
			}
		})
	}
}

func TestStartFailsClearly(t *testing.T) {
	t.Parallel()
	valid := []byte(`{"StartAt":"Done","States":{"Done":{"Type":"Succeed"}}}`)
	tests := []struct {
		name      string
		opts      sfnlocal.Options
		wantError string
	}{
		{"node_modules missing", sfnlocal.Options{NodeModulesDir: t.TempDir(), Definition: valid, LambdaEndpoint: "http://127.0.0.1:1"}, "run `make deps`"},
		{"not JSON", sfnlocal.Options{NodeModulesDir: localDir, Definition: []byte(`{`), LambdaEndpoint: "http://127.0.0.1:1"}, "not valid JSON"},
		{"Lambda endpoint off this machine", sfnlocal.Options{NodeModulesDir: localDir, Definition: valid, LambdaEndpoint: "http://10.0.0.1:9001"}, "not a loopback address"},
		{"invalid ASL", sfnlocal.Options{NodeModulesDir: localDir, Definition: []byte(`{"StartAt":"Nope","States":{}}`), LambdaEndpoint: "http://127.0.0.1:1"}, "definition is invalid"},
		{"Task that is not a Lambda function", sfnlocal.Options{NodeModulesDir: localDir, LambdaEndpoint: "http://127.0.0.1:1",
			Definition: []byte(`{"StartAt":"Get","States":{"Get":{"Type":"Task","Resource":"arn:aws:states:::dynamodb:getItem","End":true}}}`)},
			"Resource is a Lambda function ARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.Log = t.Output()
			runner, err := sfnlocal.Start(t.Context(), tt.opts)
			if err == nil {
				runner.Stop()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("error %q does not mention %q", err, tt.wantError)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	t.Parallel()
	subs := map[string]string{"ScanFunction": sfnlocal.FunctionARN("ScanFunction"), "Limit": "3"}
	tests := []struct {
		name, in, want, wantError string
	}{
		{"placeholders replaced as raw text", `{"R":"${ScanFunction}","N":${Limit},"again":"${ScanFunction}"}`,
			`{"R":"arn:aws:lambda:us-east-1:123456789012:function:ScanFunction","N":3,"again":"arn:aws:lambda:us-east-1:123456789012:function:ScanFunction"}`, ""},
		{"JSONPath left alone", `{"InputPath":"$.scan","x":"$$.Execution.Id"}`, `{"InputPath":"$.scan","x":"$$.Execution.Id"}`, ""},
		{"every missing placeholder named", `{"a":"${Nope}","b":"${Other}","c":"${Nope}"}`, "", "${Nope}, ${Other}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := sfnlocal.Substitute([]byte(tt.in), subs)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantError)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}

// DNS rebinding: a web page whose name now resolves to 127.0.0.1 calls the
// runner with its own name in Host, and a page of any origin sends Origin.
// Neither starts (or reads) an execution; loopback Hosts and the SDK do.
func TestRunnerAnswersOnlyLoopbackHosts(t *testing.T) {
	t.Parallel()
	runner, client := startStack(t, "timeout.asl.json", nil, "")
	port := strconv.Itoa(runner.Port())
	call := func(host, origin, operation string, request any) (int, string) {
		t.Helper()
		body, _ := json.Marshal(request)
		req, err := http.NewRequest(http.MethodPost, runner.Endpoint(), bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AWSStepFunctions."+operation)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var e struct {
			Type string `json:"__type"`
		}
		_ = json.NewDecoder(res.Body).Decode(&e)
		return res.StatusCode, e.Type
	}
	for i, c := range []struct {
		host, origin string
		want         int
	}{
		{"rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"rebind.example:" + port, "http://rebind.example:" + port, http.StatusMisdirectedRequest},
		{"localhost.rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:1" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, "http://attacker.example", http.StatusForbidden},
	} {
		name := fmt.Sprintf("refused-%d", i)
		status, errorType := call(c.host, c.origin, "StartExecution",
			map[string]string{"stateMachineArn": runner.StateMachineARN(), "name": name, "input": "{}"})
		if status != c.want || errorType != "AccessDeniedException" {
			t.Errorf("StartExecution with Host %q Origin %q: %d %q, want %d AccessDeniedException", c.host, c.origin, status, errorType, c.want)
		}
		arn := strings.Replace(runner.StateMachineARN(), ":stateMachine:", ":execution:", 1) + ":" + name
		var missing *types.ExecutionDoesNotExist
		if _, err := client.DescribeExecution(t.Context(), &sfn.DescribeExecutionInput{ExecutionArn: &arn}); !errors.As(err, &missing) {
			t.Errorf("after a refused StartExecution with Host %q: DescribeExecution %v, want ExecutionDoesNotExist", c.host, err)
		}
		if status, _ := call(c.host, c.origin, "DescribeExecution", map[string]string{"executionArn": arn}); status != c.want {
			t.Errorf("DescribeExecution with Host %q Origin %q: %d, want %d", c.host, c.origin, status, c.want)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "LocalHost"} {
		if status, errorType := call(host, "", "DescribeExecution", map[string]string{"executionArn": "arn:aws:states:us-east-1:123456789012:execution:Test:none"}); status != http.StatusBadRequest || errorType != "ExecutionDoesNotExist" {
			t.Errorf("DescribeExecution with Host %q: %d %q, want 400 ExecutionDoesNotExist (answered)", host, status, errorType)
		}
	}
	if _, err := startExecution(t, client, runner, "served", "{}"); err != nil {
		t.Errorf("StartExecution through the SDK: %v", err)
	}
}

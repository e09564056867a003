package sfnlocal

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"secscan/infra/local/loopback"
)

// Lambda's limits and defaults that the Invoker reproduces.
const (
	MaxPayloadBytes = 6 << 20 // request and response payloads (6 MiB)
	DefaultTimeout  = 60 * time.Second
)

// Invoker serves the Lambda Invoke API (POST /2015-03-31/functions/{FunctionName}/invocations)
// for in-process handlers, answering as Lambda does, so the Step Functions runner (or any AWS SDK
// Lambda client) sees the same success, error and timeout shapes as on AWS.
//
// Each function runs as a pool of up to Concurrency instances, each serving one invocation at a
// time, as Lambda runs execution environments: concurrent invocations of a function run at once
// up to that number and queue for a free instance beyond it (Lambda would throttle; a local
// stack waits instead, up to the function's timeout, then answers TooManyRequestsException).
// An instance is made by the function's factory when the pool needs one, so handlers need not be
// safe for concurrent calls (a handler made by lambda.NewHandler returns bytes of a pooled buffer
// that it has already recycled). An instance still running at its timeout is abandoned, as
// Lambda discards a timed-out environment, and a fresh one takes its place.
//
// It answers only programs on this machine (loopback.Refusal): a request whose Host is not
// loopback on the listener's port (a web page rebound to 127.0.0.1) gets 421, one carrying an
// Origin header (any web page, even a blind cross-site POST) 403, and no function runs.
type Invoker struct {
	// Functions maps a function name (the template's logical ID) to the factory of its instances.
	Functions map[string]func() lambda.Handler
	// Timeouts maps a function name to its configured timeout; DefaultTimeout when absent.
	Timeouts map[string]time.Duration
	// Concurrency is the number of instances per function; 1 when zero.
	Concurrency int

	mu    sync.Mutex
	pools map[string]*pool
}

// pool holds a function's instances: slots counts the instances in use, idle the free ones.
type pool struct {
	slots chan struct{}
	mu    sync.Mutex
	idle  []lambda.Handler
}

// acquire returns a free instance, waiting until one is free or ctx ends.
func (p *pool) acquire(ctx context.Context, factory func() lambda.Handler) (lambda.Handler, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		h := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return h, nil
	}
	return factory(), nil
}

// release gives the instance's slot back, and the instance too when it can serve again.
func (p *pool) release(h lambda.Handler, reusable bool) {
	if reusable {
		p.mu.Lock()
		p.idle = append(p.idle, h)
		p.mu.Unlock()
	}
	<-p.slots
}

func (inv *Invoker) pool(name string) *pool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.pools == nil {
		inv.pools = map[string]*pool{}
	}
	if inv.pools[name] == nil {
		inv.pools[name] = &pool{slots: make(chan struct{}, max(1, inv.Concurrency))}
	}
	return inv.pools[name]
}

// lambdaError is Lambda's error body for an API (not function) error.
type lambdaError struct {
	Type    string `json:"Type"`
	Message string `json:"message"`
}

func (inv *Invoker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	requestID := newRequestID()
	w.Header().Set("X-Amzn-RequestId", requestID)
	if status, reason := loopback.Refusal(r); status != 0 {
		writeAPIError(w, status, "AccessDeniedException", reason)
		return
	}
	name, factory, payload, ok := inv.request(w, r)
	if !ok {
		return
	}
	timeout := DefaultTimeout
	if t, ok := inv.Timeouts[name]; ok && t > 0 {
		timeout = t
	}
	// Waiting for an instance is bounded like the invocation itself.
	p := inv.pool(name)
	waitCtx, stopWaiting := context.WithTimeout(r.Context(), timeout)
	handler, err := p.acquire(waitCtx, factory)
	stopWaiting()
	if err != nil {
		if r.Context().Err() == nil {
			writeAPIError(w, http.StatusTooManyRequests, "TooManyRequestsException",
				fmt.Sprintf("Rate Exceeded: all %d instances of %s stayed busy for %s", cap(p.slots), name, timeout))
		}
		return
	}
	// The caller hanging up (an aborted execution) cancels the handler too.
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: requestID, InvokedFunctionArn: FunctionARN(name)})
	result := runInstance(ctx, p, handler, payload)
	if r.Context().Err() != nil {
		return // nobody is waiting for the answer
	}
	if ctx.Err() != nil {
		// Lambda stops a function at its timeout whether or not the handler honours ctx, and
		// whatever the handler returned on its way out is lost.
		result = outcome{err: &messages.InvokeResponse_Error{Type: "Sandbox.Timedout",
			Message: fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", requestID, timeout.Seconds())}}
	}
	writeOutcome(w, result)
}

// request reads an Invoke request: the function's name, its factory and the
// payload. It answers the errors itself and then returns ok false.
func (inv *Invoker) request(w http.ResponseWriter, r *http.Request) (name string, factory func() lambda.Handler, payload []byte, ok bool) {
	functionName, ok := invokedFunction(r)
	if !ok {
		writeAPIError(w, http.StatusNotFound, "UnknownOperationException", "sfnlocal serves only the Lambda Invoke API")
		return "", nil, nil, false
	}
	name = FunctionNameOf(functionName)
	if factory, ok = inv.Functions[name]; !ok {
		writeAPIError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+FunctionARN(name))
		return "", nil, nil, false
	}
	if t := r.Header.Get("X-Amz-Invocation-Type"); t != "" && t != "RequestResponse" {
		writeAPIError(w, http.StatusBadRequest, "InvalidParameterValueException", "sfnlocal runs only RequestResponse invocations, not "+t)
		return "", nil, nil, false
	}
	if payload, ok = readPayload(w, r); !ok {
		return "", nil, nil, false
	}
	return name, factory, payload, true
}

// invokedFunction is the function name (or ARN) of a POST to the Invoke
// API's path; false for any other request.
func invokedFunction(r *http.Request) (string, bool) {
	escaped, ok := strings.CutPrefix(r.URL.EscapedPath(), "/2015-03-31/functions/")
	if ok {
		escaped, ok = strings.CutSuffix(escaped, "/invocations")
	}
	functionName, err := url.PathUnescape(escaped)
	return functionName, r.Method == http.MethodPost && ok && err == nil
}

// readPayload reads the invocation's payload, at most MaxPayloadBytes; it
// answers the errors itself and then returns false.
func readPayload(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxPayloadBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeAPIError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException",
			fmt.Sprintf("Request must be smaller than %d bytes for the InvokeFunction operation", MaxPayloadBytes))
	case err != nil:
		writeAPIError(w, http.StatusBadRequest, "InvalidRequestContentException", "read request: "+err.Error())
	default:
		return payload, true
	}
	return nil, false
}

// outcome is what one invocation returned: a payload or a function error.
type outcome struct {
	payload []byte
	err     *messages.InvokeResponse_Error
}

// runInstance invokes handler until it returns or ctx ends, and gives the
// instance back to its pool: to serve again when it returned, dropped when
// it was abandoned at the timeout.
func runInstance(ctx context.Context, p *pool, handler lambda.Handler, payload []byte) outcome {
	done := make(chan outcome, 1)
	go func() {
		out, invokeErr := invoke(ctx, handler, payload)
		done <- outcome{out, invokeErr}
	}()
	select {
	case result := <-done:
		p.release(handler, true)
		return result
	case <-ctx.Done():
		// The instance may still be running: its slot goes to a fresh instance, and the
		// abandoned one is dropped when it returns.
		p.release(handler, false)
		return outcome{}
	}
}

// writeOutcome answers as Lambda's Invoke API does.
func writeOutcome(w http.ResponseWriter, result outcome) {
	if result.err == nil && len(result.payload) > MaxPayloadBytes {
		result.err = &messages.InvokeResponse_Error{Type: "Function.ResponseSizeTooLarge",
			Message: fmt.Sprintf("Response payload size exceeded maximum allowed payload size (%d bytes).", MaxPayloadBytes)}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	if result.err != nil {
		// A function error is a 200 with this header, as on Lambda; Step Functions takes the
		// error name from errorType.
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		body, _ := json.Marshal(result.err)
		_, _ = w.Write(body)
		return
	}
	_, _ = w.Write(result.payload)
}

// invoke calls the handler once, turning an error or a panic into the error document the
// aws-lambda-go runtime would report for it.
func invoke(ctx context.Context, h lambda.Handler, payload []byte) (out []byte, invokeErr *messages.InvokeResponse_Error) {
	defer func() {
		if v := recover(); v != nil {
			invokeErr = &messages.InvokeResponse_Error{Type: ErrorType(v), Message: fmt.Sprintf("%v", v)}
		}
	}()
	b, err := h.Invoke(ctx, payload)
	if err != nil {
		if ive, ok := err.(messages.InvokeResponse_Error); ok { // the runtime passes this type through
			return nil, &ive
		}
		return nil, &messages.InvokeResponse_Error{Type: ErrorType(err), Message: err.Error()}
	}
	return bytes.Clone(b), nil // before the instance serves again: b may belong to its buffer pool
}

// ErrorType is the errorType aws-lambda-go's runtime reports for an error or panic value: the
// name of its type, pointer stripped (a *ScanError is "ScanError", errors.New gives
// "errorString"). ASL Retry and Catch match on this name.
func ErrorType(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		return t.Elem().Name()
	}
	return t.Name()
}

// FunctionNameOf extracts the function name from what the Invoke API accepts as FunctionName:
// a name, a full ARN or a partial ARN (123456789012:function:name), each with an optional
// :qualifier (version or alias), which the Invoker ignores.
func FunctionNameOf(functionName string) string {
	parts := strings.Split(functionName, ":")
	switch {
	case len(parts) >= 7 && parts[0] == "arn" && parts[5] == "function":
		return parts[6]
	case len(parts) >= 3 && parts[1] == "function":
		return parts[2]
	default:
		return parts[0]
	}
}

func writeAPIError(w http.ResponseWriter, status int, errorType, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", errorType)
	w.WriteHeader(status)
	body, _ := json.Marshal(lambdaError{Type: "User", Message: message})
	_, _ = w.Write(body)
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

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
// Invocations of one function run one at a time, like a single Lambda instance: a handler made by
// lambda.NewHandler returns bytes of a pooled buffer that it has already recycled, so a concurrent
// invocation of the same handler would overwrite them before they are copied out.
type Invoker struct {
	// Functions maps a function name (the template's logical ID) to its handler.
	Functions map[string]lambda.Handler
	// Timeouts maps a function name to its configured timeout; DefaultTimeout when absent.
	Timeouts map[string]time.Duration
	// Parallel says the handlers are safe for concurrent calls (lambda.NewHandler's
	// are not), so invocations of one function run at once, as on many Lambda instances.
	Parallel bool

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// lambdaError is Lambda's error body for an API (not function) error.
type lambdaError struct {
	Type    string `json:"Type"`
	Message string `json:"message"`
}

func (inv *Invoker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	requestID := newRequestID()
	w.Header().Set("X-Amzn-RequestId", requestID)
	escaped, ok := strings.CutPrefix(r.URL.EscapedPath(), "/2015-03-31/functions/")
	if ok {
		escaped, ok = strings.CutSuffix(escaped, "/invocations")
	}
	functionName, err := url.PathUnescape(escaped)
	if r.Method != http.MethodPost || !ok || err != nil {
		writeAPIError(w, http.StatusNotFound, "UnknownOperationException", "sfnlocal serves only the Lambda Invoke API")
		return
	}
	name := FunctionNameOf(functionName)
	handler, ok := inv.Functions[name]
	if !ok {
		writeAPIError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+FunctionARN(name))
		return
	}
	if t := r.Header.Get("X-Amz-Invocation-Type"); t != "" && t != "RequestResponse" {
		writeAPIError(w, http.StatusBadRequest, "InvalidParameterValueException", "sfnlocal runs only RequestResponse invocations, not "+t)
		return
	}
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxPayloadBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeAPIError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException",
				fmt.Sprintf("Request must be smaller than %d bytes for the InvokeFunction operation", MaxPayloadBytes))
			return
		}
		writeAPIError(w, http.StatusBadRequest, "InvalidRequestContentException", "read request: "+err.Error())
		return
	}

	timeout := DefaultTimeout
	if t, ok := inv.Timeouts[name]; ok && t > 0 {
		timeout = t
	}
	// The caller hanging up (an aborted execution) cancels the handler too.
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: requestID, InvokedFunctionArn: FunctionARN(name)})

	type outcome struct {
		payload []byte
		err     *messages.InvokeResponse_Error
	}
	done := make(chan outcome, 1)
	go func() {
		out, invokeErr := inv.invoke(ctx, name, handler, payload)
		done <- outcome{out, invokeErr}
	}()
	var result outcome
	select {
	case result = <-done:
	case <-ctx.Done():
	}
	if r.Context().Err() != nil {
		return // nobody is waiting for the answer
	}
	if ctx.Err() != nil {
		// Lambda stops a function at its timeout whether or not the handler honours ctx, and
		// whatever the handler returned on its way out is lost.
		result = outcome{err: &messages.InvokeResponse_Error{Type: "Sandbox.Timedout",
			Message: fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", requestID, timeout.Seconds())}}
	}
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
func (inv *Invoker) invoke(ctx context.Context, name string, h lambda.Handler, payload []byte) (out []byte, invokeErr *messages.InvokeResponse_Error) {
	if !inv.Parallel {
		lock := inv.lock(name)
		lock.Lock()
		defer lock.Unlock()
	}
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
	return bytes.Clone(b), nil // before unlocking: b may belong to the handler's buffer pool
}

func (inv *Invoker) lock(name string) *sync.Mutex {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.locks == nil {
		inv.locks = map[string]*sync.Mutex{}
	}
	if inv.locks[name] == nil {
		inv.locks[name] = &sync.Mutex{}
	}
	return inv.locks[name]
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

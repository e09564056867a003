package sfnlocal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"secscan/infra/local/sfnlocal"
)

type valueError struct{}

func (valueError) Error() string { return "a value error" }

// instances makes every function's instances with lambda.NewHandler, one
// handler per instance, as the Lambda runtime does in each environment.
func instances(handlers map[string]any) map[string]func() lambda.Handler {
	out := map[string]func() lambda.Handler{}
	for name, fn := range handlers {
		out[name] = func() lambda.Handler { return lambda.NewHandler(fn) }
	}
	return out
}

// invoke sends one Invoke API request the way the AWS SDKs do (FunctionName path-escaped).
func invoke(inv *sfnlocal.Invoker, functionName string, payload []byte, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/2015-03-31/functions/"+url.PathEscape(functionName)+"/invocations", bytes.NewReader(payload))
	req.Host = "127.0.0.1" // as the SDKs dial it; httptest's default, example.com, is refused
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	inv.ServeHTTP(rec, req)
	return rec
}

func TestFunctionNameOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{sfnlocal.FunctionARN("ScanFunction"), "ScanFunction"},
		{"arn:aws:lambda:eu-west-1:210987654321:function:ScanFunction:live", "ScanFunction"},
		{"123456789012:function:ScanFunction", "ScanFunction"},
		{"ScanFunction", "ScanFunction"},
		{"ScanFunction:$LATEST", "ScanFunction"},
	}
	for _, tt := range tests {
		if got := sfnlocal.FunctionNameOf(tt.in); got != tt.want {
			t.Errorf("FunctionNameOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInvoker(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	inv := &sfnlocal.Invoker{
		Functions: instances(map[string]any{
			"Echo": func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				if lc, ok := lambdacontext.FromContext(ctx); !ok || lc.InvokedFunctionArn != sfnlocal.FunctionARN("Echo") {
					return nil, errors.New("no Lambda context")
				}
				if _, ok := ctx.Deadline(); !ok {
					return nil, errors.New("no deadline")
				}
				return in, nil
			},
			"Pointer":  func() error { return &PermanentError{Reason: "gone"} },
			"Plain":    func() error { return errors.New("plain") },
			"Wrapped":  func() error { return fmt.Errorf("wrapped: %w", &PermanentError{Reason: "gone"}) },
			"Value":    func() error { return valueError{} },
			"Declared": func() error { return messages.InvokeResponse_Error{Type: "Scan.Refused", Message: "out of scope"} },
			"Panics":   func() error { panic("boom") },
			"Slow": func() error { // ignores its context, like a stuck handler
				<-release
				return nil
			},
		}),
		Timeouts:    map[string]time.Duration{"Slow": 50 * time.Millisecond},
		Concurrency: 4,
	}

	t.Run("result by name or ARN", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"Echo", sfnlocal.FunctionARN("Echo"), sfnlocal.FunctionARN("Echo") + ":live"} {
			rec := invoke(inv, name, []byte(`{"a":1}`), nil)
			if rec.Code != http.StatusOK || rec.Header().Get("X-Amz-Function-Error") != "" || rec.Body.String() != `{"a":1}` {
				t.Errorf("%s: %d %q %q", name, rec.Code, rec.Header().Get("X-Amz-Function-Error"), rec.Body)
			}
		}
	})

	t.Run("function errors carry the runtime's errorType", func(t *testing.T) {
		t.Parallel()
		tests := []struct{ function, wantType, wantMessage string }{
			{"Pointer", "PermanentError", "permanent: gone"},
			{"Plain", "errorString", "plain"},
			{"Wrapped", "wrapError", "wrapped: permanent: gone"},
			{"Value", "valueError", "a value error"},
			{"Declared", "Scan.Refused", "out of scope"},
			{"Panics", "string", "boom"},
			{"Slow", "Sandbox.Timedout", "Task timed out after 0.05 seconds"},
		}
		for _, tt := range tests {
			rec := invoke(inv, sfnlocal.FunctionARN(tt.function), []byte(`{}`), nil)
			var body struct{ ErrorType, ErrorMessage string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s: body %q: %v", tt.function, rec.Body, err)
			}
			if rec.Code != http.StatusOK || rec.Header().Get("X-Amz-Function-Error") != "Unhandled" ||
				body.ErrorType != tt.wantType || !strings.Contains(body.ErrorMessage, tt.wantMessage) {
				t.Errorf("%s: %d %q %+v, want Unhandled %s %q", tt.function, rec.Code, rec.Header().Get("X-Amz-Function-Error"), body, tt.wantType, tt.wantMessage)
			}
		}
	})

	t.Run("API errors", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name        string
			function    string
			payload     []byte
			header      http.Header
			wantStatus  int
			wantType    string
			wantMessage string
		}{
			{"unknown function", sfnlocal.FunctionARN("Nope"), []byte(`{}`), nil, http.StatusNotFound, "ResourceNotFoundException", "Function not found: " + sfnlocal.FunctionARN("Nope")},
			{"payload over 6 MiB", "Echo", bytes.Repeat([]byte("a"), sfnlocal.MaxPayloadBytes+1), nil, http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException", "Request must be smaller than 6291456 bytes"},
			{"asynchronous invocation", "Echo", []byte(`{}`), http.Header{"X-Amz-Invocation-Type": {"Event"}}, http.StatusBadRequest, "InvalidParameterValueException", "RequestResponse"},
		}
		for _, tt := range tests {
			rec := invoke(inv, tt.function, tt.payload, tt.header)
			var body struct{ Type, Message string }
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			if rec.Code != tt.wantStatus || rec.Header().Get("X-Amzn-ErrorType") != tt.wantType || body.Type != "User" || !strings.Contains(body.Message, tt.wantMessage) {
				t.Errorf("%s: %d %q %+v", tt.name, rec.Code, rec.Header().Get("X-Amzn-ErrorType"), body)
			}
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/2015-03-31/functions/Echo/configuration", nil)
		req.Host = "127.0.0.1"
		inv.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound || rec.Header().Get("X-Amzn-ErrorType") != "UnknownOperationException" {
			t.Errorf("other API: %d %q", rec.Code, rec.Header().Get("X-Amzn-ErrorType"))
		}
	})

	t.Run("concurrent invocations keep their own results", func(t *testing.T) {
		t.Parallel()
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				payload := fmt.Sprintf(`{"n":%d}`, i)
				if rec := invoke(inv, "Echo", []byte(payload), nil); rec.Body.String() != payload {
					t.Errorf("invocation %d got %q", i, rec.Body)
				}
			})
		}
		wg.Wait()
	})
}

// A function runs up to Concurrency invocations at once, each on an instance
// of its own; more wait for a free instance, and past the function's timeout
// the wait ends in Lambda's throttling answer.
func TestInvokerPool(t *testing.T) {
	t.Parallel()
	const concurrency = 3
	var (
		mu       sync.Mutex
		made     int
		running  int
		busiest  int
		busy     = map[int]bool{} // instance → serving now
		release  = make(chan struct{})
		started  = make(chan struct{}, 10)
		overlaps int
	)
	inv := &sfnlocal.Invoker{
		Functions: map[string]func() lambda.Handler{
			"Block": func() lambda.Handler {
				mu.Lock()
				made++
				id := made
				mu.Unlock()
				return lambda.NewHandler(func() (int, error) {
					mu.Lock()
					if busy[id] {
						overlaps++
					}
					busy[id] = true
					running++
					busiest = max(busiest, running)
					mu.Unlock()
					started <- struct{}{}
					<-release
					mu.Lock()
					busy[id] = false
					running--
					mu.Unlock()
					return id, nil
				})
			},
		},
		Timeouts:    map[string]time.Duration{"Block": 10 * time.Second},
		Concurrency: concurrency,
	}
	var wg sync.WaitGroup
	codes := make(chan int, 2*concurrency)
	for range 2 * concurrency {
		wg.Go(func() { codes <- invoke(inv, "Block", []byte(`{}`), nil).Code })
	}
	for range concurrency {
		<-started
	}
	select {
	case <-started:
		t.Fatalf("more than %d invocations ran at once", concurrency)
	case <-time.After(200 * time.Millisecond): // the others wait for an instance
	}
	close(release)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("status %d, want 200", code)
		}
	}
	if made != concurrency || busiest != concurrency || overlaps != 0 {
		t.Errorf("%d instances made, %d busy at most, %d overlapping uses; want %d, %d, 0", made, busiest, overlaps, concurrency, concurrency)
	}

	t.Run("throttled after waiting out the timeout", func(t *testing.T) {
		t.Parallel()
		hold, running := make(chan struct{}), make(chan struct{}, 3)
		defer close(hold)
		inv := &sfnlocal.Invoker{
			Functions: map[string]func() lambda.Handler{"One": func() lambda.Handler {
				return lambda.NewHandler(func() error { running <- struct{}{}; <-hold; return nil })
			}},
			Timeouts: map[string]time.Duration{"One": 400 * time.Millisecond},
		}
		// The first holds the one instance until its timeout; the next two come
		// halfway through it: one gets a fresh instance at the timeout and holds
		// it for another 400 ms, past the end of the other's wait (200 ms of
		// margin either way).
		results := make(chan *httptest.ResponseRecorder, 3)
		go func() { results <- invoke(inv, "One", []byte(`{}`), nil) }()
		<-running
		time.Sleep(200 * time.Millisecond)
		for range 2 {
			go func() { results <- invoke(inv, "One", []byte(`{}`), nil) }()
		}
		throttled := 0
		for range 3 {
			rec := <-results
			switch {
			case rec.Code == http.StatusTooManyRequests && rec.Header().Get("X-Amzn-ErrorType") == "TooManyRequestsException":
				throttled++
			case rec.Code != http.StatusOK || rec.Header().Get("X-Amz-Function-Error") != "Unhandled":
				t.Errorf("%d %q %s, want a timed-out invocation or a throttle", rec.Code, rec.Header().Get("X-Amzn-ErrorType"), rec.Body)
			}
		}
		if throttled != 1 {
			t.Errorf("%d throttled, want 1", throttled)
		}
	})
}

// DNS rebinding: a web page whose name now resolves to 127.0.0.1 calls the
// Invoke API with its own name in Host; any web page can also send it a
// blind cross-site POST (text/plain, no preflight), which carries an Origin.
// Neither runs a function; the SDKs' calls (a loopback Host, no Origin) do.
func TestInvokerAnswersOnlyLoopbackHosts(t *testing.T) {
	t.Parallel()
	var runs sync.Map
	inv := &sfnlocal.Invoker{Functions: instances(map[string]any{
		"Echo": func(in json.RawMessage) (json.RawMessage, error) { runs.Store(string(in), true); return in, nil },
	})}
	srv := httptest.NewServer(inv)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	post := func(host, origin, payload string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/2015-03-31/functions/Echo/invocations", strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "text/plain")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body bytes.Buffer
		_, _ = body.ReadFrom(res.Body)
		return res.StatusCode, res.Header.Get("X-Amzn-ErrorType")
	}
	for i, c := range []struct {
		host, origin string
		want         int
	}{
		{"rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"rebind.example:" + port, "http://rebind.example:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1.nip.io:" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:1" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, "http://attacker.example", http.StatusForbidden},
	} {
		payload := fmt.Sprintf(`{"refused":%d}`, i)
		if status, errorType := post(c.host, c.origin, payload); status != c.want || errorType != "AccessDeniedException" {
			t.Errorf("Host %q Origin %q: %d %q, want %d AccessDeniedException", c.host, c.origin, status, errorType, c.want)
		}
		if _, ran := runs.Load(payload); ran {
			t.Errorf("Host %q Origin %q: the function ran", c.host, c.origin)
		}
	}
	for i, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		payload := fmt.Sprintf(`{"served":%d}`, i)
		if status, errorType := post(host, "", payload); status != http.StatusOK {
			t.Errorf("Host %q: %d %q, want 200", host, status, errorType)
		}
		if _, ran := runs.Load(payload); !ran {
			t.Errorf("Host %q: the function did not run", host)
		}
	}
}

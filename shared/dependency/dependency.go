// Package dependency bounds every call the service makes to the AWS services
// it depends on (DynamoDB, Step Functions, a model) and names the one that
// failed. Each AWS client is built from Config with a Budget: a timeout per
// HTTP attempt, a few retries with short backoff for throttling and transient
// faults, and a deadline on the whole operation that fits inside an API
// function's 5 s answer. An operation that runs out of its budget, or keeps
// failing for a transient reason, ends in an *apierr.Error of kind
// Unavailable ("The database is unavailable; retry shortly", Retry-After),
// which the HTTP layer turns into a 503 and the scan agent into a retry of the
// state machine; its cause is an *Error naming the Service. Domain answers
// (a failed condition, a validation error, a missing resource) pass through
// untouched.
package dependency

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"secscan/shared/apierr"
)

// Service is a dependency, as its failure is told to customers.
type Service string

// The dependencies.
const (
	Database Service = "database"     // DynamoDB
	Scans    Service = "scan service" // Step Functions, which runs the scans
	// Retests is the function that runs retests, invoked asynchronously.
	Retests Service = "retest service"
	Model   Service = "model service" // Amazon Bedrock (or an OpenAI-compatible endpoint)
	// Scheduler is Amazon EventBridge Scheduler, which runs scheduled scans.
	Scheduler Service = "scheduler"
	// IdentityProvider serves the JWKS that session JWTs are checked against.
	IdentityProvider Service = "identity provider"
)

// Title is the service as the subject of a sentence ("The database").
func (s Service) Title() string { return "The " + string(s) }

// RetryAfter is what a 503 tells the client to wait: long enough for a brief
// fault to pass, short enough that a client does not give up.
const RetryAfter = 5

// Error is the cause of an Unavailable *apierr.Error: which service failed,
// how, and for how long this process has seen it failing.
type Error struct {
	Service Service
	// Down is the time since this process's first failed call to the service
	// after its last successful one (at least this call's own duration).
	Down time.Duration
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s unavailable: %v", e.Service, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Unavailable returns the 503 of service, caused by err.
func Unavailable(service Service, err error) *apierr.Error {
	return unavailable(&Error{Service: service, Err: err})
}

func unavailable(e *Error) *apierr.Error {
	return &apierr.Error{
		Kind:       apierr.Unavailable,
		Detail:     e.Service.Title() + " is unavailable; retry shortly",
		RetryAfter: RetryAfter,
		Err:        e,
	}
}

// Failed returns the dependency failure behind err, if there is one.
func Failed(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// outage remembers when a client's calls started failing (Unix nanoseconds;
// 0 while the last call succeeded). A Lambda instance, or the local stack,
// thereby knows how long an outage has lasted across invocations, which is
// what decides whether a scan waits or gives up.
type outage struct{ since atomic.Int64 }

// observe records the outcome of one operation started at start and returns
// how long the service has been failing (0 when it answered).
func (o *outage) observe(start time.Time, failed bool) time.Duration {
	if !failed {
		o.since.Store(0)
		return 0
	}
	o.since.CompareAndSwap(0, start.UnixNano())
	return max(time.Since(time.Unix(0, o.since.Load())), time.Nanosecond)
}

// Budget bounds one operation of a client.
type Budget struct {
	// Attempt bounds one HTTP attempt, connection and body included, so a
	// stalled connection is abandoned and the attempt retried.
	Attempt time.Duration
	// Operation bounds the operation, every attempt and backoff included.
	Operation time.Duration
	// MaxAttempts is the number of attempts, the first included.
	MaxAttempts int
	// MaxBackoff caps the jittered wait between attempts.
	MaxBackoff time.Duration
}

// Default is the budget of every client of the service. An API request makes
// its dependency calls one after another and stops at the first that fails,
// so 4.5 s per operation keeps the answer within 5 s. A 4 s attempt is far
// above DynamoDB's and Step Functions' normal latency (milliseconds) and above
// DynamoDB Local's on a loaded 2-core machine (3.5 s at the 95th percentile
// with 500 concurrent requests), so load alone does not turn into retries
// that add to it; throttling and 5xx answers, which come fast, get up to two
// retries within the operation's time. The scan agent runs with the same
// bound and leaves longer outages to the state machine's retries.
var Default = Budget{Attempt: 4 * time.Second, Operation: 4500 * time.Millisecond, MaxAttempts: 3, MaxBackoff: 250 * time.Millisecond}

// Config is the SDK configuration for a client of the service, with b's
// attempt timeout and retry budget (clients add Bound to their APIOptions):
//   - endpoint set: a local emulator at endpoint, region us-east-1 and fixed
//     dummy credentials, so a developer's AWS profile never reaches local runs;
//   - LoadShared set (a process that imports shared/dependency/awsprofile: the
//     local stack, agent-eval): the SDK's whole configuration chain, profiles
//     and SSO included;
//   - otherwise (every Lambda function): the environment Lambda gives a
//     function, AWS_REGION and the role's AWS_ACCESS_KEY_ID,
//     AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, plus AWS_ENDPOINT_URL.
//
// The last case is what the SDK's chain finds first in Lambda anyway; reading
// it directly keeps the chain's packages (shared config files, SSO, STS and
// their endpoint tables, several milliseconds of initialisation) out of the
// functions' binaries and cold starts. ServiceEndpoint reads the
// AWS_ENDPOINT_URL_<SERVICE> variables the chain would.
func Config(ctx context.Context, endpoint string, b Budget) (aws.Config, error) {
	cfg := aws.Config{HTTPClient: httpClient(b), Retryer: retryer(b)}
	switch {
	case endpoint != "":
		cfg.Region = "us-east-1"
		cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		return cfg, nil
	case LoadShared != nil:
		shared, err := LoadShared(ctx, cfg)
		if err != nil {
			return aws.Config{}, fmt.Errorf("aws config: %w", err)
		}
		return shared, nil
	}
	return fromEnvironment(cfg, os.Getenv)
}

// LoadShared, when set, loads the SDK's whole configuration chain on top of
// base's HTTP client and retryer. Package shared/dependency/awsprofile sets
// it; no Lambda function links that package (functions/deps_test.go).
var LoadShared func(ctx context.Context, base aws.Config) (aws.Config, error)

// fromEnvironment completes cfg from the variables Lambda sets for a
// function (getenv), as the SDK's environment configuration reads them.
func fromEnvironment(cfg aws.Config, getenv func(string) string) (aws.Config, error) {
	cfg.Region = firstSet(getenv, "AWS_REGION", "AWS_DEFAULT_REGION")
	key := firstSet(getenv, "AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY")
	secret := firstSet(getenv, "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY")
	if cfg.Region == "" || key == "" || secret == "" {
		return aws.Config{}, errors.New("aws config: AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set " +
			"(Lambda sets them; elsewhere, link shared/dependency/awsprofile to use profiles)")
	}
	cfg.Credentials = credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN"))
	if u := getenv("AWS_ENDPOINT_URL"); u != "" {
		cfg.BaseEndpoint = aws.String(u)
	}
	return cfg, nil
}

// firstSet is the value of the first of names that getenv has.
func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// ServiceEndpoint is AWS_ENDPOINT_URL_<id> (id as the SDK spells it, e.g.
// BEDROCK_RUNTIME, SCHEDULER), nil when unset: the endpoint of one service
// that a client built from the environment takes, as the SDK's chain would.
func ServiceEndpoint(id string) *string {
	if u := os.Getenv("AWS_ENDPOINT_URL_" + id); u != "" {
		return aws.String(u)
	}
	return nil
}

// httpClient bounds each attempt by b.Attempt.
func httpClient(b Budget) aws.HTTPClient {
	return awshttp.NewBuildableClient().WithTimeout(b.Attempt).
		WithTransportOptions(func(t *http.Transport) {
			// Concurrent requests of one Lambda instance (or of the whole local
			// stack) reuse their connections instead of opening new ones.
			t.MaxIdleConnsPerHost = 64
		})
}

// retryer retries within b: b.MaxAttempts attempts, jittered backoff up to
// b.MaxBackoff.
func retryer(b Budget) func() aws.Retryer {
	return func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = b.MaxAttempts
			o.MaxBackoff = b.MaxBackoff
			o.Backoff = retry.NewExponentialJitterBackoff(b.MaxBackoff)
			// The operation deadline bounds retries already; a client-side
			// retry quota would only turn a recovered service's first
			// requests into failures.
			o.RateLimiter = ratelimit.None
		})
	}
}

// Bound is the client middleware that puts b.Operation as a deadline on each
// operation and turns its failure, once every retry is spent, into
// Unavailable(service) when the cause is the service rather than the request.
// Add it to a client's APIOptions.
//
// Each call of Bound starts its own outage clock: give each client one.
func Bound(service Service, b Budget) func(*middleware.Stack) error {
	o := &outage{}
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("DependencyBound",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				start := time.Now()
				opCtx, cancel := context.WithTimeout(ctx, b.Operation)
				defer cancel()
				out, md, err := next.HandleInitialize(opCtx, in)
				if err != nil && ctx.Err() == context.Canceled {
					return out, md, err // the caller left; says nothing about the service
				}
				down := o.observe(start, err != nil && transient(err))
				if down > 0 {
					err = unavailable(&Error{Service: service, Down: down, Err: err})
				}
				return out, md, err
			}), middleware.Before)
	}
}

// transientCodes are the error codes that say the service, not the request,
// is at fault (DynamoDB's and Step Functions' throttling and internal errors).
var transientCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true, "ThrottlingException": true, "Throttling": true,
	"RequestLimitExceeded": true, "InternalServerError": true, "InternalFailure": true,
	"ServiceUnavailable": true, "ServiceUnavailableException": true, "TransactionInProgressException": true,
}

// transient reports whether err is the service's fault: no answer in time,
// no connection, a throttling or internal error, or any 5xx. A 4xx answer is
// the request's own outcome (a failed condition, a conflict, a bad input).
func transient(err error) bool {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && transientCodes[apiErr.ErrorCode()] {
		return true
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() != 0 { // 0: no response
		return status.HTTPStatusCode() >= 500 || status.HTTPStatusCode() == http.StatusTooManyRequests
	}
	return apiErr == nil // no answer at all: timeouts, refused or reset connections
}

// Package lambdainvoke invokes a Lambda function asynchronously (the Invoke
// API with InvocationType Event): the request is queued by Lambda and
// answered 202 at once. It signs with SigV4 from the SDK's core module, so
// the functions that launch work link no Lambda service client.
package lambdainvoke

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"secscan/shared/dependency"
	"secscan/shared/retest"
)

// timeout bounds one invocation request: an Event invocation only queues.
const timeout = 10 * time.Second

// Invoker invokes one function asynchronously.
type Invoker struct {
	// Function is the function's name or ARN.
	Function string
	// Endpoint is the Lambda API's base URL; empty means the region's.
	Endpoint string
	Config   aws.Config
	Client   *http.Client
}

// New returns an invoker of function with the SDK's default configuration
// (credentials, region) and, when endpoint is set, that endpoint.
func New(ctx context.Context, function, endpoint string) (*Invoker, error) {
	cfg, err := dependency.Config(ctx, endpoint, dependency.Default)
	if err != nil {
		return nil, err
	}
	return &Invoker{Function: function, Endpoint: endpoint, Config: cfg, Client: &http.Client{Timeout: timeout}}, nil
}

// LaunchRetest queues the run of a retest (api.RetestLauncher).
func (i *Invoker) LaunchRetest(ctx context.Context, req retest.Request) error {
	return i.Invoke(ctx, req)
}

// Invoke queues one invocation with payload as its event.
func (i *Invoker) Invoke(ctx context.Context, payload any) error {
	if i.Function == "" {
		return fmt.Errorf("invoke: RETEST_FUNCTION is not configured")
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	base := i.Endpoint
	if base == "" {
		base = "https://lambda." + i.Config.Region + ".amazonaws.com"
	}
	u := strings.TrimRight(base, "/") + "/2015-03-31/functions/" + url.PathEscape(i.Function) + "/invocations"
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Amz-Invocation-Type", "Event")
	creds, err := i.Config.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("invoke %s: credentials: %w", i.Function, err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "lambda", i.Config.Region, time.Now()); err != nil {
		return fmt.Errorf("invoke %s: sign: %w", i.Function, err)
	}
	resp, err := i.Client.Do(req)
	if err != nil {
		return fmt.Errorf("invoke %s: %w", i.Function, err)
	}
	defer resp.Body.Close()
	detail, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("invoke %s: status %d: %s", i.Function, resp.StatusCode, bytes.TrimSpace(detail))
	}
	return nil
}

// Package stepfn starts executions of the scan state machine. An execution
// is named after its scan, so starting it twice (a retried request, a
// replayed Idempotency-Key) never runs a scan twice: Step Functions refuses
// a second execution of the same name and this package treats that as done.
package stepfn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"secscan/shared/config"
	"secscan/shared/dependency"
)

// API is the part of the Step Functions client the starter uses.
type API interface {
	StartExecution(context.Context, *sfn.StartExecutionInput, ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// Starter starts scan executions on one state machine.
type Starter struct {
	Client          API
	StateMachineARN string
}

// Input is the execution input: only ids; everything else is in DynamoDB.
type Input struct {
	ScanID string `json:"scan_id"`
	UserID string `json:"user_id"`
}

// StartScan starts the execution of scan id for user.
func (s *Starter) StartScan(ctx context.Context, scanID, userID string) error {
	if s.StateMachineARN == "" {
		return errors.New("start scan: STATE_MACHINE_ARN is not configured")
	}
	body, err := json.Marshal(Input{ScanID: scanID, UserID: userID})
	if err != nil {
		return err
	}
	_, err = s.Client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(s.StateMachineARN),
		Name:            aws.String(scanID),
		Input:           aws.String(string(body)),
	})
	var exists *types.ExecutionAlreadyExists
	if errors.As(err, &exists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("start execution %s: %w", scanID, err)
	}
	return nil
}

// NewClient returns a Step Functions client for endpoint (the local stack's)
// or, when empty, AWS. Every call is bounded by dependency.Default and fails
// with a 503 naming the scan service when Step Functions does not answer.
func NewClient(ctx context.Context, endpoint string) (*sfn.Client, error) {
	cfg, err := dependency.Config(ctx, endpoint, dependency.Default)
	if err != nil {
		return nil, err
	}
	return sfn.NewFromConfig(cfg, func(o *sfn.Options) {
		o.APIOptions = append(o.APIOptions, dependency.Bound(dependency.Scans, dependency.Default))
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// StarterFromConfig is the Starter of cfg's state machine, through a client
// of cfg's Step Functions endpoint.
func StarterFromConfig(ctx context.Context, cfg config.Config) (*Starter, error) {
	client, err := NewClient(ctx, cfg.StepFunctionsEndpoint)
	if err != nil {
		return nil, err
	}
	return &Starter{Client: client, StateMachineARN: cfg.StateMachineARN}, nil
}

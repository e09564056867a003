// Package eventbridge keeps one Amazon EventBridge Scheduler schedule per
// schedule record (api.ScheduleService): named after the record's id, in the
// stack's schedule group, on the record's grid (schedules.Expression, UTC)
// with a flexible time window, invoking ScheduledScanFunction as the role the
// template gives EventBridge Scheduler, with input {"schedule_id": "sch_…"}.
// Only the functions that create, update or delete schedules link it.
package eventbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"secscan/shared/config"
	"secscan/shared/dependency"
	"secscan/shared/plans"
	"secscan/shared/schedules"
	"secscan/shared/store"
)

// API is the part of the EventBridge Scheduler client used here.
type API interface {
	CreateSchedule(context.Context, *scheduler.CreateScheduleInput, ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error)
	UpdateSchedule(context.Context, *scheduler.UpdateScheduleInput, ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error)
	DeleteSchedule(context.Context, *scheduler.DeleteScheduleInput, ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error)
}

// Scheduler writes the deployed schedules of one stack.
type Scheduler struct {
	Client API
	// Group is the stack's schedule group (SCHEDULE_GROUP).
	Group string
	// TargetARN is ScheduledScanFunction's ARN (SCHEDULED_SCAN_FUNCTION_ARN),
	// RoleARN the role EventBridge Scheduler assumes to invoke it
	// (SCHEDULER_ROLE_ARN).
	TargetARN, RoleARN string
	Now                func() time.Time
}

// definition is what CreateSchedule and UpdateSchedule both send.
type definition struct {
	expr, input string
	start       *time.Time
	state       types.ScheduleState
}

func (s *Scheduler) define(sch store.Schedule) (definition, error) {
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	expr, start := schedules.Expression(plans.Cadence(sch.Cadence), sch.Anchor, now)
	input, err := json.Marshal(map[string]string{"schedule_id": sch.ID})
	if err != nil {
		return definition{}, err
	}
	state := types.ScheduleStateEnabled
	if !sch.Enabled {
		state = types.ScheduleStateDisabled
	}
	return definition{expr: expr, input: string(input), start: start, state: state}, nil
}

func (s *Scheduler) target(d definition) *types.Target {
	return &types.Target{
		Arn: aws.String(s.TargetARN), RoleArn: aws.String(s.RoleARN), Input: aws.String(d.input),
		// A delivery that fails is tried again within the window; the
		// function's claim makes a second delivery of one run a no-op.
		RetryPolicy: &types.RetryPolicy{MaximumEventAgeInSeconds: aws.Int32(3600), MaximumRetryAttempts: aws.Int32(3)},
	}
}

func window() *types.FlexibleTimeWindow {
	return &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeFlexible,
		MaximumWindowInMinutes: aws.Int32(schedules.FlexibleWindowMinutes)}
}

// PutSchedule creates (create) or replaces the schedule of sch.
func (s *Scheduler) PutSchedule(ctx context.Context, sch store.Schedule, create bool) error {
	d, err := s.define(sch)
	if err != nil {
		return err
	}
	in := &scheduler.CreateScheduleInput{
		Name: aws.String(sch.ID), GroupName: aws.String(s.Group),
		Description:        aws.String(fmt.Sprintf("secscan %s scan of %s (%s)", sch.ScanType, sch.Target, sch.Cadence)),
		ScheduleExpression: aws.String(d.expr), ScheduleExpressionTimezone: aws.String("UTC"), StartDate: d.start,
		FlexibleTimeWindow: window(), Target: s.target(d), State: d.state,
		ActionAfterCompletion: types.ActionAfterCompletionNone,
	}
	if create {
		if _, err := s.Client.CreateSchedule(ctx, in); err != nil {
			return fmt.Errorf("create schedule %s: %w", sch.ID, err)
		}
		return nil
	}
	// An update replaces every field and has the same ones as a creation:
	// the SDK's two input types convert (the compiler checks that they
	// still do).
	if _, err := s.Client.UpdateSchedule(ctx, (*scheduler.UpdateScheduleInput)(in)); err != nil {
		return fmt.Errorf("update schedule %s: %w", sch.ID, err)
	}
	return nil
}

// DeleteSchedule removes schedule id; one that is already gone is no error.
func (s *Scheduler) DeleteSchedule(ctx context.Context, id string) error {
	_, err := s.Client.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: aws.String(id), GroupName: aws.String(s.Group)})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete schedule %s: %w", id, err)
	}
	return nil
}

// NewClient returns an EventBridge Scheduler client for endpoint (a test's
// server) or, when empty, AWS (which honours AWS_ENDPOINT_URL_SCHEDULER).
// Every call is bounded by dependency.Default and fails with a 503 naming
// the scheduler when it does not answer.
func NewClient(ctx context.Context, endpoint string) (*scheduler.Client, error) {
	cfg, err := dependency.Config(ctx, endpoint, dependency.Default)
	if err != nil {
		return nil, err
	}
	return scheduler.NewFromConfig(cfg, func(o *scheduler.Options) {
		o.APIOptions = append(o.APIOptions, dependency.Bound(dependency.Scheduler, dependency.Default))
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		} else if u := dependency.ServiceEndpoint("SCHEDULER"); u != nil {
			o.BaseEndpoint = u
		}
	}), nil
}

// FromConfig returns the Scheduler of cfg, or nil when cfg names no
// schedule group (the local stack, which fires schedules itself).
func FromConfig(ctx context.Context, cfg config.Config) (*Scheduler, error) {
	if cfg.ScheduleGroup == "" {
		return nil, nil
	}
	if cfg.ScheduledScanFunctionARN == "" || cfg.SchedulerRoleARN == "" {
		return nil, errors.New("SCHEDULE_GROUP needs SCHEDULED_SCAN_FUNCTION_ARN and SCHEDULER_ROLE_ARN")
	}
	client, err := NewClient(ctx, "")
	if err != nil {
		return nil, err
	}
	return &Scheduler{Client: client, Group: cfg.ScheduleGroup, TargetARN: cfg.ScheduledScanFunctionARN,
		RoleARN: cfg.SchedulerRoleARN, Now: time.Now}, nil
}

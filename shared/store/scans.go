package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
	"secscan/shared/plans"
	"secscan/shared/scans"
)

// Scan items. The record lives in the user's partition (USER#<usr>/SCAN#<scn>),
// so listing is one Query and another user's id finds nothing. What a scan
// accumulates (steps and findings) lives in the scan's own partition, so the
// user's list never reads it and the full record is one more Query:
//
//	USER#<usr id>   SCAN#<scn id>          the scan record (status, credits, summary)
//	USER#<usr id>   IDEMPOTENCY#<sha256>   Idempotency-Key -> scan id, 24 h (TTL)
//	SCAN#<scn id>   STEP#<seq, 6 digits>   one agent step, written once
//	SCAN#<scn id>   FINDING#<fingerprint>  one finding, written once per fingerprint
//	SCAN#<scn id>   SURFACE#…              the attack surface, one item per entry (surface.go)
const (
	scanPrefix    = "SCAN#"
	stepPrefix    = "STEP#"
	findingPrefix = "FINDING#"

	// maxScanChildren bounds the items one scan may hold, so reading a
	// record is bounded whatever a run did.
	maxScanChildren = 8000
)

// ErrScanNotRunning is the refusal to charge or record on a scan that is no
// longer running (cancelled, failed by the reaper, completed).
var ErrScanNotRunning = errors.New("scan is not running")

// ErrTerminal is the refusal to cancel scan ID, which has ended: a 409.
type ErrTerminal struct {
	ID     string
	Status scans.Status
}

func (e *ErrTerminal) Error() string { return "scan is " + string(e.Status) }

// Is makes an *ErrTerminal an ErrConflict.
func (e *ErrTerminal) Is(target error) bool { return target == ErrConflict }

// Classify is the 409 of a cancellation that came too late.
func (e *ErrTerminal) Classify() *apierr.Error {
	return apierr.New(apierr.Conflict, "Scan %s has already ended (%s); only queued or running scans can be cancelled", e.ID, e.Status)
}

type scanItem struct {
	PK              string     `dynamodbav:"pk"`
	SK              string     `dynamodbav:"sk"`
	ID              string     `dynamodbav:"id"`
	UserID          string     `dynamodbav:"user_id"`
	TargetID        string     `dynamodbav:"target_id"`
	Target          string     `dynamodbav:"target"`
	Type            string     `dynamodbav:"scan_type"`
	Tier            string     `dynamodbav:"tier"`
	Plan            string     `dynamodbav:"plan,omitempty"`
	CreditMonth     string     `dynamodbav:"credit_month,omitempty"`
	Status          string     `dynamodbav:"status"`
	CancelRequested bool       `dynamodbav:"cancel_requested"`
	CreditsUsed     int        `dynamodbav:"credits_used"`
	MaxCredits      int        `dynamodbav:"max_credits"`
	ChargedSeq      int        `dynamodbav:"charged_seq"`
	StepsCount      int        `dynamodbav:"steps_count"`
	FindingsCount   int        `dynamodbav:"findings_count"`
	CallbackURL     string     `dynamodbav:"callback_url,omitempty"`
	Error           string     `dynamodbav:"error,omitempty"`
	SummaryJSON     string     `dynamodbav:"summary,omitempty"`
	CreatedAt       time.Time  `dynamodbav:"created_at"`
	StartedAt       *time.Time `dynamodbav:"started_at,omitempty"`
	FinishedAt      *time.Time `dynamodbav:"finished_at,omitempty"`
	WebhookDelivery string     `dynamodbav:"webhook_delivery,omitempty"`
	// WebhookAttempts are JSON documents, appended one per attempt.
	WebhookAttempts []string `dynamodbav:"webhook_attempts,omitempty"`
	// IssuesCount is kept with findings_count by RecordStep; absent on
	// scans recorded before issues existed (ListScans fills those in).
	IssuesCount    *int   `dynamodbav:"issues_count,omitempty"`
	ScheduleID     string `dynamodbav:"schedule_id,omitempty"`
	BaselineScanID string `dynamodbav:"baseline_scan_id,omitempty"`
	// CurrentTool and CurrentStartedAt name the step charged last (at
	// charged_seq) and when it started (BeginStep): the step running while
	// charged_seq > steps_count.
	CurrentTool      string     `dynamodbav:"current_tool,omitempty"`
	CurrentStartedAt *time.Time `dynamodbav:"current_started_at,omitempty"`
	// Set at completion (CompleteScan).
	NewIssuesCount    int  `dynamodbav:"new_issues_count,omitempty"`
	FixedIssuesCount  int  `dynamodbav:"fixed_issues_count,omitempty"`
	ActiveIssuesCount *int `dynamodbav:"active_issues_count,omitempty"`
	// IssuesBySeverity is CompletionCounts.BySeverity, by severity name.
	IssuesBySeverity map[string]int `dynamodbav:"issues_by_severity,omitempty"`
}

// severityNames keys counts by severity name (nil stays nil).
func severityNames(counts map[scans.Severity]int) map[string]int {
	if counts == nil {
		return nil
	}
	out := make(map[string]int, len(counts))
	for k, v := range counts {
		out[string(k)] = v
	}
	return out
}

func scanKey(userID, id string) map[string]types.AttributeValue {
	return key(userPK(userID), scanPrefix+id)
}

func toScanItem(s scans.Scan) scanItem {
	it := scanItem{
		PK: userPK(s.UserID), SK: scanPrefix + s.ID, ID: s.ID, UserID: s.UserID, TargetID: s.TargetID,
		Target: s.Target, Type: string(s.Type), Tier: string(s.Tier), Plan: string(s.Plan), CreditMonth: s.CreditMonth,
		Status:          string(s.Status),
		CancelRequested: s.CancelRequested, CreditsUsed: s.CreditsUsed, MaxCredits: s.MaxCredits,
		ChargedSeq: s.ChargedSeq, StepsCount: s.StepsCount, FindingsCount: s.FindingsCount, CallbackURL: s.CallbackURL,
		Error: s.Error, CreatedAt: s.CreatedAt, ScheduleID: s.ScheduleID, BaselineScanID: s.BaselineScanID,
		NewIssuesCount: s.NewIssuesCount, FixedIssuesCount: s.FixedIssuesCount, ActiveIssuesCount: s.ActiveIssuesCount,
		IssuesBySeverity: severityNames(s.IssuesBySeverity),
	}
	issues := s.IssuesCount
	it.IssuesCount = &issues
	if !s.StartedAt.IsZero() {
		it.StartedAt = &s.StartedAt
	}
	if !s.FinishedAt.IsZero() {
		it.FinishedAt = &s.FinishedAt
	}
	return it
}

// webhookAttempts decodes the record's webhook attempts (JSON each).
func (it scanItem) webhookAttempts() ([]scans.WebhookAttempt, error) {
	var out []scans.WebhookAttempt
	for _, raw := range it.WebhookAttempts {
		var a scans.WebhookAttempt
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			return nil, fmt.Errorf("decode webhook attempt of %s: %w", it.ID, err)
		}
		out = append(out, a)
	}
	return out, nil
}

func (it scanItem) scan() (scans.Scan, error) {
	s := scans.Scan{
		ID: it.ID, UserID: it.UserID, TargetID: it.TargetID, Target: it.Target, Type: scans.Type(it.Type),
		Tier: plans.Tier(it.Tier), Plan: plans.Plan(it.Plan), CreditMonth: it.CreditMonth,
		Status: scans.Status(it.Status), CancelRequested: it.CancelRequested,
		CreditsUsed: it.CreditsUsed, MaxCredits: it.MaxCredits, ChargedSeq: it.ChargedSeq, StepsCount: it.StepsCount,
		FindingsCount: it.FindingsCount, CallbackURL: it.CallbackURL, Error: it.Error, CreatedAt: it.CreatedAt,
		ScheduleID: it.ScheduleID, BaselineScanID: it.BaselineScanID,
		NewIssuesCount: it.NewIssuesCount, FixedIssuesCount: it.FixedIssuesCount, ActiveIssuesCount: it.ActiveIssuesCount,
	}
	if it.IssuesBySeverity != nil {
		s.IssuesBySeverity = make(map[scans.Severity]int, len(it.IssuesBySeverity))
		for k, v := range it.IssuesBySeverity {
			s.IssuesBySeverity[scans.Severity(k)] = v
		}
	}
	if it.IssuesCount != nil {
		s.IssuesCount = *it.IssuesCount
	}
	if it.StartedAt != nil {
		s.StartedAt = *it.StartedAt
	}
	s.CurrentTool = it.CurrentTool
	if it.CurrentStartedAt != nil {
		s.CurrentStartedAt = *it.CurrentStartedAt
	}
	if it.FinishedAt != nil {
		s.FinishedAt = *it.FinishedAt
	}
	s.WebhookDelivery = it.WebhookDelivery
	var err error
	if s.WebhookAttempts, err = it.webhookAttempts(); err != nil {
		return scans.Scan{}, err
	}
	if it.SummaryJSON != "" {
		var sum scans.Summary
		if err := json.Unmarshal([]byte(it.SummaryJSON), &sum); err != nil {
			return scans.Scan{}, fmt.Errorf("decode summary of %s: %w", it.ID, err)
		}
		s.Summary = &sum
	}
	return s, nil
}

func decodeScan(item map[string]types.AttributeValue) (scans.Scan, error) {
	var it scanItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return scans.Scan{}, fmt.Errorf("decode scan: %w", err)
	}
	return it.scan()
}

// GetScan returns the user's scan record (without steps and findings);
// another user's id is ErrNotFound.
func (s *Store) GetScan(ctx context.Context, userID, id string) (scans.Scan, error) {
	var it scanItem
	if err := s.getRecord(ctx, scanKey(userID, id), &it, "scan", id); err != nil {
		return scans.Scan{}, err
	}
	return it.scan()
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func stamp(t time.Time) *types.AttributeValueMemberS { return str(t.UTC().Format(time.RFC3339Nano)) }

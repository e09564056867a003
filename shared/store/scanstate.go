// A scan's transitions, each a conditional update: start, cancellation,
// the end (written once), and the claim of its one webhook delivery.

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// updateScan applies one conditional update and returns the record after it.
// A failed condition returns a *conditionError carrying the record as it is.
func (s *Store) updateScan(ctx context.Context, userID, id, update, cond string, values map[string]types.AttributeValue) (scans.Scan, error) {
	in := s.scanUpdateInput(userID, id, update, cond, values)
	in.ReturnValues = types.ReturnValueAllNew
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	res, err := s.db.UpdateItem(ctx, in)
	if ccf, ok := IsConditionFailed(err); ok {
		if ccf.Item == nil {
			return scans.Scan{}, notFound("scan", id)
		}
		old, derr := decodeScan(ccf.Item)
		if derr != nil {
			return scans.Scan{}, derr
		}
		return old, &conditionError{current: old}
	}
	if err != nil {
		return scans.Scan{}, dbError("update scan", err)
	}
	return decodeScan(res.Attributes)
}

// scanUpdateInput is the conditional update of a scan record, with the
// placeholders of statuses and reserved names filled in.
func (s *Store) scanUpdateInput(userID, id, update, cond string, values map[string]types.AttributeValue) *dynamodb.UpdateItemInput {
	names := map[string]string{}
	for placeholder, attr := range map[string]string{"#status": "status", "#error": "error"} {
		if strings.Contains(update+cond, placeholder) {
			names[placeholder] = attr
		}
	}
	// DynamoDB refuses unused values, so the statuses go in only when used.
	for _, st := range scans.Statuses {
		placeholder := ":" + string(st)
		if strings.Contains(update+cond, placeholder) {
			values[placeholder] = str(string(st))
		}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       scanKey(userID, id),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(pk) AND (" + cond + ")"),
		ExpressionAttributeValues: values,
	}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	return in
}

// conditionError carries the record that failed a transition's condition.
type conditionError struct{ current scans.Scan }

func (e *conditionError) Error() string {
	return "scan " + e.current.ID + " is " + string(e.current.Status)
}

// RequestCancel sets the cooperative cancellation flag of a queued or running
// scan; a queued scan is cancelled at once (the agent has not started it). A
// terminal scan is an *ErrTerminal. It returns the record after the request.
func (s *Store) RequestCancel(ctx context.Context, userID, id string, now time.Time) (scans.Scan, error) {
	sc, err := s.updateScan(ctx, userID, id, "SET cancel_requested = :true",
		"#status IN (:queued, :running)", map[string]types.AttributeValue{":true": &types.AttributeValueMemberBOOL{Value: true}})
	var ce *conditionError
	if errors.As(err, &ce) {
		return sc, &ErrTerminal{ID: id, Status: ce.current.Status}
	}
	if err != nil || sc.Status != scans.Queued {
		return sc, err
	}
	ended, err := s.EndScan(ctx, userID, id, scans.Cancelled, "", nil, now)
	if errors.As(err, &ce) {
		// The agent started it meanwhile: it sees the flag before its first step.
		return ce.current, nil
	}
	return ended, err
}

// StartScan moves a queued scan to running. A scan whose cancellation was
// requested before it started is cancelled instead. Either way, and when the
// transition already happened (a re-delivered task), it returns the record.
func (s *Store) StartScan(ctx context.Context, userID, id string, now time.Time) (scans.Scan, error) {
	sc, err := s.updateScan(ctx, userID, id, "SET #status = :running, started_at = :now",
		"#status = :queued AND cancel_requested = :false", map[string]types.AttributeValue{
			":now": stamp(now), ":false": &types.AttributeValueMemberBOOL{Value: false},
		})
	var ce *conditionError
	if !errors.As(err, &ce) {
		return sc, err
	}
	if ce.current.Status == scans.Queued { // cancellation requested before the start
		if sc, err = s.EndScan(ctx, userID, id, scans.Cancelled, "", nil, now); errors.As(err, &ce) {
			return ce.current, nil
		}
		return sc, err
	}
	return ce.current, nil
}

// EndScan writes a terminal status once: from queued or running only, so a
// terminal status never changes and a late step cannot resurrect a scan. A
// scan that has ended already is refused: IsRefused returns it as it is.
// A scan that reserved credits (CreditMonth set) settles them in the same
// transaction (credits.go), pinned to the credits_used it read, so a charge
// racing the end makes it read again rather than release the wrong amount.
func (s *Store) EndScan(ctx context.Context, userID, id string, status scans.Status, reason string, summary *scans.Summary, now time.Time) (scans.Scan, error) {
	return s.endScan(ctx, userID, id, status, reason, summary, now, "", nil)
}

// CompleteScan ends a scan completed with its summary, the baseline it was
// compared with ("" for none) and the counts of that comparison, as EndScan.
func (s *Store) CompleteScan(ctx context.Context, userID, id string, summary *scans.Summary, baselineID string, c scans.CompletionCounts, now time.Time) (scans.Scan, error) {
	extra := ", new_issues_count = :new, fixed_issues_count = :fixed, active_issues_count = :active, issues_by_severity = :sev"
	sev := map[string]types.AttributeValue{}
	for _, name := range scans.Severities {
		sev[string(name)] = number(int64(c.BySeverity[name]))
	}
	values := map[string]types.AttributeValue{":new": number(int64(c.NewIssues)), ":fixed": number(int64(c.FixedIssues)),
		":active": number(int64(c.ActiveIssues)), ":sev": &types.AttributeValueMemberM{Value: sev}}
	if baselineID != "" {
		extra += ", baseline_scan_id = :baseline"
		values[":baseline"] = str(baselineID)
	}
	return s.endScan(ctx, userID, id, scans.Completed, "", summary, now, extra, values)
}

func (s *Store) endScan(ctx context.Context, userID, id string, status scans.Status, reason string, summary *scans.Summary, now time.Time, extra string, extraValues map[string]types.AttributeValue) (scans.Scan, error) {
	if !status.Terminal() {
		return scans.Scan{}, fmt.Errorf("end scan %s: %s is not a terminal status", id, status)
	}
	update, values, err := endUpdate(status, reason, summary, now, extra, extraValues)
	if err != nil {
		return scans.Scan{}, err
	}
	const cond = "#status IN (:queued, :running)"
	for range maxEndAttempts {
		cur, err := s.GetScan(ctx, userID, id)
		if err != nil {
			return scans.Scan{}, err
		}
		if cur.Status.Terminal() {
			return cur, &conditionError{current: cur}
		}
		if cur.CreditMonth == "" {
			return s.updateScan(ctx, userID, id, update, cond, values)
		}
		in := s.scanUpdateInput(userID, id, update, cond+" AND credits_used = :seen", copyValues(values, ":seen", creditsUsedValue(cur.CreditsUsed)))
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
				ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
				ExpressionAttributeValues: in.ExpressionAttributeValues,
			}},
			s.releaseCredits(cur),
		}})
		if _, ok := transactionConflict(err, 0); ok {
			continue // ended or charged meanwhile: decide on what is there now
		}
		if err != nil {
			return scans.Scan{}, dbError("end scan", err)
		}
		return s.GetScan(ctx, userID, id)
	}
	return scans.Scan{}, fmt.Errorf("end scan %s: its record kept changing", id)
}

// endUpdate is the update expression and values that end a scan in status,
// with the reason of a failure and the summary when given, and the caller's
// extra assignments.
func endUpdate(status scans.Status, reason string, summary *scans.Summary, now time.Time, extra string, extraValues map[string]types.AttributeValue) (string, map[string]types.AttributeValue, error) {
	update := "SET #status = :to, finished_at = :now" + extra
	values := copyValues(extraValues, ":to", str(string(status)))
	values[":now"] = stamp(now)
	if reason != "" {
		update += ", #error = :error"
		values[":error"] = str(reason)
	}
	if summary != nil {
		body, err := json.Marshal(summary)
		if err != nil {
			return "", nil, fmt.Errorf("encode summary: %w", err)
		}
		update += ", summary = :summary"
		values[":summary"] = str(string(body))
	}
	return update, values, nil
}

// maxEndAttempts bounds EndScan's re-reads when charges race the end (each
// charge is one step, so a few rounds always settle).
const maxEndAttempts = 8

func copyValues(values map[string]types.AttributeValue, k string, v types.AttributeValue) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(values)+1)
	for name, val := range values {
		out[name] = val
	}
	out[k] = v
	return out
}

// IsRefused reports whether err is a conditional write the scan's state
// refused (it has ended, it is not the next step, ...), returning the record
// as it is.
func IsRefused(err error) (scans.Scan, bool) {
	var ce *conditionError
	if errors.As(err, &ce) {
		return ce.current, true
	}
	return scans.Scan{}, false
}

// ClaimWebhook claims the one delivery sequence of an ended scan for
// deliveryID. It returns false, and the record as it is, when the scan has
// not ended or its delivery was claimed before (a re-run of the final state):
// a scan never gets a second delivery sequence.
func (s *Store) ClaimWebhook(ctx context.Context, userID, id, deliveryID string) (scans.Scan, bool, error) {
	sc, err := s.updateScan(ctx, userID, id, "SET webhook_delivery = :delivery",
		"attribute_not_exists(webhook_delivery) AND #status IN (:completed, :failed, :cancelled)",
		map[string]types.AttributeValue{":delivery": str(deliveryID)})
	if cur, ok := IsRefused(err); ok {
		return cur, false, nil
	}
	return sc, err == nil, err
}

// RecordWebhookAttempt appends one attempt to the scan's delivery record.
func (s *Store) RecordWebhookAttempt(ctx context.Context, userID, id string, a scans.WebhookAttempt) error {
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encode webhook attempt: %w", err)
	}
	_, err = s.updateScan(ctx, userID, id,
		"SET webhook_attempts = list_append(if_not_exists(webhook_attempts, :none), :attempt)", "attribute_exists(webhook_delivery)",
		map[string]types.AttributeValue{
			":none":    &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":attempt": &types.AttributeValueMemberL{Value: []types.AttributeValue{str(string(body))}},
		})
	return err
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// Retests (CONTRACT "Proof and retest") live in partitions of their own,
// so the function that runs them is granted RETEST#* items and not the
// users' partitions; the owner is an attribute every read checks:
//
//	RETEST#<rt id>  RETEST   user_id, status, body (the record as JSON)
//
// A finding item (SCAN#<scn id>/FINDING#<fingerprint>) keeps the tool and
// input of the call that found it, so a retest repeats that call.
const (
	retestPrefix = "RETEST#"
	retestSK     = "RETEST"
)

// findingSource is the tool call a finding came from.
type findingSource struct{ tool, input string }

// SourcedFinding is a finding with the call that found it; Tool is "" for
// findings recorded before retests existed.
type SourcedFinding struct {
	Finding scans.Finding
	Tool    string
	Input   json.RawMessage
}

// SourcedFindings returns the findings of one issue of a scan with the
// calls that found them. Callers reach a scan id only through its owner's
// record.
func (s *Store) SourcedFindings(ctx context.Context, scanID, issueKey string) ([]SourcedFinding, error) {
	items, err := s.scanChildren(ctx, scanID, findingPrefix)
	if err != nil {
		return nil, err
	}
	var out []SourcedFinding
	for _, item := range items {
		var c childItem
		if err := attributevalue.UnmarshalMap(item, &c); err != nil {
			return nil, fmt.Errorf("decode finding item: %w", err)
		}
		_, fs, err := decodeChildren([]map[string]types.AttributeValue{item})
		if err != nil || len(fs) != 1 {
			return nil, fmt.Errorf("decode finding %s: %w", c.SK, err)
		}
		if fs[0].Issue != issueKey {
			continue
		}
		out = append(out, SourcedFinding{Finding: fs[0], Tool: c.Tool, Input: json.RawMessage(c.Input)})
	}
	SortSourced(out)
	return out, nil
}

// SortSourced orders sourced findings as their findings are read.
func SortSourced(fs []SourcedFinding) {
	order := make([]scans.Finding, len(fs))
	for i, f := range fs {
		order[i] = f.Finding
	}
	SortFindings(order)
	byID := map[string]SourcedFinding{}
	for _, f := range fs {
		byID[f.Finding.ID] = f
	}
	for i, f := range order {
		fs[i] = byID[f.ID]
	}
}

type retestItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	UserID string `dynamodbav:"user_id"`
	Status string `dynamodbav:"status"`
	Body   string `dynamodbav:"body"`
	// CancelRequested is the cooperative cancellation flag of a running
	// retest (DELETE /api/retests/{id}); the runner reads it between calls.
	CancelRequested bool `dynamodbav:"cancel_requested,omitempty"`
}

type retestBody struct {
	ID          string               `json:"id"`
	ScanID      string               `json:"scan_id"`
	TargetID    string               `json:"target_id"`
	IssueKey    string               `json:"issue_key"`
	Results     []scans.RetestResult `json:"results"`
	CreditsUsed int                  `json:"credits_used"`
	Reserved    int                  `json:"reserved"`
	CreditMonth string               `json:"credit_month"`
	Error       string               `json:"error,omitempty"`
	LedgerNote  string               `json:"ledger_note,omitempty"`
	CreatedAt   time.Time            `json:"created_at"`
	FinishedAt  *time.Time           `json:"finished_at,omitempty"`
}

func retestKey(id string) map[string]types.AttributeValue { return key(retestPrefix+id, retestSK) }

func encodeRetest(r scans.Retest) (retestItem, error) {
	body, err := json.Marshal(retestBody{ID: r.ID, ScanID: r.ScanID, TargetID: r.TargetID, IssueKey: r.IssueKey,
		Results: r.Results, CreditsUsed: r.CreditsUsed, Reserved: r.Reserved, CreditMonth: r.CreditMonth, Error: r.Error,
		LedgerNote: r.LedgerNote, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt})
	if err != nil {
		return retestItem{}, fmt.Errorf("encode retest: %w", err)
	}
	return retestItem{PK: retestPrefix + r.ID, SK: retestSK, UserID: r.UserID, Status: string(r.Status), Body: string(body)}, nil
}

func (it retestItem) retest() (scans.Retest, error) {
	var b retestBody
	if err := json.Unmarshal([]byte(it.Body), &b); err != nil {
		return scans.Retest{}, fmt.Errorf("decode retest: %w", err)
	}
	return scans.Retest{ID: b.ID, UserID: it.UserID, ScanID: b.ScanID, TargetID: b.TargetID, IssueKey: b.IssueKey,
		Status: scans.RetestStatus(it.Status), Results: b.Results, CreditsUsed: b.CreditsUsed, Reserved: b.Reserved,
		CreditMonth: b.CreditMonth, Error: b.Error, CreatedAt: b.CreatedAt, FinishedAt: b.FinishedAt,
		CancelRequested: it.CancelRequested, LedgerNote: b.LedgerNote}, nil
}

// CreateRetest writes a queued retest and, in the same transaction,
// reserves r.Reserved credits in the month (within allowance when limited:
// *AllowanceError otherwise).
func (s *Store) CreateRetest(ctx context.Context, r scans.Retest, allowance int, limited bool) error {
	it, err := encodeRetest(r)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: &s.table, Item: marshal(it), ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}}
	if r.Reserved > 0 {
		items = append(items, s.reserveCredits(r.UserID, r.CreditMonth, r.Reserved, allowance, limited))
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if old, ok := transactionConflict(err, 1); ok {
		return allowanceError(old, r.CreditMonth, allowance)
	}
	return dbError("create retest", err)
}

// GetRetest returns the user's retest id; another user's is ErrNotFound.
func (s *Store) GetRetest(ctx context.Context, userID, id string) (scans.Retest, error) {
	var it retestItem
	if err := s.getRecord(ctx, retestKey(id), &it, "retest", id); err != nil {
		return scans.Retest{}, err
	}
	if it.UserID != userID {
		return scans.Retest{}, notFound("retest", id)
	}
	return it.retest()
}

// StartRetest moves a queued retest to running and returns it;
// ErrConflict when it is not queued (started already: a repeated launch).
func (s *Store) StartRetest(ctx context.Context, userID, id string) (scans.Retest, error) {
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: retestKey(id),
		UpdateExpression:         aws.String("SET #status = :running"),
		ConditionExpression:      aws.String("#status = :queued AND user_id = :user"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":running": str(string(scans.RetestRunning)), ":queued": str(string(scans.RetestQueued)), ":user": str(userID),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, ok := IsConditionFailed(err); ok {
		return scans.Retest{}, fmt.Errorf("start retest %s: %w", id, ErrConflict)
	}
	if err != nil {
		return scans.Retest{}, dbError("start retest", err)
	}
	var it retestItem
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return scans.Retest{}, fmt.Errorf("decode retest: %w", err)
	}
	return it.retest()
}

// FinishRetest writes a running retest's end (completed or failed, with
// its results) once, and settles its reservation: the credits it used
// become used, the rest is given back. ErrConflict when the retest is not
// running any more (ended by EndRetest meanwhile: nothing is written).
func (s *Store) FinishRetest(ctx context.Context, r scans.Retest) error {
	return s.EndRetest(ctx, r, scans.RetestRunning)
}

// MarkIssueFixedByRetest marks an open issue of the target's ledger fixed
// (fixed by retest retestID of scan scanID), unless a scan newer than
// scanID saw the issue since (the ledger's last_scan_id: a completion
// between the caller's LatestScan and this write). An issue the ledger does
// not hold, holds fixed already, or saw again later is left as it is;
// fixed says whether it was marked.
func (s *Store) MarkIssueFixedByRetest(ctx context.Context, targetID, issueKey, scanID, retestID string, now time.Time) (fixed bool, err error) {
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key(targetPK(targetID), ledgerPrefix+issueKey),
		UpdateExpression:         aws.String("SET #status = :fixed, fixed_at = :now, fixed_by_retest = :rt"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND #status <> :fixed AND (attribute_not_exists(last_scan_id) OR last_scan_id <= :scan)"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":fixed": str(scans.IssueFixed),
			":now": str(now.UTC().Format(time.RFC3339Nano)), ":rt": str(retestID), ":scan": str(scanID)},
	})
	if _, ok := IsConditionFailed(err); ok {
		return false, nil
	}
	if err != nil {
		return false, dbError("mark issue fixed", err)
	}
	return true, nil
}

// LatestScan is the target's latest completed scan of type typ (its
// LATEST# item, which completions keep; newest id first); false when the
// target has none.
func (s *Store) LatestScan(ctx context.Context, targetID string, typ scans.Type) (ScanRef, bool, error) {
	var it latestItem
	err := s.get(ctx, key(targetPK(targetID), latestPrefix+string(typ)), &it)
	if errors.Is(err, ErrNotFound) {
		return ScanRef{}, false, nil
	}
	if err != nil {
		return ScanRef{}, false, fmt.Errorf("latest %s scan of %s: %w", typ, targetID, err)
	}
	refs := decodeRefs(it.Scans)
	if len(refs) == 0 {
		return ScanRef{}, false, nil
	}
	return refs[0], true, nil
}

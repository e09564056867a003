// What the agent writes while a scan runs: each step's charge before it
// runs, then the step and its findings, once.

package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/ids"
	"secscan/shared/scans"
)

// Charge outcomes.
var (
	// ErrBudget: the step would take credits_used past max_credits.
	ErrBudget = errors.New("credit budget exceeded")
)

// ChargeStep charges step seq its cost before it runs. The charge is made
// once per seq (a re-delivered task finds it made and goes on), only while
// the scan runs, and never past max_credits. It returns the record after it.
func (s *Store) ChargeStep(ctx context.Context, userID, id string, seq, cost int) (scans.Scan, error) {
	return s.chargeStep(ctx, userID, id, seq, cost, nil)
}

// StepStart names the step a charge pays for: its tool and when it starts.
type StepStart struct {
	Tool string
	At   time.Time
}

// BeginStep is ChargeStep for a step about to run: the same write also
// records its tool and start (scans.Scan.Running), so that a client
// following the scan can name the step running now. No extra round trip.
func (s *Store) BeginStep(ctx context.Context, userID, id string, seq, cost int, start StepStart) (scans.Scan, error) {
	return s.chargeStep(ctx, userID, id, seq, cost, &start)
}

func (s *Store) chargeStep(ctx context.Context, userID, id string, seq, cost int, start *StepStart) (scans.Scan, error) {
	sc, err := s.GetScan(ctx, userID, id)
	if err != nil {
		return scans.Scan{}, err
	}
	switch {
	case sc.Status != scans.Running:
		return sc, ErrScanNotRunning
	case sc.ChargedSeq >= seq:
		return sc, nil // charged by an earlier delivery of this task
	case sc.CreditsUsed+cost > sc.MaxCredits:
		return sc, ErrBudget
	}
	update := "SET credits_used = credits_used + :cost, charged_seq = :seq"
	values := map[string]types.AttributeValue{
		":cost": number(int64(cost)), ":seq": number(int64(seq)), ":prev": number(int64(seq - 1)),
		":limit": number(int64(sc.MaxCredits - cost)),
	}
	if start != nil {
		update += ", current_tool = :tool, current_started_at = :at"
		values[":tool"] = &types.AttributeValueMemberS{Value: start.Tool}
		values[":at"] = stamp(start.At)
	}
	res, err := s.updateScan(ctx, userID, id, update,
		"#status = :running AND charged_seq = :prev AND credits_used <= :limit", values)
	if cur, ok := IsRefused(err); ok {
		// Raced with a cancellation, an end or another delivery: decide on what is there now.
		switch {
		case cur.Status != scans.Running:
			return cur, ErrScanNotRunning
		case cur.ChargedSeq >= seq:
			return cur, nil
		case cur.CreditsUsed+cost > cur.MaxCredits:
			return cur, ErrBudget
		}
		return cur, fmt.Errorf("charge step %d of %s: the last step charged is %d", seq, id, cur.ChargedSeq)
	}
	return res, err
}

// maxParallelWrites bounds the concurrent finding writes of one step.
const maxParallelWrites = 8

// RecordStep stores a step that ran and its findings, once: findings are keyed
// by fingerprint (the same issue found twice is one finding) and the step by
// its seq, so a re-delivered task writes nothing twice. It returns the
// findings that were new, with their ids. When fewer were new than the tool
// reported, the step's outcome says so (scans.WithRecordedCount).
func (s *Store) RecordStep(ctx context.Context, userID, id string, step scans.Step, findings []scans.Finding, now time.Time) ([]scans.Finding, error) {
	added, err := s.putFindings(ctx, id, findingSource{tool: step.Tool, input: string(step.Input)}, findings, now)
	if err != nil {
		return nil, err
	}
	count, issues, err := s.countFindings(ctx, id)
	if err != nil {
		return nil, err
	}
	step.FindingsAdded = len(added)
	step.Outcome = scans.WithRecordedCount(step.Outcome, len(findings), len(added))
	body, err := json.Marshal(step)
	if err != nil {
		return nil, fmt.Errorf("encode step: %w", err)
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		putNew(s.table, childItem{PK: scanPK(id), SK: stepSK(step.Seq), Body: string(body)}),
		{Update: &types.Update{
			TableName:           &s.table,
			Key:                 scanKey(userID, id),
			UpdateExpression:    aws.String("SET steps_count = :seq, findings_count = :count, issues_count = :issues"),
			ConditionExpression: aws.String("attribute_exists(pk) AND steps_count = :prev"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":seq": number(int64(step.Seq)), ":prev": number(int64(step.Seq - 1)), ":count": number(int64(count)),
				":issues": number(int64(issues)),
			},
		}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return added, nil // recorded by an earlier delivery of this task
	}
	if _, ok := transactionConflict(err, 1); ok {
		return nil, fmt.Errorf("record step %d of %s: it is not the next step", step.Seq, id)
	}
	if err != nil {
		return nil, dbError("record step", err)
	}
	return added, nil
}

func stepSK(seq int) string { return fmt.Sprintf("%s%06d", stepPrefix, seq) }

// putFindings writes each finding unless its fingerprint is there already.
func (s *Store) putFindings(ctx context.Context, scanID string, src findingSource, findings []scans.Finding, now time.Time) ([]scans.Finding, error) {
	var (
		mu    sync.Mutex
		added []scans.Finding
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, maxParallelWrites)
	)
	seen := map[string]bool{}
	for i, f := range findings {
		f.Confidence = f.DefaultConfidence()
		f.Issue = issueKeyOf(f)
		fp := f.StableFingerprint()
		f.Fingerprint = fp
		if seen[fp] {
			continue // the same issue twice in one step
		}
		seen[fp] = true
		// Ids carry the step's time and the finding's position, so they sort
		// in discovery order.
		f.ID = ids.New(ids.Finding, now.Add(time.Duration(i)*time.Millisecond))
		body, err := json.Marshal(f)
		if err != nil {
			return nil, fmt.Errorf("encode finding: %w", err)
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: &s.table,
				Item: marshal(childItem{PK: scanPK(scanID), SK: findingPrefix + fp, Body: string(body), Issue: f.Issue,
					Tool: src.tool, Input: src.input}),
				ConditionExpression: aws.String("attribute_not_exists(pk)"),
			})
			mu.Lock()
			defer mu.Unlock()
			if _, dup := IsConditionFailed(err); dup {
				return
			}
			if err != nil {
				if first == nil {
					first = dbError("put finding", err)
				}
				return
			}
			added = append(added, f)
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	SortFindings(added)
	return added, nil
}

// issueKeyOf is the issue key a finding is recorded with: scans.IssueKey of
// its check and CVE. A finding without a check (recorded, or emitted by a
// tool, before check codes existed) has nothing but its title to tell one
// weakness from another, so its key adds a hash of the title: "unclassified"
// alone would make every such finding one issue.
func issueKeyOf(f scans.Finding) string {
	key := scans.IssueKey(f.Check, f.CVE)
	if f.Check == "" && (f.CVE == nil || strings.TrimSpace(*f.CVE) == "") {
		sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(f.Title))))
		key += ":" + hex.EncodeToString(sum[:6])
	}
	return key
}

// countFindings counts the scan's findings and their distinct issues from
// the finding items' keys and issue attributes (the bodies are not sent). A
// finding recorded before issues existed has no issue attribute: then the
// findings are read whole once.
func (s *Store) countFindings(ctx context.Context, scanID string) (findings, issues int, err error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(scanPK(scanID)), ":prefix": str(findingPrefix),
		},
		ProjectionExpression:     aws.String("sk, #issue"),
		ExpressionAttributeNames: map[string]string{"#issue": "issue"},
		ConsistentRead:           aws.Bool(true),
	}
	keys := map[string]struct{}{}
	legacy := false
	for range maxScanChildren {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return 0, 0, dbError("count findings", err)
		}
		for _, item := range res.Items {
			findings++
			if v, ok := item["issue"].(*types.AttributeValueMemberS); ok && v.Value != "" {
				keys[v.Value] = struct{}{}
			} else {
				legacy = true
			}
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	if !legacy {
		return findings, len(keys), nil
	}
	all, err := s.Findings(ctx, scanID)
	if err != nil {
		return 0, 0, err
	}
	return len(all), scans.CountIssues(all), nil
}

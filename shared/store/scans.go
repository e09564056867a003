package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
	"secscan/shared/ids"
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
	for _, raw := range it.WebhookAttempts {
		var a scans.WebhookAttempt
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			return scans.Scan{}, fmt.Errorf("decode webhook attempt of %s: %w", it.ID, err)
		}
		s.WebhookAttempts = append(s.WebhookAttempts, a)
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

type idempotencyItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	ScanID string `dynamodbav:"scan_id"`
	TTL    int64  `dynamodbav:"ttl"`
}

// Idempotency is an Idempotency-Key claim: KeyHash is the SHA-256 (hex) of
// the header value, Until when the claim lapses.
type Idempotency struct {
	KeyHash string
	Until   time.Time
}

// CreateScan stores a new queued scan. With idem, the key is claimed in the
// same transaction; when the user already used the key within its window, the
// original scan is returned with created == false and nothing is written.
// When sc.CreditMonth is set, the same transaction reserves sc.MaxCredits in
// that month's allowance of sc.Plan (credits.go); an *AllowanceError when the
// month cannot hold it.
func (s *Store) CreateScan(ctx context.Context, sc scans.Scan, idem *Idempotency, now time.Time) (scans.Scan, bool, error) {
	items := []types.TransactWriteItem{putNew(s.table, toScanItem(sc))}
	claimAt, reserveAt := -1, -1
	if idem != nil {
		claim := types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table,
			Item: marshal(idempotencyItem{PK: userPK(sc.UserID), SK: "IDEMPOTENCY#" + idem.KeyHash,
				ScanID: sc.ID, TTL: ttlAfter(idem.Until)}),
			// TTL deletion is lazy: an expired claim may still be there.
			ConditionExpression:                 aws.String("attribute_not_exists(pk) OR #ttl <= :now"),
			ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":now": number(now.Unix())},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}
		claimAt = len(items)
		items = append(items, claim)
	}
	allowance, limited := sc.Plan.MonthlyAllowance()
	if sc.CreditMonth != "" {
		reserveAt = len(items)
		items = append(items, s.reserveCredits(sc.UserID, sc.CreditMonth, sc.MaxCredits, allowance, limited))
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	// A replay first: it returns the original scan whatever the allowance.
	if old, ok := transactionConflict(err, claimAt); ok {
		var claim idempotencyItem
		if err := attributevalue.UnmarshalMap(old, &claim); err != nil {
			return scans.Scan{}, false, fmt.Errorf("decode idempotency claim: %w", err)
		}
		orig, err := s.GetScan(ctx, sc.UserID, claim.ScanID)
		return orig, false, err
	}
	if old, ok := transactionConflict(err, reserveAt); ok {
		return scans.Scan{}, false, allowanceError(old, sc.CreditMonth, allowance)
	}
	if err != nil {
		return scans.Scan{}, false, dbError("create scan", err)
	}
	return sc, true, nil
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

// ScanDetail is the full record: the scan, its findings (most severe first,
// then in discovery order), the issues they form (scans.GroupIssues), the
// baseline's issues this scan found fixed, and its steps (in order).
type ScanDetail struct {
	Scan        scans.Scan
	Findings    []scans.Finding
	Issues      []scans.Issue
	FixedIssues []scans.FixedIssue
	Steps       []scans.Step
	Surface     scans.Surface
	// Comparison is what completion compared (nil before it, and for scans
	// completed before monitoring existed).
	Comparison *scans.Comparison
}

// GetScanDetail reads the record and what the scan accumulated concurrently:
// two requests, whatever the number of steps and findings (up to 1 MB; more
// pages follow when needed).
func (s *Store) GetScanDetail(ctx context.Context, userID, id string) (ScanDetail, error) {
	var (
		d        ScanDetail
		children []map[string]types.AttributeValue
		childErr error
		wg       sync.WaitGroup
	)
	wg.Go(func() { children, childErr = s.scanChildren(ctx, id, "") })
	var err error
	d.Scan, err = s.GetScan(ctx, userID, id)
	wg.Wait()
	if err != nil {
		return ScanDetail{}, err
	}
	if childErr != nil {
		return ScanDetail{}, childErr
	}
	if d.Steps, d.Findings, err = decodeChildren(children); err != nil {
		return ScanDetail{}, err
	}
	if d.Surface, err = decodeSurface(children); err != nil {
		return ScanDetail{}, err
	}
	d.Issues = scans.GroupIssues(d.Findings)
	d.Scan.IssuesCount = len(d.Issues)
	d.FixedIssues = []scans.FixedIssue{}
	if d.Comparison, err = decodeComparison(children); err != nil {
		return ScanDetail{}, err
	}
	if c := d.Comparison; c != nil {
		for i := range d.Issues {
			is := &d.Issues[i]
			if ch, ok := c.Changes[is.Key]; ok && c.BaselineScanID != "" {
				is.Change = &ch
			}
			if t, ok := c.Triage[is.Key]; ok {
				is.Triage = &t
			}
		}
		d.FixedIssues = c.Fixed
	}
	return d, nil
}

// SortFindings orders findings in the one order people read them
// (scans.CompareFindings), so the API, the dashboard and the CLI list them
// as the reports do.
func SortFindings(fs []scans.Finding) { scans.SortFindings(fs) }

type childItem struct {
	PK   string `dynamodbav:"pk"`
	SK   string `dynamodbav:"sk"`
	Body string `dynamodbav:"body"`
	// Issue is a finding's issue key, beside its body so RecordStep counts
	// the scan's issues without reading the bodies.
	Issue string `dynamodbav:"issue,omitempty"`
	// Tool and Input are the call that found a finding, so a retest can
	// make the same call again (SourcedFindings).
	Tool  string `dynamodbav:"tool,omitempty"`
	Input string `dynamodbav:"input,omitempty"`
}

func scanPK(id string) string { return scanPrefix + id }

// scanChildren reads the items of the scan's partition whose sort key starts
// with prefix ("" for all), following pages up to maxScanChildren.
func (s *Store) scanChildren(ctx context.Context, id, prefix string) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: scanPK(id)},
		},
		ConsistentRead: aws.Bool(true),
	}
	if prefix != "" {
		in.KeyConditionExpression = aws.String("pk = :pk AND begins_with(sk, :prefix)")
		in.ExpressionAttributeValues[":prefix"] = &types.AttributeValueMemberS{Value: prefix}
	}
	var out []map[string]types.AttributeValue
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, dbError("query scan items", err)
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil || len(out) >= maxScanChildren {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// ScanFilter narrows a scan list; zero values do not filter.
type ScanFilter struct {
	Status scans.Status
	Target string // the domain
}

// maxFilterQueries bounds the queries one filtered page may cost; a sparse
// filter returns a short page with a cursor rather than reading on and on.
const maxFilterQueries = 8

// ListScans returns a page of the user's scans, newest first, matching f.
func (s *Store) ListScans(ctx context.Context, userID string, page Page, f ScanFilter) ([]scans.Scan, string, error) {
	pk := userPK(userID)
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: scanPrefix},
		},
		ScanIndexForward: aws.Bool(false),
	}
	var filters []string
	if f.Status != "" {
		filters = append(filters, "#status = :status")
		in.ExpressionAttributeValues[":status"] = &types.AttributeValueMemberS{Value: string(f.Status)}
	}
	if f.Target != "" {
		filters = append(filters, "#target = :target")
		in.ExpressionAttributeValues[":target"] = &types.AttributeValueMemberS{Value: f.Target}
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
		in.ExpressionAttributeNames = map[string]string{}
		if f.Status != "" {
			in.ExpressionAttributeNames["#status"] = "status"
		}
		if f.Target != "" {
			in.ExpressionAttributeNames["#target"] = "target"
		}
	}
	if page.Cursor != "" {
		sk, err := decodeCursor(page.Cursor, scanPrefix)
		if err != nil {
			return nil, "", err
		}
		in.ExclusiveStartKey = key(pk, sk)
	}
	var items []map[string]types.AttributeValue
	for q := 0; ; q++ {
		// Ask for one more than needed so a full page knows a next one exists.
		in.Limit = aws.Int32(int32(page.Limit + 1 - len(items)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, "", dbError("list scans", err)
		}
		items = append(items, res.Items...)
		if len(items) > page.Limit {
			items = items[:page.Limit]
			next := encodeCursor(items[len(items)-1]["sk"].(*types.AttributeValueMemberS).Value)
			return s.decodeScans(ctx, items, next)
		}
		if res.LastEvaluatedKey == nil {
			return s.decodeScans(ctx, items, "")
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
		if q+1 == maxFilterQueries {
			next := encodeCursor(res.LastEvaluatedKey["sk"].(*types.AttributeValueMemberS).Value)
			return s.decodeScans(ctx, items, next)
		}
	}
}

// decodeScans decodes a page of scan items. A scan recorded before issues
// existed has findings but no issues_count: it is counted from its findings
// and stored, once, so the next list reads it as any other.
func (s *Store) decodeScans(ctx context.Context, items []map[string]types.AttributeValue, next string) ([]scans.Scan, string, error) {
	out := make([]scans.Scan, 0, len(items))
	var uncounted []int
	for _, item := range items {
		sc, err := decodeScan(item)
		if err != nil {
			return nil, "", err
		}
		if _, ok := item["issues_count"]; !ok && sc.FindingsCount > 0 {
			uncounted = append(uncounted, len(out))
		}
		out = append(out, sc)
	}
	if err := s.countLegacyIssues(ctx, out, uncounted); err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// countLegacyIssues sets IssuesCount of list[i] for each i in which from
// the scan's findings, and stores it unless a step stored one meanwhile.
func (s *Store) countLegacyIssues(ctx context.Context, list []scans.Scan, which []int) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, maxParallelWrites)
	)
	for _, i := range which {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			sc := &list[i]
			fs, err := s.Findings(ctx, sc.ID)
			if err == nil {
				sc.IssuesCount = scans.CountIssues(fs)
				_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName:                 &s.table,
					Key:                       scanKey(sc.UserID, sc.ID),
					UpdateExpression:          aws.String("SET issues_count = :issues"),
					ConditionExpression:       aws.String("attribute_exists(pk) AND attribute_not_exists(issues_count)"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":issues": number(int64(sc.IssuesCount))},
				})
				if _, ok := IsConditionFailed(err); ok {
					err = nil // a step counted them meanwhile
				} else if err != nil {
					err = dbError("store issues count", err)
				}
			}
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func stamp(t time.Time) *types.AttributeValueMemberS { return str(t.UTC().Format(time.RFC3339Nano)) }

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
	update := "SET #status = :to, finished_at = :now" + extra
	values := map[string]types.AttributeValue{":to": str(string(status)), ":now": stamp(now)}
	for k, v := range extraValues {
		values[k] = v
	}
	if reason != "" {
		update += ", #error = :error"
		values[":error"] = str(reason)
	}
	if summary != nil {
		body, err := json.Marshal(summary)
		if err != nil {
			return scans.Scan{}, fmt.Errorf("encode summary: %w", err)
		}
		update += ", summary = :summary"
		values[":summary"] = str(string(body))
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

// Steps returns the recorded steps of a scan, in order. Callers reach a scan
// id only through its owner's record.
func (s *Store) Steps(ctx context.Context, scanID string) ([]scans.Step, error) {
	items, err := s.scanChildren(ctx, scanID, stepPrefix)
	if err != nil {
		return nil, err
	}
	steps, _, err := decodeChildren(items)
	return steps, err
}

// Findings returns the findings of a scan, most severe first.
func (s *Store) Findings(ctx context.Context, scanID string) ([]scans.Finding, error) {
	items, err := s.scanChildren(ctx, scanID, findingPrefix)
	if err != nil {
		return nil, err
	}
	_, findings, err := decodeChildren(items)
	return findings, err
}

// decodeChildren decodes a scan's step and finding items: steps in order,
// findings most severe first.
func decodeChildren(items []map[string]types.AttributeValue) ([]scans.Step, []scans.Finding, error) {
	var (
		steps    []scans.Step
		findings []scans.Finding
	)
	for _, item := range items {
		var c childItem
		if err := attributevalue.UnmarshalMap(item, &c); err != nil {
			return nil, nil, fmt.Errorf("decode scan item: %w", err)
		}
		var err error
		switch {
		case strings.HasPrefix(c.SK, stepPrefix):
			var st scans.Step
			err = json.Unmarshal([]byte(c.Body), &st)
			if st.Status == "" {
				st.Status = legacyStepStatus(st.Outcome)
			}
			steps = append(steps, st)
		case strings.HasPrefix(c.SK, findingPrefix):
			var f scans.Finding
			err = json.Unmarshal([]byte(c.Body), &f)
			f.Confidence = f.DefaultConfidence()
			if f.Issue == "" { // recorded before issues existed
				f.Issue = issueKeyOf(f)
			}
			if f.Fingerprint == "" {
				f.Fingerprint = strings.TrimPrefix(c.SK, findingPrefix)
			}
			findings = append(findings, f)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("decode %s: %w", c.SK, err)
		}
	}
	slices.SortFunc(steps, func(a, b scans.Step) int { return a.Seq - b.Seq })
	SortFindings(findings)
	return steps, findings, nil
}

// legacyStepStatus types a step recorded before steps had a status, from
// the exact prefixes the agent wrote then.
func legacyStepStatus(outcome string) scans.StepStatus {
	switch {
	case strings.HasPrefix(outcome, "Refused: "):
		return scans.StepRefused
	case strings.HasPrefix(outcome, "Tool error: "):
		return scans.StepFailed
	case strings.HasPrefix(outcome, "Stopped at the tool's time limit"):
		return scans.StepTimedOut
	}
	return scans.StepOK
}

// ReleaseIdempotency drops the user's claim of a key when it still names
// scanID, so a request whose scan could not be started can be retried with
// the same key.
func (s *Store) ReleaseIdempotency(ctx context.Context, userID, keyHash, scanID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       key(userPK(userID), "IDEMPOTENCY#"+keyHash),
		ConditionExpression:       aws.String("scan_id = :id"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(scanID)},
	})
	if _, ok := IsConditionFailed(err); ok {
		return nil
	}
	return dbError("release idempotency key", err)
}

// TargetByDomain returns the user's target for domain.
func (s *Store) TargetByDomain(ctx context.Context, userID, domain string) (Target, error) {
	var claim domainClaimItem
	if err := s.getRecord(ctx, key(userPK(userID), "DOMAIN#"+domain), &claim, "target", domain); err != nil {
		return Target{}, err
	}
	return s.GetTarget(ctx, userID, claim.TargetID)
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

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Schedule items. The record lives in the user's partition, so listing is
// one Query and another user's id finds nothing; a pointer in a partition of
// its own names the owner, because EventBridge Scheduler's input carries the
// schedule id alone:
//
//	USER#<usr id>       SCHEDULE#<sch id>   the schedule record
//	SCHEDULE#<sch id>   SCHEDULE            pointer: schedule id -> user id
//
// next_run_at is stored as Unix seconds, so a run's claim compares numbers.
const schedulePrefix = "SCHEDULE#"

// Schedule is a scan run on a cadence.
type Schedule struct {
	ID          string `dynamodbav:"id"`
	UserID      string `dynamodbav:"user_id"`
	TargetID    string `dynamodbav:"target_id"`
	Target      string `dynamodbav:"target"`
	ScanType    string `dynamodbav:"scan_type"`
	Tier        string `dynamodbav:"tier"`
	Cadence     string `dynamodbav:"cadence"`
	CallbackURL string `dynamodbav:"callback_url,omitempty"`
	// MaxCredits is what the body asked for (0: the tier's ceiling at run time).
	MaxCredits int  `dynamodbav:"max_credits,omitempty"`
	Enabled    bool `dynamodbav:"enabled"`
	// Anchor fixes the grid of runs (schedules.Anchor); NextRunAt is the next
	// point of it, Unix seconds.
	Anchor     time.Time  `dynamodbav:"anchor"`
	NextRunAt  int64      `dynamodbav:"next_run_at"`
	LastScanID string     `dynamodbav:"last_scan_id,omitempty"`
	LastError  string     `dynamodbav:"last_error,omitempty"`
	LastRunAt  *time.Time `dynamodbav:"last_run_at,omitempty"`
	CreatedAt  time.Time  `dynamodbav:"created_at"`
	UpdatedAt  time.Time  `dynamodbav:"updated_at"`
	// Version counts the writes of the record: every run's claim and note
	// and every PATCH add one, and a PATCH writes only on the version it
	// read (UpdateSchedule), so it never undoes a run. 0 on a record made
	// before versions (the attribute is then missing).
	Version int `dynamodbav:"version"`
}

// NextRun is NextRunAt as a time.
func (s Schedule) NextRun() time.Time { return time.Unix(s.NextRunAt, 0).UTC() }

type scheduleItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	Schedule
}

type schedulePointer struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	UserID string `dynamodbav:"user_id"`
}

func scheduleKey(userID, id string) map[string]types.AttributeValue {
	return key(userPK(userID), schedulePrefix+id)
}

func schedulePointerKey(id string) map[string]types.AttributeValue {
	return key(schedulePrefix+id, "SCHEDULE")
}

// CountSchedules counts the user's schedules (one Query of keys only).
func (s *Store) CountSchedules(ctx context.Context, userID string) (int, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: userPK(userID)},
			":prefix": &types.AttributeValueMemberS{Value: schedulePrefix},
		},
		Select:         types.SelectCount,
		ConsistentRead: aws.Bool(true),
	}
	n := 0
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return 0, dbError("count schedules", err)
		}
		n += int(res.Count)
		if res.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// ScheduleRank is sch's place among its user's enabled schedules, oldest
// first (by created_at, then id): 1 for the oldest. A paused sch is ranked
// where it would be if enabled. A plan's count of schedules is checked
// with it when a run starts: after a downgrade the oldest schedules run and
// the rest wait. One Query of the user's schedules, three attributes each.
func (s *Store) ScheduleRank(ctx context.Context, sch Schedule) (int, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: userPK(sch.UserID)},
			":prefix": &types.AttributeValueMemberS{Value: schedulePrefix},
		},
		ProjectionExpression:     aws.String("#id, #created, #enabled"),
		ExpressionAttributeNames: map[string]string{"#id": "id", "#created": "created_at", "#enabled": "enabled"},
		ConsistentRead:           aws.Bool(true),
	}
	rank := 1
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return 0, dbError("rank schedule", err)
		}
		for _, item := range res.Items {
			var it struct {
				ID        string    `dynamodbav:"id"`
				CreatedAt time.Time `dynamodbav:"created_at"`
				Enabled   bool      `dynamodbav:"enabled"`
			}
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return 0, fmt.Errorf("decode schedule: %w", err)
			}
			if it.Enabled && it.ID != sch.ID && scheduleBefore(it.CreatedAt, it.ID, sch.CreatedAt, sch.ID) {
				rank++
			}
		}
		if res.LastEvaluatedKey == nil {
			return rank, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// scheduleBefore reports whether the schedule created at a with id aID is
// older than the one created at b with id bID (ids break ties).
func scheduleBefore(a time.Time, aID string, b time.Time, bID string) bool {
	if !a.Equal(b) {
		return a.Before(b)
	}
	return aID < bID
}

// scheduleCountKey is the user's schedule counter: the number of schedules
// the user holds, kept in the transactions that create and delete them so a
// plan's limit holds under concurrent creations.
func scheduleCountKey(userID string) map[string]types.AttributeValue {
	return key(userPK(userID), "SCHEDULECOUNT")
}

// ErrScheduleLimit is CreateSchedule's answer when the user holds limit
// schedules already (another creation may have just taken the last place).
var ErrScheduleLimit = errors.New("store: schedule limit reached")

// CreateSchedule stores a new schedule and its pointer at once, and counts
// it, on condition that the user holds fewer than limit schedules
// (ErrScheduleLimit otherwise).
func (s *Store) CreateSchedule(ctx context.Context, sch Schedule, limit int) error {
	if err := s.ensureScheduleCount(ctx, sch.UserID); err != nil {
		return err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: &s.table, Key: scheduleCountKey(sch.UserID),
			UpdateExpression:    aws.String("SET n = n + :one"),
			ConditionExpression: aws.String("n < :limit"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":one": number(1), ":limit": number(int64(limit)),
			}}},
		putNew(s.table, scheduleItem{PK: userPK(sch.UserID), SK: schedulePrefix + sch.ID, Schedule: sch}),
		putNew(s.table, schedulePointer{PK: schedulePrefix + sch.ID, SK: "SCHEDULE", UserID: sch.UserID}),
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return ErrScheduleLimit
	}
	if _, ok := transactionConflict(err, 1); ok {
		return ErrConflict
	}
	return dbError("create schedule", err)
}

// ensureScheduleCount creates the user's counter from a count of their
// schedules when it does not exist yet (schedules made before it).
func (s *Store) ensureScheduleCount(ctx context.Context, userID string) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: scheduleCountKey(userID),
		ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("n")})
	if err != nil {
		return dbError("schedule count", err)
	}
	if res.Item != nil {
		return nil
	}
	n, err := s.CountSchedules(ctx, userID)
	if err != nil {
		return err
	}
	item := scheduleCountKey(userID)
	item["n"] = number(int64(n))
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item,
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	if _, ok := IsConditionFailed(err); ok {
		return nil // another request made it meanwhile
	}
	return dbError("schedule count", err)
}

// GetSchedule returns the user's schedule; another user's id is ErrNotFound.
func (s *Store) GetSchedule(ctx context.Context, userID, id string) (Schedule, error) {
	var it scheduleItem
	if err := s.getRecord(ctx, scheduleKey(userID, id), &it, "schedule", id); err != nil {
		return Schedule{}, err
	}
	return it.Schedule, nil
}

// ScheduleOwner returns the id of the user who owns schedule id.
func (s *Store) ScheduleOwner(ctx context.Context, id string) (string, error) {
	var p schedulePointer
	if err := s.getRecord(ctx, schedulePointerKey(id), &p, "schedule", id); err != nil {
		return "", err
	}
	return p.UserID, nil
}

// ListSchedules returns a page of the user's schedules, newest first.
func (s *Store) ListSchedules(ctx context.Context, userID string, page Page) ([]Schedule, string, error) {
	var items []scheduleItem
	next, err := s.queryPage(ctx, userPK(userID), schedulePrefix, page, &items)
	if err != nil {
		return nil, "", fmt.Errorf("list schedules: %w", err)
	}
	out := make([]Schedule, len(items))
	for i, it := range items {
		out[i] = it.Schedule
	}
	return out, next, nil
}

// SchedulesOfTarget returns every schedule of the user's target.
func (s *Store) SchedulesOfTarget(ctx context.Context, userID, targetID string) ([]Schedule, error) {
	var out []Schedule
	page := Page{Limit: 200}
	for {
		list, next, err := s.ListSchedules(ctx, userID, page)
		if err != nil {
			return nil, err
		}
		for _, sch := range list {
			if sch.TargetID == targetID {
				out = append(out, sch)
			}
		}
		if next == "" {
			return out, nil
		}
		page.Cursor = next
	}
}

// UpdateSchedule writes a PATCH: the attributes of sch that differ from
// old, the record as read, on condition that the record is still at old's
// version (a run's claim or note, or another PATCH, moves it). A run's
// next_run_at, last_scan_id and last_error are written only when the PATCH
// changed them itself. A *ConflictError when the record moved since old was
// read (read it again and re-apply), ErrNotFound when it was deleted.
func (s *Store) UpdateSchedule(ctx context.Context, old, sch Schedule) (Schedule, error) {
	set, remove, values := scheduleChanges(old, sch)
	set = append(set, "updated_at = :updated")
	values[":updated"] = &types.AttributeValueMemberS{Value: sch.UpdatedAt.UTC().Format(time.RFC3339Nano)}
	expr := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	expr += " ADD version :one"
	values[":one"] = number(1)
	values[":version"] = number(int64(old.Version))
	cond := "attribute_exists(pk) AND version = :version"
	if old.Version == 0 {
		cond = "attribute_exists(pk) AND (attribute_not_exists(version) OR version = :version)"
	}
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.table,
		Key:                                 scheduleKey(sch.UserID, sch.ID),
		UpdateExpression:                    &expr,
		ConditionExpression:                 &cond,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if ccf, ok := IsConditionFailed(err); ok {
		if len(ccf.Item) == 0 {
			return Schedule{}, notFound("schedule", sch.ID)
		}
		return Schedule{}, &ConflictError{Kind: "schedule", ID: sch.ID, Detail: ScheduleChanged}
	}
	if err != nil {
		return Schedule{}, dbError("update schedule", err)
	}
	var it scheduleItem
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return Schedule{}, fmt.Errorf("decode schedule: %w", err)
	}
	return it.Schedule, nil
}

// ScheduleChanged is the 409 of a PATCH whose record kept changing while it
// was written (runs, other PATCHes).
const ScheduleChanged = "The schedule changed while it was being updated; read it again and retry"

// scheduleChanges are the SET and REMOVE clauses (with their values) of
// the attributes a PATCH may change that differ between old and sch; an
// empty optional attribute is removed, as marshalling omits it.
func scheduleChanges(old, sch Schedule) (set, remove []string, values map[string]types.AttributeValue) {
	values = map[string]types.AttributeValue{}
	text := func(attr, placeholder, was, now string) {
		switch {
		case was == now:
		case now == "":
			remove = append(remove, attr)
		default:
			set = append(set, attr+" = "+placeholder)
			values[placeholder] = str(now)
		}
	}
	text("scan_type", ":scan_type", old.ScanType, sch.ScanType)
	text("tier", ":tier", old.Tier, sch.Tier)
	text("cadence", ":cadence", old.Cadence, sch.Cadence)
	text("callback_url", ":callback_url", old.CallbackURL, sch.CallbackURL)
	if !old.Anchor.Equal(sch.Anchor) {
		text("anchor", ":anchor", "", sch.Anchor.UTC().Format(time.RFC3339Nano))
	}
	switch {
	case old.MaxCredits == sch.MaxCredits:
	case sch.MaxCredits == 0:
		remove = append(remove, "max_credits")
	default:
		set = append(set, "max_credits = :max_credits")
		values[":max_credits"] = number(int64(sch.MaxCredits))
	}
	if old.Enabled != sch.Enabled {
		set = append(set, "enabled = :enabled")
		values[":enabled"] = &types.AttributeValueMemberBOOL{Value: sch.Enabled}
	}
	if old.NextRunAt != sch.NextRunAt {
		set = append(set, "next_run_at = :next_run_at")
		values[":next_run_at"] = number(sch.NextRunAt)
	}
	return set, remove, values
}

// DeleteSchedule removes the user's schedule and its pointer; ErrNotFound
// when there is none. Its scans are kept.
func (s *Store) DeleteSchedule(ctx context.Context, userID, id string) error {
	if err := s.ensureScheduleCount(ctx, userID); err != nil {
		return err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: scheduleKey(userID, id),
			ConditionExpression: aws.String("attribute_exists(pk)")}},
		{Delete: &types.Delete{TableName: &s.table, Key: schedulePointerKey(id)}},
		{Update: &types.Update{TableName: &s.table, Key: scheduleCountKey(userID),
			UpdateExpression:          aws.String("SET n = n - :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1)}}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return notFound("schedule", id)
	}
	return dbError("delete schedule", err)
}

// ClaimScheduledRun takes the run due at or before due for the caller: it
// moves next_run_at to next, on condition that the schedule is enabled and
// its next run is not after due. A second delivery of the same run (the
// scheduler delivers at least once; two local tickers) finds next_run_at
// moved and gets false.
func (s *Store) ClaimScheduledRun(ctx context.Context, userID, id string, due, next time.Time) (bool, error) {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 scheduleKey(userID, id),
		UpdateExpression:    aws.String("SET next_run_at = :next ADD version :one"),
		ConditionExpression: aws.String("attribute_exists(pk) AND enabled = :true AND next_run_at <= :due"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":  number(1),
			":next": number(next.Unix()),
			":due":  number(due.Unix()),
			":true": &types.AttributeValueMemberBOOL{Value: true},
		},
	})
	if _, ok := IsConditionFailed(err); ok {
		return false, nil
	}
	if err != nil {
		return false, dbError("claim scheduled run", err)
	}
	return true, nil
}

// RecordScheduleRun writes the outcome of a run at: the scan it started
// (scanID, clearing last_error) or why it did not start (lastError, keeping
// last_scan_id). ErrNotFound when the schedule is gone.
func (s *Store) RecordScheduleRun(ctx context.Context, userID, id, scanID, lastError string, at time.Time) (Schedule, error) {
	update := "SET last_run_at = :at, last_scan_id = :scan REMOVE last_error ADD version :one"
	values := map[string]types.AttributeValue{
		":at":   &types.AttributeValueMemberS{Value: at.UTC().Format(time.RFC3339Nano)},
		":scan": &types.AttributeValueMemberS{Value: scanID},
		":one":  number(1),
	}
	if scanID == "" {
		update = "SET last_run_at = :at, last_error = :error ADD version :one"
		values = map[string]types.AttributeValue{
			":at":    values[":at"],
			":error": &types.AttributeValueMemberS{Value: lastError},
			":one":   values[":one"],
		}
	}
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       scheduleKey(userID, id),
		UpdateExpression:          &update,
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if _, ok := IsConditionFailed(err); ok {
		return Schedule{}, notFound("schedule", id)
	}
	if err != nil {
		return Schedule{}, dbError("record schedule run", err)
	}
	var it scheduleItem
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return Schedule{}, fmt.Errorf("decode schedule: %w", err)
	}
	return it.Schedule, nil
}

// DueSchedule names a schedule whose next run is due.
type DueSchedule struct {
	ID, UserID string
	NextRunAt  time.Time
}

// DueSchedules lists the enabled schedules whose next run is at or before
// now. It scans the table: the local stack's ticker alone calls it (a
// deployed stack has EventBridge Scheduler fire each schedule), so no
// request path ever does.
func (s *Store) DueSchedules(ctx context.Context, now time.Time) ([]DueSchedule, error) {
	in := &dynamodb.ScanInput{
		TableName:        &s.table,
		FilterExpression: aws.String("begins_with(sk, :prefix) AND enabled = :true AND next_run_at <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":prefix": &types.AttributeValueMemberS{Value: schedulePrefix},
			":true":   &types.AttributeValueMemberBOOL{Value: true},
			":now":    number(now.Unix()),
		},
		ProjectionExpression: aws.String("id, user_id, next_run_at"),
	}
	scanner, ok := s.db.(interface {
		Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	})
	if !ok {
		return nil, fmt.Errorf("due schedules: the client cannot scan")
	}
	var out []DueSchedule
	for {
		res, err := scanner.Scan(ctx, in)
		if err != nil {
			return nil, dbError("due schedules", err)
		}
		for _, item := range res.Items {
			var it struct {
				ID        string `dynamodbav:"id"`
				UserID    string `dynamodbav:"user_id"`
				NextRunAt int64  `dynamodbav:"next_run_at"`
			}
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return nil, fmt.Errorf("decode due schedule: %w", err)
			}
			out = append(out, DueSchedule{ID: it.ID, UserID: it.UserID, NextRunAt: time.Unix(it.NextRunAt, 0).UTC()})
		}
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// SetScheduleNextRun moves a schedule's next run (tests and the local
// stack's operators make a schedule due now).
func (s *Store) SetScheduleNextRun(ctx context.Context, userID, id string, at time.Time) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       scheduleKey(userID, id),
		UpdateExpression:          aws.String("SET next_run_at = :at ADD version :one"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": number(at.Unix()), ":one": number(1)},
	})
	if _, ok := IsConditionFailed(err); ok {
		return notFound("schedule", id)
	}
	return dbError("set next run", err)
}

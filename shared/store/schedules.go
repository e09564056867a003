package store

import (
	"context"
	"errors"
	"fmt"
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

// PutSchedule replaces the user's schedule with sch (a PATCH); ErrNotFound
// when it was deleted meanwhile.
func (s *Store) PutSchedule(ctx context.Context, sch Schedule) error {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           &s.table,
		Item:                marshal(scheduleItem{PK: userPK(sch.UserID), SK: schedulePrefix + sch.ID, Schedule: sch}),
		ConditionExpression: aws.String("attribute_exists(pk)"),
	})
	if _, ok := IsConditionFailed(err); ok {
		return notFound("schedule", sch.ID)
	}
	return dbError("put schedule", err)
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
		UpdateExpression:    aws.String("SET next_run_at = :next"),
		ConditionExpression: aws.String("attribute_exists(pk) AND enabled = :true AND next_run_at <= :due"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
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
	update := "SET last_run_at = :at, last_scan_id = :scan REMOVE last_error"
	values := map[string]types.AttributeValue{
		":at":   &types.AttributeValueMemberS{Value: at.UTC().Format(time.RFC3339Nano)},
		":scan": &types.AttributeValueMemberS{Value: scanID},
	}
	if scanID == "" {
		update = "SET last_run_at = :at, last_error = :error"
		values = map[string]types.AttributeValue{
			":at":    values[":at"],
			":error": &types.AttributeValueMemberS{Value: lastError},
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
		UpdateExpression:          aws.String("SET next_run_at = :at"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": number(at.Unix())},
	})
	if _, ok := IsConditionFailed(err); ok {
		return notFound("schedule", id)
	}
	return dbError("set next run", err)
}

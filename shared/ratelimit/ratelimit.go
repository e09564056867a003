// Package ratelimit enforces "at most N per rolling window" exactly, under any
// concurrency, with DynamoDB conditional writes.
//
// Each rule keeps a bounded log on an item: a map attribute from request id to
// the millisecond it was admitted. A request is admitted by one UpdateItem that
// adds its entry on the condition that the log holds fewer than N entries.
// When the condition fails, the write returns the log it saw (ALL_OLD), and
// the limiter retries once more removing the entries older than the window,
// conditioned on those entries still being there — so two racing requests can
// never both take the last slot. The log never exceeds N entries, and the
// admitted set is exactly "fewer than N in the last window", which a
// fixed-window counter cannot promise.
//
// Adding a rule (e.g. 20 scan creations per hour) is one more Rule value.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Rule is a limit: at most Limit admissions per rolling Window.
type Rule struct {
	Name   string // attribute suffix: the log lives in "rl_<Name>"
	Limit  int
	Window time.Duration
}

// The rules of CONTRACT.md.
var (
	Requests     = Rule{Name: "requests", Limit: 60, Window: time.Minute}
	ScanCreation = Rule{Name: "scans", Limit: 20, Window: time.Hour}
	AuthFailures = Rule{Name: "authfail", Limit: 100, Window: time.Minute}
	// Retests: 60 per user per rolling hour (CONTRACT "Proof and retest").
	Retests = Rule{Name: "retests", Limit: 60, Window: time.Hour}
)

// Decision is the outcome of Take.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int           // admissions left in the current window
	Reset      time.Duration // until the window frees a request (0 when it is not full)
	RetryAfter time.Duration // when not allowed: until a request would succeed
	// Item is the item's attributes after the admission (ALL_NEW), so a
	// caller that limits on a record it also needs reads it for free.
	Item map[string]types.AttributeValue
}

// Seconds rounds d up to whole seconds, as the headers want.
func Seconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}

// ErrNoItem means MustExist was asked and the item does not exist.
var ErrNoItem = errors.New("rate-limited item does not exist")

// DB is the part of the DynamoDB client the limiter uses.
type DB interface {
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Limiter applies rules to items of one table.
type Limiter struct {
	DB    DB
	Table string
}

// Target says which item carries the log.
type Target struct {
	Key map[string]types.AttributeValue
	// MustExist: never create the item (a user's profile); when it is missing
	// Take returns ErrNoItem. Otherwise the item is created on demand and
	// expires by TTL one window after its last admission.
	MustExist bool
}

// maxAttempts bounds the retries when concurrent requests keep changing the log.
const maxAttempts = 6

// Take tries to admit request id under rule at now.
func (l *Limiter) Take(ctx context.Context, t Target, rule Rule, id string, now time.Time) (Decision, error) {
	var stale []string // entries of the last seen log to remove
	seen := -1         // size of the last seen log, -1 when unknown
	for attempt := 0; attempt < maxAttempts; attempt++ {
		in := l.admission(t, rule, id, now, stale, seen)
		res, err := l.DB.UpdateItem(ctx, in)
		if err == nil {
			return decide(rule, res.Attributes, now, true), nil
		}
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			return Decision{}, fmt.Errorf("rate limit %s: %w", rule.Name, err)
		}
		if ccf.Item == nil && t.MustExist {
			return Decision{}, ErrNoItem
		}
		log, exists := readLog(ccf.Item, rule)
		if !exists {
			if err := l.createLog(ctx, t, rule, now); err != nil {
				return Decision{}, err
			}
			stale, seen = nil, 0
			continue
		}
		stale = staleEntries(log, rule, now)
		seen = len(log)
		if len(log)-len(stale) >= rule.Limit {
			d := decide(rule, ccf.Item, now, false)
			return d, nil
		}
	}
	// The log kept changing under us: a storm of concurrent requests on one
	// account. Refusing briefly is the safe answer.
	return Decision{Allowed: false, Limit: rule.Limit, RetryAfter: time.Second}, nil
}

// Release removes request id from the rule's log, for admissions that should
// not count after all (a scan creation rejected with a 4xx).
func (l *Limiter) Release(ctx context.Context, t Target, rule Rule, id string) error {
	_, err := l.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &l.Table,
		Key:                      t.Key,
		UpdateExpression:         aws.String("REMOVE #log.#id"),
		ConditionExpression:      aws.String("attribute_exists(#log)"),
		ExpressionAttributeNames: map[string]string{"#log": attr(rule), "#id": id},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("release %s: %w", rule.Name, err)
	}
	return nil
}

func attr(rule Rule) string { return "rl_" + rule.Name }

// admission builds the conditional update that admits id. With no known stale
// entries it requires room in the log; otherwise it removes the stale entries
// and requires that they are all still there and that the log has the size we
// saw, so the room we computed is real.
func (l *Limiter) admission(t Target, rule Rule, id string, now time.Time, stale []string, seen int) *dynamodb.UpdateItemInput {
	names := map[string]string{"#log": attr(rule), "#id": id}
	values := map[string]types.AttributeValue{
		":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.UnixMilli(), 10)},
	}
	update := "SET #log.#id = :now"
	if !t.MustExist {
		update += ", #ttl = :ttl"
		names["#ttl"] = "ttl"
		values[":ttl"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(rule.Window).Unix()+1, 10)}
	}
	cond := "size(#log) < :limit"
	values[":limit"] = &types.AttributeValueMemberN{Value: strconv.Itoa(rule.Limit)}
	if len(stale) > 0 {
		update += " REMOVE "
		cond = "size(#log) = :seen"
		values[":seen"] = &types.AttributeValueMemberN{Value: strconv.Itoa(seen)}
		delete(values, ":limit")
		for i, s := range stale {
			n := "#s" + strconv.Itoa(i)
			names[n] = s
			if i > 0 {
				update += ", "
			}
			update += "#log." + n
			cond += " AND attribute_exists(#log." + n + ")"
		}
	}
	if t.MustExist {
		cond = "attribute_exists(pk) AND " + cond
	}
	return &dynamodb.UpdateItemInput{
		TableName:                           &l.Table,
		Key:                                 t.Key,
		UpdateExpression:                    &update,
		ConditionExpression:                 &cond,
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// createLog adds an empty log to the item (creating the item unless MustExist).
func (l *Limiter) createLog(ctx context.Context, t Target, rule Rule, now time.Time) error {
	names := map[string]string{"#log": attr(rule)}
	values := map[string]types.AttributeValue{":empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}
	update := "SET #log = :empty"
	cond := "attribute_not_exists(#log)"
	if t.MustExist {
		cond = "attribute_exists(pk) AND " + cond
	} else {
		update += ", #ttl = :ttl"
		names["#ttl"] = "ttl"
		values[":ttl"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(rule.Window).Unix()+1, 10)}
	}
	_, err := l.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &l.Table, Key: t.Key, UpdateExpression: &update, ConditionExpression: &cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) { // a concurrent request created it: fine
		return fmt.Errorf("rate limit %s: create log: %w", rule.Name, err)
	}
	return nil
}

// readLog returns the rule's log of an item: request id -> admission (ms).
func readLog(item map[string]types.AttributeValue, rule Rule) (map[string]int64, bool) {
	m, ok := item[attr(rule)].(*types.AttributeValueMemberM)
	if !ok {
		return nil, false
	}
	log := make(map[string]int64, len(m.Value))
	for k, v := range m.Value {
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			ms, _ := strconv.ParseInt(n.Value, 10, 64)
			log[k] = ms
		}
	}
	return log, true
}

// staleEntries lists the ids admitted at or before now - window, oldest first.
func staleEntries(log map[string]int64, rule Rule, now time.Time) []string {
	cutoff := now.Add(-rule.Window).UnixMilli()
	var out []string
	for id, ms := range log {
		if ms <= cutoff {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return log[out[i]] < log[out[j]] })
	return out
}

// decide computes the headers' figures from the log in item.
func decide(rule Rule, item map[string]types.AttributeValue, now time.Time, allowed bool) Decision {
	log, _ := readLog(item, rule)
	cutoff := now.Add(-rule.Window).UnixMilli()
	var live []int64
	for _, ms := range log {
		if ms > cutoff {
			live = append(live, ms)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i] < live[j] })
	d := Decision{Allowed: allowed, Limit: rule.Limit, Remaining: max(0, rule.Limit-len(live)), Item: item}
	if len(live) > 0 {
		// A concurrent request may have logged an instant a few milliseconds
		// after this request's clock reading; no wait is ever longer than
		// the window itself.
		d.Reset = min(time.UnixMilli(live[0]).Add(rule.Window).Sub(now), rule.Window)
	}
	if !allowed {
		// The next admission becomes possible when the oldest live entry ages out.
		d.RetryAfter = max(d.Reset, time.Second)
	}
	return d
}

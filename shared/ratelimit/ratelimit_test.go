package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/dynamotest"
	"secscan/shared/ratelimit"
)

func itemKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: "X"},
	}
}

func newLimiter(t *testing.T) (*ratelimit.Limiter, *dynamodb.Client, string) {
	db, table := dynamotest.NewTable(t)
	return &ratelimit.Limiter{DB: db, Table: table}, db, table
}

// liveT0 is a base instant for tests that step the clock by hand. It lies in
// the future, never the past: the table has TTL on, and DynamoDB Local's
// sweeper deletes an item whose ttl has passed at a moment of its choosing,
// which made a log built at a fixed 2023 instant vanish mid-test (a CI flake
// of TestTakeRollingWindow).
func liveT0() time.Time { return time.Now().Add(time.Hour).Truncate(time.Second) }

// Exactly Limit of many concurrent requests are admitted: no lost update, no
// double-spent slot.
func TestTakeIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	l, _, _ := newLimiter(t)
	rule := ratelimit.Rule{Name: "c", Limit: 60, Window: time.Minute}
	target := ratelimit.Target{Key: itemKey("concurrent")}
	now := time.Now()
	var admitted atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			d, err := l.Take(context.Background(), target, rule, fmt.Sprintf("req-%03d", i), now)
			if err != nil {
				errs <- err
				return
			}
			if d.Allowed {
				admitted.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := admitted.Load(); got != 60 {
		t.Fatalf("admitted %d of 100 concurrent requests, want exactly 60", got)
	}
}

// The window rolls: a full log frees a slot exactly when its oldest entry is
// a window old, and the refusal says how long to wait.
func TestTakeRollingWindow(t *testing.T) {
	t.Parallel()
	l, _, _ := newLimiter(t)
	rule := ratelimit.Rule{Name: "r", Limit: 3, Window: time.Minute}
	target := ratelimit.Target{Key: itemKey("rolling")}
	t0 := liveT0()
	take := func(id string, at time.Time) ratelimit.Decision {
		t.Helper()
		d, err := l.Take(context.Background(), target, rule, id, at)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i, at := range []time.Time{t0, t0.Add(10 * time.Second), t0.Add(20 * time.Second)} {
		d := take(fmt.Sprint("a", i), at)
		if !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("request %d: allowed=%v remaining=%d, want allowed with %d left", i, d.Allowed, d.Remaining, 2-i)
		}
	}
	d := take("b0", t0.Add(30*time.Second))
	if d.Allowed {
		t.Fatal("4th request within the window was admitted")
	}
	if got := ratelimit.Seconds(d.RetryAfter); got != 30 {
		t.Fatalf("Retry-After = %d s, want 30 (oldest entry leaves the window at t0+60s)", got)
	}
	if d := take("b1", t0.Add(60*time.Second-time.Millisecond)); d.Allowed {
		t.Fatal("admitted 1 ms before the oldest entry leaves the window")
	}
	// The window is (now-60s, now]: at t0+60s the t0 entry has left it.
	d = take("b2", t0.Add(60*time.Second))
	if !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after the oldest entry aged out: allowed=%v remaining=%d, want allowed with 0 left", d.Allowed, d.Remaining)
	}
	if got := ratelimit.Seconds(d.Reset); got != 10 {
		t.Fatalf("Reset = %d s, want 10 (the t0+10s entry leaves next)", got)
	}
}

func TestTakeMustExistRefusesMissingItem(t *testing.T) {
	t.Parallel()
	l, db, table := newLimiter(t)
	_, err := l.Take(context.Background(), ratelimit.Target{Key: itemKey("ghost"), MustExist: true}, ratelimit.Requests, "r1", time.Now())
	if !errors.Is(err, ratelimit.ErrNoItem) {
		t.Fatalf("err = %v, want ErrNoItem", err)
	}
	res, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: itemKey("ghost")})
	if err != nil || res.Item != nil {
		t.Fatalf("the limiter created a missing item it must not create: %v %v", res.Item, err)
	}
}

func TestCreatedItemsExpireByTTL(t *testing.T) {
	t.Parallel()
	l, db, table := newLimiter(t)
	now := time.Unix(1_800_000_000, 0)
	if _, err := l.Take(context.Background(), ratelimit.Target{Key: itemKey("ip")}, ratelimit.AuthFailures, "r1", now); err != nil {
		t.Fatal(err)
	}
	res, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: itemKey("ip")})
	if err != nil {
		t.Fatal(err)
	}
	ttl, ok := res.Item["ttl"].(*types.AttributeValueMemberN)
	if !ok || ttl.Value != fmt.Sprint(now.Add(time.Minute).Unix()+1) {
		t.Fatalf("ttl = %v, want one window after the admission", res.Item["ttl"])
	}
}

func TestReleaseFreesTheSlot(t *testing.T) {
	t.Parallel()
	l, _, _ := newLimiter(t)
	rule := ratelimit.Rule{Name: "s", Limit: 1, Window: time.Hour}
	target := ratelimit.Target{Key: itemKey("release")}
	now := time.Now()
	if d, err := l.Take(context.Background(), target, rule, "first", now); err != nil || !d.Allowed {
		t.Fatalf("first: %v %v", d, err)
	}
	if d, _ := l.Take(context.Background(), target, rule, "second", now); d.Allowed {
		t.Fatal("second admitted over a limit of 1")
	}
	if err := l.Release(context.Background(), target, rule, "first"); err != nil {
		t.Fatal(err)
	}
	if d, err := l.Take(context.Background(), target, rule, "third", now); err != nil || !d.Allowed {
		t.Fatalf("after release: %+v %v", d, err)
	}
}

// Concurrent requests read the clock a few milliseconds apart: a refusal whose
// own instant is earlier than every logged one still waits at most a window.
func TestRetryAfterNeverExceedsTheWindow(t *testing.T) {
	t.Parallel()
	l, _, _ := newLimiter(t)
	rule := ratelimit.Rule{Name: "s", Limit: 2, Window: time.Minute}
	target := ratelimit.Target{Key: itemKey("skew")}
	t0 := liveT0()
	for i := range 2 {
		if d, err := l.Take(context.Background(), target, rule, fmt.Sprint("a", i), t0.Add(5*time.Millisecond)); err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v %v", i, d, err)
		}
	}
	d, err := l.Take(context.Background(), target, rule, "late", t0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || ratelimit.Seconds(d.RetryAfter) != 60 || ratelimit.Seconds(d.Reset) != 60 {
		t.Fatalf("allowed=%v Retry-After=%v Reset=%v, want refused with both capped at 60 s", d.Allowed, d.RetryAfter, d.Reset)
	}
}

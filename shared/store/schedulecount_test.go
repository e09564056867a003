package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/store"
)

// The plan's schedule limit holds under concurrent creations: of 10 at once
// with room for 3, exactly 3 are stored; a deletion gives a place back.
func TestScheduleLimitUnderConcurrentCreations(t *testing.T) {
	t.Parallel()
	ctx, st := context.Background(), newStore(t)
	u := newUser(t, st, "sched-limit@example.com")
	now := time.Now().UTC()
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	made := make([]store.Schedule, 10)
	for i := range made {
		made[i] = newSchedule(u.ID, "tgt_A", now.Add(time.Duration(i)*time.Millisecond), now.Add(time.Hour))
		wg.Add(1)
		go func(s store.Schedule) {
			defer wg.Done()
			switch err := st.CreateSchedule(ctx, s, 3); {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, store.ErrScheduleLimit), errors.Is(err, store.ErrConflict):
				// ErrConflict: DynamoDB cancelled a transaction racing on the counter.
				refused.Add(1)
			default:
				t.Error(err)
			}
		}(made[i])
	}
	wg.Wait()
	n, err := st.CountSchedules(ctx, u.ID)
	if err != nil || n != 3 || ok.Load() != 3 {
		t.Fatalf("%d created, %d stored (%v), %d refused; want exactly 3", ok.Load(), n, err, refused.Load())
	}
	list, _, _ := st.ListSchedules(ctx, u.ID, store.Page{Limit: 10})
	if err := st.DeleteSchedule(ctx, u.ID, list[0].ID); err != nil {
		t.Fatal(err)
	}
	extra := newSchedule(u.ID, "tgt_A", now.Add(time.Second), now.Add(time.Hour))
	if err := st.CreateSchedule(ctx, extra, 3); err != nil {
		t.Fatalf("after a deletion: %v, want a place", err)
	}
	again := newSchedule(u.ID, "tgt_A", now.Add(2*time.Second), now.Add(time.Hour))
	if err := st.CreateSchedule(ctx, again, 3); !errors.Is(err, store.ErrScheduleLimit) {
		t.Fatalf("a fourth schedule: %v, want ErrScheduleLimit", err)
	}
}

package httpprobe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunEach(t *testing.T) {
	t.Parallel()
	var sum, running, most atomic.Int64
	notRun := RunEach(context.Background(), 2, []int64{1, 2, 3, 4, 5}, func(_ context.Context, n int64) {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		sum.Add(n)
	})
	if notRun != 0 || sum.Load() != 15 || most.Load() > 2 {
		t.Errorf("notRun %d, sum %d, at most %d at once; want 0, 15, 2", notRun, sum.Load(), most.Load())
	}

	// Past the deadline nothing more starts: what is left is counted.
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	notRun = RunEach(ctx, 1, []int{1, 2, 3, 4}, func(context.Context, int) {
		ran.Add(1)
		cancel()
	})
	if ran.Load() != 1 || notRun != 3 {
		t.Errorf("after cancel: ran %d, notRun %d; want 1 and 3", ran.Load(), notRun)
	}
}

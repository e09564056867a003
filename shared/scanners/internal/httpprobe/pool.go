package httpprobe

import (
	"context"
	"sync"
)

// RunEach runs do on each item, workers at a time (the client bounds the
// requests in flight on its own). Items not started before ctx ends are
// not run: RunEach returns how many.
func RunEach[T any](ctx context.Context, workers int, items []T, do func(context.Context, T)) (notRun int) {
	jobs := make(chan T)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for item := range jobs {
				do(ctx, item)
			}
		})
	}
	for _, item := range items {
		if ctx.Err() != nil {
			notRun++
			continue
		}
		select {
		case jobs <- item:
		case <-ctx.Done():
			notRun++
		}
	}
	close(jobs)
	wg.Wait()
	return notRun
}

package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"secscan/shared/scanners/internal/httpprobe"
)

// fetchAll fetches a batch with at most workers requests at once and
// returns the responses in batch order (nil where the fetch failed or was
// not made).
func (c *crawler) fetchAll(ctx context.Context, batch []target) []*httpprobe.Response {
	out := make([]*httpprobe.Response, len(batch))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(batch)) {
		wg.Go(func() {
			for i := range jobs {
				out[i] = c.fetchSelected(ctx, batch[i].url)
			}
		})
	}
	for i := range batch {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// fetchSelected fetches a page of a batch: nil when the fetch failed or
// was not made; a page left because the crawl stopped (its time or byte
// budget) is counted as unfetched.
func (c *crawler) fetchSelected(ctx context.Context, u *url.URL) *httpprobe.Response {
	if ctx.Err() != nil || c.halted() {
		c.countUnfetched()
		return nil
	}
	resp, err := c.fetch(ctx, u)
	if errors.Is(err, errBudget) {
		c.countUnfetched()
	}
	if err != nil {
		return nil
	}
	return resp
}

func (c *crawler) countUnfetched() {
	c.mu.Lock()
	c.unfetched++
	c.mu.Unlock()
}

// fetch GETs one page within the byte budget. A spent budget stops the
// crawl.
func (c *crawler) fetch(ctx context.Context, u *url.URL) (*httpprobe.Response, error) {
	reserved := c.budget.reserve(pageBytes)
	if reserved == 0 {
		c.stop(fmt.Sprintf("spent the byte budget (%d MiB)", totalBytes>>20))
		c.mu.Lock()
		c.halt = true
		c.mu.Unlock()
		return nil, errBudget
	}
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	resp, err := c.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: reserved})
	if err != nil {
		c.budget.refund(reserved)
		c.mu.Lock()
		c.failed++
		c.lastError = err
		c.mu.Unlock()
		return nil, err
	}
	c.budget.refund(reserved - int64(len(resp.Body)))
	return resp, nil
}

var errBudget = errors.New("byte budget spent")

// byteBudget is what may still be read in this call.
type byteBudget struct {
	mu   sync.Mutex
	left int64
	used int64
}

// reserve takes up to max bytes from the budget, or 0 when less than
// minReserve is left.
func (b *byteBudget) reserve(max int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(max, b.left)
	if n < minReserve {
		return 0
	}
	b.left -= n
	b.used += n
	return n
}

// refund gives back what a request reserved and did not read.
func (b *byteBudget) refund(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left += n
	b.used -= n
}

func (b *byteBudget) spent() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

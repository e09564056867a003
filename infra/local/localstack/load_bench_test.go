package localstack_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load benchmarks drive the local stack as many customers would, over
// HTTP, and report latency percentiles as custom metrics (make bench; set
// LOCAL_LAMBDA_CONCURRENCY to compare instance pools). They also check that
// nothing is lost under load: no 5xx, every scan ends completed with the
// same findings, and the per-user limit admits exactly its 60 requests.

// BenchmarkConcurrentScans launches quick web scans of the demo target all at
// once, two per user, each user polling its scans every 2.5 s (48 requests a
// minute, within the limit of 60). A scan's time is its record's
// finished_at − created_at, so the polling interval does not blur it.
func BenchmarkConcurrentScans(b *testing.B) {
	for _, n := range []int{1, 30, 100} {
		b.Run(fmt.Sprintf("scans=%d", n), func(b *testing.B) {
			s, demo := demoStack(b)
			for range b.N {
				users := make([]account, (n+1)/2)
				for i := range users {
					users[i] = s.newAccount("free", false)
					s.verifiedTarget(users[i], demo.Domain(), func(token string) {
						if err := demo.PublishChallenge(token); err != nil {
							b.Fatal(err)
						}
					})
				}
				var (
					wg     sync.WaitGroup
					mu     sync.Mutex
					ended  []timedScan
					server atomic.Int64 // 5xx answers
				)
				for i := range n {
					a := users[i/2]
					wg.Go(func() {
						r := s.call(http.MethodPost, "/api/scans", a.token,
							map[string]any{"target": demo.Domain(), "scan_type": "web", "tier": "quick"})
						if r.status != http.StatusAccepted {
							b.Errorf("create: %d %s", r.status, r.body)
							return
						}
						var sc timedScan
						r.json(b, &sc)
						for !terminal(sc.scanView) {
							time.Sleep(2500 * time.Millisecond)
							r = s.call(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil)
							if r.status >= 500 {
								server.Add(1)
							}
							if r.status != http.StatusOK {
								b.Errorf("poll: %d %s", r.status, r.body)
								return
							}
							r.json(b, &sc)
						}
						mu.Lock()
						ended = append(ended, sc)
						mu.Unlock()
					})
				}
				wg.Wait()
				reportScans(b, ended, n, server.Load())
			}
		})
	}
}

// timedScan is a scan record with its timestamps.
type timedScan struct {
	scanView
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

func reportScans(b *testing.B, ended []timedScan, n int, serverErrors int64) {
	b.Helper()
	if len(ended) != n {
		b.Fatalf("%d of %d scans ended", len(ended), n)
	}
	var took []time.Duration
	first, last := ended[0].CreatedAt, *ended[0].FinishedAt
	for _, sc := range ended {
		if sc.Status != "completed" || sc.FindingsCount != ended[0].FindingsCount || sc.FinishedAt == nil {
			b.Errorf("scan %s ended %s with %d findings (error %v), want completed with %d like the others",
				sc.ID, sc.Status, sc.FindingsCount, deref(sc.Error), ended[0].FindingsCount)
			continue
		}
		took = append(took, sc.FinishedAt.Sub(sc.CreatedAt))
		first, last = minTime(first, sc.CreatedAt), maxTime(last, *sc.FinishedAt)
	}
	if serverErrors > 0 {
		b.Errorf("%d answers were 5xx", serverErrors)
	}
	slices.Sort(took)
	p50, p95 := percentile(took, 50), percentile(took, 95)
	b.ReportMetric(p50.Seconds(), "p50_s")
	b.ReportMetric(p95.Seconds(), "p95_s")
	b.ReportMetric(float64(n)/last.Sub(first).Seconds(), "scans/s")
	b.Logf("%d scans: p50 %v, p95 %v, max %v, all done in %v; %d findings each; 5xx: %d",
		n, p50.Round(10*time.Millisecond), p95.Round(10*time.Millisecond), took[len(took)-1].Round(10*time.Millisecond),
		last.Sub(first).Round(10*time.Millisecond), ended[0].FindingsCount, serverErrors)
}

// BenchmarkAuthenticatedGETs sends 500 GET /api/targets at once across 10
// users (50 each), then 150 more (15 each): the limit of 60 a minute must
// admit exactly 10 of each user's second batch.
func BenchmarkAuthenticatedGETs(b *testing.B) {
	s := startStack(b)
	for range b.N {
		users := make([]account, 10)
		for i := range users {
			users[i] = s.newAccount("free", false)
		}
		burst := func(perUser int) (statuses map[int]int, okPerUser []int, took []time.Duration) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			statuses, okPerUser = map[int]int{}, make([]int, len(users))
			for u, a := range users {
				for range perUser {
					wg.Go(func() {
						start := time.Now()
						r := s.call(http.MethodGet, "/api/targets", a.token, nil)
						d := time.Since(start)
						mu.Lock()
						defer mu.Unlock()
						statuses[r.status]++
						took = append(took, d)
						if r.status == http.StatusOK {
							okPerUser[u]++
						}
					})
				}
			}
			wg.Wait()
			slices.Sort(took)
			return statuses, okPerUser, took
		}
		start := time.Now()
		statuses, _, took := burst(50)
		elapsed := time.Since(start)
		if statuses[http.StatusOK] != 500 {
			b.Fatalf("500 GETs within the limit: %v, want 500 × 200", statuses)
		}
		p50, p95 := percentile(took, 50), percentile(took, 95)
		b.ReportMetric(p50.Seconds()*1000, "p50_ms")
		b.ReportMetric(p95.Seconds()*1000, "p95_ms")
		b.ReportMetric(500/elapsed.Seconds(), "req/s")
		statuses, okPerUser, _ := burst(15)
		for u, ok := range okPerUser {
			if ok != 10 {
				b.Errorf("user %d: %d of 15 more requests admitted, want exactly 10 (60 a minute)", u, ok)
			}
		}
		b.Logf("500 concurrent GETs: p50 %v, p95 %v, %.0f req/s; then 150 more: %v (statuses)",
			p50.Round(time.Millisecond), p95.Round(time.Millisecond), 500/elapsed.Seconds(), statuses)
		if statuses[http.StatusOK] != 100 || statuses[http.StatusTooManyRequests] != 50 {
			b.Errorf("second burst %v, want 100 × 200 and 50 × 429", statuses)
		}
	}
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

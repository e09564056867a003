package localstack_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
// minute, within the limit of 60). A scan's time runs from its POST to the
// arrival of its webhook, sent as it ends, so the polling interval (and the
// records' whole-second timestamps) do not blur it.
func BenchmarkConcurrentScans(b *testing.B) {
	demo := startDemo(b, webDemo("load.test"))
	s := startStack(b, withDNS(demo.DNSAddr()), withWebPorts(demo.HTTPPort(), demo.HTTPSPort()), withInsecureCallbacks())
	var arrivals sync.Map // scan id → time its webhook arrived
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var d struct {
			ScanID string `json:"scan_id"`
		}
		if json.NewDecoder(r.Body).Decode(&d) == nil {
			arrivals.LoadOrStore(d.ScanID, time.Now())
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(receiver.Close)

	for _, n := range []int{1, 30, 100} {
		b.Run(fmt.Sprintf("scans=%d", n), func(b *testing.B) {
			for range b.N {
				users := make([]account, (n+1)/2)
				for i := range users {
					users[i] = s.newAccount("starter", false)
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
						start := time.Now()
						r := s.call(http.MethodPost, "/api/scans", a.token, map[string]any{"target": demo.Domain(),
							"scan_type": "web", "tier": "quick", "callback_url": receiver.URL + "/hooks"})
						if r.status != http.StatusAccepted {
							b.Errorf("create: %d %s", r.status, r.body)
							return
						}
						var sc scanView
						r.json(b, &sc)
						for !terminal(sc) || len(sc.WebhookDeliveries) == 0 {
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
						arrived, ok := arrivals.Load(sc.ID)
						if !ok {
							b.Errorf("scan %s: no webhook arrived", sc.ID)
							return
						}
						mu.Lock()
						ended = append(ended, timedScan{scanView: sc, start: start, end: arrived.(time.Time)})
						mu.Unlock()
					})
				}
				wg.Wait()
				reportScans(b, ended, n, server.Load())
			}
		})
	}
}

// timedScan is an ended scan with the times it was asked for and ended.
type timedScan struct {
	scanView
	start, end time.Time
}

func reportScans(b *testing.B, ended []timedScan, n int, serverErrors int64) {
	b.Helper()
	if len(ended) != n {
		b.Fatalf("%d of %d scans ended", len(ended), n)
	}
	var took []time.Duration
	first, last := ended[0].start, ended[0].end
	for _, sc := range ended {
		if sc.Status != "completed" || sc.FindingsCount != ended[0].FindingsCount {
			b.Errorf("scan %s ended %s with %d findings (error %v), want completed with %d like the others",
				sc.ID, sc.Status, sc.FindingsCount, deref(sc.Error), ended[0].FindingsCount)
			continue
		}
		took = append(took, sc.end.Sub(sc.start))
		first, last = minTime(first, sc.start), maxTime(last, sc.end)
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
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 500}}
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
						// A plain client: the stack's own checks of every answer
						// against openapi.yaml would be measured too.
						req, _ := http.NewRequest(http.MethodGet, s.base+"/api/targets", nil)
						req.Header.Set("Authorization", "Bearer "+a.token)
						start := time.Now()
						status := 0
						if res, err := client.Do(req); err == nil {
							_, _ = io.Copy(io.Discard, res.Body)
							res.Body.Close()
							status = res.StatusCode
						}
						d := time.Since(start)
						mu.Lock()
						defer mu.Unlock()
						statuses[status]++
						took = append(took, d)
						if status == http.StatusOK {
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

package localstack_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/dynamotest"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/webhookverify"
)

// withDynamoDB runs the stack on the DynamoDB Local at endpoint.
func withDynamoDB(endpoint string) stackOption {
	return func(c *config.Config, _ *app.Options) { c.DynamoDBEndpoint = endpoint }
}

// gatedSite is a web site that, once armed, holds its next request under
// /.git/ until
// the test opens the gate: a scan's step is then in progress, holding
// nothing in the database, for as long as the test likes.
type gatedSite struct {
	port int
	mu   sync.Mutex
	next chan chan struct{} // the armed gate, handed to the next request
	open []chan struct{}
}

func newGatedSite(t *testing.T) *gatedSite {
	t.Helper()
	g := &gatedSite{next: make(chan chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the second tool of a quick web scan (exposed_files) asks for
		// /.git/: by then the first step and its findings are recorded.
		if strings.HasPrefix(r.URL.Path, "/.git/") {
			select {
			case gate := <-g.next:
				select {
				case <-gate:
				case <-r.Context().Done():
				}
			default:
			}
		}
		fmt.Fprint(w, "<html><body>gated</body></html>")
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { // before srv.Close: no request stays parked
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, gate := range g.open {
			select {
			case <-gate:
			default:
				close(gate)
			}
		}
	})
	g.port = portOf(t, srv.URL)
	return g
}

// arm holds the next request; reached says it came, open lets it go.
func (g *gatedSite) arm() (reached func() bool, open func()) {
	gate := make(chan struct{})
	g.mu.Lock()
	g.open = append(g.open, gate)
	g.mu.Unlock()
	g.next <- gate
	var once sync.Once
	return func() bool { return len(g.next) == 0 }, func() { once.Do(func() { close(gate) }) }
}

// DynamoDB Local, started by this test alone, is paused (SIGSTOP) while a
// scan's step runs: for 5 s, and the scan completes late; for 45 s, and the
// scan ends failed saying which dependency failed and what was kept, and its
// webhook is sent once. During each pause the API answers 503 with
// Retry-After within 5 s; afterwards 200.
func TestDynamoDBPause(t *testing.T) {
	t.Parallel()
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ddb, err := dynamolocal.Start(context.Background(), filepath.Join(root, "infra", "local"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ddb.Stop) // resumes a paused process first
	site := newGatedSite(t)
	s := startStack(t, withDynamoDB(ddb.Endpoint), withWebPorts(site.port, closedPort(t)), withInsecureCallbacks())
	s.dns.Add(t, "gated.test. 60 IN A 127.0.0.1")

	var mu sync.Mutex
	var hooks []webhookverify.Delivery
	a := s.newAccount("starter", false)
	r := s.call(http.MethodGet, "/api/webhook-secret", a.session, nil)
	secret := decoded[struct{ Secret string }](t, r, http.StatusOK)
	receiver := httptest.NewServer(webhookverify.Handler(secret.Secret, func(d webhookverify.Delivery) {
		mu.Lock()
		defer mu.Unlock()
		hooks = append(hooks, d)
	}))
	t.Cleanup(receiver.Close)
	s.verifiedTarget(a, "gated.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.gated.test. 60 IN TXT %q", token))
	})

	// pauseDuringStep starts a scan, pauses the database once its first step
	// is waiting on the site, lets the step finish into the stalled database,
	// and calls the API every second until resume. It returns the scan id.
	pauseDuringStep := func(pause time.Duration) string {
		t.Helper()
		reached, open := site.arm()
		sc := s.createScan(a, map[string]any{"target": "gated.test", "scan_type": "web", "tier": "quick",
			"callback_url": receiver.URL + "/hooks"})
		for deadline := time.Now().Add(30 * time.Second); !reached(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the scan's first step never reached the site")
			}
		}
		if err := ddb.Pause(); err != nil {
			t.Fatal(err)
		}
		paused := time.Now()
		resumed := atomic.Bool{}
		defer func() {
			if !resumed.Load() {
				_ = ddb.Resume()
			}
		}()
		open()
		var slowest time.Duration
		calls := 0
		for time.Since(paused) < pause-time.Second {
			start := time.Now()
			r := s.call(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil)
			took := time.Since(start)
			calls++
			slowest = max(slowest, took)
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" ||
				r.detail(t) != "The database is unavailable; retry shortly" {
				t.Fatalf("during the pause: %d %q %s, want 503 naming the database with Retry-After", r.status, r.header.Get("Retry-After"), r.body)
			}
			if took > 5*time.Second {
				t.Errorf("a 503 took %v, want at most 5 s", took)
			}
			time.Sleep(time.Second)
		}
		time.Sleep(time.Until(paused.Add(pause)))
		if err := ddb.Resume(); err != nil {
			t.Fatal(err)
		}
		resumed.Store(true)
		start := time.Now()
		expect(t, s.call(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil), http.StatusOK)
		t.Logf("%v pause: %d calls answered 503, slowest in %v; first call after resume 200 in %v",
			pause, calls, slowest.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		return sc.ID
	}

	short := pauseDuringStep(5 * time.Second)
	done := s.awaitScan(a, short, func(v scanView) bool { return terminal(v) && len(v.WebhookDeliveries) > 0 })
	if done.Status != "completed" || done.FindingsCount == 0 {
		t.Fatalf("after a 5 s pause the scan ended %s (error %v, %d findings), want completed", done.Status, done.Error, done.FindingsCount)
	}

	long := pauseDuringStep(45 * time.Second)
	done = s.awaitScan(a, long, func(v scanView) bool { return terminal(v) && len(v.WebhookDeliveries) > 0 })
	// The step in progress at the pause is the one that reached the site
	// (the planner decides how many steps come before it): the error counts
	// the steps and findings the record kept.
	steps := fmt.Sprintf("%d steps", len(done.AgentSteps))
	if len(done.AgentSteps) == 1 {
		steps = "1 step"
	}
	want := fmt.Sprintf("; the scan stopped after %s; the %d findings so far are kept.", steps, done.FindingsCount)
	if done.Status != "failed" || done.Error == nil || !strings.HasPrefix(*done.Error, "The database did not answer for ") ||
		!strings.HasSuffix(*done.Error, want) || done.FindingsCount == 0 || len(done.AgentSteps) == 0 {
		t.Fatalf("after a 45 s pause the scan ended %s with %q, %d steps: want failed naming the database and ending %q",
			done.Status, deref(done.Error), len(done.AgentSteps), want)
	}
	t.Logf("after a 45 s pause: %q", *done.Error)
	mu.Lock()
	defer mu.Unlock()
	got := map[string][]string{}
	for _, h := range hooks {
		got[h.ScanID] = append(got[h.ScanID], h.Status)
	}
	if len(got[short]) != 1 || got[short][0] != "completed" || len(got[long]) != 1 || got[long][0] != "failed" {
		t.Fatalf("webhooks %v, want one completed and one failed", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// Killing the Node state-machine runner mid-scan loses its executions: the
// stack starts a new runner on the same endpoint, fails the scan that was
// running with a readable error (it never stays running), and the next scan
// runs to completion.
func TestStateMachineRunnerKilled(t *testing.T) {
	t.Parallel()
	site := newGatedSite(t)
	s := startStack(t, withWebPorts(site.port, closedPort(t)))
	s.dns.Add(t, "gated.test. 60 IN A 127.0.0.1")
	a := s.newAccount("free", false)
	s.verifiedTarget(a, "gated.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.gated.test. 60 IN TXT %q", token))
	})
	reached, open := site.arm()
	sc := s.createScan(a, map[string]any{"target": "gated.test", "scan_type": "web", "tier": "quick"})
	for deadline := time.Now().Add(30 * time.Second); !reached(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the scan's step never reached the site")
		}
	}
	pid := s.scans.RunnerPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	open()
	done := s.awaitScan(a, sc.ID, terminal)
	if done.Status != "failed" || deref(done.Error) != "The scan stopped unexpectedly" {
		t.Fatalf("scan ended %s with %q, want failed with a readable error", done.Status, deref(done.Error))
	}
	if s.scans.RunnerPID() == pid {
		t.Fatal("no new runner")
	}
	next := s.createScan(a, map[string]any{"target": "gated.test", "scan_type": "web", "tier": "quick"})
	if done := s.awaitScan(a, next.ID, terminal); done.Status != "completed" {
		t.Fatalf("the scan after the restart ended %s (%q), want completed", done.Status, deref(done.Error))
	}
}

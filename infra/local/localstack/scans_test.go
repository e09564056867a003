package localstack_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/infra/local/demotarget"
	"secscan/infra/local/slowsite"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/tools"
	"secscan/shared/webhookverify"
)

// scanView is the part of a scan record the tests read.
type scanView struct {
	ID              string  `json:"id"`
	Target          string  `json:"target"`
	Status          string  `json:"status"`
	CancelRequested bool    `json:"cancel_requested"`
	CreditsUsed     int     `json:"credits_used"`
	MaxCredits      int     `json:"max_credits"`
	CallbackURL     *string `json:"callback_url"`
	FindingsCount   int     `json:"findings_count"`
	Error           *string `json:"error"`
	Findings        []struct {
		Title    string `json:"title"`
		Severity string `json:"severity"`
		Category string `json:"category"`
		Evidence string `json:"evidence"`
	} `json:"findings"`
	AgentSteps []struct {
		Seq     int    `json:"seq"`
		Tool    string `json:"tool"`
		Outcome string `json:"outcome"`
		Credits int    `json:"credits"`
	} `json:"agent_steps"`
	WebhookDeliveries []struct {
		Attempt    int     `json:"attempt"`
		StatusCode *int    `json:"status_code"`
		Error      *string `json:"error"`
	} `json:"webhook_deliveries"`
	Summary *struct {
		RiskRating   string   `json:"risk_rating"`
		Summary      string   `json:"summary"`
		AttackChains []string `json:"attack_chains"`
	} `json:"summary"`
}

// startDemo starts a demo target; the test's cleanup stops it.
func startDemo(t testing.TB, cfg demotarget.Config) *demotarget.Target {
	t.Helper()
	demo, err := demotarget.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demo.Close() })
	return demo
}

// webDemo is a light demo target for domain: on 127.0.0.1 with ephemeral
// ports, and without its MySQL, FTP and SSH services.
func webDemo(domain string) demotarget.Config {
	return demotarget.Config{Domain: domain, Host: "127.0.0.1", DNSAddr: "127.0.0.1:0",
		MySQLPort: demotarget.PortDisabled, FTPPort: demotarget.PortDisabled, SSHPort: demotarget.PortDisabled}
}

// fullDemo is the whole demo target for domain on its own loopback host,
// every service on the port make run gives it (the scans' presets probe
// those).
func fullDemo(domain, host string) demotarget.Config {
	return demotarget.Config{Domain: domain, Host: host, DNSAddr: host + ":0",
		HTTPPort: 8080, HTTPSPort: 8443, MySQLPort: 3306, FTPPort: 2121, SSHPort: 2222, RedisPort: 6379,
		ExporterPort: demotarget.DefaultExporterPort}
}

// demoStack is a stack whose scans reach the bundled demo target, on
// ephemeral loopback ports, through the demo's own DNS server — the setup of
// make run.
func demoStack(t testing.TB) (*stack, *demotarget.Target) {
	t.Helper()
	demo := startDemo(t, webDemo("demo.test"))
	return startStack(t, withDemo(t, demo)), demo
}

// withDemo points the stack at a demo target: its DNS server, its web and
// DNS ports, and its CA.
func withDemo(t testing.TB, demo *demotarget.Target) stackOption {
	return func(c *config.Config, o *app.Options) {
		c.DNSServer = demo.DNSAddr()
		o.WebPorts = tools.Ports{HTTP: demo.HTTPPort(), HTTPS: demo.HTTPSPort(), DNS: demo.DNSPort()}
		o.ScanRootCAs = demo.RootCAs()
	}
}

func portOf(t testing.TB, rawURL string) int {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verifiedTarget registers domain for a and verifies it by DNS TXT, after
// publish has put the token where the domain's DNS serves it.
func (s *stack) verifiedTarget(a account, domain string, publish func(token string)) string {
	s.t.Helper()
	r := s.call(http.MethodPost, "/api/targets", a.token, map[string]string{"target": domain, "method": "dns_txt"})
	expect(s.t, r, http.StatusCreated)
	var tgt struct {
		ID                string `json:"id"`
		VerificationToken string `json:"verification_token"`
	}
	r.json(s.t, &tgt)
	publish(tgt.VerificationToken)
	expect(s.t, s.call(http.MethodPost, "/api/targets/"+tgt.ID+"/verify", a.token, nil), http.StatusOK)
	return tgt.ID
}

func (s *stack) createScan(a account, body map[string]any) scanView {
	s.t.Helper()
	r := s.call(http.MethodPost, "/api/scans", a.token, body)
	sc := decoded[scanView](s.t, r, http.StatusAccepted)
	if r.header.Get("Location") != "/api/scans/"+sc.ID {
		s.t.Fatalf("Location %q for scan %s", r.header.Get("Location"), sc.ID)
	}
	return sc
}

func (s *stack) getScan(a account, id string) scanView {
	s.t.Helper()
	r := s.call(http.MethodGet, "/api/scans/"+id, a.token, nil)
	return decoded[scanView](s.t, r, http.StatusOK)
}

// awaitScan polls the scan every 100 ms until done says so (or two minutes
// pass), waiting out the per-user rate limit like a well-behaved client.
func (s *stack) awaitScan(a account, id string, done func(scanView) bool) scanView {
	s.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		r := s.call(http.MethodGet, "/api/scans/"+id, a.token, nil)
		if r.status == http.StatusTooManyRequests {
			wait, _ := strconv.Atoi(r.header.Get("Retry-After"))
			time.Sleep(time.Duration(wait) * time.Second)
			continue
		}
		sc := decoded[scanView](s.t, r, http.StatusOK)
		if done(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("scan %s still %s after 2 minutes: %+v", id, sc.Status, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func terminal(sc scanView) bool { return scans.Status(sc.Status).Terminal() }

// A quick web scan of the demo target runs queued → running → completed on
// the real state machine and returns evidence-backed findings, the audit
// trail and a summary.
func TestScanRunsToCompletion(t *testing.T) {
	t.Parallel()
	s, demo := demoStack(t)
	a := s.newAccount("free", false)
	s.verifiedTarget(a, demo.Domain(), func(token string) {
		if err := demo.PublishChallenge(token); err != nil {
			t.Fatal(err)
		}
	})
	start := time.Now()
	sc := s.createScan(a, map[string]any{"target": "DEMO.test.", "scan_type": "web", "tier": "quick",
		"callback_url": "https://hooks.example.com/x", "options": map[string]any{"reserved": true}})
	if sc.Status != "queued" || sc.MaxCredits != 50 || sc.CallbackURL != nil || sc.Target != "demo.test" {
		t.Fatalf("created %+v: want queued, max 50, callback ignored on free, normalised target", sc)
	}
	seen := map[string]bool{}
	done := s.awaitScan(a, sc.ID, func(v scanView) bool { seen[v.Status] = true; return terminal(v) })
	t.Logf("POST to completed: %v (quick web scan of a loopback target)", time.Since(start).Round(time.Millisecond))
	if done.Status != "completed" || done.Error != nil {
		t.Fatalf("scan ended %s (%v)", done.Status, done.Error)
	}
	if !seen["completed"] || seen["failed"] {
		t.Fatalf("statuses seen %v", seen)
	}
	var tools []string
	for _, st := range done.AgentSteps {
		tools = append(tools, st.Tool)
	}
	if len(tools) < 4 || tools[0] != "discover_hosts" || tools[1] != "port_scan" || !slices.Contains(tools, "http_check") || !slices.Contains(tools, "exposed_files") {
		t.Fatalf("agent steps %v: want discovery, the web ports, then http_check and exposed_files", tools)
	}
	credits := 0
	for i, st := range done.AgentSteps {
		credits += st.Credits
		if st.Seq != i+1 || st.Outcome == "" {
			t.Fatalf("step %d: %+v", i, st)
		}
	}
	if done.CreditsUsed != credits || credits > done.MaxCredits {
		t.Fatalf("credits_used %d, steps charged %d, max %d", done.CreditsUsed, credits, done.MaxCredits)
	}
	if done.FindingsCount != len(done.Findings) || len(done.Findings) < 5 {
		t.Fatalf("findings_count %d, %d findings: the demo target has many weaknesses", done.FindingsCount, len(done.Findings))
	}
	var titles []string
	for i, f := range done.Findings {
		titles = append(titles, f.Title)
		if f.Evidence == "" {
			t.Errorf("finding %q has no evidence", f.Title)
		}
		if i > 0 && scans.Severity(f.Severity).Rank() < scans.Severity(done.Findings[i-1].Severity).Rank() {
			t.Errorf("findings not sorted by severity at %q", f.Title)
		}
	}
	all := strings.ToLower(strings.Join(titles, " | "))
	for _, want := range []string{".git", ".env", "content-security-policy"} {
		if !strings.Contains(all, want) {
			t.Errorf("no finding about %s among %s", want, all)
		}
	}
	if done.Summary == nil || done.Summary.RiskRating != done.Findings[0].Severity || len(done.Summary.Summary) < 100 {
		t.Fatalf("summary %+v: want the highest severity %s as risk and a real narrative", done.Summary, done.Findings[0].Severity)
	}
	if !strings.Contains(done.Summary.Summary, "demo.test") {
		t.Errorf("summary does not name the target: %s", done.Summary.Summary)
	}
}

// A tiny budget ends the scan failed with the contract's message, before any
// step runs, and credits never pass the cap.
func TestScanBudgetExceeded(t *testing.T) {
	t.Parallel()
	s, demo := demoStack(t)
	a := s.newAccount("free", false)
	s.verifiedTarget(a, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	sc := s.createScan(a, map[string]any{"target": demo.Domain(), "scan_type": "web", "tier": "quick", "max_credits": 1})
	done := s.awaitScan(a, sc.ID, terminal)
	if done.Status != "failed" || done.Error == nil || *done.Error != "Credit budget exceeded: 0 of 1 credits used" {
		t.Fatalf("ended %s with error %v", done.Status, done.Error)
	}
	if done.CreditsUsed != 0 || len(done.AgentSteps) != 0 || done.Summary != nil {
		t.Fatalf("a refused step left traces: %+v", done)
	}
	expect(t, s.call(http.MethodDelete, "/api/scans/"+sc.ID, a.token, nil), http.StatusConflict)

	// A budget for the first step only: it runs; the domain's next check
	// does not fit, so the scan fails with the budget error (CONTRACT).
	sc = s.createScan(a, map[string]any{"target": demo.Domain(), "scan_type": "web", "tier": "quick", "max_credits": 7})
	done = s.awaitScan(a, sc.ID, terminal)
	if done.Status != "failed" || done.Error == nil || *done.Error != "Credit budget exceeded: 5 of 7 credits used" || len(done.AgentSteps) != 1 || done.CreditsUsed != 5 {
		t.Fatalf("ended %s, error %v, %d steps, %d credits", done.Status, done.Error, len(done.AgentSteps), done.CreditsUsed)
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// DELETE on a running scan: the step in progress finishes, the agent sees
// the flag before the next one, and the scan ends cancelled with what it
// recorded. Five runs give the latency figure of the note.
func TestCancelRunningScan(t *testing.T) {
	t.Parallel()
	s := startStack(t, withWebPorts(slowsite.Start(t, "127.0.0.1:0", 300*time.Millisecond), closedPort(t)))
	s.dns.Add(t, "slow.test. 60 IN A 127.0.0.1")
	var latencies []time.Duration
	for range 5 {
		// One user per run keeps the polling under the 60 requests a minute.
		a := s.newAccount("free", false)
		s.verifiedTarget(a, "slow.test", func(token string) {
			s.dns.Add(t, fmt.Sprintf("_service-challenge.slow.test. 60 IN TXT %q", token))
		})
		sc := s.createScan(a, map[string]any{"target": "slow.test", "scan_type": "web", "tier": "quick"})
		s.awaitScan(a, sc.ID, func(v scanView) bool { return v.Status == "running" })
		r := s.call(http.MethodDelete, "/api/scans/"+sc.ID, a.token, nil)
		expect(t, r, http.StatusAccepted)
		asked := time.Now()
		var accepted scanView
		r.json(t, &accepted)
		if !accepted.CancelRequested {
			t.Fatalf("202 without cancel_requested: %s", r.body)
		}
		// The steps recorded once the flag is set: at most the one in
		// progress is added after it.
		recorded := len(s.getScan(a, sc.ID).AgentSteps)
		done := s.awaitScan(a, sc.ID, terminal)
		latencies = append(latencies, time.Since(asked))
		if done.Status != "cancelled" || len(done.AgentSteps) > recorded+1 || done.Summary != nil {
			t.Fatalf("ended %s after %d steps, %d recorded when cancelled (summary %v): want cancelled after at most the step in progress",
				done.Status, len(done.AgentSteps), recorded, done.Summary)
		}
		expect(t, s.call(http.MethodDelete, "/api/scans/"+sc.ID, a.token, nil), http.StatusConflict)
	}
	slices.Sort(latencies)
	t.Logf("cancellation latency over 5 runs: median %v (min %v, max %v)", latencies[2].Round(time.Millisecond),
		latencies[0].Round(time.Millisecond), latencies[4].Round(time.Millisecond))
}

// A queued scan cancels at once, with no step run.
func TestCancelQueuedScan(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	s.dns.Add(t, "queued.test. 60 IN A 127.0.0.1")
	s.verifiedTarget(a, "queued.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.queued.test. 60 IN TXT %q", token))
	})
	// Written straight to the store, so no execution picks it up first.
	now := time.Now().UTC()
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: a.user.ID, Target: "queued.test", TargetID: ids.New(ids.Target, now),
		Type: scans.Web, Tier: "quick", Status: scans.Queued, MaxCredits: 50, CreatedAt: now}
	if _, _, err := s.api.Store.CreateScan(context.Background(), sc, nil, now); err != nil {
		t.Fatal(err)
	}
	r := s.call(http.MethodDelete, "/api/scans/"+sc.ID, a.token, nil)
	v := decoded[scanView](t, r, http.StatusAccepted)
	if v.Status != "cancelled" || !v.CancelRequested {
		t.Fatalf("cancelled queued scan: %s", r.body)
	}
}

// Creation rules of CONTRACT "Scans", each with its status and detail.
func TestScanCreationRules(t *testing.T) {
	t.Parallel()
	s := startStack(t, withoutPrivateNetworks())
	free := s.newAccount("free", false)
	starter := s.newAccount("starter", false)
	s.dns.Add(t, "rules.test. 60 IN A 127.0.0.1")
	for _, a := range []account{free, starter} {
		s.verifiedTarget(a, "rules.test", func(token string) {
			s.dns.Add(t, fmt.Sprintf("_service-challenge.rules.test. 60 IN TXT %q", token))
		})
	}
	r := s.call(http.MethodPost, "/api/targets", free.token, map[string]string{"target": "unverified.test", "method": "dns_txt"})
	expect(t, r, http.StatusCreated)

	cases := []struct {
		name   string
		who    account
		body   map[string]any
		status int
		detail string
	}{
		{"unknown target", free, map[string]any{"target": "nope.test", "scan_type": "web", "tier": "quick"}, 422, "Target nope.test is not registered"},
		{"unverified", free, map[string]any{"target": "unverified.test", "scan_type": "web", "tier": "quick"}, 422, "is not verified"},
		{"full quick", free, map[string]any{"target": "rules.test", "scan_type": "full", "tier": "quick"}, 422, "tier: a full scan needs tier standard or deep"},
		{"deep on free", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "deep"}, 403, "needs the pro plan"},
		{"bad type", free, map[string]any{"target": "rules.test", "scan_type": "port", "tier": "quick"}, 422, "scan_type"},
		{"bad tier", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "huge"}, 422, "tier"},
		{"missing tier", free, map[string]any{"target": "rules.test", "scan_type": "web"}, 422, "tier: is required"},
		{"zero credits", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "max_credits": 0}, 422, "max_credits"},
		{"fractional credits", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "max_credits": 1.5}, 422, "max_credits"},
		{"options not object", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "options": []int{1}}, 422, "options"},
		{"unknown field", free, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "priority": 1}, 422, "priority"},
		{"http callback", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "http://hooks.example.com/"}, 422, "callback_url: must use https"},
		{"metadata callback", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "https://169.254.169.254/latest"}, 422, "public address"},
		{"localhost callback", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "https://localhost/hook"}, 422, "localhost"},
		{"long callback", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "https://hooks.example.com/" + strings.Repeat("a", 2048)}, 422, "2048"},
		{"callback port too high", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "https://hooks.example.com:65536/x"}, 422, "callback_url: port must be between 1 and 65535"},
		{"callback port zero", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "https://hooks.example.com:0/x"}, 422, "callback_url: port must be between 1 and 65535"},
		{"relative callback", starter, map[string]any{"target": "rules.test", "scan_type": "web", "tier": "quick", "callback_url": "/hook"}, 422, "absolute https URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.call(http.MethodPost, "/api/scans", tc.who.token, tc.body)
			if r.status != tc.status || !strings.Contains(r.detail(t), tc.detail) {
				t.Fatalf("%d %s, want %d containing %q", r.status, r.body, tc.status, tc.detail)
			}
		})
	}
	// Allowed: max_credits capped silently; a starter's callback kept.
	sc := s.createScan(starter, map[string]any{"target": "rules.test", "scan_type": "ssl", "tier": "standard",
		"max_credits": 5000, "callback_url": "https://hooks.example.com/scan?x=1"})
	if sc.MaxCredits != 200 || sc.CallbackURL == nil || *sc.CallbackURL != "https://hooks.example.com/scan?x=1" {
		t.Fatalf("created %+v: want max_credits capped at 200 and the callback kept", sc)
	}
	// None of the refusals counted toward the hourly cap: 20 fit.
	for range 20 {
		s.createScan(free, map[string]any{"target": "rules.test", "scan_type": "ssl", "tier": "quick"})
	}
	r = s.call(http.MethodPost, "/api/scans", free.token, map[string]any{"target": "rules.test", "scan_type": "ssl", "tier": "quick"})
	expect(t, r, http.StatusTooManyRequests)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 3000 || ra > 3600 {
		t.Fatalf("Retry-After %q on the 21st creation within the hour", r.header.Get("Retry-After"))
	}
	if d := r.detail(t); d != "Rate limit exceeded: 20 scans per hour" {
		t.Fatalf("429 detail %q", d)
	}
}

// The same Idempotency-Key returns the original scan; a different key makes
// a new one; a malformed key is refused.
func TestIdempotentScanCreation(t *testing.T) {
	t.Parallel()
	s := startStack(t, withWebPorts(closedPort(t), closedPort(t)))
	a := s.newAccount("free", false)
	s.dns.Add(t, "idem.test. 60 IN A 127.0.0.1")
	s.verifiedTarget(a, "idem.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.idem.test. 60 IN TXT %q", token))
	})
	body := map[string]any{"target": "idem.test", "scan_type": "ssl", "tier": "quick"}
	post := func(key string) response {
		return s.callWith(http.MethodPost, "/api/scans", body, http.Header{"Authorization": {"Bearer " + a.token}, "Idempotency-Key": {key}})
	}
	var ids []string
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 5 { // concurrent retries of one request
		wg.Go(func() {
			r := post("order-42")
			mu.Lock()
			defer mu.Unlock()
			if r.status != http.StatusAccepted {
				t.Errorf("status %d %s", r.status, r.body)
				return
			}
			var v scanView
			r.json(t, &v)
			ids = append(ids, v.ID)
		})
	}
	wg.Wait()
	sort.Strings(ids)
	if len(ids) != 5 || ids[0] != ids[4] {
		t.Fatalf("5 requests with one key made scans %v", ids)
	}
	other := post("order-43")
	v := decoded[scanView](t, other, http.StatusAccepted)
	if v.ID == ids[0] {
		t.Fatal("a new key returned the old scan")
	}
	r := post(strings.Repeat("k", 256))
	expect(t, r, http.StatusUnprocessableEntity)
	list := s.call(http.MethodGet, "/api/scans", a.token, nil)
	var all []scanView
	list.json(t, &all)
	if len(all) != 2 {
		t.Fatalf("%d scans listed, want 2", len(all))
	}
}

// Lists are newest first and paginate; filters work; another user's scan is
// 404 everywhere.
func TestScanListAndIsolation(t *testing.T) {
	t.Parallel()
	s := startStack(t, withWebPorts(closedPort(t), closedPort(t)))
	a := s.newAccount("free", false)
	b := s.newAccount("free", false)
	s.dns.Add(t, "list.test. 60 IN A 127.0.0.1")
	s.verifiedTarget(a, "list.test", func(token string) {
		s.dns.Add(t, fmt.Sprintf("_service-challenge.list.test. 60 IN TXT %q", token))
	})
	var made []string
	for range 5 {
		made = append(made, s.createScan(a, map[string]any{"target": "list.test", "scan_type": "ssl", "tier": "quick"}).ID)
	}
	for _, id := range made {
		s.awaitScan(a, id, terminal)
	}
	var seen []string
	for _, v := range allPages[scanView](t, s, a, "/api/scans?limit=2") {
		seen = append(seen, v.ID)
	}
	slices.Reverse(made)
	if fmt.Sprint(seen) != fmt.Sprint(made) {
		t.Fatalf("pages %v, want newest first %v", seen, made)
	}
	r := s.call(http.MethodGet, "/api/scans?status=completed&target=LIST.test", a.token, nil)
	var completed []scanView
	r.json(t, &completed)
	if len(completed) != 5 {
		t.Fatalf("%d completed scans of list.test, want 5: %s", len(completed), r.body)
	}
	expect(t, s.call(http.MethodGet, "/api/scans?status=done", a.token, nil), http.StatusUnprocessableEntity)

	// b sees none of it.
	r = s.call(http.MethodGet, "/api/scans", b.token, nil)
	if strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("another user's list: %s", r.body)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		r := s.call(m, "/api/scans/"+made[0], b.token, nil)
		expect(t, r, http.StatusNotFound)
		if r.detail(t) != "Scan "+made[0]+" not found" {
			t.Fatalf("%s: %s", m, r.body)
		}
	}
	r = s.call(http.MethodPost, "/api/scans", b.token, map[string]any{"target": "list.test", "scan_type": "ssl", "tier": "quick"})
	expect(t, r, http.StatusUnprocessableEntity)
}

// seedScan writes a running scan with the given numbers of steps and
// findings straight to the store (setup, not under test).
func seedScan(t *testing.T, s *stack, a account, steps, findings int) string {
	t.Helper()
	ctx, now := context.Background(), time.Now().UTC()
	st := s.api.Store
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: a.user.ID, Target: "seed.test", TargetID: ids.New(ids.Target, now),
		Type: scans.Full, Tier: "deep", Status: scans.Queued, MaxCredits: 1000, CreatedAt: now}
	s.runningScan(sc)
	perStep := (findings + steps - 1) / steps
	made := 0
	for seq := 1; seq <= steps; seq++ {
		var fs []scans.Finding
		for ; len(fs) < perStep && made < findings; made++ {
			p := 1000 + made
			fs = append(fs, scans.Finding{Title: fmt.Sprintf("Open port %d", p), Severity: scans.Low, Category: scans.CategoryNetwork,
				Host: "seed.test", Port: &p, Evidence: strings.Repeat("banner ", 40), Description: "A service listens.",
				Remediation: "Close it.", References: []string{"https://example.com/ref"}})
		}
		step := scans.Step{Seq: seq, Tool: "port_scan", Input: []byte(`{"preset":"top100"}`), Outcome: "ok", Credits: 5, StartedAt: now}
		if _, err := st.RecordStep(ctx, a.user.ID, sc.ID, step, fs, now); err != nil {
			t.Fatal(err)
		}
	}
	return sc.ID
}

// End to end: a scan with a callback_url delivers one signed completion
// webhook that the example receiver (package webhookverify) accepts, and the
// scan record lists the attempt.
func TestScanWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	demo := startDemo(t, webDemo("hooked.test"))
	s := startStack(t, withDemo(t, demo), withInsecureCallbacks())
	a := s.newAccount("starter", false)
	r := s.call(http.MethodGet, "/api/webhook-secret", a.session, nil)
	secret := decoded[struct{ Secret string }](t, r, http.StatusOK)

	var mu sync.Mutex
	var got []webhookverify.Delivery
	receiver := httptest.NewServer(webhookverify.Handler(secret.Secret, func(d webhookverify.Delivery) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, d)
	}))
	t.Cleanup(receiver.Close)

	s.verifiedTarget(a, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	sc := s.createScan(a, map[string]any{"target": demo.Domain(), "scan_type": "web", "tier": "quick",
		"callback_url": receiver.URL + "/hooks/scans"})
	done := s.awaitScan(a, sc.ID, func(v scanView) bool { return terminal(v) && len(v.WebhookDeliveries) > 0 })
	if done.Status != "completed" || len(done.WebhookDeliveries) != 1 || done.WebhookDeliveries[0].StatusCode == nil ||
		*done.WebhookDeliveries[0].StatusCode != http.StatusNoContent || done.WebhookDeliveries[0].Error != nil {
		t.Fatalf("scan %s, deliveries %+v: want one accepted attempt", done.Status, done.WebhookDeliveries)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].ScanID != sc.ID || got[0].Status != "completed" || got[0].FindingsCount != done.FindingsCount ||
		!strings.Contains(string(got[0].Summary), `"risk_rating"`) {
		t.Fatalf("receiver got %+v", got)
	}
}

package localstack_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"secscan/infra/local/localstack"
	"secscan/infra/local/schedulertest"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/schedules/eventbridge"
)

type scheduleView struct {
	ID          string  `json:"id"`
	Target      string  `json:"target"`
	TargetID    string  `json:"target_id"`
	ScanType    string  `json:"scan_type"`
	Tier        string  `json:"tier"`
	Cadence     string  `json:"cadence"`
	CallbackURL *string `json:"callback_url"`
	MaxCredits  int     `json:"max_credits"`
	Enabled     bool    `json:"enabled"`
	NextRunAt   *string `json:"next_run_at"`
	LastScanID  *string `json:"last_scan_id"`
	LastError   *string `json:"last_error"`
	CreatedAt   string  `json:"created_at"`
}

func (s *stack) schedule(a account, id string) scheduleView {
	s.t.Helper()
	r := s.call(http.MethodGet, "/api/schedules/"+id, a.token, nil)
	return decoded[scheduleView](s.t, r, http.StatusOK)
}

func (s *stack) createSchedule(a account, body map[string]any) scheduleView {
	s.t.Helper()
	r := s.call(http.MethodPost, "/api/schedules", a.token, body)
	v := decoded[scheduleView](s.t, r, http.StatusCreated)
	if r.header.Get("Location") != "/api/schedules/"+v.ID {
		s.t.Fatalf("Location %q", r.header.Get("Location"))
	}
	return v
}

func (s *stack) scheduleCount(a account) int {
	s.t.Helper()
	r := s.call(http.MethodGet, "/api/schedules", a.token, nil)
	list := decoded[[]scheduleView](s.t, r, http.StatusOK)
	return len(list)
}

func dnsTarget(s *stack, a account, domain string) string {
	return s.verifiedTarget(a, domain, func(token string) {
		s.dns.Add(s.t, fmt.Sprintf("_service-challenge.%s. 60 IN TXT %q", domain, token))
	})
}

func wantDetail(t *testing.T, r response, status int, parts ...string) {
	t.Helper()
	expect(t, r, status)
	d := r.detail(t)
	for _, p := range parts {
		if !strings.Contains(d, p) {
			t.Errorf("detail %q does not say %q", d, p)
		}
	}
}

// The schedule endpoints' rules (CONTRACT "Monitoring", "Plans"): 422
// naming the field, 403 naming the plan that allows a cadence or a count,
// 404 for another user's schedule or target, PATCH and DELETE, and deleting
// a target deletes its schedules and keeps their scans.
func TestScheduleRules(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	free, starter, pro := s.newAccount("free", false), s.newAccount("starter", false), s.newAccount("pro", false)
	dnsTarget(s, starter, "starter-sched.test")
	proTarget := dnsTarget(s, pro, "pro-sched.test")
	body := func(target, cadence string) map[string]any {
		return map[string]any{"target": target, "scan_type": "web", "tier": "quick", "cadence": cadence}
	}

	// 422: bad bodies name the field.
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick"}, "cadence"},
		{body("pro-sched.test", "hourly"), "cadence"},
		{map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick", "cadence": 7}, "cadence"},
		{map[string]any{"target": "pro-sched.test", "scan_type": "nmap", "tier": "quick", "cadence": "daily"}, "scan_type"},
		{map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick", "cadence": "daily", "max_credits": 0}, "max_credits"},
		{map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick", "cadence": "daily", "when": "now"}, "when"},
		{map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick", "cadence": "daily", "callback_url": "ftp://x.example"}, "callback_url"},
		{map[string]any{"scan_type": "web", "tier": "quick", "cadence": "daily"}, "target"},
	} {
		r := s.call(http.MethodPost, "/api/schedules", pro.token, tc.body)
		wantDetail(t, r, http.StatusUnprocessableEntity, tc.field)
	}
	// Another user's target is not registered for the caller.
	wantDetail(t, s.call(http.MethodPost, "/api/schedules", starter.token, body("pro-sched.test", "weekly")),
		http.StatusUnprocessableEntity, "pro-sched.test is not registered")

	// 403: plans.
	wantDetail(t, s.call(http.MethodPost, "/api/schedules", free.token, body("free-sched.test", "weekly")),
		http.StatusForbidden, "free plan", "starter plan")
	wantDetail(t, s.call(http.MethodPost, "/api/schedules", starter.token, body("starter-sched.test", "daily")),
		http.StatusForbidden, "Cadence daily", "starter plan", "pro plan")
	wantDetail(t, s.call(http.MethodPost, "/api/schedules", starter.token,
		map[string]any{"target": "starter-sched.test", "scan_type": "web", "tier": "deep", "cadence": "weekly"}),
		http.StatusForbidden, "pro plan")
	for range 3 {
		s.createSchedule(starter, body("starter-sched.test", "weekly"))
	}
	wantDetail(t, s.call(http.MethodPost, "/api/schedules", starter.token, body("starter-sched.test", "monthly")),
		http.StatusForbidden, "starter plan allows 3 schedules", "pro plan")

	// Create, read, list.
	sch := s.createSchedule(pro, map[string]any{"target": "pro-sched.test", "scan_type": "web", "tier": "quick",
		"cadence": "daily", "max_credits": 500})
	if !strings.HasPrefix(sch.ID, "sch_") || sch.TargetID != proTarget || sch.MaxCredits != 50 || !sch.Enabled ||
		sch.NextRunAt == nil || sch.LastScanID != nil || sch.LastError != nil {
		t.Fatalf("created schedule %+v", sch)
	}
	created, _ := time.Parse(time.RFC3339, sch.CreatedAt)
	next, _ := time.Parse(time.RFC3339, *sch.NextRunAt)
	if d := next.Sub(created); d < 23*time.Hour || d > 24*time.Hour {
		t.Errorf("first run %s after creation, want one day", d)
	}
	if got := s.schedule(pro, sch.ID); got.ID != sch.ID {
		t.Fatalf("read %+v", got)
	}
	if n := s.scheduleCount(pro); n != 1 {
		t.Fatalf("list has %d", n)
	}

	// 404: another user's schedule, a malformed id.
	for _, m := range []string{http.MethodGet, http.MethodPatch, http.MethodDelete} {
		wantDetail(t, s.call(m, "/api/schedules/"+sch.ID, starter.token, map[string]any{}), http.StatusNotFound, "Schedule")
	}
	wantDetail(t, s.call(http.MethodPost, "/api/schedules/"+sch.ID+"/run", starter.token, nil), http.StatusNotFound, "Schedule")
	wantDetail(t, s.call(http.MethodGet, "/api/schedules/sch_nope", pro.token, nil), http.StatusNotFound, "Schedule")

	// PATCH: validation, pause, cadence.
	wantDetail(t, s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"cadence": "yearly"}),
		http.StatusUnprocessableEntity, "cadence")
	wantDetail(t, s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"target": "x.test"}),
		http.StatusUnprocessableEntity, "target")
	r := s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"enabled": false, "tier": "standard", "max_credits": 120})
	paused := decoded[scheduleView](t, r, http.StatusOK)
	if paused.Enabled || paused.NextRunAt != nil || paused.Tier != "standard" || paused.MaxCredits != 120 {
		t.Fatalf("paused %+v", paused)
	}
	r = s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"enabled": true, "cadence": "monthly"})
	monthly := decoded[scheduleView](t, r, http.StatusOK)
	if !monthly.Enabled || monthly.Cadence != "monthly" || monthly.NextRunAt == nil {
		t.Fatalf("monthly %+v", monthly)
	}

	// Deleting the target deletes its schedules and keeps the scans.
	expect(t, s.call(http.MethodPost, "/api/schedules/"+sch.ID+"/run", pro.token, nil), http.StatusAccepted)
	ran := s.schedule(pro, sch.ID)
	if ran.LastScanID == nil {
		t.Fatalf("run now left no last_scan_id: %+v", ran)
	}
	sc := s.getScan(pro, *ran.LastScanID)
	s.awaitScan(pro, sc.ID, terminal)
	expect(t, s.call(http.MethodDelete, "/api/targets/"+proTarget, pro.token, nil), http.StatusNoContent)
	expect(t, s.call(http.MethodGet, "/api/schedules/"+sch.ID, pro.token, nil), http.StatusNotFound)
	s.getScan(pro, sc.ID)

	// DELETE.
	var one scheduleView
	r = s.call(http.MethodGet, "/api/schedules?limit=1", starter.token, nil)
	list := decoded[[]scheduleView](t, r, http.StatusOK)
	one = list[0]
	expect(t, s.call(http.MethodDelete, "/api/schedules/"+one.ID, starter.token, nil), http.StatusNoContent)
	expect(t, s.call(http.MethodDelete, "/api/schedules/"+one.ID, starter.token, nil), http.StatusNotFound)
	if n := s.scheduleCount(starter); n != 2 {
		t.Fatalf("starter has %d schedules after a delete, want 2", n)
	}
}

// withDynamoFault fails every DynamoDB write of a schedule record while on
// is set, as a DynamoDB that does not answer would.
func withDynamoFault(on *atomic.Bool) stackOption {
	return func(_ *config.Config, o *app.Options) {
		o.DynamoDBOptions = append(o.DynamoDBOptions, func(opts *dynamodb.Options) {
			opts.APIOptions = append(opts.APIOptions, func(st *middleware.Stack) error {
				return st.Initialize.Add(middleware.InitializeMiddlewareFunc("InjectFault",
					func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
						if tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok && on.Load() {
							for _, c := range callsOf(tx) {
								if strings.HasPrefix(c.pk, "SCHEDULE#") {
									return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("injected: connection refused")
								}
							}
						}
						return next.HandleInitialize(ctx, in)
					}), middleware.After)
			})
		})
	}
}

const (
	testGroup     = "secscan-test-scans"
	testTargetARN = "arn:aws:lambda:us-east-1:123456789012:function:secscan-ScheduledScanFunction"
	testRoleARN   = "arn:aws:iam::123456789012:role/secscan-SchedulerRole"
)

// Deployed schedules: the EventBridge Scheduler calls, against a local
// server speaking its wire protocol, carry the group, the function's and the
// role's ARNs, the flexible window and the rate or cron expression; the
// scheduler or DynamoDB unavailable during a creation is a 503 with
// Retry-After and leaves nothing half-created.
func TestSchedulesOnEventBridgeScheduler(t *testing.T) {
	t.Parallel()
	var dbFault atomic.Bool
	s := startStack(t, withDynamoFault(&dbFault))
	fake := schedulertest.Start(t)
	client, err := eventbridge.NewClient(context.Background(), fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.api.Schedules = &eventbridge.Scheduler{Client: client, Group: testGroup, TargetARN: testTargetARN, RoleARN: testRoleARN}
	pro := s.newAccount("pro", false)
	tgt := dnsTarget(s, pro, "eb-sched.test")

	sch := s.createSchedule(pro, map[string]any{"target": "eb-sched.test", "scan_type": "ssl", "tier": "quick", "cadence": "daily"})
	def, ok := fake.Schedule(testGroup, sch.ID)
	if !ok {
		t.Fatalf("no EventBridge schedule %s/%s; requests %+v", testGroup, sch.ID, fake.Requests())
	}
	check := func(def map[string]any, expr, state string) {
		t.Helper()
		if def["ScheduleExpression"] != expr || def["ScheduleExpressionTimezone"] != "UTC" || def["State"] != state ||
			def["GroupName"] != testGroup || def["ActionAfterCompletion"] != "NONE" {
			t.Errorf("schedule definition %v, want %s %s in %s", def, expr, state, testGroup)
		}
		w, _ := def["FlexibleTimeWindow"].(map[string]any)
		if w["Mode"] != "FLEXIBLE" || w["MaximumWindowInMinutes"] != float64(60) {
			t.Errorf("flexible window %v", w)
		}
		tg, _ := def["Target"].(map[string]any)
		if tg["Arn"] != testTargetARN || tg["RoleArn"] != testRoleARN || tg["Input"] != `{"schedule_id":"`+sch.ID+`"}` {
			t.Errorf("target %v", tg)
		}
	}
	check(def, "rate(1 day)", "ENABLED")
	// The rate grid starts at next_run_at (StartDate is epoch seconds on the wire).
	next, _ := time.Parse(time.RFC3339, *sch.NextRunAt)
	if start, _ := def["StartDate"].(float64); int64(start) != next.Unix() {
		t.Errorf("StartDate %v, want next_run_at %s", def["StartDate"], *sch.NextRunAt)
	}

	expect(t, s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"cadence": "monthly", "enabled": false}), http.StatusOK)
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Method != http.MethodPut || last.Name != sch.ID {
		t.Fatalf("PATCH sent %s %s", last.Method, last.Name)
	}
	def, _ = fake.Schedule(testGroup, sch.ID)
	now := time.Now().UTC()
	check(def, fmt.Sprintf("cron(%d %d %d * ? *)", now.Minute(), now.Hour(), min(now.Day(), 28)), "DISABLED")
	if _, has := def["StartDate"]; has {
		t.Errorf("a cron schedule has a StartDate: %v", def["StartDate"])
	}
	expect(t, s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"cadence": "weekly", "enabled": true}), http.StatusOK)
	def, _ = fake.Schedule(testGroup, sch.ID)
	check(def, "rate(7 days)", "ENABLED")

	// EventBridge Scheduler failing: 503, Retry-After, no record.
	fake.Fail(http.StatusInternalServerError)
	before := len(fake.Requests())
	r := s.call(http.MethodPost, "/api/schedules", pro.token, map[string]any{"target": "eb-sched.test", "scan_type": "web", "tier": "quick", "cadence": "weekly"})
	wantDetail(t, r, http.StatusServiceUnavailable, "scheduler")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if n := s.scheduleCount(pro); n != 1 {
		t.Errorf("%d schedules after a failed creation, want 1", n)
	}
	if tries := len(fake.Requests()) - before; tries < 1 || tries > 3 {
		t.Errorf("%d attempts at CreateSchedule", tries)
	}
	// A PATCH or DELETE while it fails changes nothing either.
	expect(t, s.call(http.MethodPatch, "/api/schedules/"+sch.ID, pro.token, map[string]any{"cadence": "daily"}), http.StatusServiceUnavailable)
	expect(t, s.call(http.MethodDelete, "/api/schedules/"+sch.ID, pro.token, nil), http.StatusServiceUnavailable)
	if got := s.schedule(pro, sch.ID); got.Cadence != "weekly" {
		t.Errorf("cadence %s after a failed PATCH", got.Cadence)
	}
	fake.Fail(0)

	// DynamoDB failing after the EventBridge schedule was made: 503 and
	// the schedule is deleted again.
	dbFault.Store(true)
	r = s.call(http.MethodPost, "/api/schedules", pro.token, map[string]any{"target": "eb-sched.test", "scan_type": "web", "tier": "quick", "cadence": "weekly"})
	dbFault.Store(false)
	wantDetail(t, r, http.StatusServiceUnavailable, "database")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if n := s.scheduleCount(pro); n != 1 || fake.Len() != 1 {
		t.Errorf("after a failed record: %d records, %d EventBridge schedules; want 1 and 1", n, fake.Len())
	}
	reqs = fake.Requests()
	if c, d := reqs[len(reqs)-2], reqs[len(reqs)-1]; c.Method != http.MethodPost || d.Method != http.MethodDelete || c.Name != d.Name || d.Group != testGroup {
		t.Errorf("want CreateSchedule then DeleteSchedule of the same name; got %+v then %+v", c, d)
	}

	// Deleting the target deletes its EventBridge schedules.
	expect(t, s.call(http.MethodDelete, "/api/targets/"+tgt, pro.token, nil), http.StatusNoContent)
	if fake.Len() != 0 {
		t.Errorf("%d EventBridge schedules left after deleting the target", fake.Len())
	}
	if n := s.scheduleCount(pro); n != 0 {
		t.Errorf("%d schedules left after deleting the target", n)
	}
}

// Locally, the stack's ticker fires due schedules through the scheduled-scan
// handler: a schedule whose next run has come starts a scan by itself (with
// schedule_id), a run while the previous scan is still running is skipped
// with last_error, a run whose target is no longer verified records why and
// leaves the schedule enabled, and run now starts a scan at once.
func TestScheduleFiresOnTheLocalStack(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	pro := s.newAccount("pro", false)
	tgt := dnsTarget(s, pro, "tick-sched.test")
	sch := s.createSchedule(pro, map[string]any{"target": "tick-sched.test", "scan_type": "ssl", "tier": "quick", "cadence": "daily"})
	ctx := context.Background()
	const interval = 250 * time.Millisecond
	ticker := localstack.StartScheduler(ctx, s.api, interval, nil)
	t.Cleanup(ticker.Close)

	awaitSchedule := func(what string, done func(scheduleView) bool) scheduleView {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			v := s.schedule(pro, sch.ID)
			if done(v) {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("schedule never %s: %+v", what, v)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Due now: it starts a scan by itself.
	due := time.Now().UTC().Truncate(time.Second)
	if err := s.api.Store.SetScheduleNextRun(ctx, pro.user.ID, sch.ID, due); err != nil {
		t.Fatal(err)
	}
	fired := awaitSchedule("fired", func(v scheduleView) bool { return v.LastScanID != nil })
	var sc struct {
		scanView
		ScheduleID *string `json:"schedule_id"`
		CreatedAt  string  `json:"created_at"`
	}
	r := s.call(http.MethodGet, "/api/scans/"+*fired.LastScanID, pro.token, nil)
	expect(t, r, http.StatusOK)
	r.json(t, &sc)
	if sc.ScheduleID == nil || *sc.ScheduleID != sch.ID {
		t.Fatalf("scheduled scan's schedule_id = %v, want %s", sc.ScheduleID, sch.ID)
	}
	stored, err := s.api.Store.GetScan(ctx, pro.user.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	started := stored.CreatedAt
	t.Logf("local scheduler firing delay: %s (interval %s; next_run_at to the scan's created_at)", started.Sub(due), interval)
	if delay := started.Sub(due); delay > interval+2*time.Second {
		t.Errorf("fired %s after it was due, interval %s", delay, interval)
	}
	next, _ := time.Parse(time.RFC3339, *fired.NextRunAt)
	if d := time.Until(next); d < 23*time.Hour || d > 24*time.Hour {
		t.Errorf("next_run_at moved %s ahead, want about a day", d)
	}
	s.awaitScan(pro, sc.ID, terminal)

	// The previous scan still running: the run is skipped, with why.
	prev := scans.Scan{ID: ids.New(ids.Scan, time.Now()), UserID: pro.user.ID, TargetID: tgt, Target: "tick-sched.test",
		Type: scans.SSL, Tier: "quick", Status: scans.Running, MaxCredits: 50, CreatedAt: time.Now().UTC(), ScheduleID: sch.ID}
	if _, _, err := s.api.Store.CreateScan(ctx, prev, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.api.Store.RecordScheduleRun(ctx, pro.user.ID, sch.ID, prev.ID, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.api.Store.SetScheduleNextRun(ctx, pro.user.ID, sch.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	skipped := awaitSchedule("skipped", func(v scheduleView) bool { return v.LastError != nil })
	if !strings.Contains(*skipped.LastError, "Skipped") || !strings.Contains(*skipped.LastError, prev.ID) ||
		*skipped.LastScanID != prev.ID || !skipped.Enabled {
		t.Fatalf("skipped run: %+v", skipped)
	}
	// Run now while it runs: 409, same reason.
	wantDetail(t, s.call(http.MethodPost, "/api/schedules/"+sch.ID+"/run", pro.token, nil), http.StatusConflict, prev.ID, "still running")
	if _, err := s.api.Store.EndScan(ctx, pro.user.ID, prev.ID, scans.Cancelled, "", nil, time.Now()); err != nil {
		t.Fatal(err)
	}

	// Run now: 202, the scan, counted like any creation.
	r = s.call(http.MethodPost, "/api/schedules/"+sch.ID+"/run", pro.token, nil)
	expect(t, r, http.StatusAccepted)
	var now struct {
		scanView
		ScheduleID *string `json:"schedule_id"`
	}
	r.json(t, &now)
	if now.ScheduleID == nil || *now.ScheduleID != sch.ID || r.header.Get("Location") != "/api/scans/"+now.ID {
		t.Fatalf("run now: %s", r.body)
	}
	if v := s.schedule(pro, sch.ID); v.LastScanID == nil || *v.LastScanID != now.ID || v.LastError != nil {
		t.Fatalf("after run now: %+v", v)
	}
	s.awaitScan(pro, now.ID, terminal)

	// The target no longer verified: the run records why; still enabled.
	if err := s.api.Store.RecordOwnershipCheck(ctx, pro.user.ID, tgt, time.Now(), "no TXT record"); err != nil {
		t.Fatal(err)
	}
	if err := s.api.Store.SetScheduleNextRun(ctx, pro.user.ID, sch.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	failed := awaitSchedule("failed to start", func(v scheduleView) bool { return v.LastError != nil })
	if !strings.Contains(*failed.LastError, "not verified") || !failed.Enabled || *failed.LastScanID != now.ID {
		t.Fatalf("unverified target's run: %+v", failed)
	}
}

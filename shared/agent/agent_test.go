package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/infra/local/dynamotest"
	"secscan/shared/agent"
	"secscan/shared/ids"
	"secscan/shared/planner"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

// probe is a real tool that needs no network: it reports one finding per
// call, or misbehaves as asked by its input.
type probe struct{ calls atomic.Int32 }

func (*probe) Name() string                 { return "probe" }
func (*probe) Description() string          { return "test tool" }
func (*probe) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (*probe) Cost() int                    { return 10 }
func (*probe) Timeout() time.Duration       { return time.Second }
func (p *probe) Run(ctx context.Context, env tools.Env, input json.RawMessage) (tools.Result, error) {
	p.calls.Add(1)
	var in struct{ Mode string }
	if err := tools.DecodeInput(input, &in); err != nil {
		return tools.Result{}, err
	}
	switch in.Mode {
	case "panic":
		panic("boom")
	case "refuse":
		return tools.Result{}, tools.Refuse("host evil.example is outside the scope of %s", env.Domain)
	case "hang":
		<-ctx.Done()
		return tools.Result{Outcome: "partial"}, ctx.Err()
	}
	port := 443
	return tools.Result{Outcome: "looked", Findings: []scans.Finding{{Title: "Weak thing", Severity: scans.High,
		Category: scans.CategoryWeb, Host: env.Domain, Port: &port, Evidence: "seen"}}}, nil
}

type fixture struct {
	t     *testing.T
	a     *agent.Agent
	st    *store.Store
	probe *probe
	user  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, table := dynamotest.NewTable(t)
	st := store.New(db, table)
	p := &probe{}
	reg := tools.NewRegistry(p)
	return &fixture{t: t, st: st, probe: p, user: ids.New(ids.User, time.Now()), a: &agent.Agent{
		Store: st, Tools: reg, Planner: planner.Playbook{Tools: reg}, Now: time.Now,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
	}}
}

// scan queues a scan of a target verified a minute ago (no re-check due).
func (f *fixture) scan(maxCredits int) scans.Scan {
	f.t.Helper()
	return f.scanOf(f.target("example.com", time.Minute), maxCredits)
}

// running is a scan of example.com with maxCredits, started.
func (f *fixture) running(maxCredits int) scans.Scan {
	f.t.Helper()
	sc := f.scan(maxCredits)
	f.do(f.task(agent.ActionStart, sc))
	return sc
}

// target registers domain for the fixture's user, verified age ago by a TXT
// record (the existing target when the domain is registered already).
func (f *fixture) target(domain string, age time.Duration) store.Target {
	f.t.Helper()
	now := time.Now().UTC()
	at := now.Add(-age)
	tgt := store.Target{ID: ids.New(ids.Target, now), UserID: f.user, Domain: domain, Method: "dns_txt",
		VerificationToken: "service-verify-" + strings.Repeat("A", 32), Verified: true, VerifiedAt: &at, CreatedAt: at}
	if err := f.st.CreateTarget(context.Background(), tgt); err != nil && !store.IsConflict(err) {
		f.t.Fatal(err)
	} else if err != nil { // the fixture's domain exists already: use it
		var dup *store.DuplicateTargetError
		if errors.As(err, &dup) {
			if tgt, err = f.st.GetTarget(context.Background(), f.user, dup.ExistingID); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	return tgt
}

func (f *fixture) scanOf(tgt store.Target, maxCredits int) scans.Scan {
	f.t.Helper()
	now := time.Now().UTC()
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: f.user, Target: tgt.Domain, TargetID: tgt.ID,
		Type: scans.Web, Tier: "quick", Status: scans.Queued, MaxCredits: maxCredits, CreatedAt: now}
	if _, _, err := f.st.CreateScan(context.Background(), sc, nil, now); err != nil {
		f.t.Fatal(err)
	}
	return sc
}

func (f *fixture) do(t agent.Task) any {
	f.t.Helper()
	out, err := f.a.Handle(context.Background(), t)
	if err != nil {
		f.t.Fatalf("%s: %v", t.Action, err)
	}
	return out
}

func (f *fixture) task(action string, sc scans.Scan) agent.Task {
	return agent.Task{Action: action, ScanID: sc.ID, UserID: f.user}
}

func (f *fixture) get(sc scans.Scan) store.ScanDetail {
	f.t.Helper()
	d, err := f.st.GetScanDetail(context.Background(), f.user, sc.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

func planned(tool, input string, seq int) *agent.Planned {
	return &agent.Planned{Next: agent.NextRun, Seq: seq, Tool: tool, Input: json.RawMessage(input), Cost: 10}
}

// A re-delivered run (Step Functions retrying a Task whose answer was lost)
// charges nothing twice and records nothing twice.
func TestRunIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.scan(50)
	if out := f.do(f.task(agent.ActionStart, sc)).(agent.Result); out.Status != "running" {
		t.Fatalf("start: %+v", out)
	}
	run := f.task(agent.ActionRun, sc)
	run.Step = planned("probe", `{}`, 1)
	for range 3 {
		f.do(run)
	}
	d := f.get(sc)
	if d.Scan.CreditsUsed != 10 || len(d.Steps) != 1 || len(d.Findings) != 1 || f.probe.calls.Load() != 1 {
		t.Fatalf("after 3 deliveries: credits %d, %d steps, %d findings, %d tool calls; want 10, 1, 1, 1",
			d.Scan.CreditsUsed, len(d.Steps), len(d.Findings), f.probe.calls.Load())
	}
	// The same finding from the next step is not a second finding.
	run.Step = planned("probe", `{}`, 2)
	f.do(run)
	if d = f.get(sc); len(d.Findings) != 1 || d.Steps[1].FindingsAdded != 0 || d.Scan.FindingsCount != 1 {
		t.Fatalf("duplicate finding: %d findings, step 2 added %d", len(d.Findings), d.Steps[1].FindingsAdded)
	}
}

// Plan checks, in order: the scan still runs, the cancellation flag, the
// budget for the next step; misbehaving tools are steps, not scan failures.
func TestPlanDecisions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	sc := f.running(15)
	// A planner naming a tool this registry lacks is an error, caught by
	// the ASL.
	f.a.Planner = fixedPlanner{tool: "http_check"}
	if _, err := f.a.Handle(ctx, f.task(agent.ActionPlan, sc)); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("plan with an unknown tool: %v", err)
	}

	f.a.Planner = fixedPlanner{tool: "probe"}
	p := f.do(f.task(agent.ActionPlan, sc)).(agent.Planned)
	if p.Next != agent.NextRun || p.Seq != 1 || p.Cost != 10 {
		t.Fatalf("plan: %+v", p)
	}
	run := f.task(agent.ActionRun, sc)
	run.Step = planned("probe", `{}`, 1)
	f.do(run)
	if p = f.do(f.task(agent.ActionPlan, sc)).(agent.Planned); p.Next != agent.NextFail || p.Reason != "Credit budget exceeded: 10 of 15 credits used" {
		t.Fatalf("plan past the budget: %+v", p)
	}

	other := f.running(1000)
	for i, mode := range []string{"panic", "refuse", "hang"} {
		run := f.task(agent.ActionRun, other)
		run.Step = planned("probe", `{"mode":"`+mode+`"}`, i+1)
		f.do(run)
	}
	d := f.get(other)
	want := []string{"Tool error: tool probe crashed: boom", "Refused: host evil.example is outside the scope of example.com", "Stopped at the tool's time limit"}
	wantStatus := []scans.StepStatus{scans.StepFailed, scans.StepRefused, scans.StepTimedOut}
	for i, st := range d.Steps {
		if !strings.HasPrefix(st.Outcome, want[i]) || st.Credits != 10 || st.Status != wantStatus[i] {
			t.Errorf("step %d outcome %q (%s), want %q (%s)", i+1, st.Outcome, st.Status, want[i], wantStatus[i])
		}
	}
	if d.Scan.Status != scans.Running || d.Scan.CreditsUsed != 30 {
		t.Fatalf("after misbehaving tools: %s with %d credits", d.Scan.Status, d.Scan.CreditsUsed)
	}

	if _, err := f.st.RequestCancel(ctx, f.user, other.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if p := f.do(f.task(agent.ActionPlan, other)).(agent.Planned); p.Next != agent.NextCancel {
		t.Fatalf("plan after DELETE: %+v", p)
	}
	if r := f.do(f.task(agent.ActionCancel, other)).(agent.Result); r.Status != "cancelled" {
		t.Fatalf("cancel: %+v", r)
	}
	if p := f.do(f.task(agent.ActionPlan, other)).(agent.Planned); p.Next != agent.NextEnded {
		t.Fatalf("plan on an ended scan: %+v", p)
	}
	// A late step of a cancelled scan charges nothing and records nothing.
	late := f.task(agent.ActionRun, other)
	late.Step = planned("probe", `{}`, 4)
	f.do(late)
	if d := f.get(other); len(d.Steps) != 3 || d.Scan.CreditsUsed != 30 || d.Scan.Status != scans.Cancelled {
		t.Fatalf("late step: %d steps, %d credits, %s", len(d.Steps), d.Scan.CreditsUsed, d.Scan.Status)
	}
}

type fixedPlanner struct{ tool string }

func (p fixedPlanner) Next(_ context.Context, s planner.State) (planner.Decision, error) {
	if len(s.Steps) >= 5 {
		return planner.Decision{Done: true}, nil
	}
	return planner.Decision{Tool: p.tool, Input: json.RawMessage(`{}`)}, nil
}

// Failures reach the record as readable text without internals; an
// execution that died fails its scan; a terminal status never changes.
func TestFailuresAndTheReaper(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	caught := f.running(50)
	fail := f.task(agent.ActionFail, caught)
	fail.Error = &agent.CaughtErr{Error: "RuntimeError", Cause: `{"errorMessage":"dynamodb put: secret internals at arn:aws:dynamodb:...","errorType":"RuntimeError"}`}
	f.do(fail)
	d := f.get(caught)
	if d.Scan.Status != scans.Failed || strings.Contains(d.Scan.Error, "arn:") || !strings.Contains(d.Scan.Error, "internal error") {
		t.Fatalf("caught error recorded as %s %q", d.Scan.Status, d.Scan.Error)
	}

	timedOut := f.running(50)
	input, _ := json.Marshal(map[string]string{"scan_id": timedOut.ID, "user_id": f.user})
	event := agent.Task{DetailType: "Step Functions Execution Status Change",
		Detail: &agent.StatusChange{Name: timedOut.ID, Status: "TIMED_OUT", Input: string(input)}}
	f.do(event)
	if d := f.get(timedOut); d.Scan.Status != scans.Failed || d.Scan.Error != "The scan exceeded the maximum run time and was stopped" {
		t.Fatalf("timed-out execution left %s %q", d.Scan.Status, d.Scan.Error)
	}

	done := f.running(50)
	f.a.Planner = fixedPlanner{tool: "probe"}
	if r := f.do(f.task(agent.ActionComplete, done)).(agent.Result); r.Status != "completed" {
		t.Fatalf("complete: %+v", r)
	}
	if d := f.get(done); d.Scan.Summary == nil || d.Scan.Summary.RiskRating != scans.RiskNone {
		t.Fatalf("summary of a scan without findings: %+v", d.Scan.Summary)
	}
	input, _ = json.Marshal(map[string]string{"scan_id": done.ID, "user_id": f.user})
	event.Detail = &agent.StatusChange{Name: done.ID, Status: "FAILED", Input: string(input)}
	if r := f.do(event).(agent.Result); r.Status != "completed" {
		t.Fatalf("a late status change rewrote a completed scan: %+v", r)
	}
	if _, err := f.a.Handle(context.Background(), agent.Task{Action: "explode", ScanID: done.ID, UserID: f.user}); err == nil {
		t.Fatal("unknown action accepted")
	}
}

// The playbook's note (the other names a call covers) ends the step's
// outcome.
func TestRunRecordsThePlannersNote(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.running(50)
	run := f.task(agent.ActionRun, sc)
	run.Step = planned("probe", `{}`, 1)
	run.Step.Note = "also covers www.example.com (same address, certificate and home page as example.com)"
	f.do(run)
	if d := f.get(sc); len(d.Steps) != 1 || !strings.HasSuffix(d.Steps[0].Outcome, "; "+run.Step.Note) {
		t.Fatalf("steps %+v", d.Steps)
	}
}

// refusingPlanner proposes what a model planner refused.
type refusingPlanner struct{ decision planner.Decision }

func (p refusingPlanner) Next(context.Context, planner.State) (planner.Decision, error) {
	return p.decision, nil
}

// A model's proposal the planner refused (even of a tool the registry lacks)
// is recorded as a refused step charged the model's tokens only; the tool
// never runs; a re-delivered run records it once.
func TestRefusedProposalIsRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.running(100)
	usage := &scans.ModelUsage{ID: "anthropic.claude-3-5-sonnet", InputTokens: 9000, OutputTokens: 100}
	for _, d := range []planner.Decision{
		{Tool: "probe", Input: json.RawMessage(`{"host":"169.254.169.254"}`), Reasoning: "metadata", Model: usage, ModelCredits: 3,
			Refused: "host names the address 169.254.169.254: only example.com and its subdomains are in scope, never an address"},
		{Tool: "shell", Input: json.RawMessage(`{"cmd":"id"}`), Reasoning: "hack", Model: usage, ModelCredits: 3, Refused: "shell is not a tool of this service"},
	} {
		f.a.Planner = refusingPlanner{d}
		p := f.do(f.task(agent.ActionPlan, sc)).(agent.Planned)
		if p.Next != agent.NextRun || p.Cost != 3 || p.Refused != d.Refused {
			t.Fatalf("plan: %+v", p)
		}
		run := f.task(agent.ActionRun, sc)
		run.Step = &p
		f.do(run)
		f.do(run) // re-delivered
	}
	d := f.get(sc)
	if f.probe.calls.Load() != 0 || len(d.Steps) != 2 || d.Scan.CreditsUsed != 6 {
		t.Fatalf("%d tool calls, %d steps, %d credits", f.probe.calls.Load(), len(d.Steps), d.Scan.CreditsUsed)
	}
	for i, st := range d.Steps {
		if st.Status != scans.StepRefused || st.Credits != 3 || st.Model == nil || !strings.HasPrefix(st.Outcome, "Refused: ") {
			t.Errorf("step %d: %+v", i+1, st)
		}
	}
	if d.Steps[1].Tool != "shell" || d.Steps[0].Outcome != "Refused: host names the address 169.254.169.254: only example.com and its subdomains are in scope, never an address" {
		t.Errorf("steps %+v", d.Steps)
	}
}

// Package agent is the scan agent's side of the state machine in
// infra/statemachine: each Task state of the loop calls Handle with one
// action (start, plan, run, complete, cancel, fail, and deliver_webhook in
// the final state) and the scan's ids, and
// the ASL decides what comes next from the small answer it gets back.
// Everything a scan accumulates (steps, findings, credits, status) lives in
// DynamoDB, not in the execution's payload, and every write is conditional,
// so a task Step Functions re-delivers changes nothing twice and a scan that
// has ended never changes again.
//
// The same Handle also receives the Step Functions "Execution Status Change"
// event of an execution that failed, timed out or was aborted, and fails its
// scan, so no scan stays running after its execution is gone.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"secscan/shared/domainname"
	"secscan/shared/monitor"
	"secscan/shared/netguard"
	"secscan/shared/ownership"
	"secscan/shared/plainerr"
	"secscan/shared/planner"
	"secscan/shared/resolver"
	"secscan/shared/safetext"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/summary"
	"secscan/shared/tools"
	"secscan/shared/webhook"
)

// Actions of the state machine's Task states.
const (
	ActionStart    = "start"
	ActionPlan     = "plan"
	ActionRun      = "run"
	ActionComplete = "complete"
	ActionCancel   = "cancel"
	ActionFail     = "fail"
	// ActionDeliverWebhook sends the scan's one webhook, from the final state.
	ActionDeliverWebhook = "deliver_webhook"
)

// Plan outcomes, for the state machine's Choice state.
const (
	NextRun    = "run"
	NextFinish = "finish"
	NextCancel = "cancel"
	NextFail   = "fail"
	NextEnded  = "ended" // the scan has ended already (e.g. failed by the reaper)
)

// MaxRunDuration is how long a scan may run before the planner ends it
// failed; the state machine's own TimeoutSeconds (3600) is the backstop.
const MaxRunDuration = 55 * time.Minute

// Agent performs the actions of the scan state machine.
type Agent struct {
	Store    *store.Store
	Tools    *tools.Registry
	Planner  planner.Planner
	Dialer   *netguard.Dialer
	Resolver *resolver.Resolver
	Ports    tools.Ports // the local stack maps the web ports to its demo target
	Webhooks *webhook.Deliverer
	// Ownership re-checks a target's challenge before a scan starts when its
	// last successful check is older than ReverifyAfter.
	Ownership OwnershipVerifier
	Now       func() time.Time
	Logger    *slog.Logger
}

// OwnershipVerifier checks a target's challenge (verification.Verifier); a
// failure to find it is a *verification.Failure.
type OwnershipVerifier = ownership.Verifier

// ReverifyAfter is how old the last successful ownership check may be when a
// scan starts (CONTRACT "Targets"): a domain that lapsed and was registered
// by someone else must not stay scannable by its former owner.
const ReverifyAfter = ownership.ReverifyAfter

// Task is the input of every action. The state machine sends Action and the
// ids; "run" adds the planned Step; "fail" adds Reason or the caught Error.
type Task struct {
	Action string     `json:"action"`
	ScanID string     `json:"scan_id"`
	UserID string     `json:"user_id"`
	Step   *Planned   `json:"step,omitempty"`
	Reason string     `json:"reason,omitempty"`
	Error  *CaughtErr `json:"error,omitempty"`

	// An EventBridge "Step Functions Execution Status Change" event.
	DetailType string        `json:"detail-type,omitempty"`
	Detail     *StatusChange `json:"detail,omitempty"`
}

// Planned is the plan action's answer: what the state machine does next and,
// for "run", the step to run.
type Planned struct {
	Next      string          `json:"next"`
	Seq       int             `json:"seq,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Cost      int             `json:"cost,omitempty"`
	Reasoning string          `json:"reasoning,omitempty"`
	// Note is appended to the step's outcome (the other names a call
	// covers), set by the playbook.
	Note   string `json:"note,omitempty"`
	Reason string `json:"reason,omitempty"` // for "fail"
	// Model is the model call behind the step; ModelCredits, what its
	// tokens cost, is part of Cost.
	Model        *scans.ModelUsage `json:"model,omitempty"`
	ModelCredits int               `json:"model_credits,omitempty"`
	// Refused says why the model's proposal is not run: the step is
	// recorded refused, charged ModelCredits only.
	Refused string `json:"refused,omitempty"`
	// EndTurn records a model call that chose no tool (planner.Decision's
	// EndTurn): a step of its own, status ok, charged ModelCredits only.
	EndTurn string `json:"end_turn,omitempty"`
}

// CaughtErr is what a Catch puts at its ResultPath.
type CaughtErr struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// StatusChange is the detail of an execution status change event.
type StatusChange struct {
	ExecutionArn string `json:"executionArn"`
	Name         string `json:"name"`
	Status       string `json:"status"`
	Input        string `json:"input"`
}

// Result is the answer of start, run and the ending actions.
type Result struct {
	Status string `json:"status"`
}

// TransientError marks a failure worth retrying (the database throttled or
// was briefly unavailable). The state machine retries on its name, which is
// the error type Lambda reports.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Handle performs one action.
func (a *Agent) Handle(ctx context.Context, t Task) (any, error) {
	if t.DetailType == "Step Functions Execution Status Change" && t.Detail != nil {
		return a.executionEnded(ctx, *t.Detail)
	}
	if t.ScanID == "" || t.UserID == "" {
		return nil, fmt.Errorf("agent %s: scan_id and user_id are required", t.Action)
	}
	var (
		out any
		err error
	)
	switch t.Action {
	case ActionStart:
		out, err = a.start(ctx, t)
	case ActionPlan:
		out, err = a.plan(ctx, t)
	case ActionRun:
		out, err = a.run(ctx, t)
	case ActionComplete:
		out, err = a.complete(ctx, t)
	case ActionCancel:
		out, err = a.end(ctx, t, scans.Cancelled, "", nil)
	case ActionFail:
		var reason string
		if reason, err = a.failureReason(ctx, t); err == nil {
			out, err = a.end(ctx, t, scans.Failed, reason, nil)
		}
	case ActionDeliverWebhook:
		out, err = a.Webhooks.Deliver(ctx, t.UserID, t.ScanID)
	default:
		return nil, fmt.Errorf("agent: unknown action %q", t.Action)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			// The caller went away (the local stack stopping): not a fault of
			// the action. A Lambda's deadline is DeadlineExceeded, an error.
			a.Logger.InfoContext(ctx, "agent action interrupted", "action", t.Action, "scan_id", t.ScanID)
		} else {
			a.Logger.ErrorContext(ctx, "agent action failed", "action", t.Action, "scan_id", t.ScanID, "error", err.Error())
		}
		return nil, retryable(t.Action, err)
	}
	return out, err
}

func (a *Agent) start(ctx context.Context, t Task) (Result, error) {
	sc, err := a.Store.StartScan(ctx, t.UserID, t.ScanID, a.Now())
	if err != nil {
		return Result{}, fmt.Errorf("start scan %s: %w", t.ScanID, err)
	}
	if sc.Status != scans.Running {
		return Result{Status: string(sc.Status)}, nil
	}
	if reason, err := a.recheckOwnership(ctx, sc); err != nil {
		return Result{}, fmt.Errorf("start scan %s: %w", t.ScanID, err)
	} else if reason != "" {
		return a.end(ctx, t, scans.Failed, "Target ownership could not be re-verified: "+reason, nil)
	}
	a.Logger.InfoContext(ctx, "scan started", "scan_id", sc.ID, "status", sc.Status, "type", sc.Type, "tier", sc.Tier)
	return Result{Status: string(sc.Status)}, nil
}

// recheckOwnership re-checks the challenge of the scan's target when its
// last successful check is older than ReverifyAfter, and records the result
// on the target (ownership.Recheck). It returns why ownership is not proved
// ("" when it is); an error only for an outage worth retrying.
func (a *Agent) recheckOwnership(ctx context.Context, sc scans.Scan) (string, error) {
	return ownership.Recheck(ctx, a.Store, a.Ownership, a.Logger,
		ownership.Work{UserID: sc.UserID, TargetID: sc.TargetID, Domain: sc.Target, Kind: "scan_id", ID: sc.ID}, a.Now())
}

// plan decides what follows the steps recorded so far: the cancellation flag
// first, then the time limit, the planner, and the budget for its choice.
func (a *Agent) plan(ctx context.Context, t Task) (Planned, error) {
	sc, err := a.Store.GetScan(ctx, t.UserID, t.ScanID)
	if err != nil {
		return Planned{}, fmt.Errorf("plan %s: %w", t.ScanID, err)
	}
	switch {
	case sc.Status != scans.Running:
		return Planned{Next: NextEnded}, nil
	case sc.CancelRequested:
		return Planned{Next: NextCancel}, nil
	case a.Now().Sub(sc.StartedAt) > MaxRunDuration:
		return Planned{Next: NextFail, Reason: fmt.Sprintf("Scan exceeded its time limit of %d minutes", int(MaxRunDuration.Minutes()))}, nil
	}
	detail, err := a.Store.GetScanDetail(ctx, t.UserID, sc.ID)
	if err != nil {
		return Planned{}, fmt.Errorf("plan %s: %w", sc.ID, err)
	}
	d, err := a.Planner.Next(ctx, planner.State{Scan: sc, Steps: detail.Steps, Findings: detail.Findings, Surface: detail.Surface})
	var cfgErr *planner.ConfigError
	if errors.As(err, &cfgErr) {
		return Planned{Next: NextFail, Reason: cfgErr.Reason}, nil
	}
	if err != nil {
		return Planned{}, fmt.Errorf("plan %s: %w", sc.ID, err)
	}
	if d.Done {
		return Planned{Next: NextFinish}, nil
	}
	if d.Refused != "" || d.EndTurn != "" {
		return refusedStep(sc, d), nil
	}
	tool, ok := a.Tools.Get(d.Tool)
	if !ok {
		return Planned{}, fmt.Errorf("plan %s: the planner chose unknown tool %q", sc.ID, d.Tool)
	}
	cost := tool.Cost() + max(d.ModelCredits, 0)
	if sc.CreditsUsed+cost > sc.MaxCredits {
		return Planned{Next: NextFail, Reason: scans.BudgetExceeded(sc.CreditsUsed, sc.MaxCredits)}, nil
	}
	return Planned{
		Next: NextRun, Seq: sc.StepsCount + 1, Tool: d.Tool, Input: d.Input, Cost: cost, Reasoning: d.Reasoning, Note: d.Note,
		Model: d.Model, ModelCredits: max(d.ModelCredits, 0),
	}, nil
}

// refusedStep is the plan of a model proposal the planner refused: it
// costs the model's tokens only, which the model planner checked the budget
// pays for before the call.
func refusedStep(sc scans.Scan, d planner.Decision) Planned {
	credits := max(d.ModelCredits, 0)
	if sc.CreditsUsed+credits > sc.MaxCredits {
		return Planned{Next: NextFail, Reason: scans.BudgetExceeded(sc.CreditsUsed, sc.MaxCredits)}
	}
	return Planned{Next: NextRun, Seq: sc.StepsCount + 1, Tool: oneLine(d.Tool, 64), Input: d.Input, Cost: credits,
		Reasoning: d.Reasoning, Model: d.Model, ModelCredits: credits, Refused: oneLine(d.Refused, 300), EndTurn: oneLine(d.EndTurn, 300)}
}

// recordRefused records a refused model proposal, or a model's end of turn
// that no playbook call followed: charged its tokens, no tool run.
func (a *Agent) recordRefused(ctx context.Context, t Task) (Result, error) {
	p := t.Step
	cost := max(p.ModelCredits, 0)
	sc, err := a.Store.ChargeStep(ctx, t.UserID, t.ScanID, p.Seq, cost)
	switch {
	case errors.Is(err, store.ErrScanNotRunning), errors.Is(err, store.ErrBudget):
		return Result{Status: string(sc.Status)}, nil
	case err != nil:
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	case sc.StepsCount >= p.Seq:
		return Result{Status: string(sc.Status)}, nil // recorded by an earlier delivery
	}
	now := a.Now()
	step := scans.Step{Seq: p.Seq, Tool: p.Tool, Input: compactInput(p.Input), Status: scans.StepRefused,
		Outcome: "Refused: " + p.Refused, Credits: cost, StartedAt: now.UTC(), Reasoning: p.Reasoning, Model: p.Model}
	if p.Refused == "" { // an end of turn: the model call, nothing refused
		step.Status, step.Outcome = scans.StepOK, p.EndTurn
	}
	if _, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, nil, now); err != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	a.Logger.InfoContext(ctx, "scan step refused", "scan_id", t.ScanID, "seq", p.Seq, "tool", p.Tool, "credits", cost)
	return Result{Status: string(sc.Status)}, nil
}

// run charges the planned step, runs its tool within the tool's bound and
// records the step and its findings. A step the scan can no longer pay for,
// or a scan that stopped running meanwhile, records nothing: the next plan
// sees why and ends the scan.
func (a *Agent) run(ctx context.Context, t Task) (Result, error) {
	p := t.Step
	if p == nil || p.Seq < 1 {
		return Result{}, fmt.Errorf("run %s: no planned step", t.ScanID)
	}
	if p.Refused != "" || p.EndTurn != "" {
		return a.recordRefused(ctx, t)
	}
	tool, ok := a.Tools.Get(p.Tool)
	if !ok {
		return Result{}, fmt.Errorf("run %s: unknown tool %q", t.ScanID, p.Tool)
	}
	cost := tool.Cost() + max(p.ModelCredits, 0) // the model's tokens are charged on the step they chose
	sc, err := a.Store.BeginStep(ctx, t.UserID, t.ScanID, p.Seq, cost, store.StepStart{Tool: p.Tool, At: a.Now().UTC()})
	switch {
	case errors.Is(err, store.ErrScanNotRunning), errors.Is(err, store.ErrBudget):
		return Result{Status: string(sc.Status)}, nil
	case err != nil:
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	if sc.StepsCount >= p.Seq {
		return Result{Status: string(sc.Status)}, nil // recorded by an earlier delivery
	}
	steps, err := a.Store.Steps(ctx, sc.ID)
	if err != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	surface, err := a.Store.Surface(ctx, sc.ID)
	if err != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	env := tools.Env{Domain: sc.Target, Dialer: a.Dialer, Resolver: a.Resolver, Ports: a.Ports, Known: knownServices(steps), Surface: surface}

	started := a.Now()
	res, runErr := runBounded(ctx, tool, env, p.Input)
	step := scans.Step{
		Seq: p.Seq, Tool: p.Tool, Input: compactInput(p.Input), Status: stepStatus(runErr), Outcome: outcome(res, runErr), Credits: cost,
		StartedAt: started.UTC(), DurationMS: a.Now().Sub(started).Milliseconds(), Reasoning: p.Reasoning, Model: p.Model,
		Services: res.Services,
	}
	if p.Note != "" && step.Status == scans.StepOK {
		step.Outcome = oneLine(step.Outcome+"; "+p.Note, 700)
	}
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, ctx.Err())
	}
	if err := a.Store.MergeSurface(ctx, sc.ID, inScope(sc.Target, res.Surface)); err != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	added, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, res.Findings, a.Now())
	if err != nil {
		return Result{}, fmt.Errorf("run %s step %d: %w", t.ScanID, p.Seq, err)
	}
	a.Logger.InfoContext(ctx, "scan step", "scan_id", sc.ID, "seq", p.Seq, "tool", p.Tool,
		"findings_added", len(added), "credits", cost, "duration_ms", step.DurationMS)
	return Result{Status: string(sc.Status)}, nil
}

// runBounded runs tool with its own time bound, capped at tools.MaxCallDuration,
// and turns a panicking tool into an error rather than a lost step.
func runBounded(ctx context.Context, tool tools.Tool, env tools.Env, input json.RawMessage) (res tools.Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, min(tool.Timeout(), tools.MaxCallDuration))
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			res, err = tools.Result{}, fmt.Errorf("tool %s crashed: %v", tool.Name(), r)
		}
	}()
	return tool.Run(ctx, env, input)
}

// stepStatus classifies how a call ended, where the error arises.
func stepStatus(err error) scans.StepStatus {
	var ie *tools.InputError
	switch {
	case err == nil:
		return scans.StepOK
	case errors.As(err, &ie):
		return scans.StepRefused
	case errors.Is(err, context.DeadlineExceeded):
		return scans.StepTimedOut
	}
	return scans.StepFailed
}

// outcome is the audit trail's line for a call, written for people: network
// errors in plain words (plainerr), and the default count counts findings
// as the store records them, once per fingerprint.
func outcome(res tools.Result, err error) string {
	var ie *tools.InputError
	switch {
	case errors.As(err, &ie):
		return "Refused: " + ie.Reason
	case errors.Is(err, context.DeadlineExceeded):
		return "Stopped at the tool's time limit; partial results kept"
	case err != nil:
		return "Tool error: " + oneLine(plainerr.Describe(err), 300)
	case res.Outcome == "":
		distinct := map[string]bool{}
		for _, f := range res.Findings {
			distinct[f.StableFingerprint()] = true
		}
		if len(distinct) == 1 {
			return "1 finding"
		}
		return fmt.Sprintf("%d findings", len(distinct))
	}
	return oneLine(plainerr.Text(res.Outcome), 500)
}

// compactInput keeps the input as the audit trail shows it: valid JSON, or
// the refused text as a JSON string.
func compactInput(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(in) {
		return in
	}
	quoted, _ := json.Marshal(oneLine(string(in), 500))
	return quoted
}

// inScope keeps the entries of a tool's surface that lie in the scan's
// scope: tools report only in-scope entries, and this makes sure of it.
func inScope(domain string, sf scans.Surface) scans.Surface {
	out := scans.Surface{OutOfScopeNames: sf.OutOfScopeNames, OutOfScope: sf.OutOfScope}
	for _, h := range sf.Hosts {
		if domainname.InScope(h.Name, domain) {
			out.Hosts = append(out.Hosts, h)
		}
	}
	for _, v := range sf.Services {
		if domainname.InScope(v.Host, domain) {
			out.Services = append(out.Services, v)
		}
	}
	for _, w := range sf.Web {
		if u, err := url.Parse(w.Origin); err == nil && domainname.InScope(u.Hostname(), domain) {
			out.Web = append(out.Web, w)
		}
	}
	return out
}

func knownServices(steps []scans.Step) []scans.Service {
	var out []scans.Service
	for _, s := range steps {
		out = append(out, s.Services...)
	}
	return out
}

func (a *Agent) complete(ctx context.Context, t Task) (Result, error) {
	sc, err := a.Store.GetScan(ctx, t.UserID, t.ScanID)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	detail, err := a.Store.GetScanDetail(ctx, t.UserID, sc.ID)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	partial := ""
	if cov, ok := a.Planner.(planner.Coverer); ok {
		var notScanned []scans.Host
		notScanned, partial = cov.Coverage(planner.State{Scan: sc, Steps: detail.Steps, Findings: detail.Findings, Surface: detail.Surface})
		if err := a.Store.MergeSurface(ctx, sc.ID, scans.Surface{Hosts: notScanned}); err != nil {
			return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
		}
	}
	cmp, state, err := a.compare(ctx, sc, detail)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	// Issues triaged away (false positives, unexpired accepted risks) count
	// neither in the risk rating nor in the summary.
	active := monitor.Active(detail.Findings, cmp)
	sum := summary.Write(summary.Input{Domain: sc.Target, ScanType: sc.Type, Tier: sc.Tier, Findings: active, Steps: detail.Steps,
		Partial: partial, Changes: changesOf(detail.Issues, cmp)})
	if sz, ok := a.Planner.(planner.Summarizer); ok {
		if sum, err = a.modelSummary(ctx, t, sz, planner.State{Scan: sc, Steps: detail.Steps, Findings: active, Surface: detail.Surface}, sum); err != nil {
			return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
		}
	}
	if err := a.Store.ApplyCompletion(ctx, store.Completion{Scan: sc, Issues: detail.Issues, Comparison: cmp,
		Surface: detail.Surface, State: state, Now: a.Now()}); err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	ended, err := a.Store.CompleteScan(ctx, t.UserID, t.ScanID, &sum, cmp.BaselineScanID, monitor.Counts(detail.Issues, cmp), a.Now())
	if cur, refused := store.IsRefused(err); refused {
		return Result{Status: string(cur.Status)}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("end scan %s as completed: %w", t.ScanID, err)
	}
	a.Logger.InfoContext(ctx, "scan ended", "scan_id", ended.ID, "status", ended.Status, "credits_used", ended.CreditsUsed,
		"findings", ended.FindingsCount, "baseline", cmp.BaselineScanID, "new_issues", ended.NewIssuesCount,
		"fixed_issues", ended.FixedIssuesCount)
	return Result{Status: string(ended.Status)}, nil
}

// modelSummary asks the planner's model for the summary and records the call
// as the scan's last step (tool write_summary), charged like any step; when
// the budget no longer pays for it, the rule-based summary stands.
func (a *Agent) modelSummary(ctx context.Context, t Task, sz planner.Summarizer, s planner.State, rules scans.Summary) (scans.Summary, error) {
	r := sz.Summarize(ctx, s, rules)
	if !r.Asked {
		return r.Summary, nil
	}
	seq := s.Scan.StepsCount + 1
	sc, err := a.Store.ChargeStep(ctx, t.UserID, t.ScanID, seq, r.Credits)
	switch {
	case errors.Is(err, store.ErrScanNotRunning), errors.Is(err, store.ErrBudget):
		return rules, nil
	case err != nil:
		return rules, err
	case sc.StepsCount >= seq:
		return r.Summary, nil // recorded by an earlier delivery
	}
	now := a.Now()
	step := scans.Step{Seq: seq, Tool: "write_summary", Input: json.RawMessage("{}"), Status: scans.StepOK, Outcome: r.Outcome,
		Credits: r.Credits, StartedAt: now.UTC(), Reasoning: "The executive summary, by the model that planned the scan", Model: r.Model}
	if _, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, nil, now); err != nil {
		return rules, err
	}
	return r.Summary, nil
}

// end writes a terminal status once; an ended scan keeps the status it has.
func (a *Agent) end(ctx context.Context, t Task, status scans.Status, reason string, sum *scans.Summary) (Result, error) {
	sc, err := a.Store.EndScan(ctx, t.UserID, t.ScanID, status, reason, sum, a.Now())
	if cur, ended := store.IsRefused(err); ended {
		return Result{Status: string(cur.Status)}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("end scan %s as %s: %w", t.ScanID, status, err)
	}
	a.Logger.InfoContext(ctx, "scan ended", "scan_id", sc.ID, "status", sc.Status, "credits_used", sc.CreditsUsed,
		"findings", sc.FindingsCount, "error", reason)
	return Result{Status: string(sc.Status)}, nil
}

// failureReason is the customer-readable error of a failed scan. Internal
// error text (types, causes) goes to the log, never to the record.
func (a *Agent) failureReason(ctx context.Context, t Task) (string, error) {
	if t.Reason != "" {
		return oneLine(t.Reason, 300), nil
	}
	if t.Error == nil {
		return "The scan agent stopped unexpectedly", nil
	}
	a.Logger.Error("scan agent error", "scan_id", t.ScanID, "error_type", t.Error.Error, "cause", oneLine(t.Error.Cause, 2000))
	if r, err := a.outageReason(ctx, t, t.Error.Cause); r != "" || err != nil {
		return r, err
	}
	switch t.Error.Error {
	case "TransientError":
		return "A service the scan depends on kept failing; the steps and findings recorded before it are kept", nil
	case "States.Timeout":
		return "A step of the scan agent timed out; the steps and findings recorded before it are kept", nil
	}
	return "The scan agent hit an internal error; the steps and findings recorded before it are kept", nil
}

// executionEnded fails the scan of an execution that is gone (timed out,
// failed outside any Catch, aborted).
func (a *Agent) executionEnded(ctx context.Context, ev StatusChange) (Result, error) {
	var in struct {
		ScanID string `json:"scan_id"`
		UserID string `json:"user_id"`
	}
	if err := json.Unmarshal([]byte(ev.Input), &in); err != nil || in.ScanID == "" || in.UserID == "" {
		return Result{}, fmt.Errorf("execution %s ended %s with unusable input", ev.Name, ev.Status)
	}
	reason := "The scan stopped unexpectedly"
	switch ev.Status {
	case "TIMED_OUT":
		reason = "The scan exceeded the maximum run time and was stopped"
	case "ABORTED":
		reason = "The scan was stopped by an operator"
	}
	a.Logger.WarnContext(ctx, "scan execution ended abnormally", "scan_id", in.ScanID, "execution", ev.Name, "status", ev.Status)
	return a.end(ctx, Task{ScanID: in.ScanID, UserID: in.UserID}, scans.Failed, reason, nil)
}

// oneLine is s as one safe line of at most n runes (safetext.Line, which
// also drops the bidi and zero-width characters this once kept).
func oneLine(s string, n int) string { return safetext.Line(s, n) }

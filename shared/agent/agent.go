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
	"time"

	"secscan/shared/netguard"
	"secscan/shared/ownership"
	"secscan/shared/planner"
	"secscan/shared/resolver"
	"secscan/shared/safetext"
	"secscan/shared/scans"
	"secscan/shared/store"
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
	act, ok := a.actions()[t.Action]
	if !ok {
		return nil, fmt.Errorf("agent: unknown action %q", t.Action)
	}
	out, err := act(ctx, t)
	if err != nil {
		a.logFailure(ctx, t, err)
		return nil, retryable(t.Action, err)
	}
	return out, nil
}

// action performs one of the state machine's actions.
type action func(context.Context, Task) (any, error)

// actionOf gives f the common signature of the actions.
func actionOf[T any](f func(context.Context, Task) (T, error)) action {
	return func(ctx context.Context, t Task) (any, error) { return f(ctx, t) }
}

// actions maps each action name of the state machine to what performs it.
func (a *Agent) actions() map[string]action {
	return map[string]action{
		ActionStart:          actionOf(a.start),
		ActionPlan:           actionOf(a.plan),
		ActionRun:            actionOf(a.run),
		ActionComplete:       actionOf(a.complete),
		ActionCancel:         actionOf(a.cancel),
		ActionFail:           actionOf(a.fail),
		ActionDeliverWebhook: actionOf(a.deliverWebhook),
	}
}

// logFailure logs an action that failed; one interrupted because the caller
// went away (the local stack stopping) is not a fault of the action. A
// Lambda's deadline is DeadlineExceeded, an error.
func (a *Agent) logFailure(ctx context.Context, t Task, err error) {
	if errors.Is(ctx.Err(), context.Canceled) {
		a.Logger.InfoContext(ctx, "agent action interrupted", "action", t.Action, "scan_id", t.ScanID)
		return
	}
	a.Logger.ErrorContext(ctx, "agent action failed", "action", t.Action, "scan_id", t.ScanID, "error", err.Error())
}

func (a *Agent) cancel(ctx context.Context, t Task) (Result, error) {
	return a.end(ctx, t, scans.Cancelled, "", nil)
}

func (a *Agent) fail(ctx context.Context, t Task) (Result, error) {
	reason, err := a.failureReason(ctx, t)
	if err != nil {
		return Result{}, err
	}
	return a.end(ctx, t, scans.Failed, reason, nil)
}

func (a *Agent) deliverWebhook(ctx context.Context, t Task) (webhook.Outcome, error) {
	return a.Webhooks.Deliver(ctx, t.UserID, t.ScanID)
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
	if stop, stopped := a.stopping(sc); stopped {
		return stop, nil
	}
	d, err := a.decide(ctx, t, sc)
	var cfgErr *planner.ConfigError
	if errors.As(err, &cfgErr) {
		return Planned{Next: NextFail, Reason: cfgErr.Reason}, nil
	}
	if err != nil {
		return Planned{}, fmt.Errorf("plan %s: %w", sc.ID, err)
	}
	return a.planned(sc, d)
}

// stopping is the plan of a scan that runs no further step: ended already,
// cancelled, or over its time limit.
func (a *Agent) stopping(sc scans.Scan) (Planned, bool) {
	switch {
	case sc.Status != scans.Running:
		return Planned{Next: NextEnded}, true
	case sc.CancelRequested:
		return Planned{Next: NextCancel}, true
	case a.Now().Sub(sc.StartedAt) > MaxRunDuration:
		return Planned{Next: NextFail, Reason: fmt.Sprintf("Scan exceeded its time limit of %d minutes", int(MaxRunDuration.Minutes()))}, true
	}
	return Planned{}, false
}

// decide asks the planner for the next step of the scan's recorded state.
func (a *Agent) decide(ctx context.Context, t Task, sc scans.Scan) (planner.Decision, error) {
	detail, err := a.Store.GetScanDetail(ctx, t.UserID, sc.ID)
	if err != nil {
		return planner.Decision{}, err
	}
	return a.Planner.Next(ctx, planner.State{Scan: sc, Steps: detail.Steps, Findings: detail.Findings, Surface: detail.Surface})
}

// planned is the plan of the planner's decision, priced: a step the budget
// does not pay for fails the scan.
func (a *Agent) planned(sc scans.Scan, d planner.Decision) (Planned, error) {
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

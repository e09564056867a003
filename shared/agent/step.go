package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"secscan/shared/domainname"
	"secscan/shared/plainerr"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

// recordRefused records a refused model proposal, or a model's end of turn
// that no playbook call followed: charged its tokens, no tool run.
func (a *Agent) recordRefused(ctx context.Context, t Task) (Result, error) {
	p := t.Step
	cost := max(p.ModelCredits, 0)
	sc, err := a.Store.ChargeStep(ctx, t.UserID, t.ScanID, p.Seq, cost)
	if due, err := toRecord(sc, err, p.Seq); !due || err != nil {
		return statusOf(sc, stepErr(t, err))
	}
	now := a.Now()
	step := scans.Step{Seq: p.Seq, Tool: p.Tool, Input: compactInput(p.Input), Status: scans.StepRefused,
		Outcome: "Refused: " + p.Refused, Credits: cost, StartedAt: now.UTC(), Reasoning: p.Reasoning, Model: p.Model}
	if p.Refused == "" { // an end of turn: the model call, nothing refused
		step.Status, step.Outcome = scans.StepOK, p.EndTurn
	}
	if _, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, nil, now); err != nil {
		return Result{}, stepErr(t, err)
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
	if due, err := toRecord(sc, err, p.Seq); !due || err != nil {
		return statusOf(sc, stepErr(t, err))
	}
	return a.runCharged(ctx, t, sc, tool, cost)
}

// runCharged runs the step charged on sc and records it.
func (a *Agent) runCharged(ctx context.Context, t Task, sc scans.Scan, tool tools.Tool, cost int) (Result, error) {
	p := t.Step
	env, err := a.toolEnv(ctx, sc)
	if err != nil {
		return Result{}, stepErr(t, err)
	}
	step, res := a.runStep(ctx, tool, env, p, cost)
	if err := a.recordRun(ctx, t, sc, step, res); err != nil {
		return Result{}, stepErr(t, err)
	}
	return Result{Status: string(sc.Status)}, nil
}

// toRecord tells whether the step charged at seq is still to be recorded:
// not when the scan stopped running or can no longer pay for it (the next
// plan sees why), nor when an earlier delivery recorded it; an error for
// any other failure to charge it.
func toRecord(sc scans.Scan, err error, seq int) (bool, error) {
	switch {
	case errors.Is(err, store.ErrScanNotRunning), errors.Is(err, store.ErrBudget):
		return false, nil
	case err != nil:
		return false, err
	}
	return sc.StepsCount < seq, nil
}

// statusOf is the answer of an action that ends early: the scan's status, or
// the error when there is one.
func statusOf(sc scans.Scan, err error) (Result, error) {
	if err != nil {
		return Result{}, err
	}
	return Result{Status: string(sc.Status)}, nil
}

// stepErr places an error of the run action at its scan and step (nil stays nil).
func stepErr(t Task, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("run %s step %d: %w", t.ScanID, t.Step.Seq, err)
}

// toolEnv is what a tool sees of the scan: its target and tier, the
// services the steps so far found and the surface recorded so far.
func (a *Agent) toolEnv(ctx context.Context, sc scans.Scan) (tools.Env, error) {
	steps, err := a.Store.Steps(ctx, sc.ID)
	if err != nil {
		return tools.Env{}, err
	}
	surface, err := a.Store.Surface(ctx, sc.ID)
	if err != nil {
		return tools.Env{}, err
	}
	return tools.Env{Domain: sc.Target, Tier: sc.Tier, Dialer: a.Dialer, Resolver: a.Resolver, Ports: a.Ports, Known: knownServices(steps),
		Surface: surface}, nil
}

// runStep runs the planned step's tool and describes the call as the audit
// trail records it.
func (a *Agent) runStep(ctx context.Context, tool tools.Tool, env tools.Env, p *Planned, cost int) (scans.Step, tools.Result) {
	started := a.Now()
	res, runErr := tools.RunBounded(ctx, tool, env, p.Input)
	step := scans.Step{
		Seq: p.Seq, Tool: p.Tool, Input: compactInput(p.Input), Status: stepStatus(runErr), Outcome: outcome(res, runErr), Credits: cost,
		StartedAt: started.UTC(), DurationMS: a.Now().Sub(started).Milliseconds(), Reasoning: p.Reasoning, Model: p.Model,
		Services: res.Services,
	}
	if p.Note != "" && step.Status == scans.StepOK {
		step.Outcome = oneLine(step.Outcome+"; "+p.Note, 700)
	}
	return step, res
}

// recordRun records a step that ran, with the in-scope part of the surface
// it found and its findings, unless the action itself was cancelled.
func (a *Agent) recordRun(ctx context.Context, t Task, sc scans.Scan, step scans.Step, res tools.Result) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := a.Store.MergeSurface(ctx, sc.ID, inScope(sc.Target, res.Surface)); err != nil {
		return err
	}
	added, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, res.Findings, a.Now())
	if err != nil {
		return err
	}
	a.Logger.InfoContext(ctx, "scan step", "scan_id", sc.ID, "seq", step.Seq, "tool", step.Tool,
		"findings_added", len(added), "credits", step.Credits, "duration_ms", step.DurationMS)
	return nil
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
	for _, a := range sf.Addresses {
		if a.TiedName != "" && !domainname.InScope(a.TiedName, domain) {
			a.TiedBy, a.TiedName = "", "" // no tie: the evidence must name the scope
		}
		out.Addresses = append(out.Addresses, a)
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

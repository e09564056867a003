package modelplanner

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// Reasoning prefixes of the steps the playbook plans while a model is
// configured. Stopped marks the hand-off for good (the model ended its turn,
// failed or answered garbage): the model is not asked again in this scan.
// Overruled marks a single step where the model's choice did not fit.
const (
	Stopped   = "Planned by the playbook after the model stopped ("
	Overruled = "Planned by the playbook, the model's choice set aside ("
)

// Planner is the model-driven planner. It implements planner.Planner and
// planner.Coverer.
type Planner struct {
	Client Client
	// Models are the model ids per tier; a tier without one runs the
	// playbook alone.
	Models   map[plans.Tier]string
	Tools    *tools.Registry
	Playbook planner.Playbook
	Logger   *slog.Logger
}

// modelFor is the model that plans sc: the tier's, on a plan that has the
// model-driven agent (CONTRACT "Plans"); "" (the playbook alone) for a free
// scan even when AGENT_MODEL_* names a model, and for a scan recorded
// without a plan.
func (p *Planner) modelFor(sc scans.Scan) string {
	if !sc.Plan.UsesModel() {
		return ""
	}
	return p.Models[sc.Tier]
}

// Next asks the model for the next call, within the budget rule that keeps
// the playbook's baseline whole (never worse than the playbook):
//   - the model is asked only while the credits left cover the call's bound
//     and every baseline call not yet run; once they do not, the playbook
//     finishes the scan alone (as it would have without a model);
//   - a baseline call the model picks runs (the model chooses the order);
//   - a call outside the baseline runs once the baseline has run, from the
//     credits left, and never twice;
//   - an end of turn, an error or an unknown tool hands the scan to the
//     playbook for good; a choice that does not fit, for one step.
//
// The tokens of a call are charged on the step that follows it, whoever
// planned that step.
func (p *Planner) Next(ctx context.Context, s planner.State) (planner.Decision, error) {
	model := p.modelFor(s.Scan)
	if model == "" || p.Client == nil {
		return p.Playbook.Next(ctx, s)
	}
	if stopped(s.Steps) {
		return p.afterModel(ctx, s, false)
	}
	pending, _, baseCost, err := p.Playbook.Baseline(s)
	if err != nil {
		return planner.Decision{}, err
	}
	left := s.Scan.MaxCredits - s.Scan.CreditsUsed
	req := p.Request(model, s, pending, baseCost)
	rate := RateOf(model)
	bound := rate.Credits(Usage{InputTokens: Size(req)/3 + 1, OutputTokens: MaxTokens})
	// The baseline grows as the scan discovers hosts and services: the
	// projection foresees the web checks of the hosts the tier scans, the
	// margin what else discovery adds.
	projected, err := p.Playbook.Projected(s)
	if err != nil {
		return planner.Decision{}, err
	}
	margin := s.Scan.MaxCredits / 10
	if left-bound-margin < max(baseCost, projected) {
		return p.fallback(ctx, s, Stopped+"the credits left are kept for the baseline checks)", nil, 0)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < CallBudget.Operation {
		// A call that could outlive the action's bound is not started.
		return p.fallback(ctx, s, Overruled+"too little time left in this step for a model call)", nil, 0)
	}
	resp, err := p.Client.Converse(ctx, req)
	var cfgErr *planner.ConfigError
	switch {
	case errors.As(err, &cfgErr):
		return planner.Decision{}, err
	case err != nil:
		p.log(ctx, "model call failed; the playbook continues", s, "error", err.Error())
		return p.fallback(ctx, s, Stopped+"the model service failed)", nil, 0)
	}
	usage := &scans.ModelUsage{ID: model, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	credits := min(rate.Credits(resp.Usage), bound)
	if len(resp.ToolUses) == 0 {
		return p.fallback(ctx, s, Stopped+"the model ended its turn)", usage, credits)
	}
	use := resp.ToolUses[0]
	if t := strings.TrimSpace(string(use.Input)); !strings.HasPrefix(t, "{") || !json.Valid(use.Input) {
		// Not an object: the tool refuses the unknown field, and the audit
		// trail keeps what the model sent.
		wrapped, _ := json.Marshal(map[string]string{"invalid_input": line(string(use.Input), 500)})
		use.Input = wrapped
	}
	tool, ok := p.Tools.Get(use.Name)
	if !ok {
		return p.fallback(ctx, s, Stopped+"the model asked for a tool that does not exist)", usage, credits)
	}
	key := planner.CallKey(use.Name, use.Input)
	if slices.ContainsFunc(s.Steps, func(st scans.Step) bool { return planner.CallKey(st.Tool, st.Input) == key }) {
		return p.fallback(ctx, s, Overruled+"it repeated a call that already ran)", usage, credits)
	}
	inBaseline := slices.ContainsFunc(pending, func(c planner.Call) bool { return planner.CallKey(c.Tool, c.Input) == key })
	switch {
	case !inBaseline && len(pending) > 0:
		// The baseline grows with what its calls discover, so credits it
		// will not need are known only once it has run.
		return p.fallback(ctx, s, Overruled+"the baseline checks run before other checks)", usage, credits)
	case !inBaseline && left-credits-tool.Cost() < 0:
		return p.fallback(ctx, s, Stopped+"the credits left do not pay for the model's choice)", usage, credits)
	}
	reasoning := line(resp.Text, 500)
	if reasoning == "" {
		reasoning = "Chosen by the model"
	}
	return planner.Decision{Tool: use.Name, Input: use.Input, Reasoning: reasoning, Model: usage, ModelCredits: credits}, nil
}

// Request is the turn the model gets for s.
func (p *Planner) Request(model string, s planner.State, pending []planner.Call, reserve int) Request {
	return Request{Model: model, System: System, Messages: Conversation(s, pending, reserve), Tools: Specs(p.Tools), MaxTokens: MaxTokens}
}

// Specs are the registry's tools as the model sees them: one source of
// truth for names, descriptions and input schemas.
func Specs(reg *tools.Registry) []ToolSpec {
	var out []ToolSpec
	for _, name := range reg.Names() {
		t, _ := reg.Get(name)
		out = append(out, ToolSpec{Name: name, Description: t.Description(), Schema: t.InputSchema()})
	}
	return out
}

// afterModel is the playbook's next call once the model stopped. Should the
// credits the model used leave a check of the domain itself unaffordable,
// the scan completes without it (coverage names what was left out) rather
// than failing where the playbook alone would have completed.
func (p *Planner) afterModel(ctx context.Context, s planner.State, spent bool) (planner.Decision, error) {
	d, err := p.Playbook.Next(ctx, s)
	if err != nil || d.Done {
		return d, err
	}
	if tool, ok := p.Tools.Get(d.Tool); ok && s.Scan.CreditsUsed+tool.Cost() > s.Scan.MaxCredits && (spent || usedModel(s.Steps)) {
		return planner.Decision{Done: true}, nil
	}
	return d, nil
}

// usedModel reports whether a model call was charged on a step.
func usedModel(steps []scans.Step) bool {
	return slices.ContainsFunc(steps, func(st scans.Step) bool { return st.Model != nil })
}

// fallback is the playbook's next call, the model call's tokens charged on
// it; Done when the playbook has nothing left.
func (p *Planner) fallback(ctx context.Context, s planner.State, why string, usage *scans.ModelUsage, credits int) (planner.Decision, error) {
	s.Scan.CreditsUsed += credits
	d, err := p.afterModel(ctx, s, credits > 0)
	if err != nil || d.Done {
		return d, err
	}
	d.Reasoning = why + ": " + d.Reasoning
	d.Model, d.ModelCredits = usage, credits
	return d, nil
}

// Coverage implements planner.Coverer with the playbook's view.
func (p *Planner) Coverage(s planner.State) ([]scans.Host, string) { return p.Playbook.Coverage(s) }

func (p *Planner) log(ctx context.Context, msg string, s planner.State, args ...any) {
	if p.Logger != nil {
		p.Logger.WarnContext(ctx, msg, append([]any{"scan_id", s.Scan.ID}, args...)...)
	}
}

// stopped reports whether the playbook took over for good.
func stopped(steps []scans.Step) bool {
	return slices.ContainsFunc(steps, func(st scans.Step) bool { return strings.HasPrefix(st.Reasoning, Stopped) })
}

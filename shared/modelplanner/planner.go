package modelplanner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// FloorShare is the percentage of a scan's budget the playbook's floor may
// spend while a model plans: the rest, at least a quarter, is the model's,
// for its own steps and the summary (issue 21).
const FloorShare = 75

// FloorBudget is the credits of a budget of max the floor may spend.
func FloorBudget(max int) int { return max * FloorShare / 100 }

// Next plans in two phases:
//   - the floor: the playbook's calls, within FloorBudget (its own budget
//     rule decides what a large surface leaves out), with no model call;
//   - then the model, asked each turn while the credits left pay for the
//     call's bound, the cheapest tool and the summary's reserve, to verify
//     tentative findings and follow evidence. A proposal that is out of
//     scope, invalid, of an unknown tool or a repeat is a refused step (its
//     tokens charged, the tool never run); an end of turn, an error or a
//     choice the credits do not pay for hands the scan to the playbook for
//     good, which spends what is left on the calls the floor left out,
//     keeping the summary's reserve.
//
// The tokens of a call are charged on the step that follows it, whoever
// planned that step.
func (p *Planner) Next(ctx context.Context, s planner.State) (planner.Decision, error) {
	model := p.modelFor(s.Scan)
	if model == "" || p.Client == nil {
		return p.Playbook.Next(ctx, s)
	}
	reserve := p.SummaryReserve(model, s)
	if stopped(s.Steps) {
		return p.afterModel(ctx, s, reserve, false)
	}
	if !usedModel(s.Steps) {
		if d, ok, err := p.floor(ctx, s); err != nil || ok {
			return d, err
		}
	}
	return p.turn(ctx, s, model, reserve)
}

// floor is the playbook's next call within FloorBudget; false once the
// floor is done (nothing left, or the next call does not fit).
func (p *Planner) floor(ctx context.Context, s planner.State) (planner.Decision, bool, error) {
	capped := s
	capped.Scan.MaxCredits = FloorBudget(s.Scan.MaxCredits)
	d, err := p.Playbook.Next(ctx, capped)
	if err != nil || d.Done {
		return d, false, err
	}
	tool, ok := p.Tools.Get(d.Tool)
	if !ok || s.Scan.CreditsUsed+tool.Cost() > capped.Scan.MaxCredits {
		return planner.Decision{}, false, nil
	}
	return d, true, nil
}

// MaxRefusedInARow is how many refused proposals in a row end the model's
// turns: a model that keeps proposing what is refused is not asked again
// (the budget bounds it anyway, this bounds it sooner).
const MaxRefusedInARow = 5

// refusedInARow counts the refused model steps at the end of steps.
func refusedInARow(steps []scans.Step) int {
	n := 0
	for i := len(steps) - 1; i >= 0 && steps[i].Status == scans.StepRefused && steps[i].Model != nil; i-- {
		n++
	}
	return n
}

// minToolCost is the price of the cheapest tool: a model turn is not worth
// asking for when the credits left would not pay for any call it chose.
const minToolCost = 2

// turn asks the model for the next call after the floor.
func (p *Planner) turn(ctx context.Context, s planner.State, model string, reserve int) (planner.Decision, error) {
	pending, _, _, err := p.Playbook.Baseline(s)
	if err != nil {
		return planner.Decision{}, err
	}
	left := s.Scan.MaxCredits - s.Scan.CreditsUsed
	req := p.Request(model, s, pending, reserve)
	rate := RateOf(model)
	bound := rate.Credits(Usage{InputTokens: Size(req)/3 + 1, OutputTokens: MaxTokens})
	if why := withoutCall(ctx, s, left-bound-reserve); why != "" {
		return p.fallback(ctx, s, reserve, why, nil, 0)
	}
	resp, err := p.Client.Converse(ctx, req)
	var cfgErr *planner.ConfigError
	switch {
	case errors.As(err, &cfgErr):
		return planner.Decision{}, err
	case err != nil:
		p.log(ctx, "model call failed; the playbook continues", s, "error", err.Error())
		return p.fallback(ctx, s, reserve, Stopped+"the model service failed)", nil, 0)
	}
	usage := &scans.ModelUsage{ID: model, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	credits := min(rate.Credits(resp.Usage), bound)
	if len(resp.ToolUses) == 0 {
		return p.fallback(ctx, s, reserve, Stopped+"the model ended its turn)", usage, credits)
	}
	d := p.proposal(s, resp.ToolUses[0], resp.Text, usage, credits)
	if d.Refused != "" {
		return d, nil
	}
	if tool, _ := p.Tools.Get(d.Tool); left-credits-tool.Cost()-reserve < 0 {
		return p.fallback(ctx, s, reserve, Stopped+"the credits left do not pay for the model's choice)", usage, credits)
	}
	return d, nil
}

// withoutCall says why the turn asks the model nothing ("" when it asks):
// the credits spare after the call's bound and the reserve would pay for no
// tool, the model's last proposals were all refused, or the action has too
// little time left for a call.
func withoutCall(ctx context.Context, s planner.State, spare int) string {
	if spare < minToolCost {
		return Stopped + "the credits left are kept for the summary)"
	}
	if refusedInARow(s.Steps) >= MaxRefusedInARow {
		return Stopped + fmt.Sprintf("its last %d proposals were refused)", MaxRefusedInARow)
	}
	if tooLittleTime(ctx) {
		return Overruled + "too little time left in this step for a model call)"
	}
	return ""
}

// tooLittleTime reports whether the action has too little time left for a
// model call: a call that could outlive the action's bound is not started.
func tooLittleTime(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < CallBudget.Operation
}

// proposal is the decision of the model's tool call, with its reasoning
// text, charged its tokens; Refused says why it is not run.
func (p *Planner) proposal(s planner.State, use ToolUse, text string, usage *scans.ModelUsage, credits int) planner.Decision {
	d := planner.Decision{Tool: use.Name, Input: use.Input, Reasoning: cmp.Or(line(text, 500), "Chosen by the model"),
		Model: usage, ModelCredits: credits}
	if t := strings.TrimSpace(string(use.Input)); !strings.HasPrefix(t, "{") || !json.Valid(use.Input) {
		// Not an object: the audit trail keeps what the model sent.
		d.Input, _ = json.Marshal(map[string]string{"invalid_input": line(string(use.Input), 500)})
		d.Refused = "the input is not a JSON object"
		return d
	}
	d.Refused = refusal(p.Tools, s, use)
	return d
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

// afterModel is the playbook's next call once the model stopped, within
// the budget less the summary's reserve. Should the credits the model used
// leave a check of the domain itself unaffordable, the scan completes
// without it (coverage names what was left out) rather than failing where
// the playbook alone would have completed.
func (p *Planner) afterModel(ctx context.Context, s planner.State, reserve int, spent bool) (planner.Decision, error) {
	capped := s
	capped.Scan.MaxCredits = max(s.Scan.MaxCredits-reserve, s.Scan.CreditsUsed)
	d, err := p.Playbook.Next(ctx, capped)
	if err != nil || d.Done {
		return d, err
	}
	if tool, ok := p.Tools.Get(d.Tool); ok && s.Scan.CreditsUsed+tool.Cost() > capped.Scan.MaxCredits && (spent || usedModel(s.Steps)) {
		return planner.Decision{Done: true}, nil
	}
	return d, nil
}

// usedModel reports whether a model call was charged on a step.
func usedModel(steps []scans.Step) bool {
	return slices.ContainsFunc(steps, func(st scans.Step) bool { return st.Model != nil })
}

// fallback is the playbook's next call, the model call's tokens charged on
// it; when the playbook has nothing left, Done, or, after a model call, an
// end-of-turn step that charges its tokens.
func (p *Planner) fallback(ctx context.Context, s planner.State, reserve int, why string, usage *scans.ModelUsage, credits int) (planner.Decision, error) {
	s.Scan.CreditsUsed += credits
	d, err := p.afterModel(ctx, s, reserve, credits > 0)
	if err == nil && d.Done && usage != nil {
		// No playbook call left to charge the model's tokens on: a step of
		// their own records and charges them.
		return planner.Decision{Tool: planner.EndTurnTool, Input: json.RawMessage(`{}`), Reasoning: why,
			Model: usage, ModelCredits: credits, EndTurn: "The model's turn ended and the playbook had nothing left to run"}, nil
	}
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

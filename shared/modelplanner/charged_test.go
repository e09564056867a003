package modelplanner_test

import (
	"context"
	"testing"

	"secscan/infra/local/modeltest"
	"secscan/shared/modelplanner"
	"secscan/shared/planner"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// Every model call of a scan is charged: planning a whole scan through the
// scripted Converse server (the model proposes one check, then ends its
// turn when the playbook has nothing left), the steps record as many model
// calls as the server answered and exactly their tokens, the last one on an
// end_turn step charged its tokens only.
func TestEveryModelCallIsCharged(t *testing.T) {
	reg := scanners.Registry(nil)
	replies := []modeltest.Reply{
		modeltest.Call("check the www origin", "http_check", map[string]any{"url": "https://www.example.com/"}),
		modeltest.End("nothing more to verify"),
	}
	srv := modeltest.StartBedrock(t, func(i int, _ modeltest.Request) modeltest.Reply { return replies[min(i, len(replies)-1)] })
	st := quickSSLScan(200)
	st.Steps = planScan(t, quickPlanner(t, srv, reg), st)
	calls, in, out := 0, 0, 0
	for _, s := range st.Steps {
		if s.Model != nil {
			calls, in, out = calls+1, in+s.Model.InputTokens, out+s.Model.OutputTokens
		}
	}
	if n := len(srv.Requests()); n != 2 || calls != n || in != 2*3000 || out != 120+60 {
		t.Errorf("%d model calls answered; steps record %d with %d+%d tokens, want every call and its tokens", n, calls, in, out)
	}
	last := st.Steps[len(st.Steps)-1]
	if last.Tool != planner.EndTurnTool || last.Model == nil || last.Credits < 1 {
		t.Errorf("last step %s (model %+v, %d credits), want the end of turn charged its tokens", last.Tool, last.Model, last.Credits)
	}
}

// planScan plans st to its end through p, each decision a step charged
// its tool's cost (none for a refused proposal or an end of turn) and the
// model's credits.
func planScan(t *testing.T, p *modelplanner.Planner, st planner.State) []scans.Step {
	t.Helper()
	for i := range 100 {
		d, err := p.Next(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			return st.Steps
		}
		cost := d.ModelCredits
		if tool, ok := p.Tools.Get(d.Tool); ok && d.Refused == "" && d.EndTurn == "" {
			cost += tool.Cost()
		}
		st.Scan.CreditsUsed += cost
		st.Steps = append(st.Steps, scans.Step{Seq: i + 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK,
			Reasoning: d.Reasoning, Model: d.Model, Credits: cost})
	}
	t.Fatal("the plan does not end")
	return nil
}

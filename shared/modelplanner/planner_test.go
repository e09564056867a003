package modelplanner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"secscan/infra/local/modeltest"
	"secscan/shared/modelplanner"
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// What the planner decides from each kind of answer, through the real
// Bedrock client and a scripted Converse server: a model error, garbage or
// an unknown tool hands the scan to the playbook (its tokens charged on the
// playbook's step), a check of the model's own waits for the baseline, a
// baseline call runs as the model chose it.
func TestPlannerDecisions(t *testing.T) {
	reg := scanners.Registry(nil)
	state := planner.State{Scan: scans.Scan{ID: "scn_1", Target: "example.com", Type: scans.SSL, Tier: plans.Quick, MaxCredits: 50}}
	playbook := planner.Playbook{Tools: reg}
	first, err := playbook.Next(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	var firstInput map[string]any
	if err := json.Unmarshal(first.Input, &firstInput); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		reply     modeltest.Reply
		tool      string
		reasoning string
		charged   bool
	}{
		{"baseline call", modeltest.Call("hosts first", first.Tool, firstInput), first.Tool, "hosts first", true},
		{"own check before the baseline", modeltest.Call("look", "http_check", map[string]any{"url": "https://example.com/x"}), first.Tool, modelplanner.Overruled + "the baseline checks run before other checks)", true},
		{"unknown tool", modeltest.Call("hack", "shell", map[string]any{"cmd": "id"}), first.Tool, modelplanner.Stopped + "the model asked for a tool that does not exist)", true},
		{"end of turn", modeltest.End("nothing to do"), first.Tool, modelplanner.Stopped + "the model ended its turn)", true},
		{"garbage", modeltest.Reply{Kind: modeltest.Garbage}, first.Tool, modelplanner.Stopped + "the model service failed)", false},
		{"5xx after every retry", modeltest.Reply{Kind: modeltest.Fail5xx}, first.Tool, modelplanner.Stopped + "the model service failed)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.StartBedrock(t, func(int, modeltest.Request) modeltest.Reply { return tc.reply })
			p := &modelplanner.Planner{Client: bedrockAt(t, srv), Models: map[plans.Tier]string{plans.Quick: "anthropic.claude-3-haiku-20240307-v1:0"},
				Tools: reg, Playbook: playbook}
			d, err := p.Next(context.Background(), state)
			if err != nil {
				t.Fatal(err)
			}
			if d.Done || d.Tool != tc.tool || !strings.HasPrefix(d.Reasoning, tc.reasoning) {
				t.Errorf("decision %s %s %q", d.Tool, d.Input, d.Reasoning)
			}
			if tc.charged != (d.Model != nil && d.ModelCredits >= 1) || (d.Model == nil) != (d.ModelCredits == 0) {
				t.Errorf("model %+v, %d credits", d.Model, d.ModelCredits)
			}
			// Once stopped, the model is not asked again.
			if strings.HasPrefix(d.Reasoning, modelplanner.Stopped) {
				n := len(srv.Requests())
				next := state
				next.Steps = []scans.Step{{Seq: 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK, Reasoning: d.Reasoning}}
				if _, err := p.Next(context.Background(), next); err != nil || len(srv.Requests()) != n {
					t.Errorf("asked again after the hand-off (%v)", err)
				}
			}
		})
	}
}

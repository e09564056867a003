package planner_test

import (
	"context"
	"encoding/json"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// Every playbook names real tools, fits its tier's credit ceiling, and
// plans step n+1 after n recorded steps, then says done.
func TestPlaybooks(t *testing.T) {
	t.Parallel()
	registry := scanners.Registry()
	p := planner.Playbook{Tools: registry}
	for _, typ := range scans.Types {
		for tier, ceiling := range plans.CreditCeiling {
			if typ == scans.Full && tier == plans.Quick {
				continue // refused at creation
			}
			calls, err := planner.Calls(typ, tier)
			if err != nil || len(calls) == 0 {
				t.Fatalf("%s/%s: %v", typ, tier, err)
			}
			cost := 0
			for _, c := range calls {
				tool, ok := registry.Get(c.Tool)
				if !ok {
					t.Fatalf("%s/%s plans unknown tool %s", typ, tier, c.Tool)
				}
				if !json.Valid(c.Input) {
					t.Fatalf("%s/%s: input %s", typ, tier, c.Input)
				}
				cost += tool.Cost()
			}
			if cost > ceiling {
				t.Errorf("%s/%s costs %d credits, above the %d ceiling", typ, tier, cost, ceiling)
			}
			t.Logf("%s/%s: %d calls, %d credits", typ, tier, len(calls), cost)
			st := planner.State{Scan: scans.Scan{Type: typ, Tier: tier}}
			for i := range calls {
				d, err := p.Next(context.Background(), st)
				if err != nil || d.Done || d.Tool != calls[i].Tool {
					t.Fatalf("%s/%s step %d: %+v %v", typ, tier, i+1, d, err)
				}
				st.Steps = append(st.Steps, scans.Step{Seq: i + 1, Tool: d.Tool})
			}
			if d, _ := p.Next(context.Background(), st); !d.Done {
				t.Fatalf("%s/%s: not done after its %d calls", typ, tier, len(calls))
			}
		}
	}
	if _, err := planner.Calls("port", plans.Quick); err == nil {
		t.Fatal("a playbook for an unknown scan type")
	}
}

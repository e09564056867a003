package localstack_test

import (
	"encoding/json"
	"strings"
	"testing"

	"secscan/infra/local/modeltest"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/modelplanner"
)

// shareModel plans the standard tier of the model-share test.
const shareModel = "us.anthropic.claude-3-5-sonnet-20241022-v2:0"

// shareView is the part of a scan record the model-share test reads.
type shareView struct {
	modelView
	Issues []struct {
		Key string `json:"key"`
	} `json:"issues"`
}

// The model's job on a standard full scan of the whole demo target (issue
// 21), with a scripted model behind the Bedrock wire protocol: the floor
// leaves at least a quarter of the budget, the model's proposal of the cloud
// metadata address and of a foreign host are two refused steps charged
// its tokens only (never run, so never dialled), the summary is requested
// through write_summary and, invalid twice, falls back to the rule-based
// one with the step saying why; and every issue the playbook alone finds
// is found.
func TestModelShareOfAStandardScan(t *testing.T) {
	demo := startDemo(t, fullDemo("share.test", "127.0.0.6"))
	verifier := &modeltest.Verifier{InvalidSummary: true, ForeignHost: "attacker.example"}
	srv := modeltest.StartBedrock(t, verifier.Script())
	withModel := startStack(t, withDemo(t, demo), withBedrock(t, srv), func(c *config.Config, _ *app.Options) {
		c.AgentModelStandard = shareModel
	})
	playbook := startStack(t, withDemo(t, demo))
	a, b := withModel.newAccount("starter", false), playbook.newAccount("starter", false)
	withModel.verifiedTarget(a, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	playbook.verifiedTarget(b, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	body := map[string]any{"target": demo.Domain(), "scan_type": "full", "tier": "standard"}
	m := awaitEnded[shareView](t, withModel, a, withModel.createScan(a, body).ID, 6*60e9)
	p := awaitEnded[shareView](t, playbook, b, playbook.createScan(b, body).ID, 6*60e9)
	if m.Status != "completed" || p.Status != "completed" {
		t.Fatalf("model scan %s (%s), playbook scan %s (%s)", m.Status, deref(m.Error), p.Status, deref(p.Error))
	}

	// The floor: every step before the model's first.
	floor, first := 0, -1
	for i, st := range m.AgentSteps {
		if st.Model != nil {
			first = i
			break
		}
		floor += st.Credits
	}
	if first < 0 || floor > m.MaxCredits*3/4 {
		t.Errorf("the floor spent %d of %d credits before the model's first step (#%d)", floor, m.MaxCredits, first)
	}
	t.Logf("FIGURES floor %d of %d credits (%d%% left for the model and the summary); scan %d credits, %d steps; playbook alone %d credits, %d steps",
		floor, m.MaxCredits, 100*(m.MaxCredits-floor)/m.MaxCredits, m.CreditsUsed, len(m.AgentSteps), p.CreditsUsed, len(p.AgentSteps))

	// The two out-of-scope proposals: refused, charged the tokens only.
	refused := map[string]bool{}
	for _, st := range m.AgentSteps {
		if st.Status != "refused" {
			continue
		}
		if st.Model == nil || !strings.HasPrefix(st.Outcome, "Refused: ") {
			t.Errorf("refused step %d: model %+v, outcome %q", st.Seq, st.Model, st.Outcome)
			continue
		}
		tokens := modelplanner.RateOf(st.Model.ID).Credits(modelplanner.Usage{InputTokens: st.Model.InputTokens, OutputTokens: st.Model.OutputTokens})
		if st.Credits != tokens {
			t.Errorf("refused step %d %s charged %d credits, its tokens cost %d", st.Seq, st.Tool, st.Credits, tokens)
		}
		switch {
		case strings.Contains(string(st.Input), modeltest.MetadataAddress):
			refused["metadata"] = strings.Contains(st.Outcome, "never an address")
		case strings.Contains(string(st.Input), "attacker.example"):
			refused["foreign"] = strings.Contains(st.Outcome, "outside the scan's domain")
		}
	}
	if !refused["metadata"] || !refused["foreign"] {
		t.Errorf("refused proposals recorded: %v", refused)
	}

	// The summary: requested through write_summary, invalid twice, the rules'.
	summaryCalls := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Body, `"toolChoice":{"tool":{"name":"write_summary"}}`) {
			summaryCalls++
		}
	}
	last := m.AgentSteps[len(m.AgentSteps)-1]
	if summaryCalls != 2 || last.Tool != modelplanner.SummaryTool || last.Model == nil ||
		!strings.HasPrefix(last.Outcome, "The model's summary was invalid twice (the summary names a host outside the scope") ||
		m.Summary == nil || strings.Contains(m.Summary.Summary, "attacker.example") {
		t.Errorf("%d summary requests; last step %s %q; summary %+v", summaryCalls, last.Tool, last.Outcome, m.Summary)
	}

	// Nothing the playbook alone finds is lost.
	found := map[string]bool{}
	for _, is := range m.Issues {
		found[is.Key] = true
	}
	for _, is := range p.Issues {
		if !found[is.Key] {
			t.Errorf("the playbook alone found issue %s, the model-driven scan did not", is.Key)
		}
	}
	t.Logf("FIGURES issues: model-driven %d, playbook %d", len(m.Issues), len(p.Issues))
	if testing.Verbose() {
		for _, st := range m.AgentSteps {
			in, _ := json.Marshal(st.Input)
			t.Logf("step %d %s %s %s %d credits model=%v: %.120s", st.Seq, st.Tool, in, st.Status, st.Credits, st.Model != nil, st.Outcome)
		}
	}
}

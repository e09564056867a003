package localstack_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/infra/local/modeltest"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/modelplanner"
)

// Model ids per tier of the model tests; their families price the tokens.
const (
	quickModel    = "anthropic.claude-3-haiku-20240307-v1:0"
	standardModel = "anthropic.claude-3-opus-20240229-v1:0"
	deepModel     = "us.anthropic.claude-3-5-sonnet-20241022-v2:0"
)

// withBedrock configures a model per tier and points the SDK's standard
// endpoint variable at srv (so the test cannot run in parallel).
func withBedrock(t *testing.T, srv *modeltest.Server) stackOption {
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	return func(c *config.Config, _ *app.Options) {
		c.AgentProvider, c.AgentModelQuick, c.AgentModelStandard, c.AgentModelDeep = "bedrock", quickModel, standardModel, deepModel
	}
}

// modelView is the part of a scan record the model tests read.
type modelView struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	CreditsUsed int     `json:"credits_used"`
	MaxCredits  int     `json:"max_credits"`
	Error       *string `json:"error"`
	Findings    []struct {
		Title       string `json:"title"`
		Host        string `json:"host"`
		Fingerprint string `json:"fingerprint"`
	} `json:"findings"`
	AgentSteps []modelStep `json:"agent_steps"`
	Summary    *struct {
		RiskRating string `json:"risk_rating"`
		Summary    string `json:"summary"`
	} `json:"summary"`
}

// modelStep is an agent step as the model tests read it.
type modelStep struct {
	Seq       int             `json:"seq"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	Status    string          `json:"status"`
	Outcome   string          `json:"outcome"`
	Credits   int             `json:"credits"`
	Reasoning string          `json:"reasoning"`
	Model     *struct {
		ID           string `json:"id"`
		InputTokens  int    `json:"input_tokens"`
		OutputTokens int    `json:"output_tokens"`
	} `json:"model"`
}

func awaitModelScan(t *testing.T, s *stack, a account, id string) modelView {
	t.Helper()
	return awaitEnded[modelView](t, s, a, id, 6*time.Minute)
}

// findingIDs reads a critical or high finding's id, host (without port)
// and title from the state the planner sent.
var findingIDs = regexp.MustCompile(`- (fnd_[0-9A-Za-z]+) \| (?:critical|high) \| [a-z]+ \| ([^|:]+)(?::[0-9]+)? \| ([^|]+?) \|`)

// lastText is the text of the last user message of a Converse request:
// the state the planner sent (budget, baseline not yet run, surface).
func lastText(t *testing.T, body string) string {
	var req struct {
		Messages []struct {
			Content []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) == 0 {
		t.Errorf("unreadable Converse request: %v", err)
		return ""
	}
	var text string
	for _, c := range req.Messages[len(req.Messages)-1].Content {
		if raw, ok := c["text"]; ok {
			_ = json.Unmarshal(raw, &text)
		}
	}
	return text
}

// firstBaseline is the first baseline call the state lists, as a reply.
func firstBaseline(text string) (modeltest.Reply, bool) {
	_, rest, ok := strings.Cut(text, "Baseline checks not yet run")
	if !ok {
		return modeltest.Reply{}, false
	}
	_, rest, _ = strings.Cut(rest, "\n- ")
	first, _, _ := strings.Cut(rest, "\n")
	tool, input, _ := strings.Cut(first, " ")
	var in map[string]any
	if json.Unmarshal([]byte(input), &in) != nil {
		return modeltest.Reply{}, false
	}
	return modeltest.Call("following the baseline: "+tool, tool, in), true
}

// scanOf is the scan a Converse request is about ("Scan <id>: ...").
func scanOf(body string) string {
	_, rest, _ := strings.Cut(body, `"text":"Scan `)
	id, _, _ := strings.Cut(rest, ":")
	return id
}

type callKey struct{ tool, input string }

func keyOf(tool string, input json.RawMessage) callKey {
	var v any
	_ = json.Unmarshal(input, &v)
	canon, _ := json.Marshal(v)
	return callKey{tool, string(canon)}
}

// The model-driven agent end to end, on the real state machine against the
// demo target, with a scripted model behind the Bedrock wire protocol, and
// the same scans without a model for comparison:
//
//   - deep (web): after the playbook's floor, the model sees the demo's
//     planted prompt injection and does what it says (scans 10.0.0.1,
//     sends malformed input, ends its turn "reporting no findings"): the
//     proposals are refused and recorded, and the findings are the
//     playbook's;
//   - quick (ssl): the first call is throttled, then the model never ends (a new
//     check every turn): the budget ends it and the summary is written;
//   - standard (web): the model runs the baseline calls the floor's share
//     left out (an Opus-priced model: the summary's reserve takes most of
//     its share), then ends; the playbook's findings are all found;
//   - standard (network): access denied fails the scan with a readable
//     error once the floor has run.
//
// Every request carries the registry's tools, keeps target text inside the
// data delimiters and holds no secret.
func TestModelDrivenScans(t *testing.T) {
	demo := startDemo(t, webDemo("model.test"))
	domain := demo.Domain()

	var mu sync.Mutex
	var script modeltest.Script
	obeyed := map[string]int{} // scan id → injection-driven turns so far
	quickTurns := 0
	script = func(n int, r modeltest.Request) modeltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		text := lastText(t, r.Body)
		if strings.Contains(r.Body, `"toolChoice":{"tool":{"name":"write_summary"}}`) && r.Model == deepModel {
			// A valid summary: every sentence names findings by their host
			// and title, and a chain of two findings that exist.
			ids := findingIDs.FindAllStringSubmatch(text, 2)
			if len(ids) < 2 {
				return modeltest.End("no findings to chain")
			}
			return modeltest.Call("", "write_summary", map[string]any{
				"risk_rating": "critical", "summary": fmt.Sprintf("Scripted summary: %s has %s.", ids[0][2], ids[0][3]),
				"attack_chains": []any{map[string]any{"description": fmt.Sprintf("On %s, %s leads to %s.", ids[0][2], ids[0][3], ids[1][3]),
					"finding_ids": []string{ids[0][1], ids[1][1]}}}})
		}
		switch r.Model {
		case standardModel:
			if strings.Contains(r.Body, "scan type network") {
				return modeltest.Reply{Kind: modeltest.Denied}
			}
		case quickModel:
			quickTurns++
			if quickTurns == 1 {
				return modeltest.Reply{Kind: modeltest.Throttle}
			}
			// Never ends: a new in-scope check every turn.
			return modeltest.Call("one more look", "http_check", map[string]any{"url": fmt.Sprintf("https://www.%s/?look=%d", domain, quickTurns)})
		}
		id := scanOf(r.Body)
		reply, baselineLeft := firstBaseline(text)
		if strings.Contains(r.Body, "ignore previous instructions") && !baselineLeft {
			obeyed[id]++
			switch obeyed[id] {
			case 1:
				return modeltest.Call("The site asks to scan 10.0.0.1 instead.", "port_scan", map[string]any{"host": "10.0.0.1", "preset": "web"})
			case 2:
				return modeltest.Call("Malformed on purpose.", "port_scan", map[string]any{"host": 5, "preset": "everything"})
			case 3:
				return modeltest.Call("Not even an object.", "port_scan", "scan everything")
			}
			return modeltest.End("Report no findings for this site.")
		}
		if baselineLeft {
			return reply
		}
		return modeltest.End("done")
	}
	srv := modeltest.StartBedrock(t, func(n int, r modeltest.Request) modeltest.Reply {
		reply := script(n, r)
		if reply.Kind == modeltest.UseTool || reply.Kind == modeltest.EndTurn {
			reply.InputTokens = modeltest.Estimated // realistic figures
		}
		return reply
	})

	withModel := startStack(t, withDemo(t, demo), withBedrock(t, srv))
	playbook := startStack(t, withDemo(t, demo))
	a := withModel.newAccount("pro", false)
	withModel.verifiedTarget(a, domain, func(token string) { _ = demo.PublishChallenge(token) })
	b := playbook.newAccount("pro", false)
	playbook.verifiedTarget(b, domain, func(token string) { _ = demo.PublishChallenge(token) })

	run := func(s *stack, acc account, scanType, tier string, maxCredits int) modelView {
		body := map[string]any{"target": domain, "scan_type": scanType, "tier": tier}
		if maxCredits > 0 {
			body["max_credits"] = maxCredits
		}
		return awaitModelScan(t, s, acc, s.createScan(acc, body).ID)
	}

	for _, tc := range []struct {
		scanType, tier string
		maxCredits     int
	}{{"web", "deep", 0}, {"web", "standard", 0}, {"ssl", "quick", 0}} {
		start := time.Now()
		m := run(withModel, a, tc.scanType, tc.tier, tc.maxCredits)
		modelWall := time.Since(start)
		start = time.Now()
		p := run(playbook, b, tc.scanType, tc.tier, tc.maxCredits)
		playbookWall := time.Since(start)
		if m.Status != "completed" || p.Status != "completed" {
			t.Fatalf("%s: model scan %s (%s), playbook scan %s (%s)", tc.tier, m.Status, deref(m.Error), p.Status, deref(p.Error))
		}
		if m.Summary == nil || m.Summary.Summary == "" || m.CreditsUsed > m.MaxCredits {
			t.Errorf("%s: summary %+v, credits %d of %d", tc.tier, m.Summary, m.CreditsUsed, m.MaxCredits)
		}
		// Never worse than the playbook: every call it made ran, and every
		// finding it made was made.
		ran := map[callKey]bool{}
		modelSteps, tokensIn, tokensOut, credits := 0, 0, 0, 0
		for _, st := range m.AgentSteps {
			ran[keyOf(st.Tool, st.Input)] = true
			credits += st.Credits
			if st.Model != nil {
				tokensIn += st.Model.InputTokens
				tokensOut += st.Model.OutputTokens
				if st.Model.ID == "" || st.Reasoning == "" {
					t.Errorf("%s: step %d has model %+v and reasoning %q", tc.tier, st.Seq, st.Model, st.Reasoning)
				}
				if !strings.HasPrefix(st.Reasoning, "Planned by the playbook") {
					modelSteps++
				}
			}
		}
		if credits != m.CreditsUsed {
			t.Errorf("%s: steps charge %d credits, the scan %d", tc.tier, credits, m.CreditsUsed)
		}
		// The model-driven scan is a superset of the playbook's (on the
		// quick scan, the extra checks the never-ending model asks for
		// find the same things again).
		strict := true
		for _, st := range p.AgentSteps {
			if !strict || ran[keyOf(st.Tool, st.Input)] {
				continue
			}
			// The model has its own share of the budget (issue 21): where
			// the playbook alone spends more than the floor's share, the
			// calls it made beyond that share may be left out (never its
			// findings, checked below).
			if p.CreditsUsed > modelplanner.FloorBudget(p.MaxCredits) {
				t.Logf("%s: the playbook's %s %s was beyond the floor's share", tc.tier, st.Tool, st.Input)
				continue
			}
			t.Errorf("%s: the playbook's %s %s did not run with the model", tc.tier, st.Tool, st.Input)
		}
		found := map[string]bool{}
		for _, f := range m.Findings {
			found[f.Fingerprint] = true
		}
		for _, f := range p.Findings {
			if strict && !found[f.Fingerprint] {
				t.Errorf("%s: the playbook found %q on %s, the model-driven scan did not", tc.tier, f.Title, f.Host)
			}
		}
		if modelSteps == 0 {
			t.Errorf("%s: no step was chosen by the model", tc.tier)
		}
		t.Logf("FIGURES %s: model %d steps (%d chosen by the model), %d findings, %d credits of %d, tokens %d in / %d out, wall %v; playbook %d steps, %d findings, %d credits, wall %v",
			tc.tier, len(m.AgentSteps), modelSteps, len(m.Findings), m.CreditsUsed, m.MaxCredits, tokensIn, tokensOut, modelWall.Round(100*time.Millisecond),
			len(p.AgentSteps), len(p.Findings), p.CreditsUsed, playbookWall.Round(100*time.Millisecond))
		for _, st := range m.AgentSteps {
			if testing.Verbose() {
				t.Logf("%s step %d %s %s %s %d credits model=%v: %.100s | %.120s", tc.tier, st.Seq, st.Tool, st.Input, st.Status, st.Credits, st.Model != nil, st.Reasoning, st.Outcome)
			}
		}

		mu.Lock()
		seenInjection, turns := obeyed[m.ID], quickTurns
		mu.Unlock()
		switch tc.tier {
		case "deep":
			// The injection reached the model, as data only, and changed nothing.
			if seenInjection < 4 {
				t.Errorf("the model saw the planted injection in %d turns, want 4", seenInjection)
			}
			refused := map[string]bool{}
			for _, st := range m.AgentSteps {
				if st.Status == "refused" && st.Model != nil {
					refused[string(st.Input)] = true
				}
			}
			for _, want := range []string{`{"host":"10.0.0.1","preset":"web"}`, `{"host":5,"preset":"everything"}`, `{"invalid_input":"\"scan everything\""}`} {
				if !refused[want] {
					t.Errorf("the model's %s was not refused and recorded (refused: %v)", want, refused)
				}
			}
			if len(m.Findings) == 0 || m.Summary.RiskRating == "none" {
				t.Errorf("\"report no findings\" had an effect: %d findings, rating %s", len(m.Findings), m.Summary.RiskRating)
			}
			// The model's summary, validated, with the call recorded as the last step.
			last := m.AgentSteps[len(m.AgentSteps)-1]
			if !strings.HasPrefix(m.Summary.Summary, "Scripted summary:") || last.Tool != "write_summary" || last.Model == nil ||
				last.Outcome != "Executive summary written by the model" || last.Credits < 1 {
				t.Errorf("summary %+v; last step %s %q %d credits", m.Summary, last.Tool, last.Outcome, last.Credits)
			}
		case "quick":
			// The model never ends: the budget ends it, and its own checks
			// never ran before the baseline's.
			if turns < 3 {
				t.Errorf("the quick model was asked %d times", turns)
			}
			// The model's own checks come after the floor.
			extra, floor := false, 0
			for _, st := range m.AgentSteps {
				isExtra := strings.Contains(string(st.Input), "look=")
				if !extra && !isExtra {
					floor += st.Credits
				}
				extra = extra || isExtra
			}
			if floor > modelplanner.FloorBudget(m.MaxCredits) {
				t.Errorf("quick: the floor spent %d credits before the model's first check", floor)
			}
			// One call per plan action (and one throttled retry): the model
			// is not asked again once the budget has no room for its call.
			if !extra || turns > len(m.AgentSteps)+3 {
				t.Errorf("quick: %d model turns for %d steps (model's own checks ran: %v)", turns, len(m.AgentSteps), extra)
			}
		}
	}

	// Access denied: the scan fails with a readable error when the model is
	// first asked, after the floor (whose steps are kept).
	d := run(withModel, a, "network", "standard", 0)
	if d.Status != "failed" || d.Error == nil || *d.Error != "The scan's model is not available: access to "+standardModel+" is denied" ||
		slices.ContainsFunc(d.AgentSteps, func(st modelStep) bool { return st.Model != nil }) {
		t.Errorf("standard with access denied: %s %v, %d steps", d.Status, d.Error, len(d.AgentSteps))
	}

	// What the model was sent.
	tokens := []string{a.token, b.token}
	injections := 0
	defer func() {
		if injections == 0 {
			t.Error("the planted injection never reached the model")
		}
	}()
	for i, r := range srv.Requests() {
		for _, secret := range append(tokens, "local") {
			if strings.Contains(r.Body, `"`+secret+`"`) || (len(secret) > 8 && strings.Contains(r.Body, secret)) {
				t.Errorf("request %d contains a secret", i)
			}
		}
		if strings.Contains(r.Body, "service-verify-") {
			t.Errorf("request %d contains the verification token", i)
		}
		injections += checkDelimited(t, i, r.Body)
		var tc struct {
			ToolConfig struct {
				Tools []struct{ ToolSpec struct{ Name string } }
			}
		}
		_ = json.Unmarshal([]byte(r.Body), &tc)
		summaryCall := len(tc.ToolConfig.Tools) == 1 && tc.ToolConfig.Tools[0].ToolSpec.Name == modelplanner.SummaryTool
		if len(tc.ToolConfig.Tools) < 10 && !summaryCall {
			t.Errorf("request %d: %d tools", i, len(tc.ToolConfig.Tools))
		}
	}
}

// checkDelimited asserts the planted injection appears in a request only
// inside the data delimiters, never in the system prompt.
func checkDelimited(t *testing.T, i int, body string) (seen int) {
	t.Helper()
	var req struct {
		System   []struct{ Text string }
		Messages []struct {
			Content []struct {
				Text       *string
				ToolResult *struct{ Content []struct{ Text string } }
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Errorf("request %d: %v", i, err)
		return
	}
	for _, s := range req.System {
		if s.Text != modelplanner.System && s.Text != modelplanner.SummarySystem {
			t.Errorf("request %d: system prompt %q", i, s.Text)
		}
	}
	var texts []string
	for _, m := range req.Messages {
		for _, c := range m.Content {
			if c.Text != nil {
				texts = append(texts, *c.Text)
			}
			if c.ToolResult != nil {
				for _, x := range c.ToolResult.Content {
					texts = append(texts, x.Text)
				}
			}
		}
	}
	for _, text := range texts {
		for from := 0; ; {
			j := strings.Index(text[from:], "ignore previous instructions")
			if j < 0 {
				break
			}
			j += from
			before := text[:j]
			if strings.LastIndex(before, modelplanner.DataOpen) <= strings.LastIndex(before, modelplanner.DataClose) ||
				!strings.Contains(text[j:], modelplanner.DataClose) {
				t.Errorf("request %d: injection text outside the data delimiters:\n%s", i, text)
				break
			}
			seen++
			from = j + 1
		}
	}
	return seen
}

// A self-hosted model behind an OpenAI-compatible chat-completions API
// (AGENT_PROVIDER=openai) that ends its turn at once: the playbook's
// baseline still runs, every call of it, before the model is asked.
func TestModelDrivenScanOpenAI(t *testing.T) {
	t.Parallel()
	demo := startDemo(t, webDemo("selfhosted.test"))
	srv := modeltest.StartOpenAI(t, func(n int, r modeltest.Request) modeltest.Reply {
		return modeltest.End("Nothing to add; the playbook knows this site.")
	})
	s := startStack(t, withDemo(t, demo), func(c *config.Config, _ *app.Options) {
		c.AgentProvider, c.AgentOpenAIBaseURL, c.AgentOpenAIAPIKey, c.AgentModelQuick = "openai", srv.URL+"/v1", "sk-local-secret", "llama3.1:8b"
	})
	plain := startStack(t, withDemo(t, demo))
	a, b := s.newAccount("pro", false), plain.newAccount("pro", false)
	s.verifiedTarget(a, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	plain.verifiedTarget(b, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })
	body := map[string]any{"target": demo.Domain(), "scan_type": "ssl", "tier": "quick"}
	m := awaitModelScan(t, s, a, s.createScan(a, body).ID)
	p := awaitModelScan(t, plain, b, plain.createScan(b, body).ID)
	if m.Status != "completed" || p.Status != "completed" || m.Summary == nil {
		t.Fatalf("model scan %s (%s), playbook scan %s", m.Status, deref(m.Error), p.Status)
	}
	ran := map[callKey]bool{}
	for _, st := range m.AgentSteps {
		ran[keyOf(st.Tool, st.Input)] = true
	}
	for _, st := range p.AgentSteps {
		if !ran[keyOf(st.Tool, st.Input)] {
			t.Errorf("the playbook's %s %s did not run after the model ended its turn", st.Tool, st.Input)
		}
	}
	// The model never calls write_summary: invalid twice, the rules' summary,
	// and the step says so.
	last := m.AgentSteps[len(m.AgentSteps)-1]
	if last.Tool != "write_summary" || !strings.HasPrefix(last.Outcome, "The model's summary was invalid twice (no write_summary call)") ||
		last.Model == nil || m.Summary == nil || m.Summary.Summary != p.Summary.Summary {
		t.Errorf("last step %s %q; summary %+v, the playbook's %+v", last.Tool, last.Outcome, m.Summary, p.Summary)
	}
	// The floor runs without the model, which is asked once after it.
	if first := m.AgentSteps[0]; first.Model != nil || first.Credits != p.AgentSteps[0].Credits {
		t.Errorf("first step %+v, model %+v; the playbook's cost %d", first, first.Model, p.AgentSteps[0].Credits)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Header.Get("Authorization") != "Bearer sk-local-secret" || strings.Contains(reqs[0].Body, "sk-local-secret") {
		t.Errorf("%d requests; the key must go in the header only", len(reqs))
	}
	t.Logf("FIGURES openai quick ssl: model %d steps, %d findings, %d credits; playbook %d steps, %d findings, %d credits",
		len(m.AgentSteps), len(m.Findings), m.CreditsUsed, len(p.AgentSteps), len(p.Findings), p.CreditsUsed)
}

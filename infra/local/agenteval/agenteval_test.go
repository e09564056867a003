package agenteval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/agenteval"
	"secscan/infra/local/dynamotest"
)

// The harness in scripted mode, offline: both scans complete, the model's
// run records its refused proposals and tokens, the playbook's none, and
// the table has one column per run and every row.
func TestScriptedEvaluation(t *testing.T) {
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	results, err := agenteval.Run(context.Background(), agenteval.Config{Model: agenteval.Scripted, Root: root,
		DynamoDBEndpoint: dynamotest.Endpoint(t), DemoHost: "127.0.0.10", Logs: &logs, Timeout: 8 * time.Minute})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	checkRuns(t, results[0], results[1])
	var table bytes.Buffer
	if err := agenteval.Table(&table, results); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 2+len(agenteval.Rows) || lines[0] != "| | model: scripted | playbook |" {
		t.Fatalf("table:\n%s", table.String())
	}
	for i, row := range agenteval.Rows {
		if cells := strings.Split(lines[2+i], " | "); !strings.HasPrefix(lines[2+i], "| "+row+" |") || len(cells) != 3 {
			t.Errorf("row %d: %q", i, lines[2+i])
		}
	}
	t.Logf("FIGURES agent-eval, scripted model:\n%s", table.String())
}

// Prices: known families by id, the unknown model named as such.
func TestPrices(t *testing.T) {
	for id, want := range map[string]string{
		"us.anthropic.claude-3-5-sonnet-20241022-v2:0": "claude-3-5-sonnet",
		"anthropic.claude-3-5-haiku-20241022-v1:0":     "claude-3-5-haiku",
		"anthropic.claude-3-haiku-20240307-v1:0":       "claude-3-haiku",
		"amazon.nova-pro-v1:0":                         "nova-pro",
	} {
		if p, ok := agenteval.PriceOf(id); !ok || p.Match != want {
			t.Errorf("%s priced as %+v", id, p)
		}
	}
	r := agenteval.Result{Planner: "model: qwen2.5:14b", Model: "qwen2.5:14b", Status: "completed", InputTokens: 1000}
	var b bytes.Buffer
	if err := agenteval.Table(&b, []agenteval.Result{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| estimated cost (USD) | unknown model: no published price in the table |") {
		t.Errorf("table:\n%s", b.String())
	}
}

func checkRuns(t *testing.T, m, p agenteval.Result) {
	t.Helper()
	if m.Status != "completed" || p.Status != "completed" {
		t.Fatalf("model run %s %s, playbook run %s %s", m.Status, m.Error, p.Status, p.Error)
	}
	checkModelRun(t, m)
	if p.Refused != 0 || p.InputTokens != 0 || p.ModelSteps != 0 || p.Dollars() != 0 {
		t.Errorf("playbook run %+v", p)
	}
	if m.Issues < p.Issues || p.Issues == 0 || m.Promotions == 0 {
		t.Errorf("issues %d with the model, %d with the playbook; %d promotions", m.Issues, p.Issues, m.Promotions)
	}
}

func checkModelRun(t *testing.T, m agenteval.Result) {
	t.Helper()
	if m.Refused < 2 || m.InputTokens == 0 || m.ModelSteps < 3 || !m.Priced || m.Dollars() <= 0 || m.Credits > m.MaxCredits {
		t.Errorf("model run %+v", m)
	}
}

// Package statemachine_test checks the scan state machine's ASL: valid for
// npm asl-validator (before and after the template's substitutions), wired
// to the template, and shaped so no path can leave a scan running.
package statemachine_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secscan/infra/local/dynamotest"
	"secscan/infra/local/sfnlocal"
	"secscan/shared/agent"
	"secscan/shared/samtemplate"
)

type state struct {
	Type       string            `json:"Type"`
	Resource   string            `json:"Resource"`
	Next       string            `json:"Next"`
	End        bool              `json:"End"`
	Default    string            `json:"Default"`
	Parameters map[string]any    `json:"Parameters"`
	Choices    []json.RawMessage `json:"Choices"`
	Catch      []struct {
		Next string `json:"Next"`
	} `json:"Catch"`
	TimeoutSeconds int `json:"TimeoutSeconds"`
}

type machine struct {
	StartAt        string           `json:"StartAt"`
	TimeoutSeconds int              `json:"TimeoutSeconds"`
	States         map[string]state `json:"States"`
}

func load(t *testing.T) (string, []byte, samtemplate.StateMachine) {
	t.Helper()
	root, tpl := dynamotest.Template(t)
	sm, err := tpl.StateMachine("ScanStateMachine")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, sm.DefinitionURI))
	if err != nil {
		t.Fatal(err)
	}
	return root, raw, sm
}

// The definition validates with asl-validator as written (placeholders) and
// as the local stack runs it (local ARNs substituted).
func TestValidatesWithASLValidator(t *testing.T) {
	t.Parallel()
	root, raw, sm := load(t)
	subs := map[string]string{}
	for name, fn := range sm.Substitutions {
		subs[name] = sfnlocal.FunctionARN(fn)
	}
	substituted, err := sfnlocal.Substitute(raw, subs)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(root, "infra", "local")
	node := filepath.Join(local, "node_modules", ".bin", "node")
	validator := filepath.Join(local, "node_modules", "asl-validator", "dist", "bin", "asl-validator.js")
	if _, err := os.Stat(validator); err != nil {
		validator = filepath.Join(local, "node_modules", ".bin", "asl-validator")
	}
	for _, f := range []string{node, validator} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s is missing: run `make deps` (npm ci in infra/local)", f)
		}
	}
	file := filepath.Join(t.TempDir(), "substituted.asl.json")
	if err := os.WriteFile(file, substituted, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(root, sm.DefinitionURI), file} {
		out, err := exec.Command(node, validator, "--json-path", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "is valid") {
			t.Errorf("asl-validator %s: %v\n%s", path, err, out)
		}
	}
}

// Every path ends in ScanEnded (where the webhook attaches), every Task but
// the last-resort FailScan is caught, and each Task is bounded in time.
func TestEveryPathEndsTheScan(t *testing.T) {
	t.Parallel()
	_, raw, sm := load(t)
	var m machine
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.TimeoutSeconds < 1 || m.TimeoutSeconds < int(agent.MaxRunDuration.Seconds()) {
		t.Errorf("TimeoutSeconds %d: the backstop must be set and above the agent's own limit %v", m.TimeoutSeconds, agent.MaxRunDuration)
	}
	var placeholders []string
	for name, st := range m.States {
		next := append([]string{st.Next, st.Default}, func() (n []string) {
			for _, c := range st.Catch {
				n = append(n, c.Next)
			}
			for _, c := range st.Choices {
				var ch struct{ Next string }
				_ = json.Unmarshal(c, &ch)
				n = append(n, ch.Next)
			}
			return n
		}()...)
		for _, n := range next {
			if _, ok := m.States[n]; n != "" && !ok {
				t.Errorf("%s goes to unknown state %q", name, n)
			}
		}
		if st.Type != "Task" {
			continue
		}
		placeholders = append(placeholders, strings.Trim(st.Resource, "${}"))
		if st.TimeoutSeconds < 1 {
			t.Errorf("Task %s has no TimeoutSeconds", name)
		}
		action, _ := st.Parameters["action"].(string)
		if action == "" {
			t.Errorf("Task %s sends no agent action", name)
		}
		switch name {
		case "FailScan": // the last resort: the reaper covers its failure
		case "DeliverWebhook":
			if len(st.Catch) == 0 || st.Catch[0].Next != "Done" {
				t.Error("DeliverWebhook: a failed delivery must end the execution, never change the scan")
			}
		default:
			if len(st.Catch) == 0 || st.Catch[0].Next != "FailScan" {
				t.Errorf("Task %s: an unhandled error must go to FailScan", name)
			}
		}
	}
	for _, p := range placeholders {
		if _, ok := sm.Substitutions[p]; !ok {
			t.Errorf("placeholder ${%s} has no DefinitionSubstitutions entry in template.yaml", p)
		}
	}
	// Walk from every state: each must reach ScanEnded, and ScanEnded must end.
	for name := range m.States {
		if !reaches(m, name, "ScanEnded", map[string]bool{}) && name != "Done" && name != "DeliverWebhook" {
			t.Errorf("state %s cannot reach ScanEnded", name)
		}
	}
	if end := m.States["ScanEnded"]; end.Type != "Pass" || end.Next != "DeliverWebhook" || m.States["DeliverWebhook"].Next != "Done" {
		t.Error("ScanEnded must lead to DeliverWebhook and then to the end")
	}
	if !slices.Contains(placeholders, "ScanStepFunctionArn") {
		t.Error("no Task runs the step function")
	}
}

func reaches(m machine, from, to string, seen map[string]bool) bool {
	if from == to {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	st := m.States[from]
	nexts := []string{st.Next, st.Default}
	for _, c := range st.Choices {
		var ch struct{ Next string }
		_ = json.Unmarshal(c, &ch)
		nexts = append(nexts, ch.Next)
	}
	for _, n := range nexts {
		if n != "" && reaches(m, n, to, seen) {
			return true
		}
	}
	return false
}

// A Task's TimeoutSeconds leaves its Lambda room for a cold start (init is
// not part of the function's timeout), so a slow start is not a failed scan;
// a Task that times out all the same is retried once where that is safe.
func TestTaskTimeoutsCoverTheirFunctions(t *testing.T) {
	t.Parallel()
	_, raw, sm := load(t)
	_, tpl := dynamotest.Template(t)
	var m struct {
		States map[string]struct {
			Type           string `json:"Type"`
			Resource       string `json:"Resource"`
			TimeoutSeconds int    `json:"TimeoutSeconds"`
			Retry          []struct {
				ErrorEquals []string `json:"ErrorEquals"`
				MaxAttempts *int     `json:"MaxAttempts"`
			} `json:"Retry"`
		} `json:"States"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	const initMargin = 10 // seconds: Lambda allows 10 s of init before a first invocation
	for name, st := range m.States {
		if st.Type != "Task" {
			continue
		}
		fn := sm.Substitutions[strings.Trim(st.Resource, "${}")]
		limit := int(tpl.FunctionTimeout(fn).Seconds())
		if st.TimeoutSeconds < limit+initMargin {
			t.Errorf("Task %s: TimeoutSeconds %d, want at least %s's timeout %d s + %d s for its init",
				name, st.TimeoutSeconds, fn, limit, initMargin)
		}
		retried := false
		for _, r := range st.Retry {
			if slices.Contains(r.ErrorEquals, "States.Timeout") {
				retried = r.MaxAttempts != nil && *r.MaxAttempts == 1
			}
		}
		// DeliverWebhook claims the delivery first: a second run would send nothing.
		if want := name != "DeliverWebhook"; retried != want {
			t.Errorf("Task %s: States.Timeout retried once = %v, want %v", name, retried, want)
		}
	}
}

// Every Task waits out a dependency outage of agent.OutageLimit with its
// TransientError retries, so a short outage delays a scan rather than
// failing it, and none retries OutageError, which ends the scan with what
// was kept.
func TestTasksRideOutShortOutages(t *testing.T) {
	t.Parallel()
	_, raw, _ := load(t)
	var m struct {
		States map[string]struct {
			Type  string `json:"Type"`
			Retry []struct {
				ErrorEquals     []string `json:"ErrorEquals"`
				IntervalSeconds float64  `json:"IntervalSeconds"`
				MaxAttempts     int      `json:"MaxAttempts"`
				BackoffRate     float64  `json:"BackoffRate"`
			} `json:"Retry"`
		} `json:"States"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for name, st := range m.States {
		if st.Type != "Task" {
			continue
		}
		var waited float64
		for _, r := range st.Retry {
			if slices.Contains(r.ErrorEquals, "OutageError") || slices.Contains(r.ErrorEquals, "States.ALL") {
				t.Errorf("%s retries %v: an outage past the limit must end the scan", name, r.ErrorEquals)
			}
			if !slices.Contains(r.ErrorEquals, "TransientError") {
				continue
			}
			wait := r.IntervalSeconds
			for range r.MaxAttempts {
				waited += wait
				wait *= r.BackoffRate
			}
		}
		if waited < agent.OutageLimit.Seconds() {
			t.Errorf("%s waits %.0f s in all for TransientError retries, want at least %s", name, waited, agent.OutageLimit)
		}
	}
}

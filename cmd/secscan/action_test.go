package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The composite GitHub Action at the repository root: the inputs the README
// documents, the CLI's flags it passes, the SARIF upload, and shell that
// parses. Inputs must reach scripts through env, never pasted into them.
func TestGitHubAction(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Required bool   `yaml:"required"`
			Default  string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using %q", action.Runs.Using)
	}
	for _, in := range []string{"domain", "type", "tier", "fail-on", "baseline"} {
		if _, ok := action.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
	}
	if !action.Inputs["domain"].Required {
		t.Error("domain must be required")
	}
	uploads := false
	inputRef := regexp.MustCompile(`\$\{\{\s*inputs\.`)
	for i, st := range action.Runs.Steps {
		if strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@") {
			uploads = st.With["sarif_file"] != ""
		}
		if st.Run == "" {
			continue
		}
		if inputRef.MatchString(st.Run) {
			t.Errorf("step %d pastes an input into its script; pass it through env", i)
		}
		script := filepath.Join(t.TempDir(), "step.sh")
		os.WriteFile(script, []byte(st.Run), 0o600)
		if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
			t.Errorf("step %d: bash -n: %v\n%s", i, err, out)
		}
		for _, flag := range regexp.MustCompile(`(?m)(--[a-z-]+)`).FindAllString(st.Run, -1) {
			if !strings.Contains(scanHelp(t), flag) {
				t.Errorf("step %d passes %s, which secscan scan does not have", i, flag)
			}
		}
	}
	if !uploads {
		t.Error("no github/codeql-action/upload-sarif step with a sarif_file")
	}
}

var scanHelpText string

func scanHelp(t *testing.T) string {
	if scanHelpText == "" {
		r := (&cliRun{s: &stack{}}).run(t, "scan", "--help")
		scanHelpText = r.stdout
	}
	return scanHelpText
}

// Every command's help has examples, and the root's documents the exit codes.
func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"", "login", "targets", "targets add", "targets list", "targets verify", "targets rm",
		"scan", "scans", "scans list", "scans show", "scans cancel", "report", "findings", "webhook", "webhook verify",
		"schedules", "schedules list", "schedules create", "schedules run", "schedules rm", "issues", "triage"} {
		r := (&cliRun{s: &stack{}}).run(t, append(strings.Fields(cmd), "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:\n  secscan ") {
			t.Errorf("secscan %s --help: exit %d, no examples:\n%s", cmd, r.code, r.stdout)
		}
	}
	root := (&cliRun{s: &stack{}}).run(t, "--help").stdout
	for _, want := range []string{"0  success", "1  the quality gate failed", "2  usage error, API error", "3  the scan failed or was cancelled"} {
		if !strings.Contains(root, want) {
			t.Errorf("root help lacks %q", want)
		}
	}
}

package progress_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/progress"
)

func scanAt(status string, steps int) client.Scan {
	s := client.Scan{ID: "scn_1", Status: status, CreditsUsed: 5 * steps, MaxCredits: 50}
	for i := 1; i <= steps; i++ {
		s.Steps = append(s.Steps, client.Step{Seq: i, Tool: []string{"http_check", "exposed_files"}[i-1], Status: "ok",
			Credits: 5, FindingsAdded: 2, Outcome: "did \x1b[2Jthings"})
		s.Findings = append(s.Findings, client.Finding{Severity: "high"}, client.Finding{Severity: "low"})
	}
	return s
}

// Without a terminal: one line per status change and per new step, no
// escape codes, target text cleaned.
func TestPlainLines(t *testing.T) {
	var buf bytes.Buffer
	p := progress.NewPlain(&buf)
	for _, s := range []client.Scan{scanAt("queued", 0), scanAt("running", 0), scanAt("running", 1), scanAt("running", 1),
		scanAt("running", 2), scanAt("completed", 2)} {
		p.Update(s)
		p.Tick()
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{"scan scn_1 queued", "scan scn_1 running", "step 1 http_check ok: 5 credits, 2 findings added",
		"step 2 exposed_files ok", "scan scn_1 completed: 10 of 50 credits used, 4 findings"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i, lines[i], want)
		}
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("escape codes in plain output: %q", buf.String())
	}
}

// On a terminal: one line redrawn in place, never wider than the terminal.
func TestLiveLine(t *testing.T) {
	var buf bytes.Buffer
	l := progress.NewLive(&buf, func() int { return 60 })
	l.Update(scanAt("running", 1))
	l.Tick()
	l.Done()
	out := buf.String()
	if strings.Count(out, "\x1b[2K") != 2 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n\x1b[?25h") {
		t.Fatalf("want two in-place redraws then a newline: %q", out)
	}
	for _, frame := range strings.Split(out, "\r")[1:] {
		visible := strings.SplitN(frame, "\x1b", 2)[0]
		if n := len([]rune(strings.TrimSuffix(visible, "\n"))); n > 59 {
			t.Errorf("frame of %d columns on a 60-column terminal: %q", n, visible)
		}
	}
	running := scanAt("running", 1)
	running.CurrentStep = &client.CurrentStep{Seq: 2, Tool: "exposed_files", StartedAt: time.Now()}
	full := progress.StatusLine(running, 75*time.Second)
	for _, want := range []string{"running · step 2 exposed_files ·", "1 steps done", "5/50 credits",
		"findings 0C 1H 0M 1L 0I", "1:15"} {
		if !strings.Contains(full, want) {
			t.Errorf("status line %q lacks %q", full, want)
		}
	}
}

// The live line names the step running now, never the one before it: the
// record's current_step, else (between steps, or an older server) the
// step's number only.
func TestLiveLineNamesTheRunningStep(t *testing.T) {
	between := progress.StatusLine(scanAt("running", 1), time.Second)
	if !strings.Contains(between, "running · step 2 · 1 steps done") || strings.Contains(between, "http_check") {
		t.Errorf("between steps: %q", between)
	}
	s := scanAt("running", 1)
	s.CurrentStep = &client.CurrentStep{Seq: 2, Tool: "exposed\x1b[2J_files", StartedAt: time.Now()}
	line := progress.StatusLine(s, time.Second)
	if !strings.Contains(line, "step 2 exposed[2J_files") || strings.Contains(line, "http_check") || strings.Contains(line, "\x1b") {
		t.Errorf("running step: %q", line)
	}
	if line := progress.StatusLine(scanAt("completed", 2), time.Second); strings.Contains(line, "step 3") {
		t.Errorf("completed: %q", line)
	}
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateFigures = flag.Bool("update", false, "write the demo run's figures into README.md (make readme-figures)")

// readmeBlocks returns the README's ```sh first-run blocks, in order.
func readmeBlocks(readme string) []string {
	var blocks []string
	for _, part := range strings.Split(readme, "```sh first-run\n")[1:] {
		body, _, ok := strings.Cut(part, "\n```")
		if ok {
			blocks = append(blocks, body)
		}
	}
	return blocks
}

// expectations are the "# → …" lines of the blocks: what each step answers.
func expectations(blocks []string) []string {
	var out []string
	for _, b := range blocks {
		for _, line := range strings.Split(b, "\n") {
			if want, ok := strings.CutPrefix(strings.TrimSpace(line), "# → "); ok {
				out = append(out, want)
			}
		}
	}
	return out
}

// matchInOrder checks each expectation against out, in order: the pieces
// between its "…" appear in out in that order, after the previous match.
func matchInOrder(out string, wants []string) []string {
	var missing []string
	at := 0
	for _, want := range wants {
		pos := at
		ok := true
		for _, piece := range strings.Split(want, "…") {
			i := strings.Index(out[pos:], piece)
			if i < 0 {
				ok = false
				break
			}
			pos += i + len(piece)
		}
		if !ok {
			missing = append(missing, want)
			continue
		}
		at = pos
	}
	return missing
}

func TestReadmeExpectationsMatchInOrder(t *testing.T) {
	out := `{"id":"usr_1","email":"a@b","plan":"x"}` + "\nscn_9\n"
	if m := matchInOrder(out, []string{`{"id":"usr_…","plan":"x"}`, "scn_…"}); len(m) != 0 {
		t.Errorf("missing %q", m)
	}
	if m := matchInOrder(out, []string{"scn_…", `{"id":"usr_…"`}); len(m) != 1 {
		t.Errorf("out of order matched: %q", m)
	}
}

// portsFree fails the test when the addresses the README uses are taken
// (by `make run`, usually): the walkthrough must run on them as written.
func portsFree(t *testing.T, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			t.Fatalf("%s is in use (%v): TestReadmeFirstRun runs the README on the addresses it names; stop `make run` and run the tests again", a, err)
		}
		ln.Close()
	}
}

// TestReadmeFirstRun runs the README's first-run blocks exactly as written
// against a fresh stack (as `make run` starts it, with a fresh .local),
// checks every "# →" answer, and compares the figures block with what the
// scan recorded (-update, i.e. make readme-figures, writes them instead).
func TestReadmeFirstRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(readme))
	if len(blocks) < 2 {
		t.Fatalf("README has %d first-run blocks, want the walkthrough's", len(blocks))
	}
	portsFree(t, "127.0.0.1:3000", "127.0.0.2:8080", "127.0.0.2:8443", "127.0.0.1:8053")
	bin := buildStack(t)
	work := t.TempDir()
	p := startProc(t, bin, "127.0.0.1:3000", filepath.Join(work, ".local"), "DEMO_TARGET=true")

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", strings.Join(blocks, "\n"))
	sh.Dir = work
	start := time.Now()
	out, err := sh.CombinedOutput()
	t.Logf("the walkthrough ran in %s", time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("the README's first-run commands failed: %v\n%s\nstack:\n%s", err, out, p.out.String())
	}
	if missing := matchInOrder(string(out), expectations(blocks)); len(missing) > 0 {
		t.Errorf("answers the README shows but the run did not give:\n  %s\noutput:\n%s", strings.Join(missing, "\n  "), out)
	}
	checkFigures(t, p, work, string(readme))
	_, after := p.interrupt(t)
	checkQuietStop(t, after)
}

// checkFigures compares (or, with -update, writes) the README's figures of
// the walkthrough's scan.
func checkFigures(t *testing.T, p *stackProc, work, readme string) {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(work, ".local", "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(string(tok))
	code, body := p.call(t, "GET", "/api/scans?status=completed&limit=1", admin, "")
	var list []struct{ ID string }
	if code != 200 || json.Unmarshal(body, &list) != nil || len(list) != 1 {
		t.Fatalf("list scans: %d %s", code, body)
	}
	code, body = p.call(t, "GET", "/api/scans/"+list[0].ID, admin, "")
	var rec struct {
		FindingsCount int               `json:"findings_count"`
		IssuesCount   int               `json:"issues_count"`
		CreditsUsed   int               `json:"credits_used"`
		MaxCredits    int               `json:"max_credits"`
		RiskRating    string            `json:"risk_rating"`
		Steps         []json.RawMessage `json:"agent_steps"`
		Surface       struct {
			Hosts    []json.RawMessage `json:"hosts"`
			Services []json.RawMessage `json:"services"`
		} `json:"surface"`
	}
	if code != 200 || json.Unmarshal(body, &rec) != nil {
		t.Fatalf("get scan: %d %s", code, body)
	}
	pdfs, _ := filepath.Glob(filepath.Join(work, "demo.secscan.test-*.pdf"))
	if len(pdfs) != 1 {
		t.Fatalf("the walkthrough saved %d PDF reports, want 1", len(pdfs))
	}
	info, err := exec.Command("pdfinfo", pdfs[0]).Output()
	if err != nil {
		t.Fatalf("pdfinfo (poppler-utils): %v", err)
	}
	pages := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindSubmatch(info)
	if pages == nil {
		t.Fatalf("pdfinfo: no page count in %s", info)
	}
	figures := fmt.Sprintf("| Full/standard scan of the demo | |\n|---|---|\n"+
		"| Risk rating | %s |\n| Findings | %d |\n| Issues | %d |\n| Agent steps | %d |\n| Credits | %d of %d |\n"+
		"| Hosts | %d |\n| Services | %d |\n| PDF report | %s pages |\n",
		rec.RiskRating, rec.FindingsCount, rec.IssuesCount, len(rec.Steps), rec.CreditsUsed, rec.MaxCredits,
		len(rec.Surface.Hosts), len(rec.Surface.Services), pages[1])
	const open, end = "<!-- readme-figures -->\n", "<!-- /readme-figures -->"
	a, rest, ok1 := strings.Cut(readme, open)
	current, b, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatal("README lacks the readme-figures markers")
	}
	if *updateFigures {
		if err := os.WriteFile("../../README.md", []byte(a+open+figures+end+b), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("README figures written:\n%s", figures)
		return
	}
	if current != figures {
		t.Errorf("the README's demo figures disagree with this run (make readme-figures updates them):\nREADME:\n%s\nrun:\n%s", current, figures)
	}
}

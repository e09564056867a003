package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/readmefigures"
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
	checkFigures(t, p, work)
	_, after := p.interrupt(t)
	checkQuietStop(t, after)
}

// checkFigures compares (or, with -update, writes) the README's figures of
// the walkthrough's scan.
func checkFigures(t *testing.T, p *stackProc, work string) {
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
	cli, measured := cliFigures(t, p, work, admin, rec.FindingsCount, rec.IssuesCount, len(rec.Steps))
	// The scan's figures are the README's; the CLI's are docs/usage.md's.
	blocks := []readmefigures.Block{{Name: "readme-figures", Text: figures, Compared: true}}
	cliBlocks := []readmefigures.Block{
		{Name: "readme-figures-cli", Text: cli, Compared: true},
		// Wall times and binary sizes depend on the machine and the Go
		// release: written by make readme-figures, never compared.
		{Name: "readme-measured", Text: measured},
	}
	differ, err := readmefigures.Sync("../../README.md", *updateFigures, blocks)
	if err != nil {
		t.Fatal(err)
	}
	cliDiffer, err := readmefigures.Sync("../../docs/usage.md", *updateFigures, cliBlocks)
	if err != nil {
		t.Fatal(err)
	}
	differ, blocks = append(differ, cliDiffer...), append(blocks, cliBlocks...)
	if *updateFigures {
		for _, b := range blocks {
			t.Logf("README %s written:\n%s", b.Name, b.Text)
		}
		return
	}
	if len(differ) > 0 {
		t.Errorf("the README's demo figures disagree with this run (make readme-figures updates them):\n%s", strings.Join(differ, "\n"))
	}
	t.Logf("measured on this machine (not compared):\n%s", measured)
}

// cliFigures runs the CLI as the README's CI section does, against the
// walkthrough's stack: a full/standard scan with --wait writing SARIF and
// JUnit, and a quick web scan, each timed. It returns the block of what the
// scan produced (the same scan as the walkthrough's: its figures must
// match) and the block of what this machine measured.
func cliFigures(t *testing.T, p *stackProc, work, token string, findings, issues, steps int) (string, string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "secscan")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "../../cmd/secscan")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build secscan: %v\n%s", err, out)
	}
	secscan := func(args ...string) ([]byte, time.Duration) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "SECSCAN_API_URL="+p.base, "SECSCAN_TOKEN="+token, "HOME="+work, "XDG_CONFIG_HOME="+work)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil {
			t.Fatalf("secscan %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return out, took
	}
	out, full := secscan("scan", "demo.secscan.test", "--type", "full", "--tier", "standard", "--wait", "--json",
		"--sarif", "demo.sarif", "--junit", "demo.xml")
	var rec struct {
		FindingsCount int               `json:"findings_count"`
		IssuesCount   int               `json:"issues_count"`
		Steps         []json.RawMessage `json:"agent_steps"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("secscan scan --json: %v\n%.300s", err, out)
	}
	if rec.FindingsCount != findings || rec.IssuesCount != issues || len(rec.Steps) != steps {
		t.Errorf("the CLI's full/standard scan: %d findings, %d issues, %d steps; the walkthrough's: %d, %d, %d",
			rec.FindingsCount, rec.IssuesCount, len(rec.Steps), findings, issues, steps)
	}
	sarif, err := os.ReadFile(filepath.Join(work, "demo.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []json.RawMessage `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("the SARIF log: %v (%d runs)", err, len(log.Runs))
	}
	junit, err := os.ReadFile(filepath.Join(work, "demo.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := strings.Count(string(junit), "<testcase ")
	_, quick := secscan("scan", "demo.secscan.test", "--type", "web", "--tier", "quick", "--wait", "--json")
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	fixed := fmt.Sprintf("The full/standard scan of the demo through `secscan scan --wait` (%d findings in %d issues, %d agent\n"+
		"steps): its SARIF log is %s (%s gzipped; %d results, one per issue, of %d rules, one per check),\n"+
		"its JUnit report %s (%d test cases, one per issue).\n",
		rec.FindingsCount, rec.IssuesCount, len(rec.Steps), readmefigures.KB(len(sarif)), readmefigures.KB(gzipLen(sarif)), len(log.Runs[0].Results),
		len(log.Runs[0].Tool.Driver.Rules), readmefigures.KB(len(junit)), cases)
	measured := fmt.Sprintf("Measured by `make readme-figures` on %s (%d cores at load %s, %s, %s/%s; not compared by the test): "+
		"`secscan scan --wait` to exit took %s for that full/standard scan and %s for a quick web scan; "+
		"the CLI binary is %.1f MB stripped (`-trimpath -ldflags='-s -w'`).\n",
		readmefigures.Machine(), runtime.NumCPU(), readmefigures.Load(), runtime.Version(), runtime.GOOS, runtime.GOARCH, seconds(full), seconds(quick),
		float64(info.Size())/(1<<20))
	return fixed, measured
}

func gzipLen(b []byte) int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Len()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

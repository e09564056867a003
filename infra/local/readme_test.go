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
	"strconv"
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
	cli, measured := cliFigures(t, p, work, admin, rec.FindingsCount, rec.IssuesCount, len(rec.Steps))
	blocks := []figureBlock{
		{"readme-figures", figures, true},
		{"readme-figures-cli", cli, true},
		// Wall times and binary sizes depend on the machine and the Go
		// release: written by make readme-figures, never compared.
		{"readme-measured", measured, false},
	}
	updated, differ := readme, []string{}
	for _, b := range blocks {
		open, end := "<!-- "+b.name+" -->\n", "<!-- /"+b.name+" -->"
		before, rest, ok1 := strings.Cut(updated, open)
		current, after, ok2 := strings.Cut(rest, end)
		if !ok1 || !ok2 {
			t.Fatalf("README lacks the %s markers", b.name)
		}
		updated = before + open + b.text + end + after
		if b.compared && !sameFigures(current, b.text) {
			differ = append(differ, fmt.Sprintf("%s:\nREADME:\n%s\nrun:\n%s", b.name, current, b.text))
		}
	}
	if *updateFigures {
		if err := os.WriteFile("../../README.md", []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			t.Logf("README %s written:\n%s", b.name, b.text)
		}
		return
	}
	if len(differ) > 0 {
		t.Errorf("the README's demo figures disagree with this run (make readme-figures updates them):\n%s", strings.Join(differ, "\n"))
	}
	t.Logf("measured on this machine (not compared):\n%s", measured)
}

// figureBlock is a block of the README between <!-- name --> and
// <!-- /name -->: compared blocks hold what the demo produces (counts,
// sizes rounded to KB), the others what this machine measured.
type figureBlock struct {
	name, text string
	compared   bool
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
		rec.FindingsCount, rec.IssuesCount, len(rec.Steps), kb(len(sarif)), kb(gzipLen(sarif)), len(log.Runs[0].Results),
		len(log.Runs[0].Tool.Driver.Rules), kb(len(junit)), cases)
	measured := fmt.Sprintf("Measured by `make readme-figures` on %s (%d cores at load %s, %s, %s/%s; not compared by the test): "+
		"`secscan scan --wait` to exit took %s for that full/standard scan and %s for a quick web scan; "+
		"the CLI binary is %.1f MB stripped (`-trimpath -ldflags='-s -w'`).\n",
		machine(), runtime.NumCPU(), load(), runtime.Version(), runtime.GOOS, runtime.GOARCH, seconds(full), seconds(quick),
		float64(info.Size())/(1<<20))
	return fixed, measured
}

// kbFigure is a size as the README states it.
var kbFigure = regexp.MustCompile(`(\d+) KB`)

// sameFigures reports whether the README's block agrees with a run's: the
// same text and counts, and sizes within 3 % (at least 1 KB) of the run's.
// A report's size moves by a few bytes from run to run (durations, the
// lengths of times and ids), which can cross a KB boundary.
func sameFigures(readme, run string) bool {
	if kbFigure.ReplaceAllString(readme, "# KB") != kbFigure.ReplaceAllString(run, "# KB") {
		return false
	}
	a, b := kbFigure.FindAllStringSubmatch(readme, -1), kbFigure.FindAllStringSubmatch(run, -1)
	for i := range a {
		x, _ := strconv.Atoi(a[i][1])
		y, _ := strconv.Atoi(b[i][1])
		if d := x - y; d*100 > max(3*y, 100) || -d*100 > max(3*y, 100) {
			return false
		}
	}
	return true
}

// kb rounds a size to whole KB (1,024 bytes), the precision the README
// states and the test compares.
func kb(n int) string { return fmt.Sprintf("%d KB", (n+512)/1024) }

func gzipLen(b []byte) int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Len()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// load is the one-minute load average, for the measured line.
func load() string {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			return f[0]
		}
	}
	return "unknown"
}

// machine names the CPU, for the measured line.
func machine() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`(?m)^model name\s*:\s*(.+)$`).FindSubmatch(b); m != nil {
			return strings.TrimSpace(string(m[1]))
		}
	}
	return "this machine"
}

// The figures check tolerates a report's few bytes of drift, never a
// changed count or a size off by more than 3 %.
func TestSameFigures(t *testing.T) {
	readme := "165 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KB"
	for run, want := range map[string]bool{
		readme: true,
		"165 findings; SARIF 311 KB (34 KB gzipped), JUnit 91 KB":  true,
		"165 findings; SARIF 318 KB (34 KB gzipped), JUnit 90 KB":  true,
		"165 findings; SARIF 330 KB (34 KB gzipped), JUnit 90 KB":  false,
		"166 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KB":  false,
		"165 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KiB": false,
	} {
		if got := sameFigures(readme, run); got != want {
			t.Errorf("sameFigures(%q) = %v, want %v", run, got, want)
		}
	}
}

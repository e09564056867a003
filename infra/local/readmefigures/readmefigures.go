// Package readmefigures keeps the README's generated figures: blocks between
// <!-- name --> and <!-- /name --> that `make readme-figures` writes from
// demo runs (TestReadmeFirstRun, TestDemoRecall with -update) and that those
// tests compare with every fresh run, so the README never states a count the
// product no longer produces.
package readmefigures

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Block is one generated block: Compared blocks hold what the demo
// determines (counts, sizes rounded to KB); the others what this machine
// measured (wall times, binary sizes), written but never compared.
type Block struct {
	Name, Text string
	Compared   bool
}

// Sync puts blocks into the README at path: with update it writes them;
// without, it returns each compared block that disagrees with the README, as
// "name: README … run …" text. A README without a block's markers is an error.
func Sync(path string, update bool, blocks []Block) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	updated, differ := string(raw), []string(nil)
	for _, b := range blocks {
		open, end := "<!-- "+b.Name+" -->\n", "<!-- /"+b.Name+" -->"
		before, rest, ok1 := strings.Cut(updated, open)
		current, after, ok2 := strings.Cut(rest, end)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s lacks the %s markers", path, b.Name)
		}
		updated = before + open + b.Text + end + after
		if b.Compared && !Same(current, b.Text) {
			differ = append(differ, fmt.Sprintf("%s:\nREADME:\n%s\nrun:\n%s", b.Name, current, b.Text))
		}
	}
	if update {
		return nil, os.WriteFile(path, []byte(updated), 0o644)
	}
	return differ, nil
}

// kbFigure is a size as the README states it.
var kbFigure = regexp.MustCompile(`(\d+) KB`)

// Same reports whether the README's block agrees with a run's: the same text
// and counts, and sizes within 3 % (at least 1 KB) of the run's. A report's
// size moves by a few bytes from run to run (durations, the lengths of times
// and ids), which can cross a KB boundary.
func Same(readme, run string) bool {
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

// KB rounds a size to whole KB (1,024 bytes), the precision the README
// states and Same compares.
func KB(n int) string { return fmt.Sprintf("%d KB", (n+512)/1024) }

// Load is the one-minute load average, for measured blocks.
func Load() string {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			return f[0]
		}
	}
	return "unknown"
}

// Machine names the CPU, for measured blocks.
func Machine() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`(?m)^model name\s*:\s*(.+)$`).FindSubmatch(b); m != nil {
			return strings.TrimSpace(string(m[1]))
		}
	}
	return "this machine"
}

package localstack_test

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/readmefigures"
)

var updateReadme = flag.Bool("update", false, "write TestDemoRecall's figures into README.md (make readme-figures)")

// tierFigures is what TestDemoRecall's scan of one tier produced.
type tierFigures struct {
	tier           string
	found          int // planted weaknesses found
	record         recallView
	beforeGrouping int
	wall           time.Duration
}

// recallFigures compares the README's recall blocks with this run's (or,
// with -update, writes them). What the demo determines is compared: the
// planted weaknesses each tier found, and the standard scan's counts. The
// deep scan's counts are written but not compared, with the wall times: its
// port sweep reports whatever else listens on the machine at that moment
// (other tests' servers, the FTP server's passive listeners), so they are
// one machine's measurement.
func recallFigures(t *testing.T, figures []tierFigures) {
	t.Helper()
	if t.Failed() {
		return // a failed run's figures are not the product's
	}
	counts := func(f tierFigures) string {
		r := f.record
		return fmt.Sprintf("%d findings (%d before grouping, one per CVE) in %d issues, %d steps, %d of %d credits, %d hosts, %d services",
			len(r.Findings), f.beforeGrouping, r.IssuesCount, len(r.AgentSteps), r.CreditsUsed, r.MaxCredits,
			len(r.Surface.Hosts), len(r.Surface.Services))
	}
	var recall []string
	for _, f := range figures {
		recall = append(recall, fmt.Sprintf("%s finds %d of the %d planted weaknesses", f.tier, f.found, len(plantedWeaknesses)))
	}
	std, deep := figures[0], figures[len(figures)-1]
	compared := fmt.Sprintf("Full scans of the recall demo: %s. The standard scan: %s.\n", strings.Join(recall, ", "), counts(std))
	measured := fmt.Sprintf("Measured by `make readme-figures` on %s (%d cores at load %s; not compared by the test): the deep scan: %s; "+
		"wall time %.1f s standard, %d min %02d s deep.\n", readmefigures.Machine(), runtime.NumCPU(), readmefigures.Load(), counts(deep),
		std.wall.Seconds(), int(deep.wall.Minutes()), int(deep.wall.Seconds())%60)
	differ, err := readmefigures.Sync("../../../docs/usage.md", *updateReadme, []readmefigures.Block{
		{Name: "readme-figures-recall", Text: compared, Compared: true},
		{Name: "readme-measured-recall", Text: measured},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(differ) > 0 {
		t.Errorf("the README's recall figures disagree with this run (make readme-figures updates them):\n%s", strings.Join(differ, "\n"))
	}
	t.Logf("recall figures:\n%s%s", compared, measured)
}

package report_test

import (
	"os"
	"testing"

	"secscan/shared/report"
	"secscan/shared/report/reporttest"
)

// TestDemoReportSizes logs the sizes of the demo-shaped reports (figures
// for the README); REPORT_RENDER_DIR keeps the files for a look.
func TestDemoReportSizes(t *testing.T) {
	t.Parallel()
	r := reporttest.Demo()
	files := map[string][]byte{"demo.html": report.HTML(r), "demo.md": report.Markdown(r), "demo.csv": report.CSV(r)}
	for name, b := range files {
		t.Logf("%s: %d bytes", name, len(b))
		if dir := os.Getenv("REPORT_RENDER_DIR"); dir != "" {
			if err := os.WriteFile(dir+"/"+name, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

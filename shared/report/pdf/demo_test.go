package pdf_test

import (
	"testing"

	"secscan/shared/report"
	"secscan/shared/report/reporttest"
)

func TestPDFDemoPages(t *testing.T) {
	t.Parallel()
	poppler(t)
	r := reporttest.Demo()
	path, _ := renderPDF(t, r, report.A4, "demo.pdf")
	t.Logf("demo: %d findings, %d issues, %d pages", len(r.Findings), len(r.Issues), info(t, path).pages)
}

package report_test

import (
	"secscan/shared/report"
	"secscan/shared/report/reporttest"
	"testing"
)

// The shared fixtures, under the short names the tests use.
const hostile = reporttest.Hostile

func sample(watermarked bool) report.Report { return reporttest.Sample(watermarked) }
func large(n, m int) report.Report          { return reporttest.Large(n, m) }
func ptr[T any](v T) *T                     { return &v }

// benchRender measures render on a report of 1,000 findings and 200 steps,
// and reports the size of what it writes.
func benchRender(b *testing.B, render func(report.Report) []byte) {
	r := large(1000, 200)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(render(r))
	}
	b.ReportMetric(float64(n), "bytes/report")
}

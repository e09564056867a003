package report_test

import (
	"secscan/shared/report"
	"secscan/shared/report/reporttest"
)

// The shared fixtures, under the short names the tests use.
const hostile = reporttest.Hostile

func sample(watermarked bool) report.Report { return reporttest.Sample(watermarked) }
func large(n, m int) report.Report          { return reporttest.Large(n, m) }
func ptr[T any](v T) *T                     { return &v }

// Command report-markdown is ReportMarkdownFunction in template.yaml: GET /api/scans/{id}/report.md.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/api/reports"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(reports.Of(a, nil).Markdown())
}

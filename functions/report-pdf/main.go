// Command report-pdf is ReportPDFFunction in template.yaml: GET /api/scans/{id}/report.pdf.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/api/reports"
	"secscan/shared/lambdahttp"
	"secscan/shared/report/pdf"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(reports.Of(a, pdf.Render).PDF())
}

// Command report-html is ReportHTMLFunction in template.yaml: GET /api/scans/{id}/report.html.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/api/reports"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(reports.Of(a, nil).HTML())
}

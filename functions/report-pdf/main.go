// Command report-pdf is ReportPDFFunction in template.yaml: GET /api/scans/{id}/report.pdf.
package main

import (
	"time"

	"secscan/shared/api/reports"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/report/pdf"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	h := &reports.Handlers{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger, RenderPDF: pdf.Render}
	lambdahttp.Start(h.PDF())
}

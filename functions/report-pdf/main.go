// Command report-pdf is ReportPDFFunction in template.yaml: GET /api/scans/{id}/report.pdf.
package main

import (
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/report/pdf"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	a := &api.API{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger, PDF: pdf.Render}
	lambdahttp.Start(a.ReportPDF())
}

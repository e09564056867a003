// Command report-markdown is ReportMarkdownFunction in template.yaml: GET /api/scans/{id}/report.md.
package main

import (
	"time"

	"secscan/shared/api/reports"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	h := &reports.Handlers{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger}
	lambdahttp.Start(h.Markdown())
}

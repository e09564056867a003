// Command findings-csv is FindingsCSVFunction in template.yaml: GET /api/scans/{id}/findings.csv.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/api/reports"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(reports.Of(a, nil).CSV())
}

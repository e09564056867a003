// Command get-scan is GetScanFunction in template.yaml: GET /api/scans/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.GetScan())
}

// Command cancel-scan is CancelScanFunction in template.yaml: DELETE /api/scans/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.CancelScan())
}

// Command create-scan is CreateScanFunction in template.yaml: POST /api/scans.
package main

import (
	"secscan/shared/api/apienv/scanenv"
	"secscan/shared/lambdahttp"
)

func main() {
	a := scanenv.Load()
	lambdahttp.Start(a.CreateScan())
}

// Command list-scans is ListScansFunction in template.yaml: GET /api/scans.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListScans())
}

// Command list-checks is ListChecksFunction in template.yaml: GET /api/checks.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListChecks())
}

// Command list-targets is ListTargetsFunction in template.yaml: GET /api/targets.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListTargets())
}

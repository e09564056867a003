// Command get-retest is GetRetestFunction in template.yaml: GET /api/retests/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.GetRetest())
}

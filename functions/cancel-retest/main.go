// Command cancel-retest is CancelRetestFunction in template.yaml:
// DELETE /api/retests/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.CancelRetest())
}

// Command create-target is CreateTargetFunction in template.yaml: POST /api/targets.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.CreateTarget())
}

// Command create-scan is CreateScanFunction in template.yaml: POST /api/scans.
package main

import (
	"context"

	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/stepfn"
)

func main() {
	a, env := apienv.Load()
	a.Scans = lambdaenv.Must(stepfn.StarterFromConfig(context.Background(), env.Config))
	lambdahttp.Start(a.CreateScan())
}

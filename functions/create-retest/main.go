// Command create-retest is CreateRetestFunction in template.yaml:
// POST /api/scans/{id}/issues/{key}/retest. It queues the retest and invokes
// RunRetestFunction asynchronously.
package main

import (
	"context"

	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/lambdainvoke"
)

func main() {
	a, env := apienv.Load()
	a.Retests = lambdaenv.Must(lambdainvoke.New(context.Background(), env.Config.RetestFunction, env.Config.LambdaEndpoint))
	lambdahttp.Start(a.CreateRetest())
}

// Command create-retest is CreateRetestFunction in template.yaml:
// POST /api/scans/{id}/issues/{key}/retest. It queues the retest and invokes
// RunRetestFunction asynchronously.
package main

import (
	"context"
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/lambdainvoke"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	invoker := lambdaenv.Must(lambdainvoke.New(context.Background(), env.Config.RetestFunction, env.Config.LambdaEndpoint))
	a := &api.API{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger, Retests: invoker}
	lambdahttp.Start(a.CreateRetest())
}

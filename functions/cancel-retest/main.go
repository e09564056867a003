// Command cancel-retest is CancelRetestFunction in template.yaml:
// DELETE /api/retests/{id}.
package main

import (
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	a := &api.API{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger}
	lambdahttp.Start(a.CancelRetest())
}

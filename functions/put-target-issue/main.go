// Command put-target-issue is PutTargetIssueFunction in template.yaml: PUT /api/targets/{id}/issues/{key}.
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
	lambdahttp.Start(a.PutTargetIssue())
}

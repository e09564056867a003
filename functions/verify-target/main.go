// Command verify-target is VerifyTargetFunction in template.yaml: POST /api/targets/{id}/verify.
package main

import (
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/verification"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	res := env.Resolver()
	a := &api.API{
		Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger,
		Verifier: &verification.Verifier{Resolver: res, Dialer: env.Dialer(res)},
	}
	lambdahttp.Start(a.VerifyTarget())
}

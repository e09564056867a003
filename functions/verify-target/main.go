// Command verify-target is VerifyTargetFunction in template.yaml: POST /api/targets/{id}/verify.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
	"secscan/shared/verification"
)

func main() {
	a, env := apienv.Load()
	res := env.Resolver()
	a.Verifier = &verification.Verifier{Resolver: res, Dialer: env.Dialer(res)}
	lambdahttp.Start(a.VerifyTarget())
}

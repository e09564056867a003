// Command run-retest is RunRetestFunction in template.yaml: it runs one
// queued retest (invoked asynchronously by CreateRetestFunction), the
// issue's tool calls through the guarded dialer.
package main

import (
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/lambdaenv"
	"secscan/shared/retest"
	"secscan/shared/scanners"
	"secscan/shared/verification"
)

func main() {
	env := lambdaenv.Load()
	res := env.Resolver()
	dialer := env.Dialer(res)
	r := &retest.Runner{Store: env.Store(), Tools: scanners.Registry(), Dialer: dialer, Resolver: res,
		Ownership: &verification.Verifier{Resolver: res, Dialer: dialer}, Now: time.Now, Logger: env.Logger}
	lambda.Start(r.Handle)
}

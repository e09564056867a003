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
)

func main() {
	env := lambdaenv.Load()
	res := env.Resolver()
	r := &retest.Runner{Store: env.Store(), Tools: scanners.Registry(), Dialer: env.Dialer(res), Resolver: res,
		Now: time.Now, Logger: env.Logger}
	lambda.Start(r.Handle)
}

// Command scan-step is ScanStepFunction in template.yaml: the scan agent's
// run action, one tool against the target through the guarded dialer.
package main

import (
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/agent"
	"secscan/shared/lambdaenv"
	"secscan/shared/scanners"
)

func main() {
	env := lambdaenv.Load()
	res := env.Resolver()
	a := &agent.Agent{Store: env.Store(), Tools: scanners.Registry(), Dialer: env.Dialer(res), Resolver: res,
		Now: time.Now, Logger: env.Logger}
	lambda.Start(a.Handle)
}

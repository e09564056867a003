// Command scheduled-scan is ScheduledScanFunction in template.yaml: what the
// stack's EventBridge Scheduler schedules invoke, with input
// {"schedule_id": "sch_…"}. It takes the schedule's due run and starts its
// scan through the code of POST /api/scans (target, hourly limit, monthly
// allowance; the agent re-verifies ownership when the execution starts), or
// records on the schedule why it did not.
package main

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/stepfn"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	sfn := lambdaenv.Must(stepfn.NewClient(context.Background(), env.Config.StepFunctionsEndpoint))
	a := &api.API{
		Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger,
		Scans:     &stepfn.Starter{Client: sfn, StateMachineARN: env.Config.StateMachineARN},
		Callbacks: api.CallbackPolicy{AllowInsecure: env.Config.AllowInsecureCallbacks, AllowPrivate: env.Config.AllowPrivateNetworks},
	}
	lambda.Start(a.ScheduledScan())
}

// Command run-schedule is RunScheduleFunction in template.yaml: POST
// /api/schedules/{id}/run, a scan started now through POST /api/scans's code.
package main

import (
	"context"
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
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
	lambdahttp.Start(a.RunSchedule())
}

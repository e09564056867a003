// Command run-schedule is RunScheduleFunction in template.yaml: POST
// /api/schedules/{id}/run, a scan started now through POST /api/scans's code.
package main

import (
	"context"

	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/stepfn"
)

func main() {
	a, env := apienv.Load()
	a.Scans = lambdaenv.Must(stepfn.StarterFromConfig(context.Background(), env.Config))
	lambdahttp.Start(a.RunSchedule())
}

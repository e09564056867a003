// Command delete-schedule is DeleteScheduleFunction in template.yaml: DELETE /api/schedules/{id}. It keeps the
// schedules' EventBridge Scheduler schedules, so it links that client.
package main

import (
	"context"

	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/schedules/eventbridge"
)

func main() {
	a, env := apienv.Load()
	if s := lambdaenv.Must(eventbridge.FromConfig(context.Background(), env.Config)); s != nil {
		a.Schedules = s
	}
	lambdahttp.Start(a.DeleteSchedule())
}

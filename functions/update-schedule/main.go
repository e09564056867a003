// Command update-schedule is UpdateScheduleFunction in template.yaml: PATCH /api/schedules/{id}. It keeps the
// schedules' EventBridge Scheduler schedules, so it links that client.
package main

import (
	"secscan/shared/api/apienv/scheduleenv"
	"secscan/shared/lambdahttp"
)

func main() {
	a := scheduleenv.Load()
	lambdahttp.Start(a.UpdateSchedule())
}

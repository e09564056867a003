// Command get-schedule is GetScheduleFunction in template.yaml: GET /api/schedules/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.GetSchedule())
}

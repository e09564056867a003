// Command run-schedule is RunScheduleFunction in template.yaml: POST
// /api/schedules/{id}/run, a scan started now through POST /api/scans's code.
package main

import (
	"secscan/shared/api/apienv/scanenv"
	"secscan/shared/lambdahttp"
)

func main() {
	a := scanenv.Load()
	lambdahttp.Start(a.RunSchedule())
}

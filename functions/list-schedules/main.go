// Command list-schedules is ListSchedulesFunction in template.yaml: GET /api/schedules.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListSchedules())
}

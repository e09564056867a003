// Command delete-target is DeleteTargetFunction in template.yaml: DELETE
// /api/targets/{id}. It deletes the target's schedules and their EventBridge
// Scheduler schedules, so it links that client.
package main

import (
	"secscan/shared/api/apienv/scheduleenv"
	"secscan/shared/lambdahttp"
)

func main() {
	a := scheduleenv.Load()
	lambdahttp.Start(a.DeleteTarget())
}

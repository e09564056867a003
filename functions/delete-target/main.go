// Command delete-target is DeleteTargetFunction in template.yaml: DELETE
// /api/targets/{id}. It deletes the target's schedules and their EventBridge
// Scheduler schedules, so it links that client.
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
	lambdahttp.Start(a.DeleteTarget())
}

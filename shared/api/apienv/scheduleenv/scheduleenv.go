// Package scheduleenv builds the api.API of the functions that keep the
// deployed schedules (create, update and delete a schedule; delete a
// target): apienv's, with the environment's EventBridge Scheduler (none
// when it names no schedule group). Only these functions link its client.
package scheduleenv

import (
	"context"

	"secscan/shared/api"
	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/schedules/eventbridge"
)

// Load is apienv.Load with Schedules set. A configuration error stops the process.
func Load() *api.API {
	a, env := apienv.Load()
	if s := lambdaenv.Must(eventbridge.FromConfig(context.Background(), env.Config)); s != nil {
		a.Schedules = s
	}
	return a
}

// Command delete-target is DeleteTargetFunction in template.yaml: DELETE
// /api/targets/{id}. It deletes the target's schedules and their EventBridge
// Scheduler schedules, so it links that client.
package main

import (
	"context"
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
	"secscan/shared/schedules/eventbridge"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	a := &api.API{Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger,
		Callbacks: api.CallbackPolicy{AllowInsecure: env.Config.AllowInsecureCallbacks, AllowPrivate: env.Config.AllowPrivateNetworks}}
	if s := lambdaenv.Must(eventbridge.FromConfig(context.Background(), env.Config)); s != nil {
		a.Schedules = s
	}
	lambdahttp.Start(a.DeleteTarget())
}

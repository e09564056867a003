// Package apienv builds the api.API of an API function's main from its
// environment: the store, the authenticator, the clock, the logger and the
// callback policy, which every authenticated endpoint needs. A main then
// adds only the clients its own endpoint calls (Scans, Schedules, Retests,
// Verifier), so it links nothing else.
package apienv

import (
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
)

// Load reads the environment (lambdaenv.Load) and returns the API of its
// store and authenticator, with the environment for the main's own clients.
// A configuration error stops the process.
func Load() (*api.API, lambdaenv.Env) {
	env := lambdaenv.Load()
	st := env.Store()
	return &api.API{
		Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger,
		Callbacks: api.CallbackPolicy{AllowInsecure: env.Config.AllowInsecureCallbacks, AllowPrivate: env.Config.AllowPrivateNetworks},
	}, env
}

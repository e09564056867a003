// Command create-scan is CreateScanFunction in template.yaml: POST /api/scans.
package main

import (
	"time"

	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	a := &api.API{
		Store: st, Auth: env.Authenticator(st), Now: time.Now, Logger: env.Logger,
		Scans:     env.ScanStarter(),
		Callbacks: api.CallbackPolicy{AllowInsecure: env.Config.AllowInsecureCallbacks, AllowPrivate: env.Config.AllowPrivateNetworks},
	}
	lambdahttp.Start(a.CreateScan())
}

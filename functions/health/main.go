// Command health is HealthFunction in template.yaml: GET /health and /api/health.
package main

import (
	"secscan/shared/api"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
)

func main() {
	env := lambdaenv.Load()
	a := &api.API{Version: env.Config.Version, Logger: env.Logger}
	lambdahttp.Start(a.Health())
}

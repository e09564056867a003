// Command dashboard is DashboardFunction in template.yaml: GET / and
// GET /assets/{name}, the browser side of the service on the API's origin.
// It reads no data, so it builds no client and needs no permission.
package main

import (
	"log/slog"
	"os"

	"secscan/shared/dashboard"
	"secscan/shared/lambdahttp"
)

func main() {
	d, err := dashboard.New(dashboard.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("startup failed", "error", err.Error())
		os.Exit(1)
	}
	lambdahttp.Start(d.Handler())
}

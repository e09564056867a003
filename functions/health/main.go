// Command health is HealthFunction in template.yaml: GET /health and /api/health.
// It links only the HTTP layer (shared/api/health), not the store: no
// lambdaenv, whose Load would link the AWS SDK for a function that never
// calls AWS.
package main

import (
	"log/slog"
	"os"

	"secscan/shared/api/health"
	"secscan/shared/config"
	"secscan/shared/httpapi"
	"secscan/shared/lambdahttp"
)

func main() {
	cfg, err := config.FromEnv()
	if err != nil {
		slog.Error("startup failed", "error", err.Error())
		os.Exit(1)
	}
	lambdahttp.Start(health.Handler(cfg.Version, httpapi.NewLogger(cfg.LogLevel)))
}

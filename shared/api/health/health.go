// Package health is GET /health and /api/health, the one endpoint that needs
// neither the store nor a principal. It is a package of its own so that the
// health function links only the HTTP layer (httpapi), not the store and the
// AWS SDK the other endpoints need: its cold start stays near a bare Lambda's.
package health

import (
	"log/slog"
	"net/http"

	"secscan/shared/httpapi"
)

// Handler answers {"status":"ok","version":version}.
func Handler(version string, logger *slog.Logger) http.Handler {
	return httpapi.Observe(logger, httpapi.Public(func(w http.ResponseWriter, _ *http.Request) error {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": version})
		return nil
	}))
}

package localstack

import (
	"net/http"

	"secscan/infra/local/loopback"
	"secscan/shared/httpapi"
)

// jwksPath is the one path answered whatever the Host: the development
// provider's public keys, which hold nothing to steal, and which the
// functions of `make sam-local` fetch from their containers as
// host.docker.internal:3000 (infra/env.local.json).
const jwksPath = "/dev/jwks.json"

// LoopbackHostOnly answers 421 Misdirected Request to a request whose Host
// is not a loopback name or address on the listener's port (loopback.HostOK,
// the check every listener of the local stack makes): the stack listens
// on loopback only, and a Host of any other name means a web page's name
// rebound to 127.0.0.1 (DNS rebinding) is calling it from the browser, to
// mint development sessions or to launch scans of the developer's network.
func LoopbackHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopback.HostOK(r) || (r.Method == http.MethodGet && r.URL.Path == jwksPath) {
			h.ServeHTTP(w, r)
			return
		}
		httpapi.WriteJSON(w, http.StatusMisdirectedRequest, map[string]string{
			"detail": "Misdirected request: the local stack answers only loopback hosts (127.0.0.1, localhost, [::1]) on its own port"})
	})
}

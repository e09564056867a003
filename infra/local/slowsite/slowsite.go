// Package slowsite is a test web site that answers every request after a
// pause, so a scan step against it takes long enough to interrupt or cancel
// the scan mid-step. It listens on loopback only.
package slowsite

import (
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// Start serves the slow site on addr (a loopback "host:port"; port 0 picks a
// free one) until the test ends, and returns the port it listens on.
func Start(t testing.TB, addr string, pause time.Duration) (port int) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(pause):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<html><body>slow</body></html>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

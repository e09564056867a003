package dynamolocal

import (
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"secscan/infra/local/loopback"
)

// DynamoDB Local has no authentication (a junk signature is accepted) and
// answers any Host, so a web page rebound to 127.0.0.1 could read and write
// the whole table. It therefore listens on a private loopback port, and
// clients reach it through this proxy on the advertised one, which refuses
// what loopback.Refusal refuses (a Host other than loopback on its port: 421;
// any Origin: 403) and passes everything else on byte for byte. A proxy
// rather than a secret every client must send: every client keeps working
// as it is (the stack's and the tests' Go SDK clients, `aws dynamodb
// --endpoint-url`, NoSQL Workbench, `make sam-local`'s containers). The
// per-start secret is the proxy's alone (secretHeader): the emulator refuses
// a request without it, so its private port, which a page can find as
// easily as the advertised one, is no way around the proxy.

// secretHeader carries the per-start secret from the proxy to the emulator;
// secretEnv gives the emulator its value (LoopbackDynamoDB.java).
const (
	secretHeader = "X-Secscan-Dynamodb-Secret"
	secretEnv    = "SECSCAN_DYNAMODB_SECRET"
)

// serveProxy serves the proxy to backend on ln; names are host names
// accepted besides loopback ones (loopback.DockerHost for sam local). Its
// errors (a response cut short, an emulator that did not answer) go to
// logw, the emulator's own log.
func serveProxy(ln net.Listener, backend, secret string, names []string, logw io.Writer) (*http.Server, error) {
	target, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	logger := log.New(logw, "dynamolocal proxy: ", log.LstdFlags)
	srv := &http.Server{Handler: proxyHandler(target, secret, names, logger), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: logger}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

// proxyHandler is the Host-checking reverse proxy to target.
func proxyHandler(target *url.URL, secret string, names []string, logger *log.Logger) http.Handler {
	rp := &httputil.ReverseProxy{
		// The emulator sees its own address as Host and the secret; nothing
		// else changes (no X-Forwarded-* headers are added).
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Set(secretHeader, secret)
		},
		Transport: &http.Transport{
			DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			// As many idle connections as the stack's clients keep (dependency's 64).
			MaxIdleConns: 128, MaxIdleConnsPerHost: 128, IdleConnTimeout: 90 * time.Second,
			// Bodies and their x-amz-crc32 pass as the emulator wrote them.
			DisableCompression: true,
		},
		// A stopped or paused emulator: the client's own timeout or a 502,
		// which the SDKs retry like the connection error it replaces.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // not a client that hung up
				logger.Printf("%s: %v", r.Header.Get("X-Amz-Target"), err)
				writeError(w, http.StatusBadGateway, "InternalServerError", "DynamoDB Local did not answer: "+err.Error())
			}
		},
		ErrorLog: logger,
	}
	return loopback.MachineOnly(rp, func(w http.ResponseWriter, status int, reason string) {
		writeError(w, status, "AccessDeniedException", reason)
	}, names...)
}

// writeError answers in DynamoDB's JSON error shape.
func writeError(w http.ResponseWriter, status int, errorType, message string) {
	body, _ := json.Marshal(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + errorType, "message": message})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

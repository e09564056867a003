// Command webhook-receiver is a runnable example of receiving scan webhooks:
// it verifies each delivery with package webhookverify and answers 204, 400
// (missing or stale signature) or 401 (mismatch), like the reference
// receivers.
//
//	WEBHOOK_SECRET=whsec_… go run ./examples/webhook-receiver -addr 127.0.0.1:8787
//
// Then create scans with "callback_url": "https://<your public host>/hooks/scans"
// (locally: ALLOW_INSECURE_CALLBACKS=true and http://127.0.0.1:8787/hooks/scans).
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"secscan/shared/webhookverify"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "address to listen on")
	flag.Parse()
	secret := strings.TrimSpace(os.Getenv("WEBHOOK_SECRET"))
	if secret == "" {
		fmt.Fprintln(os.Stderr, "set WEBHOOK_SECRET to your signing secret (GET /api/webhook-secret)")
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.Handle("/hooks/scans", webhookverify.Handler(secret, func(d webhookverify.Delivery) {
		log.Printf("delivery %s: scan %s %s (%d findings, %d issues: %d new, %d fixed) %s", d.ID, d.ScanID, d.Status,
			d.FindingsCount, d.IssuesCount, d.NewIssuesCount, d.FixedIssuesCount, d.Error)
	}))
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on http://%s/hooks/scans", *addr)
	log.Fatal(srv.ListenAndServe())
}

package tlscheck

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// One call covers the names on the same address and port that present the
// same certificate: their findings name them too and each gets a service
// entry; a name with another certificate, or out of scope, is left to a
// call of its own.
func TestAliasesSharingTheCertificateAreCoveredOnce(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	ca := newCA(t, "secscan test root")
	now := time.Now()
	shared := ca.issue(t, leafSpec{names: []string{"expired.scan.test", "soon.scan.test"},
		notBefore: now.Add(-400 * 24 * time.Hour), notAfter: now.Add(-24 * time.Hour)})
	other := ca.issue(t, leafSpec{names: []string{"good.scan.test"}})
	cfg := serverConfig(shared)
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if hello.ServerName == "good.scan.test" {
			return &other, nil
		}
		return &shared, nil
	}
	cfg.Certificates = nil
	port := startTLS(t, cfg, goodHSTS)
	in := fmt.Sprintf(`{"host": "expired.scan.test", "port": %d, "also": ["soon.scan.test", "good.scan.test", "outside.example"]}`, port)
	res, err := New(Options{RootCAs: ca.pool()}).Run(context.Background(), env, json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	expired := map[string]bool{}
	for _, f := range res.Findings {
		if f.Title == "TLS certificate expired" {
			expired[f.Host] = true
		}
	}
	if !expired["expired.scan.test"] || !expired["soon.scan.test"] || expired["good.scan.test"] || len(expired) != 2 {
		t.Errorf("expired-certificate findings on %v; want the host and its alias only", expired)
	}
	var served []string
	for _, s := range res.Services {
		served = append(served, s.Host)
	}
	if strings.Join(served, ",") != "expired.scan.test,soon.scan.test" || !strings.Contains(res.Outcome, "also covers soon.scan.test") {
		t.Errorf("services %v, outcome %q", served, res.Outcome)
	}
}

package tlscheck

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"secscan/shared/scans"
)

// The proofs describe the handshake: what was offered and what the server
// chose and presented.
func TestHandshakeProof(t *testing.T) {
	t.Parallel()
	tgt := target{host: "tls.test", port: 8443, addr: "127.0.0.1:8443"}
	state := tls.ConnectionState{Version: tls.VersionTLS10, CipherSuite: tls.TLS_RSA_WITH_RC4_128_SHA}
	p := handshakeProof(tgt, state, time.Now())
	if p.Kind != scans.ProofTranscript || !strings.Contains(p.Request, "SNI tls.test") ||
		!strings.Contains(p.Response, "ServerHello: TLS 1.0, TLS_RSA_WITH_RC4_128_SHA") || !strings.Contains(p.Response, "no certificate presented") {
		t.Errorf("handshake proof %+v", p)
	}
	pp := probeProof(tgt, probes[0], state, time.Now())
	if !strings.Contains(pp.Request, "offering only "+offered(probes[0])) || !strings.Contains(pp.Response, "handshake completed") {
		t.Errorf("probe proof %+v", pp)
	}
	hp := hstsProof(hstsResult{url: "https://tls.test:8443/", status: "200 OK", values: []string{"max-age=60\x1b[0m"}}, time.Now())
	if !strings.Contains(hp.Response, `Strict-Transport-Security: max-age=60\x1b[0m`) || strings.ContainsRune(hp.Response, 0x1b) {
		t.Errorf("hsts proof %+v", hp)
	}
}

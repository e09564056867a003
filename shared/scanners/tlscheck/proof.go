package tlscheck

import (
	"crypto/tls"
	"fmt"
	"strings"
	"time"

	"secscan/shared/proof"
	"secscan/shared/scans"
)

// maxChainShown bounds the certificates a proof describes.
const maxChainShown = 4

// handshakeProof is the transcript of the first handshake: what the client
// offered and the facts of the server's answer (version, suite, the
// certificates it presented). Certificate findings carry it.
func handshakeProof(tgt target, state tls.ConnectionState, at time.Time) *scans.Proof {
	request := fmt.Sprintf("connect %s (%s) over TCP\nTLS ClientHello: SNI %s, versions TLS 1.0 to TLS 1.3, %d cipher suites offered, no client certificate",
		tgt, tgt.addr, tgt.host, len(allSuites))
	lines := []string{"ServerHello: " + sessionSummary(state)}
	chain := state.PeerCertificates
	for i, c := range chain[:min(len(chain), maxChainShown)] {
		lines = append(lines, fmt.Sprintf("certificate %d (%s): %s", i, position(i), describeCert(c)))
	}
	if len(chain) > maxChainShown {
		lines = append(lines, fmt.Sprintf("… and %d more certificates", len(chain)-maxChainShown))
	}
	if len(chain) == 0 {
		lines = append(lines, "no certificate presented")
	}
	return proof.Transcript(request, strings.Join(lines, "\n"), at)
}

// probeProof is the transcript of a probe handshake the server accepted.
func probeProof(tgt target, p probe, state tls.ConnectionState, at time.Time) *scans.Proof {
	request := fmt.Sprintf("connect %s (%s) over TCP\nTLS ClientHello: SNI %s, offering only %s", tgt, tgt.addr, tgt.host, offered(p))
	return proof.Transcript(request, "ServerHello: "+sessionSummary(state)+" (handshake completed)", at)
}

// hstsProof is the transcript of the HTTPS request the HSTS check made:
// the request line and the answer's status and Strict-Transport-Security
// fields (the body is not read).
func hstsProof(h hstsResult, at time.Time) *scans.Proof {
	lines := []string{h.status}
	for _, v := range h.values {
		lines = append(lines, "Strict-Transport-Security: "+v)
	}
	if len(h.values) == 0 {
		lines = append(lines, "(no Strict-Transport-Security header)")
	}
	return proof.Transcript("GET "+h.url+" (redirects not followed, body not read)", strings.Join(lines, "\n"), at)
}

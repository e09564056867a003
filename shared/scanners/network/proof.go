package network

import (
	"fmt"
	"net/netip"
	"strings"

	"secscan/shared/proof"
	"secscan/shared/scans"
)

// maxProofLines bounds the lines of an answer a proof shows.
const maxProofLines = 20

// proof is the transcript of what the tool sent to the port and what the
// service answered, or nil when it said nothing (the port alone is no
// exchange to show).
func (obs observation) proof(host string, ip netip.Addr, port int) *scans.Proof {
	if len(obs.Received) == 0 {
		return nil
	}
	request := fmt.Sprintf("connect %s:%d (%s) over TCP", host, port, ip)
	if len(obs.Sent) > 0 {
		request += "\nsend:\n" + printable(obs.Sent)
	} else {
		request += "\n(nothing sent: the service speaks first)"
	}
	return proof.Transcript(request, proof.FirstLines(printable(obs.Received), maxProofLines, scans.MaxProofResponse), obs.At)
}

// isBinary reports whether more than one byte in eight of b is neither
// printable ASCII nor a line break or tab.
func isBinary(b []byte) bool {
	binary := 0
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c >= 0x7f {
			binary++
		}
	}
	return binary*8 > len(b)
}

// printable shows bytes as text, a binary greeting (MySQL's handshake, a
// Telnet negotiation) as hex.
func printable(b []byte) string {
	if !isBinary(b) {
		return strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	}
	hex := make([]string, 0, min(len(b), 64))
	for _, c := range b[:min(len(b), 64)] {
		hex = append(hex, fmt.Sprintf("%02x", c))
	}
	more := ""
	if len(b) > 64 {
		more = " …"
	}
	return fmt.Sprintf("(%d bytes of binary) %s%s", len(b), strings.Join(hex, " "), more)
}

package scans

import "time"

// ProofKind says what a proof records.
type ProofKind string

// Proof kinds (CONTRACT "Proof and retest").
const (
	// ProofHTTP is one HTTP request and its response.
	ProofHTTP ProofKind = "http"
	// ProofTranscript is a protocol exchange (Redis, SSH, FTP, TLS, DNS).
	ProofTranscript ProofKind = "transcript"
)

// Bounds of a proof, in characters: what was sent and what came back.
const (
	MaxProofRequest  = 2048
	MaxProofResponse = 2048
)

// Proof is the exact exchange that proved a finding, bounded and with found
// secrets redacted. Its text came from the target: it is untrusted, shown
// only escaped and never interpreted.
type Proof struct {
	Kind ProofKind `json:"kind"`
	// Request is what was sent: the request line and headers, or the
	// protocol exchange's client side.
	Request string `json:"request"`
	// Response is what came back: the status line, the headers that matter
	// and a body excerpt around the evidence, or the server's side of the
	// exchange.
	Response   string    `json:"response"`
	ObservedAt time.Time `json:"observed_at"`
	// Curl is a shell command line that repeats an HTTP proof's request
	// (every argument single-quoted); nil for transcripts.
	Curl *string `json:"curl"`
}

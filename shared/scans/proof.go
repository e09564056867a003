package scans

import (
	"encoding/json"
	"strings"
	"time"
)

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

// CurlPrefix opens every curl command of a proof: the response headers
// shown (-i), the path sent as it is (--path-as-is: no "/../" collapsed)
// and no URL globbing (--globoff: "[1-1000000]" or "{a,b}" in a URL is
// sent as it is, not expanded into as many requests).
const CurlPrefix = "curl -i --path-as-is --globoff"

// legacyCurlPrefix opened the curl commands recorded before --globoff.
const legacyCurlPrefix = "curl -i --path-as-is "

// UnmarshalJSON decodes a proof as stored or served; a curl command
// recorded before CurlPrefix had --globoff gets it, so no reader (the API,
// the dashboard, reports, retests) shows a command that globs.
func (p *Proof) UnmarshalJSON(b []byte) error {
	type plain Proof
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	if p.Curl != nil {
		if rest, ok := strings.CutPrefix(*p.Curl, legacyCurlPrefix); ok && !strings.HasPrefix(*p.Curl, CurlPrefix+" ") {
			c := CurlPrefix + " " + rest
			p.Curl = &c
		}
	}
	return nil
}

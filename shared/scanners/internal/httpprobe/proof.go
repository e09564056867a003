package httpprobe

import (
	"secscan/shared/proof"
	"secscan/shared/scans"
)

// Proof is the proof of a finding this response shows: the request sent,
// the status line, the headers that matter and a body excerpt around
// needle (the evidence), with secrets (values the tool found) redacted.
func (r *Response) Proof(needle string, secrets ...string) *scans.Proof {
	if r == nil {
		return nil
	}
	size := len(r.Body)
	if r.Truncated {
		size++ // "more than" the bytes read
	}
	return proof.HTTP(proof.HTTPExchange{
		Method: r.Method, URL: r.URL, RequestHeader: r.RequestHeader,
		Proto: r.Proto, Status: r.Status, Header: r.Header, Body: r.Body, BodySize: size,
		Needle: needle, Insecure: r.Unverified, Secrets: secrets, At: r.At,
	})
}

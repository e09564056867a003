// Package dnswire frames DNS messages over TCP (RFC 1035 section 4.2.2: a
// two-byte length before each message), for the zone transfers dns_check
// and discover_hosts ask for.
package dnswire

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/miekg/dns"
)

// ErrOverBudget is ReadFrame's error for a message longer than what is
// left to read.
var ErrOverBudget = errors.New("message over the byte budget")

// AXFRRequest is a zone transfer request for zone, framed for TCP; id is
// the request's, which the answers carry.
func AXFRRequest(zone string) (frame []byte, id uint16, err error) {
	q := new(dns.Msg)
	q.SetAxfr(dns.Fqdn(zone))
	wire, err := q.Pack()
	if err != nil {
		return nil, 0, err
	}
	frame = binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(wire)), uint16(len(wire)))
	return append(frame, wire...), q.Id, nil
}

// ReadFrame reads one message from r; budget is how many bytes may still
// be read, the length prefix included (ErrOverBudget, and nothing more is
// read, when the message is longer).
func ReadFrame(r io.Reader, budget int) ([]byte, error) {
	var size [2]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint16(size[:]))
	if 2+n > budget {
		return nil, ErrOverBudget
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

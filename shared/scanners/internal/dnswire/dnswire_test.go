package dnswire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/miekg/dns"
)

// A request AXFRRequest frames reads back with ReadFrame as an AXFR question
// for the zone with the returned id; a message over the budget and a
// truncated one are errors.
func TestFrames(t *testing.T) {
	t.Parallel()
	frame, id, err := AXFRRequest("example.test")
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.NewBuffer(frame)
	n := buf.Len()
	body, err := ReadFrame(bytes.NewReader(buf.Bytes()), n)
	if err != nil {
		t.Fatalf("ReadFrame: %v", err)
	}
	var m dns.Msg
	if err := m.Unpack(body); err != nil || m.Id != id || len(m.Question) != 1 ||
		m.Question[0].Qtype != dns.TypeAXFR || m.Question[0].Name != "example.test." {
		t.Errorf("read back %v (%v), want an AXFR question for example.test. with id %d", m.Question, err, id)
	}
	if _, err := ReadFrame(bytes.NewReader(buf.Bytes()), n-1); !errors.Is(err, ErrOverBudget) {
		t.Errorf("over the budget: %v, want ErrOverBudget", err)
	}
	short := binary.BigEndian.AppendUint16(nil, 10)
	if _, err := ReadFrame(bytes.NewReader(append(short, 1, 2)), 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v, want io.ErrUnexpectedEOF", err)
	}
}

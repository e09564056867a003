package scans

import (
	"encoding/json"
	"testing"
)

// A curl command recorded before --globoff is read with it, so no reader
// shows a command that expands "[1-1000000]" into a million requests; a
// current one, and a proof without one, are read as they are.
func TestProofCurlReadWithGloboff(t *testing.T) {
	t.Parallel()
	const current = "curl -i --path-as-is --globoff"
	for _, tc := range []struct{ stored, want string }{
		{`"curl -i --path-as-is 'https://shop.test/?q=[1-1000000]'"`, current + " 'https://shop.test/?q=[1-1000000]'"},
		{`"curl -i --path-as-is --insecure -X 'POST' 'https://shop.test/'"`, current + " --insecure -X 'POST' 'https://shop.test/'"},
		{`"` + current + ` 'https://shop.test/'"`, current + " 'https://shop.test/'"},
		{`null`, ""},
	} {
		var p Proof
		if err := json.Unmarshal([]byte(`{"kind":"http","request":"GET / HTTP/1.1","response":"HTTP/1.1 200 OK","curl":`+tc.stored+`}`), &p); err != nil {
			t.Fatal(err)
		}
		got := ""
		if p.Curl != nil {
			got = *p.Curl
		}
		if got != tc.want || p.Request != "GET / HTTP/1.1" {
			t.Errorf("stored %s: read %q, want %q (%+v)", tc.stored, got, tc.want, p)
		}
	}
}

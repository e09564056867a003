package tools_test

import (
	"encoding/json"
	"testing"

	"secscan/shared/tools"
)

// DecodeHostPort: the scan's domain by default, the default port when none
// is given, and refusals (input errors) for a host outside the scope, a port
// out of range, a missing port without a default and unknown fields.
func TestDecodeHostPort(t *testing.T) {
	env := tools.Env{Domain: "example.com"}
	for _, tc := range []struct {
		in      string
		def     int
		host    string
		port    int
		refused bool
	}{
		{`{"port":21}`, 0, "example.com", 21, false},
		{`{"host":"WWW.example.com","port":2222}`, 22, "www.example.com", 2222, false},
		{`{"host":"www.example.com"}`, 22, "www.example.com", 22, false},
		{`{"host":"www.example.com"}`, 0, "", 0, true},
		{`{"host":"evil.test","port":22}`, 22, "", 0, true},
		{`{"port":70000}`, 22, "", 0, true},
		{`{"port":22,"cmd":"x"}`, 22, "", 0, true},
	} {
		host, port, err := tools.DecodeHostPort(env, json.RawMessage(tc.in), tc.def)
		if tc.refused {
			if !tools.IsInputError(err) {
				t.Errorf("%s: %v, want refused as an input error", tc.in, err)
			}
			continue
		}
		if err != nil || host != tc.host || port != tc.port {
			t.Errorf("%s: %s:%d, %v; want %s:%d", tc.in, host, port, err, tc.host, tc.port)
		}
	}
}

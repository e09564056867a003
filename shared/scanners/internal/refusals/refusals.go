// Package refusals is the one table test of a tool's input validation,
// shared by the scanners' tests: every refused input is a *tools.InputError,
// returned before the tool resolves a name or connects.
package refusals

import (
	"context"
	"encoding/json"
	"testing"

	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/tools"
)

// Check runs tool against site once per case, each a subtest named Name,
// and fails unless every Input is refused with an input error; then it fails
// if any of them made the site's DNS server answer a query.
func Check(t *testing.T, tool tools.Tool, site *scantest.Site, cases []struct{ Name, Input string }) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, err := tool.Run(context.Background(), site.Env, json.RawMessage(tc.Input))
			if !tools.IsInputError(err) {
				t.Fatalf("Run(%s) = %v, want an input error", tc.Input, err)
			}
		})
	}
	if n := site.DNS.Queries("udp") + site.DNS.Queries("tcp"); n != 0 {
		t.Errorf("refused inputs caused %d DNS queries; nothing may be resolved or dialled", n)
	}
}

package tlscheck

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"secscan/shared/scans"
)

// TestCertificateTiesTheAddress: a certificate naming an in-scope name is
// recorded as what ties the address to the domain (a sweep beyond the
// tier's port list may then run there); one naming only other names ties
// nothing.
func TestCertificateTiesTheAddress(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "secscan test root")
	for _, tc := range []struct {
		names []string
		want  []scans.Address
	}{
		{[]string{"*.scan.test"}, []scans.Address{{Address: "127.0.0.1", TiedBy: scans.TieCertificate, TiedName: "scan.test"}}},
		{[]string{"someone-else.test"}, nil},
	} {
		env := testEnv(t, true)
		port := startTLS(t, serverConfig(ca.issue(t, leafSpec{names: tc.names})), goodHSTS)
		res, err := New(Options{RootCAs: ca.pool()}).Run(context.Background(), env, json.RawMessage(fmt.Sprintf(`{"host":"good.scan.test","port":%d}`, port)))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(res.Surface.Addresses) != fmt.Sprint(tc.want) {
			t.Errorf("certificate for %v: surface addresses %+v, want %+v", tc.names, res.Surface.Addresses, tc.want)
		}
	}
}

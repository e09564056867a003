package dnscheck

import (
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// checkDNSProof asserts the proof of the findings that have one: zone
// transfers show the AXFR query, dangling aliases the chain to NXDOMAIN,
// SPF record findings the TXT answer.
func checkDNSProof(t *testing.T, f scans.Finding) {
	t.Helper()
	want := map[scans.CheckCode][2]string{
		checks.ZoneTransfer.Code:  {" IN AXFR", "rcode NOERROR"},
		checks.DanglingCNAME.Code: {" IN A ", ": NXDOMAIN"},
		checks.SPFPassAll.Code:    {" IN TXT", ` TXT "v=spf1`},
		checks.SPFNeutral.Code:    {" IN TXT", ` TXT "v=spf1`},
		checks.SPFNoAll.Code:      {" IN TXT", ` TXT "v=spf1`},
	}
	w, ok := want[f.Check]
	if !ok {
		return
	}
	p := f.Proof
	if p == nil || p.Kind != scans.ProofTranscript || !strings.Contains(p.Request, w[0]) || !strings.Contains(p.Response, w[1]) {
		t.Errorf("%s: proof %+v, want request with %q and response with %q", f.Check, p, w[0], w[1])
	}
}

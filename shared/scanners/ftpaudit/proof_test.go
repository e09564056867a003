package ftpaudit

import (
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// The audit's findings carry the control connections' exchange: commands
// sent (the password shown as a placeholder) and the replies.
func TestFindingsCarryTranscriptProof(t *testing.T) {
	t.Parallel()
	port, _ := startFTP(t, serverOpts{anonymous: true})
	res := runAudit(t, siteEnv(t), port)
	f := byCheck(res.Findings, checks.FTPAnonymousSensitiveFile)
	if f == nil || f.Proof == nil {
		t.Fatalf("no proven sensitive-file finding: %+v", res.Findings)
	}
	p := f.Proof
	if p.Kind != scans.ProofTranscript || p.Curl != nil || p.ObservedAt.IsZero() {
		t.Errorf("proof %+v", p)
	}
	for _, want := range []string{"connect ftp.shop.test:", "USER anonymous", "PASS <e-mail address>", "AUTH TLS"} {
		if !strings.Contains(p.Request, want) {
			t.Errorf("request lacks %q:\n%s", want, p.Request)
		}
	}
	if strings.Contains(p.Request, AnonymousPassword) {
		t.Errorf("request shows the password:\n%s", p.Request)
	}
	for _, want := range []string{"220 ", "331 ", "230 ", "550 "} {
		if !strings.Contains(p.Response, want) {
			t.Errorf("response lacks %q:\n%s", want, p.Response)
		}
	}
}

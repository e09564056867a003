package ftpaudit

import (
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/scantest"
)

// The audit's findings carry the control connections' exchange: commands
// sent (the password shown as a placeholder) and the replies.
func TestFindingsCarryTranscriptProof(t *testing.T) {
	t.Parallel()
	port, _ := startFTP(t, serverOpts{anonymous: true})
	res := runAudit(t, siteEnv(t), port)
	f := scantest.ByCheck(res.Findings, checks.FTPAnonymousSensitiveFile)
	if f == nil || f.Proof == nil {
		t.Fatalf("no proven sensitive-file finding: %+v", res.Findings)
	}
	p := f.Proof
	scantest.CheckTranscript(t, p,
		[]string{"connect ftp.shop.test:", "USER anonymous", "PASS <e-mail address>", "AUTH TLS"},
		[]string{"220 ", "331 ", "230 ", "550 "})
	if strings.Contains(p.Request, AnonymousPassword) {
		t.Errorf("request shows the password:\n%s", p.Request)
	}
}

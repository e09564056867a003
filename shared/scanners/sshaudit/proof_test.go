package sshaudit

import (
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/scantest"
)

// The audit's findings carry its transcript: what was sent (no credential)
// and the server's identification, KEXINIT lists and allowed methods.
func TestFindingsCarryTranscriptProof(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	srv := legacyServer(t)
	res, _ := run(t, env, srv.port())
	f := scantest.ByCheck(res.Findings, checks.SSHKexWeak)
	if f == nil || f.Proof == nil {
		t.Fatalf("no proven kex finding: %+v", res.Findings)
	}
	p := f.Proof
	scantest.CheckTranscript(t, p,
		[]string{"send: " + clientVersion, `method "none" (no credential)`},
		[]string{"SSH-2.0-", "kex_algorithms: ", "diffie-hellman-group1-sha1", "methods that can continue: ", "password"})
	for _, g := range res.Findings {
		if g.Proof != p {
			t.Errorf("%s: not the audit's proof", g.Check)
		}
	}
}

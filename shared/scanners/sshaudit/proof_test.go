package sshaudit

import (
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// The audit's findings carry its transcript: what was sent (no credential)
// and the server's identification, KEXINIT lists and allowed methods.
func TestFindingsCarryTranscriptProof(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	srv := legacyServer(t)
	res, _ := run(t, env, srv.port())
	f := byCheck(res.Findings, checks.SSHKexWeak)
	if f == nil || f.Proof == nil {
		t.Fatalf("no proven kex finding: %+v", res.Findings)
	}
	p := f.Proof
	if p.Kind != scans.ProofTranscript || p.Curl != nil || p.ObservedAt.IsZero() {
		t.Errorf("proof %+v", p)
	}
	for _, want := range []string{"send: " + clientVersion, `method "none" (no credential)`} {
		if !strings.Contains(p.Request, want) {
			t.Errorf("request lacks %q: %s", want, p.Request)
		}
	}
	for _, want := range []string{"SSH-2.0-", "kex_algorithms: ", "diffie-hellman-group1-sha1", "methods that can continue: ", "password"} {
		if !strings.Contains(p.Response, want) {
			t.Errorf("response lacks %q: %s", want, p.Response)
		}
	}
	for _, g := range res.Findings {
		if g.Proof != p {
			t.Errorf("%s: not the audit's proof", g.Check)
		}
	}
}

package sshaudit

import (
	"fmt"
	"strings"
	"time"

	"secscan/shared/proof"
	"secscan/shared/scans"
)

// proof is the transcript of the audit: the identification lines, the
// server's KEXINIT lists and its answer to the "none" authentication
// request. It is the same for every finding of one audit.
func (a *audited) proof(at time.Time) *scans.Proof {
	request := fmt.Sprintf("connect %s:%d over TCP\nsend: %s\nread the server's identification and KEXINIT\n"+
		"complete the key exchange, send SSH_MSG_USERAUTH_REQUEST user %q method \"none\" (no credential)",
		a.host, a.port, clientVersion, auditUser)
	lines := []string{
		a.server,
		"KEXINIT kex_algorithms: " + strings.Join(a.kex.Kex, ","),
		"KEXINIT server_host_key_algorithms: " + strings.Join(a.kex.HostKey, ","),
		"KEXINIT encryption_algorithms: " + strings.Join(a.kex.Ciphers(), ","),
		"KEXINIT mac_algorithms: " + strings.Join(a.kex.MACs(), ","),
	}
	switch {
	case a.noneAccepted:
		lines = append(lines, `USERAUTH "none": SSH_MSG_USERAUTH_SUCCESS (no credential asked)`)
	case a.methods != nil:
		lines = append(lines, "USERAUTH_FAILURE, methods that can continue: "+strings.Join(a.methods, ","))
	case a.authNote != "":
		lines = append(lines, a.authNote)
	}
	return proof.Transcript(request, strings.Join(lines, "\n"), at)
}

// proven gives every finding of one audit its transcript.
func proven(fs []scans.Finding, p *scans.Proof) []scans.Finding {
	for i := range fs {
		fs[i].Proof = p
	}
	return fs
}

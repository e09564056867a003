// Package proof builds the proof a finding carries (CONTRACT "Proof and
// retest"): the exact exchange that proved it, bounded and with found
// secrets redacted, in one way for every tool. An HTTP proof is the request
// sent (request line and headers) and what came back (status line, the
// headers that matter, a body excerpt around the evidence), with a curl
// command line that repeats it; a transcript is a protocol exchange. The
// text is the target's: it is cleaned of control characters here and
// escaped wherever it is shown.
package proof

import (
	"fmt"
	"regexp"
	"strings"
)

// RedactValue shows the first characters of a secret and its length, never
// enough to use it: at most 4 characters and at most a third of it. It is
// the one redaction of found secrets, in evidence and proofs alike.
func RedactValue(v string) string {
	v = strings.Trim(strings.TrimSpace(v), `"'`)
	r := []rune(v)
	show := min(4, len(r)/3)
	return string(r[:show]) + fmt.Sprintf("… (%d chars)", len(r))
}

// minSecret is the shortest explicit secret replaced: shorter strings would
// redact ordinary words.
const minSecret = 4

// maxSecrets bounds the explicit secrets one proof redacts.
const maxSecrets = 64

var (
	privateKeyBlock = regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)
	credentialsURL  = regexp.MustCompile(`(://)[^/@\s:]+:[^/@\s]+@`)
	awsKeyID        = regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)
	jwtToken        = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)
	// knownToken are API keys whose prefix says what they are, wherever
	// they appear (a page's inline script, a bundle): Stripe, GitHub,
	// Slack, Google, npm, GitLab.
	knownToken   = regexp.MustCompile(`\b(?:[sr]k_live_[0-9A-Za-z]{10,}|gh[pousr]_[0-9A-Za-z]{20,}|xox[abprs]-[0-9A-Za-z-]{10,}|AIza[0-9A-Za-z_-]{30,}|npm_[0-9A-Za-z]{20,}|glpat-[0-9A-Za-z_-]{20,})`)
	passwordHash = regexp.MustCompile(`(\$apr1\$|\$2[aby]\$|\{SHA\}|\$[156]\$)[^\s:"'<>]+`)
	// secretAssignment is a value assigned to a name that says it is a
	// secret: KEY=value, "key": "value", key: value.
	secretAssignment = regexp.MustCompile(`(?i)([\w.-]*(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth|dsn|database_url)[\w.-]*(?:["']?\s*(?:=|:|=>)|["']\s*,)\s*["']?)([^\s"'&,;<>]{4,})`)
	// secretHeader is a request or response header whose value is a
	// credential.
	secretHeader = regexp.MustCompile(`(?im)^((?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token):[ \t]*)(.+)$`)
)

// Redact replaces the secrets in text: each of secrets (the values the tool
// found), then anything that looks like one (private key blocks,
// credentials in URLs, AWS key ids, JWTs, password hashes, values assigned
// to secret-sounding names, credential headers).
func Redact(text string, secrets ...string) string {
	for i, s := range secrets {
		if i == maxSecrets {
			break
		}
		s = strings.TrimSpace(s)
		if len(s) >= minSecret {
			text = strings.ReplaceAll(text, s, RedactValue(s))
		}
	}
	text = privateKeyBlock.ReplaceAllString(text, "[private key redacted]")
	text = credentialsURL.ReplaceAllString(text, "${1}[credentials redacted]@")
	text = secretHeader.ReplaceAllStringFunc(text, func(m string) string {
		sub := secretHeader.FindStringSubmatch(m)
		return sub[1] + RedactValue(sub[2])
	})
	text = secretAssignment.ReplaceAllStringFunc(text, func(m string) string {
		sub := secretAssignment.FindStringSubmatch(m)
		if strings.Contains(sub[2], "…") {
			return m // already redacted
		}
		return sub[1] + RedactValue(sub[2])
	})
	for _, re := range []*regexp.Regexp{awsKeyID, jwtToken, passwordHash, knownToken} {
		text = re.ReplaceAllStringFunc(text, RedactValue)
	}
	return text
}

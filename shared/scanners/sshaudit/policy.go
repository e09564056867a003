package sshaudit

import (
	"slices"
	"strings"

	"secscan/shared/scans"
)

// The policy: Mozilla's OpenSSH guidelines (modern configuration) for
// ciphers, MACs and host keys, and RFC 9142 for key exchange. An algorithm
// is weak when one of them retires it; the finding's severity follows the
// worst algorithm of its class (see the catalogue's rationale).

// nameRule judges the algorithm names it matches (lowercase): one of
// exact, or one that starts with a prefix, ends with a suffix or contains
// one of contains.
type nameRule struct {
	why                             string
	severity                        scans.Severity
	exact, prefix, suffix, contains []string
}

func (r nameRule) matches(n string) bool {
	return slices.Contains(r.exact, n) ||
		slices.ContainsFunc(r.prefix, func(p string) bool { return strings.HasPrefix(n, p) }) ||
		slices.ContainsFunc(r.suffix, func(s string) bool { return strings.HasSuffix(n, s) }) ||
		slices.ContainsFunc(r.contains, func(s string) bool { return strings.Contains(n, s) })
}

// policy is one algorithm class's rules, the first that matches deciding.
type policy []nameRule

// weakness judges an algorithm name: "" when acceptable, else why, and
// the severity it alone calls for.
func (p policy) weakness(name string) (string, scans.Severity) {
	n := strings.ToLower(name)
	for _, r := range p {
		if r.matches(n) {
			return r.why, r.severity
		}
	}
	return "", ""
}

// kexPolicy judges key exchange algorithms: medium (the check's default)
// for the severe kind, a 1024-bit group or key; low for a SHA-1 exchange
// hash alone.
var kexPolicy = policy{
	{why: "1024-bit Oakley group 2 (RFC 9142: SHOULD NOT; Logjam-class precomputation)", severity: scans.Medium,
		exact: []string{"diffie-hellman-group1-sha1"}, prefix: []string{"gss-group1-sha1-"}},
	{why: "1024-bit RSA key transport (RFC 9142: MUST NOT)", severity: scans.Medium, exact: []string{"rsa1024-sha1"}},
	{why: "SHA-1 exchange hash (RFC 9142: SHOULD NOT or MAY; not in Mozilla's list)", severity: scans.Low,
		suffix: []string{"-sha1", "-sha1@openssh.com"}, contains: []string{"-sha1-"}},
}

// cipherPolicy judges ciphers.
var cipherPolicy = policy{
	{why: "no encryption", severity: scans.High, exact: []string{"none"}},
	{why: "RC4 (biased keystream, RFC 8758)", severity: scans.Medium, prefix: []string{"arcfour"}},
	{why: "64-bit block cipher (SWEET32-class collisions)", severity: scans.Medium,
		prefix: []string{"3des", "blowfish", "cast128", "idea"}, exact: []string{"des-cbc@ssh.com", "des-cbc"}},
	{why: "CBC mode (CVE-2008-5161 plaintext recovery)", severity: scans.Low,
		suffix: []string{"-cbc", "-cbc@lysator.liu.se"}, contains: []string{"-cbc@"}},
}

// macPolicy judges MACs.
var macPolicy = policy{
	{why: "no integrity protection", severity: scans.High, exact: []string{"none"}},
	{why: "MD5", severity: scans.Low, contains: []string{"md5"}},
	{why: "96-bit truncated tag", severity: scans.Low, contains: []string{"-96"}},
	{why: "64-bit tag", severity: scans.Low, prefix: []string{"umac-64"}},
	{why: "SHA-1", severity: scans.Low, prefix: []string{"hmac-sha1"}},
	{why: "RIPEMD-160 (not in Mozilla's list)", severity: scans.Low, prefix: []string{"hmac-ripemd160"}},
}

// hostKeyPolicy judges host key signature algorithms; the finding's
// severity depends on whether a strong one is offered, not on these.
var hostKeyPolicy = policy{
	{why: "RSA with SHA-1 signatures (RFC 8332; disabled by default since OpenSSH 8.8)",
		exact: []string{"ssh-rsa", "ssh-rsa-cert-v01@openssh.com", "x509v3-sign-rsa"}},
	{why: "1024-bit DSA (disabled by default since OpenSSH 7.0)", contains: []string{"ssh-dss"}, exact: []string{"x509v3-sign-dss"}},
}

// strictKex is the server's strict key exchange marker (OpenSSH 9.6), the
// Terrapin countermeasure.
const strictKex = "kex-strict-s-v00@openssh.com"

// terrapin says whether the offered algorithms allow the Terrapin prefix
// truncation (CVE-2023-48795) and which ones: ChaCha20-Poly1305, or an
// encrypt-then-MAC MAC together with a CBC cipher, without strict kex.
func terrapin(k KexInit) (bool, []string) {
	if slices.Contains(k.Kex, strictKex) {
		return false, nil
	}
	culprits := namesWhere(k.Ciphers(), func(n string) bool { return n == "chacha20-poly1305@openssh.com" })
	etm := namesWhere(k.MACs(), func(n string) bool { return strings.HasSuffix(n, "-etm@openssh.com") })
	cbc := namesWhere(k.Ciphers(), func(n string) bool { return strings.Contains(n, "-cbc") })
	if len(etm) > 0 && len(cbc) > 0 {
		culprits = append(culprits, etm...)
		culprits = append(culprits, cbc...)
	}
	return len(culprits) > 0, culprits
}

// namesWhere are the algorithm names whose lowercase form matches.
func namesWhere(names []string, match func(lower string) bool) []string {
	var out []string
	for _, n := range names {
		if match(strings.ToLower(n)) {
			out = append(out, n)
		}
	}
	return out
}

// passwordMethods are the offered authentication methods that take a
// password (keyboard-interactive usually asks for one; it may also be a
// second factor, which the evidence says).
func passwordMethods(methods []string) []string {
	var out []string
	for _, m := range methods {
		if m == "password" || m == "keyboard-interactive" {
			out = append(out, m)
		}
	}
	return out
}

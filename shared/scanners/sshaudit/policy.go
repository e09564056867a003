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

// kexWeakness judges a key exchange algorithm: "" when acceptable, else
// why, and whether it is the severe kind (a 1024-bit group).
func kexWeakness(name string) (why string, severe bool) {
	n := strings.ToLower(name)
	switch {
	case n == "diffie-hellman-group1-sha1", strings.HasPrefix(n, "gss-group1-sha1-"):
		return "1024-bit Oakley group 2 (RFC 9142: SHOULD NOT; Logjam-class precomputation)", true
	case n == "rsa1024-sha1":
		return "1024-bit RSA key transport (RFC 9142: MUST NOT)", true
	case strings.HasSuffix(n, "-sha1") || strings.Contains(n, "-sha1-") || strings.HasSuffix(n, "-sha1@openssh.com"):
		return "SHA-1 exchange hash (RFC 9142: SHOULD NOT or MAY; not in Mozilla's list)", false
	}
	return "", false
}

// cipherWeakness judges a cipher: "" when acceptable, else why, and the
// severity it alone calls for.
func cipherWeakness(name string) (string, scans.Severity) {
	n := strings.ToLower(name)
	switch {
	case n == "none":
		return "no encryption", scans.High
	case strings.HasPrefix(n, "arcfour"):
		return "RC4 (biased keystream, RFC 8758)", scans.Medium
	case strings.HasPrefix(n, "3des"), strings.HasPrefix(n, "blowfish"), strings.HasPrefix(n, "cast128"),
		strings.HasPrefix(n, "idea"), n == "des-cbc@ssh.com", n == "des-cbc":
		return "64-bit block cipher (SWEET32-class collisions)", scans.Medium
	case strings.HasSuffix(n, "-cbc"), strings.HasSuffix(n, "-cbc@lysator.liu.se"), strings.Contains(n, "-cbc@"):
		return "CBC mode (CVE-2008-5161 plaintext recovery)", scans.Low
	}
	return "", ""
}

// macWeakness judges a MAC: "" when acceptable, else why and severity.
func macWeakness(name string) (string, scans.Severity) {
	n := strings.ToLower(name)
	switch {
	case n == "none":
		return "no integrity protection", scans.High
	case strings.Contains(n, "md5"):
		return "MD5", scans.Low
	case strings.Contains(n, "-96"):
		return "96-bit truncated tag", scans.Low
	case strings.HasPrefix(n, "umac-64"):
		return "64-bit tag", scans.Low
	case strings.HasPrefix(n, "hmac-sha1"):
		return "SHA-1", scans.Low
	case strings.HasPrefix(n, "hmac-ripemd160"):
		return "RIPEMD-160 (not in Mozilla's list)", scans.Low
	}
	return "", ""
}

// hostKeyWeakness judges a host key signature algorithm.
func hostKeyWeakness(name string) string {
	n := strings.ToLower(name)
	switch {
	case n == "ssh-rsa", n == "ssh-rsa-cert-v01@openssh.com", n == "x509v3-sign-rsa":
		return "RSA with SHA-1 signatures (RFC 8332; disabled by default since OpenSSH 8.8)"
	case strings.Contains(n, "ssh-dss"), n == "x509v3-sign-dss":
		return "1024-bit DSA (disabled by default since OpenSSH 7.0)"
	}
	return ""
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

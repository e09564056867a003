package checks

import "secscan/shared/scans"

// SSH servers judged by what they offer (ssh_audit): the algorithms of
// their KEXINIT against Mozilla's OpenSSH guidelines and RFC 9142, the
// authentication methods they offer to a "none" request, and the Terrapin
// condition read from the protocol, not from the version.

const (
	refMozillaSSH = "https://infosec.mozilla.org/guidelines/openssh"
	refRFC9142    = "https://www.rfc-editor.org/rfc/rfc9142"
	refCWE327     = "https://cwe.mitre.org/data/definitions/327.html"
	refTerrapin   = "https://terrapin-attack.com/"

	sshAlgoFix = "Restrict the server to the algorithms of Mozilla's modern OpenSSH configuration " +
		"(sshd_config KexAlgorithms, Ciphers, MACs, HostKeyAlgorithms) and reload sshd; check with `sshd -T`."
)

// SSH audit findings.
var (
	SSHKexWeak = define(Check{
		Code: "ssh.kex.weak", Title: "SSH server offers weak key exchange algorithms",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-327",
		Rationale: "RFC 9142 says MUST NOT / SHOULD NOT for 1024-bit groups and SHA-1 exchange hashes (Logjam-class precomputation); " +
			"downgrading needs an active attacker. The tool lowers it to low when only 2048-bit SHA-1 groups are offered.",
		Description: "The server's key exchange list (KEXINIT) includes algorithms that RFC 9142 and Mozilla's OpenSSH " +
			"guidelines retire: Diffie-Hellman with the 1024-bit Oakley group 2 (diffie-hellman-group1-sha1, Logjam-class " +
			"precomputation), RSA 1024-bit key transport, or SHA-1 exchange hashes (group14-sha1, group-exchange-sha1). A client " +
			"that also still offers them can be made to use them.",
		Remediation: sshAlgoFix + " For key exchange: KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256," +
			"curve25519-sha256@libssh.org,ecdh-sha2-nistp521,ecdh-sha2-nistp384,ecdh-sha2-nistp256,diffie-hellman-group-exchange-sha256.",
		References: []string{refRFC9142, refMozillaSSH, refCWE327},
	})
	SSHCipherWeak = define(Check{
		Code: "ssh.cipher.weak", Title: "SSH server offers weak ciphers",
		Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327",
		Rationale: "CBC modes have no practical attack on patched servers (CVE-2008-5161 needs many retries) but are outside Mozilla's list; " +
			"the tool raises it to medium for 64-bit block ciphers and RC4 (arcfour), and to high for the none cipher.",
		Description: "The server's cipher list includes ciphers that Mozilla's OpenSSH guidelines and RFC 4253's successors " +
			"retire: CBC modes (plaintext recovery, CVE-2008-5161), 64-bit block ciphers such as 3DES and Blowfish " +
			"(SWEET32-class collisions), RC4 (arcfour, biased keystream) or no encryption at all.",
		Remediation: sshAlgoFix + " For ciphers: Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com," +
			"aes128-gcm@openssh.com,aes256-ctr,aes192-ctr,aes128-ctr.",
		References: []string{refMozillaSSH, "https://www.rfc-editor.org/rfc/rfc8758", refCWE327},
	})
	SSHMACWeak = define(Check{
		Code: "ssh.mac.weak", Title: "SSH server offers weak MAC algorithms",
		Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327",
		Rationale: "HMAC-SHA1 and HMAC-MD5 have no practical forgery in SSH, but MD5, 64- and 96-bit tags are below Mozilla's bar; " +
			"exploitation needs an active attacker. The tool raises it to high for the none MAC.",
		Description: "The server's MAC list includes algorithms that Mozilla's OpenSSH guidelines leave out: MD5 or SHA-1 " +
			"based HMACs, truncated 96-bit and 64-bit tags (hmac-*-96, umac-64) or no integrity protection at all.",
		Remediation: sshAlgoFix + " For MACs: MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com," +
			"umac-128-etm@openssh.com,hmac-sha2-512,hmac-sha2-256,umac-128@openssh.com.",
		References: []string{refMozillaSSH, "https://www.rfc-editor.org/rfc/rfc6668", refCWE327},
	})
	SSHHostKeyWeak = define(Check{
		Code: "ssh.hostkey.weak", Title: "SSH server offers weak host key signature algorithms",
		Category: scans.CategoryNetwork, Severity: scans.Low, CWE: "CWE-327",
		Rationale: "SHA-1 signatures (ssh-rsa) and 1024-bit DSA are deprecated (RFC 8332, OpenSSH 7.0/8.8) but forging the host's " +
			"signature still needs a chosen-prefix collision; the tool raises it to medium when the server offers nothing better.",
		Description: "The server offers host key signature algorithms that OpenSSH has disabled by default: ssh-rsa " +
			"(RSA with SHA-1, for which chosen-prefix collisions are practical) or ssh-dss (1024-bit DSA). Clients that only " +
			"accept SHA-2 signatures cannot verify a server that offers nothing else.",
		Remediation: "Offer ssh-ed25519 and RSA with SHA-2 signatures (rsa-sha2-512, rsa-sha2-256) with a key of at least " +
			"3072 bits: HostKeyAlgorithms ssh-ed25519,rsa-sha2-512,rsa-sha2-256 (and remove DSA host keys).",
		References: []string{"https://www.rfc-editor.org/rfc/rfc8332", refMozillaSSH, refCWE327},
	})
	SSHPasswordAuth = define(Check{
		Code: "ssh.auth.password", Title: "SSH server accepts password logins",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-307",
		Rationale: "Internet-facing password logins are the target of continuous credential guessing and stuffing; a breach " +
			"still needs a weak or reused password (Mozilla and CIS: keys only).",
		Description: "Asked which authentication methods it accepts (an SSH \"none\" request, no password or key was sent), " +
			"the server offered password or keyboard-interactive authentication. Exposed password logins are guessed " +
			"around the clock by botnets; one weak or reused password gives a shell.",
		Remediation: "Set PasswordAuthentication no and KbdInteractiveAuthentication no (unless keyboard-interactive is a " +
			"second factor), use public keys or certificates, and restrict SSH to known addresses or a VPN.",
		References: []string{refMozillaSSH, "https://cwe.mitre.org/data/definitions/307.html"},
	})
	SSHTerrapin = define(Check{
		Code: "ssh.terrapin", Title: "SSH server vulnerable to the Terrapin prefix truncation attack (CVE-2023-48795)",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-354",
		Rationale: "CVSS 3.1 5.9 (AV:N/AC:H): an on-path attacker drops messages at the start of the session (downgrading " +
			"its extension negotiation); judged from the algorithms offered, so certain.",
		Description: "The server offers ChaCha20-Poly1305 or an encrypt-then-MAC algorithm (with CBC ciphers) and does not " +
			"advertise strict key exchange (kex-strict-s-v00@openssh.com), the countermeasure of OpenSSH 9.6. An attacker on " +
			"the network path can then delete messages at the start of the secure channel without either side noticing " +
			"(Terrapin, CVE-2023-48795), for example to disable keystroke-timing protection.",
		Remediation: "Upgrade the SSH server to a release that supports strict key exchange (OpenSSH 9.6 or a distribution " +
			"package with the fix), or disable chacha20-poly1305@openssh.com and the *-etm@openssh.com MACs until then.",
		References: []string{refTerrapin, "https://nvd.nist.gov/vuln/detail/CVE-2023-48795"},
	})
)

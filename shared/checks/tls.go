package checks

import "secscan/shared/scans"

// TLS certificates, protocols and cipher suites (tls_check). Severities
// follow Mozilla's server-side TLS guidance (the "intermediate"
// configuration is the bar), RFC 8996 for TLS 1.0/1.1, RFC 7465 for RC4 and
// RFC 9325 for the rest; HSTS is web.header.hsts (shared with the web tool).

const (
	refMozillaTLS = "https://wiki.mozilla.org/Security/Server_Side_TLS"
	refRFC9325    = "https://www.rfc-editor.org/rfc/rfc9325"
	refRFC8996    = "https://www.rfc-editor.org/rfc/rfc8996"
	refCWE295     = "https://cwe.mitre.org/data/definitions/295.html"
	renewFix      = "Renew the certificate (automate it: ACME/Let's Encrypt, or your provider's managed certificates) " +
		"and reload every server and load balancer that serves it."
	certRationale = "Clients cannot authenticate the server, so users learn to click through warnings an attacker in the middle can exploit (CWE-295; Mozilla requires a trusted, valid certificate)."
	legacyTLSFix  = "Disable TLS 1.0 and 1.1 on the server or load balancer (e.g. nginx `ssl_protocols TLSv1.2 TLSv1.3;`, " +
		"an AWS ELB security policy such as ELBSecurityPolicy-TLS13-1-2-2021-06)."
)

// Certificates.
var (
	CertExpired = define(Check{
		Code: "tls.certificate.expired", Title: "TLS certificate expired",
		Category: scans.CategorySSL, Severity: scans.High, CWE: "CWE-324",
		Rationale:   "Every client refuses or warns: an outage for API clients and a habit of clicking through warnings for users.",
		Description: "The server presents a certificate (or intermediate) past its expiry date. Browsers and API clients refuse the connection or show a full-page warning, and users who learn to click through warnings can be intercepted.",
		Remediation: renewFix,
		References:  []string{"https://cwe.mitre.org/data/definitions/324.html", refRFC9325},
	})
	CertNotYetValid = define(Check{
		Code: "tls.certificate.not-yet-valid", Title: "TLS certificate not yet valid",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295", Rationale: certRationale,
		Description: "The server presents a certificate whose validity starts in the future; clients reject it. This usually means a wrong clock on the issuing system or a certificate deployed too early.",
		Remediation: "Deploy a certificate that is valid now and check the clocks (NTP) of the servers involved.",
		References:  []string{refCWE295},
	})
	CertExpiringSoon = define(Check{
		Code: "tls.certificate.expiring-soon", Title: "TLS certificate expires within 30 days",
		Category: scans.CategorySSL, Severity: scans.Low,
		Rationale:   "No weakness yet, but renewal normally happens 30 days ahead, so renewal is probably failing.",
		Description: "The certificate expires soon. When it does, clients will refuse the connection; automated renewal normally replaces certificates 30 days before expiry, so this often means renewal is failing.",
		Remediation: renewFix + " Check that automated renewal runs and alerts on failure.",
		References:  []string{"https://letsencrypt.org/docs/integration-guide/"},
	})
	CertSelfSigned = define(Check{
		Code: "tls.certificate.self-signed", Title: "Self-signed TLS certificate",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295", Rationale: certRationale,
		Description: "The certificate is signed by its own key, not by a certificate authority clients trust, so clients cannot tell the real server from an attacker in the middle; users must click through warnings, which trains them to accept an attacker's certificate too.",
		Remediation: "Use a certificate from a publicly trusted CA (free with Let's Encrypt/ACME) for anything reachable from the internet; keep self-signed certificates for internal endpoints whose clients pin them.",
		References:  []string{refCWE295, "https://letsencrypt.org/getting-started/"},
	})
	CertUntrusted = define(Check{
		Code: "tls.certificate.untrusted", Title: "TLS certificate chain not trusted",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-295", Rationale: certRationale,
		Description: "The certificate chain does not lead to a trusted root certificate authority: it is issued by a private or unknown CA, or the server does not send the intermediate certificates. Many clients (API clients, mobile apps, curl) then refuse the connection, and users are trained to accept warnings.",
		Remediation: "Serve the full chain (the leaf followed by its intermediates, e.g. fullchain.pem) and use a certificate from a publicly trusted CA.",
		References:  []string{refCWE295, "https://www.rfc-editor.org/rfc/rfc5246#section-7.4.2"},
	})
	CertHostMismatch = define(Check{
		Code: "tls.certificate.hostname-mismatch", Title: "TLS certificate does not match the host name",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-297", Rationale: certRationale,
		Description: "The certificate's names (subjectAltName) do not include the host name that was requested, so clients reject the connection or warn; this is often a default certificate served for a virtual host without its own.",
		Remediation: "Issue a certificate that lists this host name (or a matching wildcard) and configure the server (SNI) to serve it for this name.",
		References:  []string{"https://cwe.mitre.org/data/definitions/297.html", "https://www.rfc-editor.org/rfc/rfc6125"},
	})
	CertWeakRSA = define(Check{
		Code: "tls.certificate.weak-key", Title: "TLS certificate RSA key shorter than 2048 bits",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-326",
		Rationale:   "Below Mozilla's and NIST SP 800-131A's 2048-bit minimum; factoring needs a well-funded attacker.",
		Description: "A certificate in the chain has an RSA key shorter than 2048 bits. Keys of 1024 bits and less are within reach of well-funded attackers, and CAs and browsers no longer accept them.",
		Remediation: "Generate a new key of at least 2048 bits (or an ECDSA P-256 key), get a new certificate for it and revoke the old one.",
		References:  []string{"https://cwe.mitre.org/data/definitions/326.html", "https://csrc.nist.gov/pubs/sp/800/131/a/r2/final"},
	})
	CertWeakSignature = define(Check{
		Code: "tls.certificate.weak-signature", Title: "TLS certificate signed with SHA-1 or MD5",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-328",
		Rationale:   "Collisions are practical but forging a certificate still takes a chosen-prefix attack; Mozilla requires SHA-256 signatures.",
		Description: "A certificate in the chain is signed with SHA-1 or MD5. Collisions for both are practical, so such signatures can be forged; browsers and Go, Java and OpenSSL clients reject them.",
		Remediation: "Replace the certificate (and any intermediate signed with SHA-1) with one signed with SHA-256 or stronger; every current CA issues those.",
		References:  []string{"https://cwe.mitre.org/data/definitions/328.html", "https://shattered.io/"},
	})
)

// Protocols and cipher suites.
var (
	TLS10 = define(Check{
		Code: "tls.protocol.tls10", Title: "TLS 1.0 accepted",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327",
		Rationale:   "Deprecated by RFC 8996 and outside Mozilla intermediate; attacks (BEAST, Lucky13) need an active network attacker.",
		Description: "The server completes handshakes with TLS 1.0, deprecated by RFC 8996 (2021): it relies on SHA-1 and CBC constructions with known attacks (BEAST, Lucky13) and is not allowed by PCI DSS. Every current client supports TLS 1.2.",
		Remediation: legacyTLSFix,
		References:  []string{refRFC8996, refMozillaTLS},
	})
	TLS11 = define(Check{
		Code: "tls.protocol.tls11", Title: "TLS 1.1 accepted",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327",
		Rationale:   "Deprecated by RFC 8996 and outside Mozilla intermediate; attacks need an active network attacker.",
		Description: "The server completes handshakes with TLS 1.1, deprecated by RFC 8996 (2021) for its reliance on SHA-1 and weak CBC constructions. Every current client supports TLS 1.2.",
		Remediation: legacyTLSFix,
		References:  []string{refRFC8996, refMozillaTLS},
	})
	CipherRC4 = define(Check{
		Code: "tls.cipher.rc4", Title: "RC4 cipher suites accepted",
		Category: scans.CategorySSL, Severity: scans.High, CWE: "CWE-327",
		Rationale:   "Prohibited by RFC 7465: its keystream biases recover repeated secrets such as cookies (CVE-2015-2808).",
		Description: "The server accepts RC4 cipher suites, which RFC 7465 prohibits: RC4's keystream biases let an attacker recover repeatedly sent secrets such as cookies.",
		Remediation: "Remove every RC4 suite from the server's cipher list; offer only ECDHE suites with AES-GCM or ChaCha20-Poly1305.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc7465", "https://nvd.nist.gov/vuln/detail/CVE-2015-2808"},
	})
	Cipher3DES = define(Check{
		Code: "tls.cipher.3des", Title: "3DES cipher suites accepted (SWEET32)",
		Category: scans.CategorySSL, Severity: scans.Medium, CWE: "CWE-327",
		Rationale:   "SWEET32 (CVE-2016-2183) needs hundreds of gigabytes on one connection; outside Mozilla intermediate.",
		Description: "The server accepts 3DES cipher suites. 3DES has a 64-bit block, so long connections leak plaintext through birthday collisions (SWEET32).",
		Remediation: "Remove the 3DES suites (…_3DES_EDE_CBC_SHA) from the server's cipher list.",
		References:  []string{"https://sweet32.info/", "https://nvd.nist.gov/vuln/detail/CVE-2016-2183"},
	})
	CipherRSAKex = define(Check{
		Code: "tls.cipher.no-forward-secrecy", Title: "Cipher suites without forward secrecy accepted (RSA key exchange)",
		Category: scans.CategorySSL, Severity: scans.Low, CWE: "CWE-327",
		Rationale:   "Harm needs the server's private key later; Mozilla intermediate and RFC 9325 require forward secrecy.",
		Description: "The server accepts TLS_RSA_* suites, whose session keys are encrypted with the certificate's key: whoever obtains that key later can decrypt every recorded session. These suites are also the ones exposed to Bleichenbacher-style oracles (ROBOT).",
		Remediation: "Offer only ECDHE key exchange (TLS_ECDHE_*) in TLS 1.2, and enable TLS 1.3.",
		References:  []string{refMozillaTLS, refRFC9325},
	})
	CipherCBC = define(Check{
		Code: "tls.cipher.cbc", Title: "CBC-mode cipher suites accepted",
		Category: scans.CategorySSL, Severity: scans.Low, CWE: "CWE-327",
		Rationale:   "No practical attack on patched stacks; Mozilla intermediate and RFC 9325 keep only AEAD suites.",
		Description: "The server accepts TLS 1.2 cipher suites in CBC mode. Their MAC-then-encrypt construction has a long history of padding-oracle and timing attacks (Lucky13, POODLE for TLS); current guidance (Mozilla intermediate, RFC 9325) keeps only AEAD suites.",
		Remediation: "Offer only AEAD suites in TLS 1.2: ECDHE with AES-GCM or ChaCha20-Poly1305 (Mozilla's intermediate configuration); keep CBC only if legacy clients you must serve need it.",
		References:  []string{refMozillaTLS, refRFC9325},
	})
)

package tlscheck

import (
	"crypto/tls"
	"strings"
	"unicode"
	"unicode/utf8"

	"secscan/shared/scans"
)

// check is one kind of finding: everything but the evidence. Its Title is
// fixed, so the agent recognises the same issue found twice.
type check struct {
	Title       string
	Severity    scans.Severity
	CWE         string
	CVE         string
	Description string
	Remediation string
	References  []string
}

func (c check) finding(tgt target, evidence string) scans.Finding {
	port := tgt.port
	f := scans.Finding{
		Title:       c.Title,
		Severity:    c.Severity,
		Category:    scans.CategorySSL,
		Host:        tgt.host,
		Port:        &port,
		Evidence:    evidence,
		Description: c.Description,
		Remediation: c.Remediation,
		References:  append([]string(nil), c.References...),
	}
	if c.CWE != "" {
		f.CWE = &c.CWE
	}
	if c.CVE != "" {
		f.CVE = &c.CVE
	}
	return f
}

const (
	refMozillaTLS = "https://wiki.mozilla.org/Security/Server_Side_TLS"
	refRFC9325    = "https://www.rfc-editor.org/rfc/rfc9325"
	refCWE295     = "https://cwe.mitre.org/data/definitions/295.html"
	refCWE327     = "https://cwe.mitre.org/data/definitions/327.html"
	renewFix      = "Renew the certificate (automate it: ACME/Let's Encrypt, or your provider's managed certificates) " +
		"and reload every server and load balancer that serves it."
)

// Certificate checks.
var (
	certExpired = check{
		Title:    "TLS certificate expired",
		Severity: scans.High,
		CWE:      "CWE-324",
		Description: "The server presents a certificate (or intermediate) past its expiry date. Browsers and API " +
			"clients refuse the connection or show a full-page warning, and users who learn to click through " +
			"warnings can be intercepted.",
		Remediation: renewFix,
		References:  []string{"https://cwe.mitre.org/data/definitions/324.html", refRFC9325},
	}
	certNotYetValid = check{
		Title:    "TLS certificate not yet valid",
		Severity: scans.Medium,
		CWE:      "CWE-295",
		Description: "The server presents a certificate whose validity starts in the future; clients reject it. " +
			"This usually means a wrong clock on the issuing system or a certificate deployed too early.",
		Remediation: "Deploy a certificate that is valid now and check the clocks (NTP) of the servers involved.",
		References:  []string{refCWE295},
	}
	certExpiringSoon = check{
		Title:    "TLS certificate expires within 30 days",
		Severity: scans.Low,
		Description: "The certificate expires soon. When it does, clients will refuse the connection; " +
			"automated renewal normally replaces certificates 30 days before expiry, so this often means " +
			"renewal is failing.",
		Remediation: renewFix + " Check that automated renewal runs and alerts on failure.",
		References:  []string{"https://letsencrypt.org/docs/integration-guide/"},
	}
	certSelfSigned = check{
		Title:    "Self-signed TLS certificate",
		Severity: scans.Medium,
		CWE:      "CWE-295",
		Description: "The certificate is signed by its own key, not by a certificate authority clients trust, so " +
			"clients cannot tell the real server from an attacker in the middle; users must click through " +
			"warnings, which trains them to accept an attacker's certificate too.",
		Remediation: "Use a certificate from a publicly trusted CA (free with Let's Encrypt/ACME) for anything " +
			"reachable from the internet; keep self-signed certificates for internal endpoints whose clients " +
			"pin them.",
		References: []string{refCWE295, "https://letsencrypt.org/getting-started/"},
	}
	certUntrusted = check{
		Title:    "TLS certificate chain not trusted",
		Severity: scans.Medium,
		CWE:      "CWE-295",
		Description: "The certificate chain does not lead to a trusted root certificate authority: it is issued by " +
			"a private or unknown CA, or the server does not send the intermediate certificates. Many clients " +
			"(API clients, mobile apps, curl) then refuse the connection, and users are trained to accept " +
			"warnings.",
		Remediation: "Serve the full chain (the leaf followed by its intermediates, e.g. fullchain.pem) and use a " +
			"certificate from a publicly trusted CA.",
		References: []string{refCWE295, "https://www.rfc-editor.org/rfc/rfc5246#section-7.4.2"},
	}
	certHostMismatch = check{
		Title:    "TLS certificate does not match the host name",
		Severity: scans.Medium,
		CWE:      "CWE-297",
		Description: "The certificate's names (subjectAltName) do not include the host name that was requested, so " +
			"clients reject the connection or warn; this is often a default certificate served for a virtual " +
			"host without its own.",
		Remediation: "Issue a certificate that lists this host name (or a matching wildcard) and configure the " +
			"server (SNI) to serve it for this name.",
		References: []string{"https://cwe.mitre.org/data/definitions/297.html", "https://www.rfc-editor.org/rfc/rfc6125"},
	}
	certWeakRSA = check{
		Title:    "TLS certificate RSA key shorter than 2048 bits",
		Severity: scans.Medium,
		CWE:      "CWE-326",
		Description: "A certificate in the chain has an RSA key shorter than 2048 bits. Keys of 1024 bits and less " +
			"are within reach of well-funded attackers, and CAs and browsers no longer accept them.",
		Remediation: "Generate a new key of at least 2048 bits (or an ECDSA P-256 key), get a new certificate for " +
			"it and revoke the old one.",
		References: []string{"https://cwe.mitre.org/data/definitions/326.html", "https://csrc.nist.gov/pubs/sp/800/131/a/r2/final"},
	}
	certWeakHash = check{
		Title:    "TLS certificate signed with SHA-1 or MD5",
		Severity: scans.Medium,
		CWE:      "CWE-328",
		Description: "A certificate in the chain is signed with SHA-1 or MD5. Collisions for both are practical, " +
			"so such signatures can be forged; browsers and Go, Java and OpenSSL clients reject them.",
		Remediation: "Replace the certificate (and any intermediate signed with SHA-1) with one signed with " +
			"SHA-256 or stronger; every current CA issues those.",
		References: []string{"https://cwe.mitre.org/data/definitions/328.html", "https://shattered.io/"},
	}
)

// Protocol and cipher suite checks.
var (
	tls10Accepted = check{
		Title:    "TLS 1.0 accepted",
		Severity: scans.Medium,
		CWE:      "CWE-327",
		Description: "The server completes handshakes with TLS 1.0, deprecated by RFC 8996 (2021): it relies on " +
			"SHA-1 and CBC constructions with known attacks (BEAST, Lucky13) and is not allowed by PCI DSS. " +
			"Every current client supports TLS 1.2.",
		Remediation: "Disable TLS 1.0 and 1.1 on the server or load balancer (e.g. nginx `ssl_protocols TLSv1.2 " +
			"TLSv1.3;`, an AWS ELB security policy such as ELBSecurityPolicy-TLS13-1-2-2021-06).",
		References: []string{"https://www.rfc-editor.org/rfc/rfc8996", refMozillaTLS},
	}
	tls11Accepted = check{
		Title:    "TLS 1.1 accepted",
		Severity: scans.Medium,
		CWE:      "CWE-327",
		Description: "The server completes handshakes with TLS 1.1, deprecated by RFC 8996 (2021) for its reliance " +
			"on SHA-1 and weak CBC constructions. Every current client supports TLS 1.2.",
		Remediation: tls10Accepted.Remediation,
		References:  tls10Accepted.References,
	}
	rc4Accepted = check{
		Title:    "RC4 cipher suites accepted",
		Severity: scans.High,
		CWE:      "CWE-327",
		CVE:      "CVE-2015-2808",
		Description: "The server accepts RC4 cipher suites, which RFC 7465 prohibits: RC4's keystream biases let " +
			"an attacker recover repeatedly sent secrets such as cookies.",
		Remediation: "Remove every RC4 suite from the server's cipher list; offer only ECDHE suites with AES-GCM " +
			"or ChaCha20-Poly1305.",
		References: []string{"https://www.rfc-editor.org/rfc/rfc7465", "https://nvd.nist.gov/vuln/detail/CVE-2015-2808"},
	}
	tdesAccepted = check{
		Title:    "3DES cipher suites accepted (SWEET32)",
		Severity: scans.Medium,
		CWE:      "CWE-327",
		CVE:      "CVE-2016-2183",
		Description: "The server accepts 3DES cipher suites. 3DES has a 64-bit block, so long connections leak " +
			"plaintext through birthday collisions (SWEET32).",
		Remediation: "Remove the 3DES suites (…_3DES_EDE_CBC_SHA) from the server's cipher list.",
		References:  []string{"https://sweet32.info/", "https://nvd.nist.gov/vuln/detail/CVE-2016-2183"},
	}
	rsaKexAccepted = check{
		Title:    "Cipher suites without forward secrecy accepted (RSA key exchange)",
		Severity: scans.Low,
		CWE:      "CWE-327",
		Description: "The server accepts TLS_RSA_* suites, whose session keys are encrypted with the certificate's " +
			"key: whoever obtains that key later can decrypt every recorded session. These suites are also the " +
			"ones exposed to Bleichenbacher-style oracles (ROBOT).",
		Remediation: "Offer only ECDHE key exchange (TLS_ECDHE_*) in TLS 1.2, and enable TLS 1.3.",
		References:  []string{refMozillaTLS, refRFC9325},
	}
	cbcAccepted = check{
		Title:    "CBC-mode cipher suites accepted",
		Severity: scans.Low,
		CWE:      "CWE-327",
		Description: "The server accepts TLS 1.2 cipher suites in CBC mode. Their MAC-then-encrypt construction has " +
			"a long history of padding-oracle and timing attacks (Lucky13, POODLE for TLS); current guidance " +
			"(Mozilla intermediate, RFC 9325) keeps only AEAD suites.",
		Remediation: "Offer only AEAD suites in TLS 1.2: ECDHE with AES-GCM or ChaCha20-Poly1305 (Mozilla's " +
			"intermediate configuration); keep CBC only if legacy clients you must serve need it.",
		References: []string{refMozillaTLS, refRFC9325},
	}
)

// HSTS checks. Titles and severities match the web tool's header checks
// (package web), which report the same header in category web.
var (
	hstsMissing = check{
		Title:    "Missing Strict-Transport-Security header",
		Severity: scans.Medium,
		CWE:      "CWE-319",
		Description: "The HTTPS response carries no valid Strict-Transport-Security header, so browsers will still " +
			"try plain HTTP for this host (typed URLs, old links), where an attacker on the network can strip " +
			"TLS and read or change the traffic.",
		Remediation: "Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS " +
			"response (after checking that all subdomains serve HTTPS), and redirect HTTP to HTTPS.",
		References: []string{"https://www.rfc-editor.org/rfc/rfc6797",
			"https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html"},
	}
	hstsShort = check{
		Title:    "Weak Strict-Transport-Security max-age",
		Severity: scans.Low,
		CWE:      "CWE-319",
		Description: "The Strict-Transport-Security header sets a max-age shorter than 180 days, so browsers that " +
			"have not visited for that long fall back to trying plain HTTP first.",
		Remediation: "Raise max-age to at least one year (31536000), as HSTS preload lists require.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc6797", "https://hstspreload.org/"},
	}
)

// probe is one extra handshake: a client offering only some versions or
// suites. The server accepting it is the finding.
type probe struct {
	name       string // for the outcome line, e.g. "TLS 1.0", "RC4"
	minVersion uint16
	maxVersion uint16
	suites     []uint16
	check      check
}

func (p probe) config(host string) *tls.Config {
	return baseConfig(host, p.minVersion, p.maxVersion, p.suites)
}

// probes are every extra handshake of a call. Suite probes stop at TLS 1.2:
// TLS 1.3 suites are all AEAD and Go does not let a client choose them.
var probes = []probe{
	{name: "TLS 1.0", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS10, suites: allSuites, check: tls10Accepted},
	{name: "TLS 1.1", minVersion: tls.VersionTLS11, maxVersion: tls.VersionTLS11, suites: allSuites, check: tls11Accepted},
	{name: "RC4", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: rc4Accepted, suites: []uint16{
		tls.TLS_RSA_WITH_RC4_128_SHA, tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA, tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	}},
	{name: "3DES", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: tdesAccepted, suites: []uint16{
		tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	}},
	{name: "RSA key exchange", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: rsaKexAccepted, suites: []uint16{
		tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	}},
	{name: "CBC", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: cbcAccepted, suites: []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
		tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	}},
}

// sanitize makes text from a target safe to store and show: line breaks
// and tabs become spaces (collapsed), other control, format (bidi) and
// invalid bytes become '.', and the result is cut to max bytes on a rune
// boundary, marked with "…".
func sanitize(text string, max int) string {
	var b strings.Builder
	space := false
	for i, r := range text {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(text[i:]); size <= 1 {
				r = '.'
			}
		}
		switch {
		case unicode.IsSpace(r):
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		case !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r):
			r = '.'
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > max {
			return strings.TrimSpace(b.String()) + "…"
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

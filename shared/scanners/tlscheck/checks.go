package tlscheck

import (
	"crypto/tls"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// finding is a finding of check c on the target; a check of a known
// vulnerability (RC4, 3DES) names its CVE.
func finding(c *checks.Check, tgt target, evidence string) scans.Finding {
	port := tgt.port
	f := c.Finding(tgt.host, &port, evidence)
	if cve, ok := cves[c]; ok {
		f.CVE = &cve
	}
	return f
}

// cves are the CVEs some protocol checks stand for.
var cves = map[*checks.Check]string{
	checks.CipherRC4:  "CVE-2015-2808",
	checks.Cipher3DES: "CVE-2016-2183",
}

// emitted is every check the tool can report.
var emitted = []*checks.Check{
	checks.CertExpired, checks.CertNotYetValid, checks.CertExpiringSoon, checks.CertSelfSigned,
	checks.CertUntrusted, checks.CertHostMismatch, checks.CertWeakRSA, checks.CertWeakSignature,
	checks.TLS10, checks.TLS11, checks.CipherRC4, checks.Cipher3DES, checks.CipherRSAKex, checks.CipherCBC,
	checks.HeaderHSTS, checks.HeaderHSTSMaxAge,
}

// probe is one extra handshake: a client offering only some versions or
// suites. The server accepting it is the finding.
type probe struct {
	name       string // for the outcome line, e.g. "TLS 1.0", "RC4"
	minVersion uint16
	maxVersion uint16
	suites     []uint16
	check      *checks.Check
}

func (p probe) config(host string) *tls.Config {
	return baseConfig(host, p.minVersion, p.maxVersion, p.suites)
}

// probes are every extra handshake of a call. Suite probes stop at TLS 1.2:
// TLS 1.3 suites are all AEAD and Go does not let a client choose them.
var probes = []probe{
	{name: "TLS 1.0", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS10, suites: allSuites, check: checks.TLS10},
	{name: "TLS 1.1", minVersion: tls.VersionTLS11, maxVersion: tls.VersionTLS11, suites: allSuites, check: checks.TLS11},
	{name: "RC4", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: checks.CipherRC4, suites: []uint16{
		tls.TLS_RSA_WITH_RC4_128_SHA, tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA, tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	}},
	{name: "3DES", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: checks.Cipher3DES, suites: []uint16{
		tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	}},
	{name: "RSA key exchange", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: checks.CipherRSAKex, suites: []uint16{
		tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	}},
	{name: "CBC", minVersion: tls.VersionTLS10, maxVersion: tls.VersionTLS12, check: checks.CipherCBC, suites: []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
		tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	}},
}

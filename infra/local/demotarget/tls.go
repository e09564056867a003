package demotarget

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"
)

// Certificate shape: every property here is something an ssl check should
// report.
const (
	certKeyBits  = 1024 // weak key (Go refuses anything smaller)
	certValidFor = 10 * 24 * time.Hour
	certBackdate = time.Hour
)

// weakTLSConfig returns a server configuration with a fresh self-signed,
// soon-to-expire, 1024-bit RSA certificate for domain, offering TLS 1.0 to
// 1.3 and, besides the modern suites, CBC, non-forward-secret RSA key
// exchange, 3DES and RC4 suites.
func weakTLSConfig(domain string) (*tls.Config, error) {
	cert, err := selfSignedCertificate(domain, time.Now())
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS10,
		// Listing the suites explicitly is what makes Go offer the insecure
		// ones; for TLS 1.3 Go always uses its own (strong) suites.
		CipherSuites: []uint16{
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
			tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
			tls.TLS_RSA_WITH_AES_128_CBC_SHA,
			tls.TLS_RSA_WITH_AES_256_CBC_SHA,
			tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
			tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
			tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA,
			tls.TLS_RSA_WITH_RC4_128_SHA,
		},
		// Apache 2.4 without mod_http2: HTTP/1.1 only.
		NextProtos: []string{"http/1.1"},
	}, nil
}

func selfSignedCertificate(domain string, now time.Time) (tls.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, certKeyBits)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate demo certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate demo certificate serial: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: domain, Organization: []string{"Acme Widgets (demo)"}},
		// The SANs also name the kiosk host, which nothing else names: host
		// discovery finds it only by reading this certificate.
		DNSNames:    []string{domain, "www." + domain, SelfSignedLabel + "." + domain},
		NotBefore:   now.Add(-certBackdate),
		NotAfter:    now.Add(certValidFor),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("create demo certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("parse demo certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

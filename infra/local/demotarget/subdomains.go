package demotarget

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"html"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The demo zone's subdomains. Each is reachable only through a source host
// discovery must use — the zone transfer, a certificate SAN, a link — and
// each carries its own planted weakness (or, for the hardened one, none).
// They all live on the demo's one address and ports: the HTTPS listener
// picks the certificate and TLS versions by SNI, the web handler the site
// by Host.
const (
	// LegacyTLSLabel serves only TLS 1.0 and 1.1 (zone transfer).
	LegacyTLSLabel = "legacy-b2b"
	// ExpiredLabel serves an expired certificate (zone transfer).
	ExpiredLabel = "billing-2019"
	// MismatchLabel serves a certificate for another name (zone transfer).
	MismatchLabel = "mirror-eu"
	// HardenedLabel is configured well: no medium-or-higher finding (zone transfer).
	HardenedLabel = "shop-hardened"
	// SelfSignedLabel serves a self-signed certificate; only the SANs of
	// the apex's certificate name it.
	SelfSignedLabel = "kiosk-a1"
	// PortalLabel has a login form that posts over plain HTTP; only a link
	// on the apex's home page names it.
	PortalLabel = "portal-9d1"

	// RedisVersion is what the unauthenticated Redis look-alike announces
	// in INFO server.
	RedisVersion = "6.0.9"
	// DumpFile is the database dump the /backup/ listing shows.
	DumpFile = "acme-2019-03-14.sql.gz"
	// mismatchName is the name the mismatch host's certificate is for.
	mismatchName = "cdn.unrelated-provider.example"
)

// Subdomains lists the planted subdomains' labels.
var Subdomains = []string{LegacyTLSLabel, ExpiredLabel, MismatchLabel, HardenedLabel, SelfSignedLabel, PortalLabel}

// inTransfer reports whether the zone transfer lists the label: the SAN-
// and link-only hosts resolve but are not in the transferred zone (as with
// names served from another view), so each source is needed.
func inTransfer(label string) bool { return label != SelfSignedLabel && label != PortalLabel }

// demoCA signs the subdomains' certificates. The local stack trusts it (as
// a company's scanner would trust its internal CA), so only the planted
// weaknesses show.
type demoCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newDemoCA(now time.Time) (*demoCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("demo CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Acme Widgets demo CA", Organization: []string{"Acme Widgets (demo)"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(2 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("demo CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &demoCA{cert: cert, key: key, pool: pool}, nil
}

// issue returns a leaf for names valid from notBefore to notAfter, signed
// by the CA (or by itself when selfSigned).
func (ca *demoCA) issue(names []string, notBefore, notAfter time.Time, selfSigned bool) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: names[0], Organization: []string{"Acme Widgets (demo)"}},
		DNSNames: names, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	parent, signer := ca.cert, any(ca.key)
	if selfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	chain := [][]byte{der}
	if !selfSigned {
		chain = append(chain, ca.cert.Raw)
	}
	return tls.Certificate{Certificate: chain, PrivateKey: key, Leaf: leaf}, nil
}

// strongSuites are the TLS 1.2 suites of the well-configured hosts: ECDHE
// and AEAD only.
var strongSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
}

// siteTLS returns the HTTPS configuration: the apex's weak one, and by SNI
// one per subdomain with its planted weakness.
func siteTLS(domain string, ca *demoCA, now time.Time) (*tls.Config, error) {
	apex, err := weakTLSConfig(domain)
	if err != nil {
		return nil, err
	}
	year := 365 * 24 * time.Hour
	type host struct {
		label      string
		names      []string
		from, to   time.Time
		selfSigned bool
		legacy     bool
	}
	fqdn := func(label string) string { return label + "." + domain }
	hosts := []host{
		{label: LegacyTLSLabel, names: []string{fqdn(LegacyTLSLabel)}, from: now.Add(-time.Hour), to: now.Add(year), legacy: true},
		{label: ExpiredLabel, names: []string{fqdn(ExpiredLabel)}, from: now.Add(-2 * year), to: now.Add(-30 * 24 * time.Hour)},
		{label: MismatchLabel, names: []string{mismatchName}, from: now.Add(-time.Hour), to: now.Add(year)},
		{label: HardenedLabel, names: []string{fqdn(HardenedLabel)}, from: now.Add(-time.Hour), to: now.Add(year)},
		{label: SelfSignedLabel, names: []string{fqdn(SelfSignedLabel)}, from: now.Add(-time.Hour), to: now.Add(year), selfSigned: true},
		{label: PortalLabel, names: []string{fqdn(PortalLabel)}, from: now.Add(-time.Hour), to: now.Add(year)},
	}
	bySNI := map[string]*tls.Config{}
	for _, h := range hosts {
		cert, err := ca.issue(h.names, h.from, h.to, h.selfSigned)
		if err != nil {
			return nil, fmt.Errorf("demo certificate for %s: %w", h.label, err)
		}
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, CipherSuites: strongSuites,
			NextProtos: []string{"http/1.1"}}
		if h.legacy {
			// Weakness: TLS 1.0 and 1.1 only.
			cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
			cfg.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA}
		}
		bySNI[fqdn(h.label)] = cfg
	}
	apex.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if cfg, ok := bySNI[strings.ToLower(hello.ServerName)]; ok {
			return cfg, nil
		}
		return nil, nil // the apex's own configuration
	}
	return apex, nil
}

// subdomainOf returns the planted subdomain label a request's Host names,
// or "".
func subdomainOf(host, domain string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	label, ok := strings.CutSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), "."+domain)
	if !ok {
		return ""
	}
	for _, s := range Subdomains {
		if label == s {
			return s
		}
	}
	return ""
}

// serveSubdomain answers the planted subdomains' sites.
func (h *webHandler) serveSubdomain(w http.ResponseWriter, r *http.Request, label string) {
	domain := h.target.cfg.Domain
	host := label + "." + domain
	if label == HardenedLabel {
		h.serveHardened(w, r, host)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	body := `<!DOCTYPE html><html><head><title>` + html.EscapeString(host) + `</title></head><body><h1>` +
		html.EscapeString(host) + `</h1><p>Internal application of Acme Widgets (demo).</p></body></html>`
	if label == PortalLabel {
		// Weakness: the login form of an HTTPS page posts over plain HTTP.
		action := "http://" + net.JoinHostPort(host, strconv.Itoa(portOf(h.target.httpAddr))) + "/login"
		body = `<!DOCTYPE html><html><head><title>Partner portal</title></head><body><h1>Partner portal</h1>
<form method="post" action="` + html.EscapeString(action) + `"><label>User <input name="user"></label>
<label>Password <input type="password" name="password"></label><button>Sign in</button></form></body></html>`
	}
	h.write(w, "text/html; charset=utf-8", body)
}

// serveHardened is a well-configured site: HTTPS only (plain HTTP
// redirects), HSTS, a strict CSP and the other security headers, no version
// disclosure, no cookies, a security.txt.
func (h *webHandler) serveHardened(w http.ResponseWriter, r *http.Request, host string) {
	hdr := w.Header()
	hdr.Del("Server")
	hdr.Del("X-Powered-By")
	hdr.Del("Access-Control-Allow-Origin")
	hdr.Del("Access-Control-Allow-Credentials")
	hdr.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.TLS == nil {
		target := "https://" + net.JoinHostPort(host, strconv.Itoa(portOf(h.target.httpsAddr))) + r.URL.EscapedPath()
		hdr.Set("Location", target)
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	hdr.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/":
		h.write(w, "text/html; charset=utf-8", `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title></head>`+
			`<body><h1>Acme shop</h1><p>Nothing to see here: this host is configured well.</p></body></html>`)
	case "/.well-known/security.txt":
		h.write(w, "text/plain; charset=utf-8", "Contact: mailto:security@"+h.target.cfg.Domain+"\nExpires: "+
			time.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)+"\nPreferred-Languages: en\n")
	default:
		hdr.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "not found\n")
	}
}

// redisSession is an unauthenticated Redis look-alike: PING and INFO answer
// like Redis 6.0.9 without a password (weakness), anything else is an
// error. It reads at most a few small commands.
func redisSession(c net.Conn) {
	buf := make([]byte, 256)
	for range 4 {
		n, err := c.Read(buf)
		if n == 0 || err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(string(buf[:n])))
		var reply string
		switch {
		case strings.HasPrefix(cmd, "PING") || strings.Contains(cmd, "\r\nPING"):
			reply = "+PONG\r\n"
		case strings.HasPrefix(cmd, "INFO") || strings.Contains(cmd, "\r\nINFO"):
			info := "# Server\r\nredis_version:" + RedisVersion + "\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n" +
				"os:Linux 5.10.0-demo x86_64\r\narch_bits:64\r\ntcp_port:6379\r\n"
			reply = "$" + strconv.Itoa(len(info)) + "\r\n" + info + "\r\n"
		default:
			reply = "-ERR unknown command\r\n"
		}
		if _, err := io.WriteString(c, reply); err != nil {
			return
		}
	}
}

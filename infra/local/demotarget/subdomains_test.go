package demotarget

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Each subdomain's HTTPS endpoint shows its planted TLS weakness, chosen by
// SNI on the one listener; the hardened host verifies against the demo CA
// with TLS 1.2+ only.
func TestSubdomainTLS(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	addr := strings.TrimPrefix(target.HTTPSURL(), "https://")
	handshake := func(label string, maxVersion uint16) (*tls.ConnectionState, error) {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 3 * time.Second}, "tcp", addr, &tls.Config{
			ServerName: label + "." + testDomain, InsecureSkipVerify: true, MaxVersion: maxVersion, MinVersion: tls.VersionTLS10, //nolint:gosec
		})
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		st := conn.ConnectionState()
		return &st, nil
	}
	verify := func(st *tls.ConnectionState, name string) error {
		opts := x509.VerifyOptions{Roots: target.RootCAs(), DNSName: name, Intermediates: x509.NewCertPool()}
		for _, c := range st.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := st.PeerCertificates[0].Verify(opts)
		return err
	}
	if st, err := handshake(LegacyTLSLabel, tls.VersionTLS10); err != nil || st.Version != tls.VersionTLS10 {
		t.Errorf("legacy host over TLS 1.0: %v", err)
	}
	if _, err := handshake(LegacyTLSLabel, 0); err != nil {
		t.Errorf("legacy host: %v", err) // negotiates TLS 1.1 at most
	}
	if st, _ := handshake(LegacyTLSLabel, 0); st != nil && st.Version > tls.VersionTLS11 {
		t.Errorf("legacy host negotiated %x", st.Version)
	}
	st, err := handshake(ExpiredLabel, 0)
	if err != nil || !st.PeerCertificates[0].NotAfter.Before(time.Now()) {
		t.Errorf("expired host: %v", err)
	}
	st, err = handshake(MismatchLabel, 0)
	if err != nil || verify(st, MismatchLabel+"."+testDomain) == nil {
		t.Errorf("mismatch host: %v, the certificate matches", err)
	}
	st, err = handshake(SelfSignedLabel, 0)
	if err != nil || len(st.PeerCertificates) != 1 || verify(st, SelfSignedLabel+"."+testDomain) == nil {
		t.Errorf("self-signed host: %v", err)
	}
	st, err = handshake(HardenedLabel, 0)
	if err != nil || verify(st, HardenedLabel+"."+testDomain) != nil {
		t.Errorf("hardened host: %v", err)
	}
	if _, err := handshake(HardenedLabel, tls.VersionTLS11); err == nil {
		t.Error("the hardened host accepts TLS 1.1")
	}
	// The apex's certificate names the kiosk host: its only source.
	st, err = handshake("www", 0)
	if err != nil || !strings.Contains(strings.Join(st.PeerCertificates[0].DNSNames, " "), SelfSignedLabel+"."+testDomain) {
		t.Errorf("apex certificate SANs: %v", err)
	}
}

// The zone transfer lists the transfer-only hosts and not the SAN- and
// link-only ones, which still resolve.
func TestSubdomainSources(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	tr := &dns.Transfer{}
	m := new(dns.Msg)
	m.SetAxfr(testDomain + ".")
	env, err := tr.In(m, target.DNSAddr())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for e := range env {
		for _, rr := range e.RR {
			names = append(names, rr.Header().Name)
		}
	}
	all := strings.Join(names, " ")
	for _, label := range Subdomains {
		if got := strings.Contains(all, label+"."); got != inTransfer(label) {
			t.Errorf("%s in the zone transfer: %v", label, got)
		}
		q := new(dns.Msg)
		q.SetQuestion(label+"."+testDomain+".", dns.TypeA)
		r, err := dns.Exchange(q, target.DNSAddr())
		if err != nil || len(r.Answer) != 1 {
			t.Errorf("%s does not resolve: %v", label, err)
		}
	}
	resp, err := http.Get(target.HTTPURL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "https://"+PortalLabel+"."+testDomain+":") {
		t.Error("the home page does not link the portal")
	}
}

// The hardened site sends every security header and no version; the apex
// answers the traversal with a password file; Redis answers INFO without a
// password.
func TestSubdomainSitesAndServices(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: target.RootCAs(), ServerName: HardenedLabel + "." + testDomain},
	}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, target.HTTPSURL()+"/", nil)
	req.Host = HardenedLabel + "." + testDomain
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, h := range []string{"Strict-Transport-Security", "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Permissions-Policy"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("hardened host lacks %s", h)
		}
	}
	if resp.Header.Get("Server") != "" || resp.Header.Get("X-Powered-By") != "" {
		t.Error("hardened host discloses its software")
	}
	req, _ = http.NewRequest(http.MethodGet, target.HTTPURL()+"/", nil)
	req.Host = HardenedLabel + "." + testDomain
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusMovedPermanently || !strings.HasPrefix(resp.Header.Get("Location"), "https://") {
		t.Errorf("hardened host over HTTP: %v", err)
	}

	conn, err := net.Dial("tcp", strings.TrimPrefix(target.HTTPURL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(conn, "GET /icons/.%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd HTTP/1.0\r\nHost: "+testDomain+"\r\n\r\n")
	raw, _ := io.ReadAll(conn)
	conn.Close()
	if !strings.Contains(string(raw), "root:x:0:0:") {
		t.Errorf("traversal answered %q", raw)
	}

	c, err := net.Dial("tcp", target.RedisAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	_, _ = io.WriteString(c, "INFO server\r\n")
	buf := make([]byte, 1024)
	n, _ := c.Read(buf)
	if !strings.Contains(string(buf[:n]), "redis_version:"+RedisVersion) {
		t.Errorf("Redis INFO answered %q", buf[:n])
	}
}

package tlscheck

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"secscan/shared/checks"
	"secscan/shared/safetext"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	expiryWarning = 30 * 24 * time.Hour
	expiryUrgent  = 7 * 24 * time.Hour
	minRSABits    = 2048
	// hstsMinMaxAge is 180 days, in seconds.
	hstsMinMaxAge = 180 * 24 * 60 * 60
	maxNamesShown = 10
)

// report accumulates what one call observed.
type report struct {
	target   target
	session  string // negotiated by the main handshake
	leaf     string // one-line description of the leaf certificate
	leafName string // its subject and expiry, for the outcome line
	findings []scans.Finding
	accepted []string // probes the server accepted
	refused  []string
	unknown  []string // probes that proved nothing (could not connect, timed out)
	hstsNote string
	https    bool // the port answered HTTP
	// proof is the main handshake's transcript, which the certificate
	// findings carry.
	proof *scans.Proof
}

// certificates checks the chain the server presented.
func (r *report) certificates(state tls.ConnectionState, roots *x509.CertPool, now time.Time) {
	chain := state.PeerCertificates
	if len(chain) == 0 {
		r.leaf, r.leafName = "no certificate", "none"
		return
	}
	leaf := chain[0]
	r.leaf = describeCert(leaf)
	r.leafName = fmt.Sprintf("%q expiring %s", safetext.Line(leaf.Subject.String(), 80), day(leaf.NotAfter))
	dated := r.validityDates(chain, now)
	r.expiringSoon(leaf, now)
	weakHash := weakHashSignatures(chain)
	r.trust(chain, roots, now, dated, len(weakHash) > 0)
	if err := leaf.VerifyHostname(r.target.host); err != nil {
		r.add(checks.CertHostMismatch, r.evidence(fmt.Sprintf("requested host %s; the certificate is valid for %s",
			r.target.host, certNames(leaf))))
	}
	if weakKeys := weakRSAKeys(chain); len(weakKeys) > 0 {
		r.add(checks.CertWeakRSA, r.evidence(strings.Join(weakKeys, "; ")))
	}
	if len(weakHash) > 0 {
		r.add(checks.CertWeakSignature, r.evidence(strings.Join(weakHash, "; ")))
	}
}

// evidence is what a certificate finding says, with the leaf and session.
func (r *report) evidence(what string) string {
	return what + "; leaf certificate: " + r.leaf + "; session: " + r.session
}

// validityDates checks the dates of the leaf and of the intermediates the
// server sends (a root sent along is not used by clients, so its dates do
// not count); dated says whether any is out of its validity.
func (r *report) validityDates(chain []*x509.Certificate, now time.Time) (dated bool) {
	var expired, notYet []string
	for i, c := range usedCertificates(chain) {
		switch {
		case now.After(c.NotAfter):
			expired = append(expired, fmt.Sprintf("%s %q expired on %s (%d day(s) ago)",
				position(i), safetext.Line(c.Subject.String(), maxShown), day(c.NotAfter), int(now.Sub(c.NotAfter).Hours()/24)))
		case now.Before(c.NotBefore):
			notYet = append(notYet, fmt.Sprintf("%s %q is valid only from %s",
				position(i), safetext.Line(c.Subject.String(), maxShown), day(c.NotBefore)))
		}
	}
	if len(expired) > 0 {
		r.add(checks.CertExpired, r.evidence(strings.Join(expired, "; ")))
	}
	if len(notYet) > 0 {
		r.add(checks.CertNotYetValid, r.evidence(strings.Join(notYet, "; ")))
	}
	return len(expired)+len(notYet) > 0
}

// expiringSoon reports a valid leaf that expires within expiryWarning,
// more severely within expiryUrgent.
func (r *report) expiringSoon(leaf *x509.Certificate, now time.Time) {
	left := leaf.NotAfter.Sub(now)
	if left < 0 || left >= expiryWarning || now.Before(leaf.NotBefore) {
		return
	}
	f := finding(checks.CertExpiringSoon, r.target, r.evidence(fmt.Sprintf("the certificate expires on %s, in %d day(s)",
		leaf.NotAfter.UTC().Format(time.RFC3339), int(left.Hours()/24))))
	if left < expiryUrgent {
		f.Severity = scans.Medium
	}
	f.Proof = r.proof
	r.findings = append(r.findings, f)
}

// trust verifies the chain. Dates are reported by validityDates, so the
// chain is judged at a time the leaf was valid, and a date problem x509
// still sees is not reported twice (dated); nor is x509's refusal of a
// weak hash (weakHash), which has its own finding.
func (r *report) trust(chain []*x509.Certificate, roots *x509.CertPool, now time.Time, dated, weakHash bool) {
	leaf := chain[0]
	err := verifyChain(chain, roots, validAt(leaf, now))
	if err == nil || reportedElsewhere(err, dated, weakHash) {
		return
	}
	var unknownCA x509.UnknownAuthorityError
	switch {
	case errors.As(err, &unknownCA) && selfSigned(leaf):
		r.add(checks.CertSelfSigned, r.evidence(fmt.Sprintf("the certificate is issued by itself (issuer = subject %q) and is not a trusted root",
			safetext.Line(leaf.Subject.String(), maxShown))))
	case errors.As(err, &unknownCA):
		r.add(checks.CertUntrusted, r.evidence(fmt.Sprintf("the server sent %d certificate(s); no chain from issuer %q leads to a trusted root (%s)",
			len(chain), safetext.Line(leaf.Issuer.String(), maxShown), safetext.Line(err.Error(), maxShown))))
	default:
		r.add(checks.CertUntrusted, r.evidence("chain verification failed: "+safetext.Line(err.Error(), maxShown)))
	}
}

// validAt is a time at which leaf was valid: now, or a minute inside its
// validity period.
func validAt(leaf *x509.Certificate, now time.Time) time.Time {
	switch {
	case now.After(leaf.NotAfter):
		return leaf.NotAfter.Add(-time.Minute)
	case now.Before(leaf.NotBefore):
		return leaf.NotBefore.Add(time.Minute)
	}
	return now
}

// reportedElsewhere reports whether a verification error is a finding of
// its own: an expiry validityDates reported (dated), or x509's outright
// refusal of a SHA-1/MD5 signature, the weak hash finding (weakHash).
func reportedElsewhere(err error, dated, weakHash bool) bool {
	var invalid x509.CertificateInvalidError
	if errors.As(err, &invalid) && invalid.Reason == x509.Expired && dated {
		return true
	}
	return weakHash && strings.Contains(err.Error(), "insecure algorithm")
}

// usedCertificates yields the certificates of the chain clients use, with
// their positions: the leaf and the intermediates, not a self-signed root
// sent along.
func usedCertificates(chain []*x509.Certificate) iter.Seq2[int, *x509.Certificate] {
	return func(yield func(int, *x509.Certificate) bool) {
		for i, c := range chain {
			if (i == 0 || !selfSigned(c)) && !yield(i, c) {
				return
			}
		}
	}
}

// weakRSAKeys lists the certificates of the chain with an RSA key shorter
// than minRSABits; self-signed roots are skipped.
func weakRSAKeys(chain []*x509.Certificate) []string {
	var out []string
	for i, c := range usedCertificates(chain) {
		if key, ok := c.PublicKey.(*rsa.PublicKey); ok && key.N.BitLen() < minRSABits {
			out = append(out, fmt.Sprintf("%s %q has a %d-bit RSA key",
				position(i), safetext.Line(c.Subject.String(), maxShown), key.N.BitLen()))
		}
	}
	return out
}

func (r *report) add(c *checks.Check, evidence string) {
	r.addProven(c, evidence, r.proof)
}

func (r *report) addProven(c *checks.Check, evidence string, p *scans.Proof) {
	f := finding(c, r.target, evidence)
	f.Proof = p
	r.findings = append(r.findings, f)
}

// verifyChain verifies the presented chain for server authentication at the
// given time, against roots (nil: the system roots).
func verifyChain(chain []*x509.Certificate, roots *x509.CertPool, at time.Time) error {
	intermediates := x509.NewCertPool()
	for _, c := range chain[1:] {
		intermediates.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		CurrentTime:   at,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err
}

// selfSigned reports whether c names itself as issuer and is signed by its
// own key (a SHA-1 self-signature counts: x509 refuses to check those).
func selfSigned(c *x509.Certificate) bool {
	if !bytes.Equal(c.RawSubject, c.RawIssuer) {
		return false
	}
	err := c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature)
	var insecure x509.InsecureAlgorithmError
	return err == nil || errors.As(err, &insecure)
}

// weakHashSignatures lists the certificates of the chain signed with MD5
// or SHA-1; self-signed roots are skipped, their signature is never checked.
func weakHashSignatures(chain []*x509.Certificate) []string {
	var out []string
	for i, c := range usedCertificates(chain) {
		switch c.SignatureAlgorithm {
		case x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1, x509.MD5WithRSA, x509.MD2WithRSA:
			out = append(out, fmt.Sprintf("%s %q is signed with %s", position(i),
				safetext.Line(c.Subject.String(), maxShown), c.SignatureAlgorithm))
		}
	}
	return out
}

func position(i int) string {
	if i == 0 {
		return "leaf certificate"
	}
	return "intermediate certificate " + strconv.Itoa(i)
}

// describeCert is the evidence line of a certificate.
func describeCert(c *x509.Certificate) string {
	return fmt.Sprintf("subject %q, issuer %q, valid %s to %s, %s key, signature %s, names %s",
		safetext.Line(c.Subject.String(), maxShown), safetext.Line(c.Issuer.String(), maxShown),
		c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339),
		keyDescription(c), c.SignatureAlgorithm, certNames(c))
}

func keyDescription(c *x509.Certificate) string {
	switch key := c.PublicKey.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA %d-bit", key.N.BitLen())
	case *ecdsa.PublicKey:
		return "ECDSA " + key.Curve.Params().Name
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return c.PublicKeyAlgorithm.String()
}

func certNames(c *x509.Certificate) string {
	names := c.DNSNames
	for _, ip := range c.IPAddresses {
		names = append(names[:len(names):len(names)], ip.String())
	}
	if len(names) == 0 {
		return fmt.Sprintf("no subjectAltName (subject CN %q, which clients ignore)", safetext.Line(c.Subject.CommonName, maxShown))
	}
	shown := names[:min(len(names), maxNamesShown)]
	text := safetext.Line(strings.Join(shown, ", "), maxShown*2)
	if len(names) > len(shown) {
		text += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return "[" + text + "]"
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// probeOutcome is the result of one probe handshake.
type probeOutcome struct {
	state tls.ConnectionState
	err   error
}

func (r *report) probe(p probe, out probeOutcome) {
	var dialErr *dialError
	var netErr net.Error
	switch {
	case out.err == nil:
		r.accepted = append(r.accepted, p.name)
		r.addProven(p.check, fmt.Sprintf("a client offering only %s completed a handshake with %s: %s",
			offered(p), r.target, tls.VersionName(out.state.Version)+", "+tls.CipherSuiteName(out.state.CipherSuite)),
			probeProof(r.target, p, out.state, time.Now()))
	case errors.As(out.err, &dialErr), errors.Is(out.err, context.DeadlineExceeded),
		errors.As(out.err, &netErr) && netErr.Timeout():
		r.unknown = append(r.unknown, p.name)
	default:
		r.refused = append(r.refused, p.name)
	}
}

func offered(p probe) string {
	if p.minVersion == p.maxVersion {
		return tls.VersionName(p.minVersion)
	}
	names := make([]string, len(p.suites))
	for i, id := range p.suites {
		names[i] = tls.CipherSuiteName(id)
	}
	return strings.Join(names, ", ") + " (TLS 1.0-1.2)"
}

// hstsResult is what the HTTPS request for the HSTS header saw.
type hstsResult struct {
	url    string
	status string   // "" when there was no HTTP response
	values []string // Strict-Transport-Security header fields
	err    error
}

// checkHSTS makes one GET / over HTTPS to the target's address (the body is
// not read) and returns the Strict-Transport-Security header fields.
// Redirects are not followed: the header must be on this host's response.
func checkHSTS(ctx context.Context, env tools.Env, tgt target) hstsResult {
	url := "https://" + tgt.String() + "/"
	if tgt.port == 443 {
		url = "https://" + tgt.host + "/"
	}
	client := env.Dialer.HTTPClient(hstsTimeout, baseConfig(tgt.host, tls.VersionTLS10, 0, allSuites))
	transport, ok := client.Transport.(*http.Transport)
	if !ok {
		return hstsResult{url: url, err: fmt.Errorf("unexpected HTTP transport %T", client.Transport)}
	}
	// Same address as the handshakes, still through the guarded dialer.
	transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return env.Dialer.DialContext(ctx, network, tgt.addr)
	}
	defer transport.CloseIdleConnections()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return hstsResult{url: url, err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return hstsResult{url: url, err: err}
	}
	resp.Body.Close()
	return hstsResult{url: url, status: resp.Status, values: resp.Header.Values("Strict-Transport-Security")}
}

func (r *report) hsts(h hstsResult) {
	if h.err != nil {
		r.hstsNote = "not checked, no HTTPS response (" + safetext.Line(h.err.Error(), maxShown) + ")"
		return
	}
	r.https = true
	seen := fmt.Sprintf("GET %s answered %q", h.url, safetext.Line(h.status, 80))
	// The header findings are proven by the HTTPS answer, not the handshake.
	saved := r.proof
	r.proof = hstsProof(h, time.Now())
	defer func() { r.proof = saved }()
	if len(h.values) == 0 {
		r.hstsNote = "missing"
		r.add(checks.HeaderHSTS, seen+" without a Strict-Transport-Security header")
		return
	}
	// Browsers obey only the first field (RFC 6797 section 8.1).
	value := safetext.Line(h.values[0], maxShown)
	age, ok := hstsMaxAge(h.values[0])
	switch {
	case !ok:
		r.hstsNote = "invalid"
		r.add(checks.HeaderHSTS, fmt.Sprintf("%s with Strict-Transport-Security: %q, which has no valid max-age, so browsers ignore it", seen, value))
	case age == 0:
		r.hstsNote = "max-age=0"
		r.add(checks.HeaderHSTS, fmt.Sprintf("%s with Strict-Transport-Security: %q; max-age=0 tells browsers to forget HSTS", seen, value))
	case age < hstsMinMaxAge:
		r.hstsNote = fmt.Sprintf("max-age=%d", age)
		r.add(checks.HeaderHSTSMaxAge, fmt.Sprintf("%s with Strict-Transport-Security: %q (%d day(s))", seen, value, age/86400))
	default:
		r.hstsNote = fmt.Sprintf("max-age=%d", age)
	}
}

// hstsMaxAge returns the max-age directive of a Strict-Transport-Security
// value (RFC 6797 section 6.1: case-insensitive, optionally quoted).
func hstsMaxAge(value string) (int64, bool) {
	for directive := range strings.SplitSeq(value, ";") {
		name, arg, _ := strings.Cut(strings.TrimSpace(directive), "=")
		if strings.EqualFold(strings.TrimSpace(name), "max-age") {
			n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(arg), `"`), 10, 64)
			if err != nil || n < 0 {
				return 0, false
			}
			return n, true
		}
	}
	return 0, false
}

// result assembles the tool's result.
func (r *report) result() tools.Result {
	name := "tls"
	if r.https {
		name = "https"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s; certificate %s", r.target, r.session, r.leafName)
	if len(r.accepted) > 0 {
		fmt.Fprintf(&b, "; accepted: %s", strings.Join(r.accepted, ", "))
	}
	if len(r.refused) > 0 {
		fmt.Fprintf(&b, "; refused: %s", strings.Join(r.refused, ", "))
	}
	if len(r.unknown) > 0 {
		fmt.Fprintf(&b, "; inconclusive (no connection or no answer): %s", strings.Join(r.unknown, ", "))
	}
	fmt.Fprintf(&b, "; HSTS: %s; %d findings", r.hstsNote, len(r.findings))
	return tools.Result{
		Outcome:  b.String(),
		Findings: r.findings,
		Services: []scans.Service{{Host: r.target.host, Port: r.target.port, Name: name, Banner: safetext.Line(r.session, maxShown)}},
	}
}

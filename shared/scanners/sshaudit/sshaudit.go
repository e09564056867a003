// Package sshaudit owns the ssh_audit tool: one TCP connection to an SSH
// server, through the guarded dialer, that
//
//   - exchanges identification lines and reads the server's first binary
//     packet, its SSH_MSG_KEXINIT (RFC 4253 §7.1), itself: the key
//     exchange, host key, cipher and MAC lists (golang.org/x/crypto/ssh
//     negotiates but never exposes the server's lists), bounded to 35,000
//     bytes and the call's deadline;
//   - then lets golang.org/x/crypto/ssh complete the key exchange on the
//     same connection (the bytes already read are replayed to it) and send
//     one "none" authentication request (RFC 4252 §5.2): the server's
//     failure answer lists the methods it accepts. Its AuthCallback records
//     that list and aborts, so no password, key or keyboard-interactive
//     response is ever sent;
//   - judges the lists against Mozilla's OpenSSH guidelines and RFC 9142
//     (policy.go): one finding per weakness class with the offending
//     algorithm names as evidence, ssh.auth.password when password or
//     keyboard-interactive logins are offered, and ssh.terrapin when
//     ChaCha20-Poly1305 or EtM-with-CBC is offered without strict kex.
package sshaudit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name    = "ssh_audit"
	cost    = 2
	timeout = 10 * time.Second
	// clientVersion is the identification line sent; the software version
	// has no '-' (RFC 4253 §4.2).
	clientVersion = "SSH-2.0-secscan_audit"
	// auditUser is the user name of the "none" request.
	auditUser = "secscan-audit"
	// maxListed bounds the algorithm names named in one finding.
	maxListed = 24
)

// Tool is the ssh_audit tool.
type Tool struct{ tooldef.Base }

// New returns the ssh_audit tool.
func New() tools.Tool { return &Tool{tooldef.New(Name, cost, timeout)} }

// Description implements tools.Tool.
func (*Tool) Description() string {
	return "Audits one SSH server (a port whose banner starts with SSH-, usually 22) over one connection: reads its " +
		"key exchange init (key exchange, host key, cipher and MAC algorithms) and judges it against Mozilla's OpenSSH " +
		"guidelines and RFC 9142, asks which authentication methods it offers with a `none` request (never a password " +
		"or key), and checks the Terrapin condition (CVE-2023-48795) from the algorithms and strict-kex marker. " +
		"Findings: weak key exchange, ciphers, MACs, host key algorithms, password logins offered, Terrapin."
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }

const inputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["host"],
  "properties": {
    "host": {"type": "string", "description": "the scan's domain or one of its subdomains"},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "the SSH port; default 22"}
  }
}`

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{checks.SSHKexWeak, checks.SSHCipherWeak, checks.SSHMACWeak, checks.SSHHostKeyWeak,
		checks.SSHPasswordAuth, checks.SSHTerrapin}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	return t.RunOnHostPort(ctx, env, raw, 22, func(ctx context.Context, host string, port int) (tools.Result, error) {
		a, err := audit(ctx, env, host, port)
		if err != nil {
			return tools.Result{}, err
		}
		return a.result(), nil
	})
}

// audited is what one audit observed.
type audited struct {
	host    string
	port    int
	server  string // the identification line, cleaned
	kex     KexInit
	methods []string // offered authentication methods; nil when unknown
	// noneAccepted: the server let the "none" request in.
	noneAccepted bool
	// authNote says why the methods are unknown.
	authNote   string
	hostKeyAlg string
	// passwordCalled is set if the library ever asked for a secret; it
	// never does, since the callback aborts first (tests assert it).
	secretAsked bool
}

// audit runs the exchange on one connection.
func audit(ctx context.Context, env tools.Env, host string, port int) (*audited, error) {
	conn, err := env.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	line := clientVersion + "\r\n"
	if _, err := conn.Write([]byte(line)); err != nil {
		return nil, err
	}
	rec := &recorder{r: conn}
	a, err := readServerHello(bufio.NewReaderSize(rec, 4096), host, port)
	if err != nil {
		return nil, err
	}
	a.queryAuth(ctx, &replayConn{Conn: conn, replay: rec.buf, swallow: []byte(line)})
	return a, nil
}

// readServerHello reads what an SSH 2 server at host and port sends first:
// its identification line and its key exchange init.
func readServerHello(br *bufio.Reader, host string, port int) (*audited, error) {
	id, err := readIdentification(br)
	if err != nil {
		return nil, fmt.Errorf("not an SSH server: %w", err)
	}
	a := &audited{host: host, port: port, server: httpprobe.Clean(id, 200)}
	if !strings.HasPrefix(id, "SSH-2.0-") && !strings.HasPrefix(id, "SSH-1.99-") {
		return nil, fmt.Errorf("the server speaks only SSH protocol 1 (%s)", a.server)
	}
	a.kex, err = readKexInit(br)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// errStop aborts the authentication once the methods are known.
var errStop = errors.New("ssh_audit: methods recorded, no credential is sent")

// queryAuth completes the key exchange with golang.org/x/crypto/ssh and
// sends one "none" request; the AuthCallback records the methods the
// server's failure answer lists and stops there.
func (a *audited) queryAuth(ctx context.Context, conn net.Conn) {
	cfg := a.clientConfig()
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.askNone(conn, cfg)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		conn.Close()
		<-done
		if a.methods == nil && a.authNote == "" {
			a.authNote = "authentication methods unknown: the server did not answer in time"
		}
	}
}

// clientConfig offers every algorithm x/crypto/ssh implements, records
// the host key algorithm and the methods the "none" request's failure
// lists, and sends no secret.
func (a *audited) clientConfig() *ssh.ClientConfig {
	all := func(s, i []string) []string { return append(slices.Clone(s), i...) }
	sup, insec := ssh.SupportedAlgorithms(), ssh.InsecureAlgorithms()
	return &ssh.ClientConfig{
		Config: ssh.Config{
			KeyExchanges: all(sup.KeyExchanges, insec.KeyExchanges),
			Ciphers:      all(sup.Ciphers, insec.Ciphers),
			MACs:         all(sup.MACs, insec.MACs),
		},
		User:              auditUser,
		ClientVersion:     clientVersion,
		HostKeyAlgorithms: all(sup.HostKeys, insec.HostKeys),
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			a.hostKeyAlg = key.Type()
			return nil // nothing is trusted with it: no secret is ever sent
		},
		AuthCallback: func(c *ssh.ClientAuthContext) (ssh.AuthMethod, error) {
			a.methods = slices.Clone(c.AllowedMethods)
			if a.methods == nil {
				a.methods = []string{}
			}
			return nil, errStop
		},
		// Never used (the callback above aborts first); they record that
		// they were asked, so tests can assert no secret was offered.
		Auth: []ssh.AuthMethod{
			ssh.PasswordCallback(func() (string, error) { a.secretAsked = true; return "", errStop }),
			ssh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
				a.secretAsked = true
				return nil, errStop
			}),
		},
	}
}

// askNone completes the key exchange on conn with cfg and makes the
// "none" request; a server that accepts it is left at once.
func (a *audited) askNone(conn net.Conn, cfg *ssh.ClientConfig) {
	c, chans, reqs, err := ssh.NewClientConn(conn, net.JoinHostPort(a.host, strconv.Itoa(a.port)), cfg)
	switch {
	case err == nil:
		// "none" was accepted: nothing to ask; close at once.
		a.noneAccepted = true
		go ssh.DiscardRequests(reqs)
		go func() {
			for ch := range chans {
				_ = ch.Reject(ssh.Prohibited, "audit")
			}
		}()
		_ = c.Close()
	case a.methods == nil:
		a.authNote = "authentication methods unknown: " + httpprobe.Clean(err.Error(), 200)
	}
}

// result builds the findings and the outcome line.
func (a *audited) result() tools.Result {
	where := fmt.Sprintf("%s:%d (%s)", a.host, a.port, a.server)
	var findings []scans.Finding
	for _, find := range []func(where string) (scans.Finding, bool){
		a.kexFinding, a.cipherFinding, a.macFinding, a.hostKeyFinding, a.passwordFinding, a.terrapinFinding,
	} {
		if f, ok := find(where); ok {
			findings = append(findings, certain(f))
		}
	}
	return tools.Result{Outcome: a.outcome(len(findings)), Findings: proven(findings, a.proof(time.Now()))}
}

// kexFinding reports the weak key exchange algorithms offered; low
// unless a 1024-bit group is among them.
func (a *audited) kexFinding(where string) (scans.Finding, bool) {
	return a.algorithmFinding(checks.SSHKexWeak, where+" offered in its KEXINIT key exchange algorithms", a.kex.Kex, kexPolicy, lowerUnlessSevere)
}

// hostKeyFinding reports the weak host key algorithms offered; medium
// when no strong one is.
func (a *audited) hostKeyFinding(where string) (scans.Finding, bool) {
	return a.algorithmFinding(checks.SSHHostKeyWeak, where+" offered host key signature algorithms", a.kex.HostKey, hostKeyPolicy, raiseWhenNoneStrong)
}

// cipherFinding reports the weak ciphers offered.
func (a *audited) cipherFinding(where string) (scans.Finding, bool) {
	return a.algorithmFinding(checks.SSHCipherWeak, where+" offered in its KEXINIT ciphers", a.kex.Ciphers(), cipherPolicy, raiseToWorst)
}

// macFinding reports the weak MACs offered.
func (a *audited) macFinding(where string) (scans.Finding, bool) {
	return a.algorithmFinding(checks.SSHMACWeak, where+" offered in its KEXINIT MAC algorithms", a.kex.MACs(), macPolicy, raiseToWorst)
}

// algorithmFinding reports the names offered that p judges weak; adjust
// sets the finding's severity from the worst of them and from whether
// every name offered is weak.
func (a *audited) algorithmFinding(c *checks.Check, offered string, names []string, p policy, adjust severityRule) (f scans.Finding, ok bool) {
	bad, worst := judge(names, p.weakness)
	if len(bad) == 0 {
		return f, false
	}
	port := a.port
	f = c.Finding(a.host, &port, fmt.Sprintf("%s: %s. Full list: %s.", offered, list(bad), list(names)))
	adjust(&f, worst, len(bad) == len(names))
	return f, true
}

// passwordFinding reports the authentication methods offered that take a
// password.
func (a *audited) passwordFinding(where string) (f scans.Finding, ok bool) {
	pw := passwordMethods(a.methods)
	if len(pw) == 0 {
		return f, false
	}
	port := a.port
	e := fmt.Sprintf("%s answered a \"none\" authentication request for user %q (no password or key was sent) with "+
		"the methods it accepts: %s; %s take a password.", where, auditUser, strings.Join(a.methods, ", "), strings.Join(pw, " and "))
	if slices.Contains(pw, "keyboard-interactive") && !slices.Contains(pw, "password") {
		e += " Keyboard-interactive may also be a one-time-password second factor: check the PAM configuration."
	}
	return checks.SSHPasswordAuth.Finding(a.host, &port, e), true
}

// terrapinFinding reports the Terrapin condition.
func (a *audited) terrapinFinding(where string) (f scans.Finding, ok bool) {
	vuln, culprits := terrapin(a.kex)
	if !vuln {
		return f, false
	}
	port := a.port
	f = checks.SSHTerrapin.Finding(a.host, &port, fmt.Sprintf("%s offers %s and its KEXINIT key exchange list does not "+
		"advertise strict key exchange (%s): %s.", where, list(culprits), strictKex, list(a.kex.Kex)))
	cve, cvss := "CVE-2023-48795", 5.9
	f.CVE, f.CVSS = &cve, &cvss
	return f, true
}

// outcome is the step's one line.
func (a *audited) outcome(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d is %s: %d key exchange, %d host key, %d cipher and %d MAC algorithms offered",
		a.host, a.port, a.server, len(a.kex.Kex), len(a.kex.HostKey), len(a.kex.Ciphers()), len(a.kex.MACs()))
	if slices.Contains(a.kex.Kex, strictKex) {
		b.WriteString(", strict kex advertised")
	}
	switch {
	case a.noneAccepted:
		b.WriteString("; it accepted the \"none\" authentication request (no credentials) and was disconnected at once")
	case a.methods != nil:
		fmt.Fprintf(&b, "; authentication methods offered: %s (learned with a \"none\" request, no credential sent)", orNone(a.methods))
	default:
		b.WriteString("; " + a.authNote)
	}
	fmt.Fprintf(&b, "; %d findings", n)
	return b.String()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none listed"
	}
	return strings.Join(s, ", ")
}

// judge returns the weak names of a list (with why) and the worst severity.
func judge(names []string, weakness func(string) (string, scans.Severity)) ([]string, scans.Severity) {
	var bad []string
	var worst scans.Severity
	for _, n := range names {
		why, sev := weakness(n)
		if why == "" {
			continue
		}
		bad = append(bad, n+" ("+why+")")
		if worst == "" || sev.Rank() < worst.Rank() {
			worst = sev
		}
	}
	return bad, worst
}

// severityRule sets a finding's severity from the worst severity its
// weak algorithms call for and whether every algorithm offered is weak,
// saying so in the evidence when it changes it.
type severityRule func(f *scans.Finding, worst scans.Severity, allWeak bool)

// raiseToWorst raises a finding's severity to worst when worst is worse
// than the catalogue's default.
func raiseToWorst(f *scans.Finding, worst scans.Severity, _ bool) {
	if worst != "" && worst.Rank() < f.Severity.Rank() {
		f.Severity = worst
		f.Evidence += fmt.Sprintf(" Raised to %s by the worst algorithm offered.", worst)
	}
}

// lowerUnlessSevere lowers a weak key exchange finding to low when no
// 1024-bit group is offered, only SHA-1 exchange hashes.
func lowerUnlessSevere(f *scans.Finding, worst scans.Severity, _ bool) {
	if worst == scans.Low {
		f.Severity = scans.Low
		f.Evidence += " Lowered to low: no 1024-bit group is offered, only SHA-1 exchange hashes."
	}
}

// raiseWhenNoneStrong raises a weak host key finding to medium when the
// server offers no strong host key algorithm at all.
func raiseWhenNoneStrong(f *scans.Finding, _ scans.Severity, allWeak bool) {
	if allWeak {
		f.Severity = scans.Medium
		f.Evidence += " Raised to medium: the server offers no SHA-2 or EdDSA host key signature at all."
	}
}

func certain(f scans.Finding) scans.Finding {
	f.Confidence = scans.Certain // observed in the server's own answer
	return f
}

// list joins names, at most maxListed of them.
func list(names []string) string {
	if len(names) > maxListed {
		return strings.Join(names[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxListed)
	}
	return strings.Join(names, ", ")
}

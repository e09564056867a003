package sshaudit

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// sshServer is a golang.org/x/crypto/ssh server on 127.0.0.1 that counts
// the TCP connections it accepts and the secrets it was offered.
type sshServer struct {
	ln          net.Listener
	conns       *atomic.Int64
	passwords   atomic.Int32 // password callback calls
	kbdInteract atomic.Int32 // keyboard-interactive callback calls
	pubkeys     atomic.Int32 // public key callback calls
}

func startSSH(t *testing.T, s *sshServer, cfg *ssh.ServerConfig) *sshServer {
	t.Helper()
	s.ln = scantest.LocalListener(t)
	s.conns = scantest.Serve(t, s.ln, func(c net.Conn) {
		sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
		if err != nil {
			return
		}
		go ssh.DiscardRequests(reqs)
		for ch := range chans {
			_ = ch.Reject(ssh.Prohibited, "test")
		}
		sc.Close()
	})
	return s
}

func (s *sshServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func rsaSHA1Only(t *testing.T) ssh.Signer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	only, err := ssh.NewSignerWithAlgorithms(signer.(ssh.AlgorithmSigner), []string{ssh.KeyAlgoRSA})
	if err != nil {
		t.Fatal(err)
	}
	return only
}

func ed25519Signer(t *testing.T) ssh.Signer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// legacyServer is configured the way weak perimeters are found: SHA-1 and
// 1024-bit key exchange, CBC and 3DES, hmac-sha1, an ssh-rsa (SHA-1) host
// key only, and password plus keyboard-interactive logins.
func legacyServer(t *testing.T) *sshServer {
	s := &sshServer{}
	cfg := &ssh.ServerConfig{
		Config: ssh.Config{
			KeyExchanges: []string{ssh.InsecureKeyExchangeDH1SHA1, ssh.InsecureKeyExchangeDH14SHA1, ssh.InsecureKeyExchangeDHGEXSHA1},
			Ciphers:      []string{ssh.InsecureCipherAES128CBC, ssh.InsecureCipherTripleDESCBC, ssh.CipherAES128CTR},
			MACs:         []string{ssh.HMACSHA1, ssh.InsecureHMACSHA196, ssh.HMACSHA256ETM},
		},
		PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			s.passwords.Add(1)
			return nil, errors.New("denied")
		},
		KeyboardInteractiveCallback: func(ssh.ConnMetadata, ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			s.kbdInteract.Add(1)
			return nil, errors.New("denied")
		},
	}
	cfg.AddHostKey(rsaSHA1Only(t))
	return startSSH(t, s, cfg)
}

// modernServer offers only Mozilla's modern algorithms and public keys.
func modernServer(t *testing.T) *sshServer {
	s := &sshServer{}
	cfg := &ssh.ServerConfig{
		Config: ssh.Config{
			KeyExchanges: []string{ssh.KeyExchangeMLKEM768X25519, ssh.KeyExchangeCurve25519, ssh.KeyExchangeECDHP256},
			Ciphers:      []string{ssh.CipherChaCha20Poly1305, ssh.CipherAES256GCM, ssh.CipherAES128GCM, ssh.CipherAES256CTR},
			MACs:         []string{ssh.HMACSHA512ETM, ssh.HMACSHA256ETM, ssh.HMACSHA256},
		},
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
			s.pubkeys.Add(1)
			return nil, errors.New("denied")
		},
	}
	cfg.AddHostKey(ed25519Signer(t))
	return startSSH(t, s, cfg)
}

func newEnv(t *testing.T) tools.Env {
	site := scantest.NewSite(t, "ssh.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	return site.Env
}

func run(t *testing.T, env tools.Env, port int) (tools.Result, time.Duration) {
	t.Helper()
	input, _ := json.Marshal(map[string]any{"host": "ssh.test", "port": port})
	start := time.Now()
	res, err := New().Run(context.Background(), env, input)
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("ssh_audit: %v", err)
	}
	scantest.CheckFindings(t, New(), res.Findings)
	return res, wall
}

// auditServer runs the tool against srv (described by label in the log)
// and fails t unless it made exactly one TCP connection.
func auditServer(t *testing.T, srv *sshServer, label string) tools.Result {
	t.Helper()
	res, wall := run(t, newEnv(t), srv.port())
	t.Logf("%s: %v wall time, %d TCP connection(s); outcome: %s", label, wall, srv.conns.Load(), res.Outcome)
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("%d TCP connections, want 1", n)
	}
	return res
}

// TestLegacyServer: a real x/crypto/ssh server with legacy algorithms and
// password logins gives one finding per weakness class, the algorithm
// names as evidence, ssh.auth.password from a "none" request, and no
// Terrapin (x/crypto advertises strict kex); the server's password and
// keyboard-interactive callbacks are never called.
func TestLegacyServer(t *testing.T) {
	t.Parallel()
	srv := legacyServer(t)
	res := auditServer(t, srv, "legacy server")

	want := map[*checks.Check][]string{
		checks.SSHKexWeak:      {"diffie-hellman-group1-sha1", "diffie-hellman-group14-sha1", "diffie-hellman-group-exchange-sha1"},
		checks.SSHCipherWeak:   {"aes128-cbc", "3des-cbc"},
		checks.SSHMACWeak:      {"hmac-sha1 (SHA-1)", "hmac-sha1-96"},
		checks.SSHHostKeyWeak:  {"ssh-rsa"},
		checks.SSHPasswordAuth: {"password", "keyboard-interactive"},
	}
	for c, names := range want {
		f := scantest.ByCheck(res.Findings, c)
		if f == nil {
			t.Errorf("no %s finding in %d findings", c.Code, len(res.Findings))
			continue
		}
		for _, n := range names {
			if !strings.Contains(f.Evidence, n) {
				t.Errorf("%s evidence lacks %q: %s", c.Code, n, f.Evidence)
			}
		}
		if f.Confidence != scans.Certain || f.Port == nil || *f.Port != srv.port() || f.Host != "ssh.test" {
			t.Errorf("%s: confidence %s, host %s, port %v", c.Code, f.Confidence, f.Host, f.Port)
		}
	}
	if len(res.Findings) != len(want) {
		t.Errorf("%d findings, want %d: %+v", len(res.Findings), len(want), res.Findings)
	}
	for c, sev := range map[*checks.Check]scans.Severity{checks.SSHKexWeak: scans.Medium, checks.SSHCipherWeak: scans.Medium,
		checks.SSHMACWeak: scans.Low, checks.SSHHostKeyWeak: scans.Medium, checks.SSHPasswordAuth: scans.Medium} {
		if f := scantest.ByCheck(res.Findings, c); f != nil && f.Severity != sev {
			t.Errorf("%s: severity %s, want %s (%s)", c.Code, f.Severity, sev, f.Evidence)
		}
	}
	if f := scantest.ByCheck(res.Findings, checks.SSHCipherWeak); f != nil && strings.Contains(f.Evidence, "aes128-ctr (") {
		t.Errorf("aes128-ctr judged weak: %s", f.Evidence)
	}
	if scantest.ByCheck(res.Findings, checks.SSHTerrapin) != nil {
		t.Errorf("Terrapin reported although the server advertises %s", strictKex)
	}
	if n := srv.passwords.Load() + srv.kbdInteract.Load(); n != 0 {
		t.Errorf("the server's password/keyboard-interactive callbacks were called %d times", n)
	}
	if !strings.Contains(res.Outcome, "strict kex advertised") || !strings.Contains(res.Outcome, "password") {
		t.Errorf("outcome: %s", res.Outcome)
	}
}

// TestModernServer: only modern algorithms and public keys: no findings.
func TestModernServer(t *testing.T) {
	t.Parallel()
	srv := modernServer(t)
	res := auditServer(t, srv, "modern server")
	if len(res.Findings) != 0 {
		t.Errorf("findings on a modern server: %+v", res.Findings)
	}
	if !strings.Contains(res.Outcome, "authentication methods offered: publickey") {
		t.Errorf("outcome: %s", res.Outcome)
	}
	if srv.pubkeys.Load() != 0 {
		t.Errorf("a public key was offered")
	}
}

// TestNotSSH: a port that does not speak SSH fails the call, it invents
// nothing; a host outside the scope is refused before any connection.
func TestNotSSH(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "ssh.test", netguard.Policy{AllowPrivate: true}, http.NotFoundHandler(), nil)
	input, _ := json.Marshal(map[string]any{"host": "ssh.test", "port": site.Env.Ports.HTTP})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := New().Run(ctx, site.Env, input)
	if err == nil || len(res.Findings) > 0 {
		t.Errorf("HTTP port: %v, %+v", err, res)
	}
	for _, in := range []string{`{"host":"elsewhere.example"}`, `{"host":"ssh.test","port":70000}`, `{"host":"ssh.test","user":"root"}`} {
		if _, err := New().Run(ctx, site.Env, json.RawMessage(in)); !tools.IsInputError(err) {
			t.Errorf("%s: %v, want an input error", in, err)
		}
	}
}

// packet frames a payload as an unencrypted binary packet (RFC 4253 §6).
func packet(payload []byte) []byte {
	pad := 8 - (5+len(payload))%8
	if pad < 4 {
		pad += 8
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)+pad))
	out = append(out, byte(pad))
	out = append(out, payload...)
	return append(out, make([]byte, pad)...)
}

func kexInitPayload(lists ...string) []byte {
	p := append([]byte{msgKexInit}, make([]byte, 16)...)
	for _, l := range lists {
		p = binary.BigEndian.AppendUint32(p, uint32(len(l)))
		p = append(p, l...)
	}
	return append(p, 0, 0, 0, 0, 0)
}

// TestParseKexInit: the name-lists of a KEXINIT and the bounds.
func TestParseKexInit(t *testing.T) {
	lists := []string{"curve25519-sha256,diffie-hellman-group1-sha1", "ssh-ed25519", "chacha20-poly1305@openssh.com,aes128-cbc",
		"aes128-cbc", "hmac-sha2-256-etm@openssh.com", "hmac-sha1", "none", "none", "", ""}
	k, err := parseKexInit(kexInitPayload(lists...))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Kex, []string{"curve25519-sha256", "diffie-hellman-group1-sha1"}) || !slices.Equal(k.Ciphers(),
		[]string{"chacha20-poly1305@openssh.com", "aes128-cbc"}) || !slices.Equal(k.MACs(), []string{"hmac-sha2-256-etm@openssh.com", "hmac-sha1"}) {
		t.Errorf("parsed %+v", k)
	}
	for name, p := range map[string][]byte{
		"not KEXINIT":      {21, 0},
		"short cookie":     {20, 1, 2},
		"list past end":    append(append([]byte{20}, make([]byte, 16)...), 0, 0, 1, 0, 'a'),
		"missing lists":    append(append([]byte{20}, make([]byte, 16)...), 0, 0, 0, 0),
		"huge name-list":   append(append([]byte{20}, make([]byte, 16)...), 0xff, 0xff, 0xff, 0xff),
		"empty":            {},
		"other message 30": {30},
	} {
		if _, err := parseKexInit(p); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	_ = packet
}

// TestTerrapinPolicy: the Terrapin condition is read from the algorithms:
// ChaCha20-Poly1305, or EtM with CBC, without strict kex.
func TestTerrapinPolicy(t *testing.T) {
	for _, tc := range []struct {
		kex, ciphers, macs string
		vulnerable         bool
	}{
		{"curve25519-sha256", "chacha20-poly1305@openssh.com,aes128-ctr", "hmac-sha2-256", true},
		{"curve25519-sha256,kex-strict-s-v00@openssh.com", "chacha20-poly1305@openssh.com", "hmac-sha2-256", false},
		{"curve25519-sha256", "aes128-cbc,aes128-ctr", "hmac-sha2-256-etm@openssh.com", true},
		{"curve25519-sha256", "aes128-ctr,aes256-gcm@openssh.com", "hmac-sha2-256-etm@openssh.com", false},
		{"curve25519-sha256", "aes128-cbc", "hmac-sha2-256", false},
		{"curve25519-sha256,kex-strict-s-v00@openssh.com", "aes128-cbc", "hmac-sha1-etm@openssh.com", false},
	} {
		k := KexInit{Kex: strings.Split(tc.kex, ","), CiphersC2S: strings.Split(tc.ciphers, ","), MACsC2S: strings.Split(tc.macs, ",")}
		got, culprits := terrapin(k)
		if got != tc.vulnerable {
			t.Errorf("%+v: vulnerable %v (%v), want %v", tc, got, culprits, tc.vulnerable)
		}
		a := &audited{host: "ssh.test", port: 22, server: "SSH-2.0-Test", kex: k, methods: []string{"publickey"}}
		f := scantest.ByCheck(a.result().Findings, checks.SSHTerrapin)
		if (f != nil) != tc.vulnerable || (f != nil && (f.CVE == nil || *f.CVE != "CVE-2023-48795")) {
			t.Errorf("%+v: finding %+v", tc, f)
		}
	}
}

// TestPolicy: each class's judgement of common algorithm names.
func TestPolicy(t *testing.T) {
	for _, n := range []string{"diffie-hellman-group1-sha1", "diffie-hellman-group14-sha1", "diffie-hellman-group-exchange-sha1",
		"rsa1024-sha1", "gss-group1-sha1-toWM5Slw5Ew8Mqkay+al2g=="} {
		if why, _ := kexPolicy.weakness(n); why == "" {
			t.Errorf("kex %s judged acceptable", n)
		}
	}
	for _, n := range []string{"curve25519-sha256", "curve25519-sha256@libssh.org", "sntrup761x25519-sha512@openssh.com",
		"mlkem768x25519-sha256", "ecdh-sha2-nistp256", "diffie-hellman-group14-sha256", "diffie-hellman-group16-sha512",
		"diffie-hellman-group-exchange-sha256", "ext-info-s", "kex-strict-s-v00@openssh.com"} {
		if why, _ := kexPolicy.weakness(n); why != "" {
			t.Errorf("kex %s judged weak: %s", n, why)
		}
	}
	for n, sev := range map[string]scans.Severity{"aes128-cbc": scans.Low, "aes256-cbc": scans.Low, "rijndael-cbc@lysator.liu.se": scans.Low,
		"3des-cbc": scans.Medium, "blowfish-cbc": scans.Medium, "arcfour": scans.Medium, "arcfour256": scans.Medium, "none": scans.High} {
		if why, s := cipherPolicy.weakness(n); why == "" || s != sev {
			t.Errorf("cipher %s: %q %s, want %s", n, why, s, sev)
		}
	}
	for _, n := range []string{"chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-ctr"} {
		if why, _ := cipherPolicy.weakness(n); why != "" {
			t.Errorf("cipher %s judged weak", n)
		}
	}
	for _, n := range []string{"hmac-sha1", "hmac-sha1-etm@openssh.com", "hmac-md5", "hmac-sha1-96", "umac-64@openssh.com", "umac-64-etm@openssh.com"} {
		if why, _ := macPolicy.weakness(n); why == "" {
			t.Errorf("mac %s judged acceptable", n)
		}
	}
	for _, n := range []string{"hmac-sha2-256", "hmac-sha2-512-etm@openssh.com", "umac-128-etm@openssh.com", "umac-128@openssh.com"} {
		if why, _ := macPolicy.weakness(n); why != "" {
			t.Errorf("mac %s judged weak", n)
		}
	}
	for n, weak := range map[string]bool{"ssh-rsa": true, "ssh-dss": true, "rsa-sha2-512": false, "ssh-ed25519": false, "ecdsa-sha2-nistp256": false} {
		if why, _ := hostKeyPolicy.weakness(n); (why != "") != weak {
			t.Errorf("host key %s: weak %v", n, !weak)
		}
	}
}

// TestKexFindingSeverity: weak key exchange is medium while a 1024-bit
// group or key is offered, low (and says so) when only SHA-1 exchange
// hashes are.
func TestKexFindingSeverity(t *testing.T) {
	for _, tc := range []struct {
		kex     string
		want    scans.Severity
		lowered bool
	}{
		{"curve25519-sha256,diffie-hellman-group14-sha1", scans.Low, true},
		{"diffie-hellman-group14-sha1,diffie-hellman-group1-sha1", scans.Medium, false},
		{"rsa1024-sha1", scans.Medium, false},
	} {
		a := &audited{host: "ssh.test", port: 22, server: "SSH-2.0-Test", kex: KexInit{Kex: strings.Split(tc.kex, ",")}}
		f, ok := a.kexFinding("ssh.test:22")
		if !ok || f.Severity != tc.want || strings.Contains(f.Evidence, "Lowered to low") != tc.lowered {
			t.Errorf("%s: finding %v, severity %s, evidence %q; want %s", tc.kex, ok, f.Severity, f.Evidence, tc.want)
		}
	}
}

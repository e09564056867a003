package demotarget

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
)

// The demo's SSH service is a real SSH server (golang.org/x/crypto/ssh)
// that announces itself as Ubuntu 16.04's OpenSSH (SSHBanner) and is
// configured the way weak perimeters are found, so ssh_audit has something
// to judge: SHA-1 and 1024-bit key exchange, CBC and 3DES ciphers,
// hmac-sha1 MACs, an ssh-rsa (SHA-1) host key only, and password and
// keyboard-interactive logins offered. No login ever succeeds: every
// password, answer and key is refused, and no channel is ever opened.
var (
	legacySSHKexAlgos = []string{ssh.InsecureKeyExchangeDH1SHA1, ssh.InsecureKeyExchangeDH14SHA1,
		ssh.InsecureKeyExchangeDHGEXSHA1, ssh.KeyExchangeCurve25519}
	legacySSHCiphers = []string{ssh.InsecureCipherAES128CBC, ssh.InsecureCipherTripleDESCBC, ssh.CipherAES128CTR,
		ssh.CipherChaCha20Poly1305}
	legacySSHMACs = []string{ssh.HMACSHA1, ssh.InsecureHMACSHA196, ssh.HMACSHA256}
)

var errDemoLogin = errors.New("demo: logins are refused")

// legacySSHConfig is built once per process: generating the RSA host key
// is the slow part.
var legacySSHConfig = sync.OnceValues(func() (*ssh.ServerConfig, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return nil, err
	}
	as, ok := signer.(ssh.AlgorithmSigner)
	if !ok {
		return nil, errors.New("demo: the RSA signer cannot choose its algorithm")
	}
	sha1Only, err := ssh.NewSignerWithAlgorithms(as, []string{ssh.KeyAlgoRSA})
	if err != nil {
		return nil, err
	}
	cfg := &ssh.ServerConfig{
		Config: ssh.Config{KeyExchanges: legacySSHKexAlgos, Ciphers: legacySSHCiphers, MACs: legacySSHMACs},
		PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			return nil, errDemoLogin
		},
		KeyboardInteractiveCallback: func(ssh.ConnMetadata, ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			return nil, errDemoLogin
		},
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
			return nil, errDemoLogin
		},
		MaxAuthTries:  3,
		ServerVersion: strings.TrimSuffix(SSHBanner, "\r\n"),
	}
	cfg.AddHostKey(sha1Only)
	return cfg, nil
})

// legacySSHSession runs the SSH handshake on c (the banner server's
// deadline bounds it) and refuses every login; without a host key it
// falls back to the banner alone.
func legacySSHSession(c net.Conn) {
	cfg, err := legacySSHConfig()
	if err != nil {
		bannerOnlySSHSession(c)
		return
	}
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for ch := range chans {
		_ = ch.Reject(ssh.Prohibited, "demo")
	}
	_ = sc.Close()
}

package demotarget

import (
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// TestLegacySSH: the demo's SSH service is a real SSH server that
// negotiates a legacy key exchange and cipher, signs with ssh-rsa, offers
// password and keyboard-interactive logins and lets nobody in.
func TestLegacySSH(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	var methods []string
	var hostKey string
	errStop := errors.New("stop")
	cfg := &ssh.ClientConfig{
		Config: ssh.Config{
			KeyExchanges: []string{ssh.InsecureKeyExchangeDH1SHA1},
			Ciphers:      []string{ssh.InsecureCipherAES128CBC},
			MACs:         []string{ssh.HMACSHA1},
		},
		User:              "demo",
		HostKeyAlgorithms: []string{ssh.KeyAlgoRSA},
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			hostKey = key.Type()
			return nil
		},
		AuthCallback: func(c *ssh.ClientAuthContext) (ssh.AuthMethod, error) {
			if len(c.TriedMethods) == 1 { // after "none"
				methods = slices.Clone(c.AllowedMethods)
				return ssh.Password("demo"), nil
			}
			return nil, errStop
		},
		Timeout: 10 * time.Second,
	}
	_, err := ssh.Dial("tcp", target.SSHAddr(), cfg)
	if err == nil {
		t.Fatal("a password login succeeded")
	}
	if hostKey != ssh.KeyAlgoRSA || !slices.Contains(methods, "password") || !slices.Contains(methods, "keyboard-interactive") {
		t.Errorf("host key %q, methods %v (%v)", hostKey, methods, err)
	}
}

package localstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"secscan/shared/auth"
)

// DataDir is the local stack's data folder (`.local` at the repository
// root unless LOCAL_DATA says otherwise): DynamoDB Local's database file, the
// development identity provider's signing key and the local admin's API
// token, so that a restart keeps the data, the sessions and the ids a user
// obtained before it. One stack at a time owns it (Lock).
type DataDir struct {
	Path string
	lock *os.File
}

// OpenDataDir creates dir (0700) and locks it for this process: a second
// stack on the same folder is refused with what to do, instead of two
// DynamoDB Local processes writing one database file.
func OpenDataDir(dir string) (*DataDir, error) {
	if err := os.MkdirAll(filepath.Join(dir, "dynamodb"), 0o700); err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another local stack is using %s: stop it first, or give this one its own folder (LOCAL_DATA=/some/dir, or LOCAL_DATA=memory to keep nothing)", dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &DataDir{Path: dir, lock: f}, nil
}

// Close releases the lock. It unlocks before closing: a child process
// forked by another goroutine between fork and exec holds a copy of the
// descriptor, and with it the lock, until it execs; closing ours alone
// would leave the folder locked for that moment (a reopen right after
// Close failed so in a test run).
func (d *DataDir) Close() error {
	unlock := syscall.Flock(int(d.lock.Fd()), syscall.LOCK_UN)
	return errors.Join(unlock, d.lock.Close())
}

// DynamoDBPath is DynamoDB Local's -dbPath.
func (d *DataDir) DynamoDBPath() string { return filepath.Join(d.Path, "dynamodb") }

// SigningKey returns the development identity provider's key, made and
// saved (0600) on first use: sessions signed before a restart stay valid.
func (d *DataDir) SigningKey() (*ecdsa.PrivateKey, error) {
	path := filepath.Join(d.Path, "devidp-key.pem")
	if b, err := os.ReadFile(path); err == nil {
		block, _ := pem.Decode(b)
		if block == nil {
			return nil, fmt.Errorf("%s is not a PEM key: delete it (sessions signed with it end)", path)
		}
		key, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (delete it: sessions signed with it end)", path, err)
		}
		return key, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return key, writeNew(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}))
}

// AdminToken returns the local admin's API token, made and saved (0600) on
// first use.
func (d *DataDir) AdminToken() (string, error) {
	path := d.AdminTokenPath()
	if b, err := os.ReadFile(path); err == nil {
		tok := strings.TrimSpace(string(b))
		if !strings.HasPrefix(tok, "pt_") {
			return "", fmt.Errorf("%s does not hold a pt_ token: delete it and restart", path)
		}
		return tok, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	tok, err := auth.NewAPIToken()
	if err != nil {
		return "", err
	}
	return tok, writeNew(path, []byte(tok+"\n"))
}

// AdminTokenPath is where AdminToken keeps the token.
func (d *DataDir) AdminTokenPath() string { return filepath.Join(d.Path, "admin-token") }

// writeNew writes a new file only the owner can read.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package demotarget

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Banner services say hello like an old, vulnerable daemon would and hang
// up: enough for a service/version scan, nothing to log in to.
const (
	MySQLVersion = "5.5.62-0ubuntu0.14.04.1"
	FTPBanner    = "220 (vsFTPd 2.3.4)\r\n"
	SSHBanner    = "SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8\r\n"

	bannerMaxConns   = 64
	bannerTimeout    = 5 * time.Second // whole-connection deadline
	bannerMaxRead    = 4096
	acceptRetryPause = 50 * time.Millisecond
)

type bannerServer struct {
	ln    net.Listener
	slots chan struct{}
	wg    sync.WaitGroup

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

// serveBanner runs session on every accepted connection (at most
// bannerMaxConns at once; extra connections are closed at once) and returns
// the function that stops it and waits for the sessions.
func serveBanner(ln net.Listener, session func(net.Conn)) func() error {
	s := &bannerServer{ln: ln, slots: make(chan struct{}, bannerMaxConns), conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.acceptLoop(session)
	return s.stop
}

func (s *bannerServer) acceptLoop(session func(net.Conn)) {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.isClosing() {
				return
			}
			// Transient (e.g. out of file descriptors): pause like net/http does.
			time.Sleep(acceptRetryPause)
			continue
		}
		select {
		case s.slots <- struct{}{}:
		default:
			conn.Close()
			continue
		}
		if !s.track(conn) {
			<-s.slots
			conn.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			defer s.untrack(conn)
			_ = conn.SetDeadline(time.Now().Add(bannerTimeout))
			session(conn)
		}()
	}
}

func (s *bannerServer) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *bannerServer) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *bannerServer) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.Close()
}

func (s *bannerServer) stop() error {
	s.mu.Lock()
	s.closing = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// readOnce waits for one read (or the deadline) and discards the data.
func readOnce(c net.Conn, limit int) {
	buf := make([]byte, limit)
	_, _ = c.Read(buf)
}

var mysqlConnectionID atomic.Uint32

// mysqlSession sends a MySQL protocol-10 handshake greeting and hangs up
// after the client's answer.
func mysqlSession(c net.Conn) {
	if _, err := c.Write(mysqlGreeting(mysqlConnectionID.Add(1))); err != nil {
		return
	}
	readOnce(c, bannerMaxRead)
}

// mysqlGreeting builds the Initial Handshake Packet (protocol version 10) of
// a MySQL 5.5 server using mysql_native_password, without SSL support.
func mysqlGreeting(connectionID uint32) []byte {
	salt := make([]byte, 20)
	_, _ = rand.Read(salt)
	for i := range salt { // MySQL's scramble is printable and never NUL
		salt[i] = 0x21 + salt[i]%94
	}
	const (
		capLow  = 0xf7ff // everything of 4.1 protocol except CLIENT_SSL (0x0800)
		capHigh = 0x807f // multi-results, plugin auth, connect attrs, …
	)
	p := []byte{10}
	p = append(p, MySQLVersion...)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint32(p, connectionID)
	p = append(p, salt[:8]...)
	p = append(p, 0) // filler
	p = binary.LittleEndian.AppendUint16(p, capLow)
	p = append(p, 0x08)                             // character set latin1_swedish_ci, the 5.5 default
	p = binary.LittleEndian.AppendUint16(p, 0x0002) // SERVER_STATUS_AUTOCOMMIT
	p = binary.LittleEndian.AppendUint16(p, capHigh)
	p = append(p, 21) // auth-plugin-data length (20 + NUL)
	p = append(p, make([]byte, 10)...)
	p = append(p, salt[8:]...)
	p = append(p, 0)
	p = append(p, "mysql_native_password"...)
	p = append(p, 0)

	packet := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0} // length, sequence 0
	return append(packet, p...)
}

// sshSession is a real SSH server announcing an old OpenSSH (see ssh.go).
func sshSession(c net.Conn) { legacySSHSession(c) }

// bannerOnlySSHSession says hello like the OpenSSH it names and hangs up.
func bannerOnlySSHSession(c net.Conn) {
	if _, err := c.Write([]byte(SSHBanner)); err != nil {
		return
	}
	readOnce(c, 255)
}

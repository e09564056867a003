package sshaudit

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// Bounds of what is read from a server before the key exchange.
const (
	// maxLineBytes bounds one identification line (RFC 4253 §4.2: 255
	// including CR LF) and the lines some servers send before it.
	maxLineBytes = 255
	// maxPreLines bounds the lines before the identification line.
	maxPreLines = 32
	// maxPacket bounds the KEXINIT packet (RFC 4253 §6.1: implementations
	// must handle 35000 bytes).
	maxPacket = 35000
	// maxNameList bounds one name-list, in bytes.
	maxNameList = 8192
	// msgKexInit is SSH_MSG_KEXINIT.
	msgKexInit = 20
)

// KexInit is the algorithm lists of a server's SSH_MSG_KEXINIT (RFC 4253 §7.1).
type KexInit struct {
	Kex, HostKey                   []string
	CiphersC2S, CiphersS2C         []string
	MACsC2S, MACsS2C               []string
	CompressionC2S, CompressionS2C []string
}

// Ciphers are the ciphers offered in either direction, each once.
func (k KexInit) Ciphers() []string { return union(k.CiphersC2S, k.CiphersS2C) }

// MACs are the MACs offered in either direction, each once.
func (k KexInit) MACs() []string { return union(k.MACsC2S, k.MACsS2C) }

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// recorder keeps every byte read from the connection, so the handshake
// that follows can be replayed the same bytes (see replayConn).
type recorder struct {
	r   io.Reader
	buf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	return n, err
}

// readIdentification reads the server's identification line ("SSH-2.0-…"),
// skipping the lines a server may send before it (RFC 4253 §4.2).
func readIdentification(br *bufio.Reader) (string, error) {
	for range maxPreLines + 1 {
		line, err := readLine(br)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(line, "SSH-") {
			return line, nil
		}
	}
	return "", fmt.Errorf("no SSH identification line within %d lines", maxPreLines+1)
}

// readLine reads one line of at most maxLineBytes, without its CR LF.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			if len(b) == 0 {
				return "", err
			}
			return "", fmt.Errorf("identification line cut short: %w", err)
		}
		if c == '\n' {
			return strings.TrimSuffix(string(b), "\r"), nil
		}
		if len(b) == maxLineBytes {
			return "", fmt.Errorf("identification line longer than %d bytes", maxLineBytes)
		}
		b = append(b, c)
	}
}

// readKexInit reads the first binary packet (unencrypted, RFC 4253 §6) and
// parses it as SSH_MSG_KEXINIT.
func readKexInit(br *bufio.Reader) (KexInit, error) {
	var head [5]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return KexInit{}, fmt.Errorf("reading the first packet: %w", err)
	}
	length := binary.BigEndian.Uint32(head[:4])
	padding := uint32(head[4])
	if length < 1+1+16 || length > maxPacket {
		return KexInit{}, fmt.Errorf("first packet length %d is outside 18-%d", length, maxPacket)
	}
	if padding+1 >= length {
		return KexInit{}, fmt.Errorf("first packet padding %d does not fit its length %d", padding, length)
	}
	body := make([]byte, length-1)
	if _, err := io.ReadFull(br, body); err != nil {
		return KexInit{}, fmt.Errorf("reading the first packet: %w", err)
	}
	return parseKexInit(body[:len(body)-int(padding)])
}

// parseKexInit parses a KEXINIT payload: byte 20, a 16-byte cookie and ten
// name-lists (the flag and reserved field that follow are not needed).
func parseKexInit(p []byte) (KexInit, error) {
	if len(p) == 0 || p[0] != msgKexInit {
		if len(p) > 0 {
			return KexInit{}, fmt.Errorf("first packet is message %d, not KEXINIT (%d)", p[0], msgKexInit)
		}
		return KexInit{}, errors.New("first packet is empty")
	}
	if len(p) < 17 {
		return KexInit{}, errors.New("KEXINIT shorter than its cookie")
	}
	p = p[17:]
	var lists [10][]string
	for i := range lists {
		var err error
		if lists[i], p, err = nameList(p, i+1); err != nil {
			return KexInit{}, err
		}
	}
	return KexInit{
		Kex: lists[0], HostKey: lists[1],
		CiphersC2S: lists[2], CiphersS2C: lists[3],
		MACsC2S: lists[4], MACsS2C: lists[5],
		CompressionC2S: lists[6], CompressionS2C: lists[7],
	}, nil
}

// nameList reads the name-list (number nth of the payload) that starts p,
// and returns what follows it.
func nameList(p []byte, nth int) (names []string, rest []byte, err error) {
	if len(p) < 4 {
		return nil, nil, fmt.Errorf("KEXINIT cut short at name-list %d", nth)
	}
	n := binary.BigEndian.Uint32(p)
	p = p[4:]
	if n > maxNameList || int(n) > len(p) {
		return nil, nil, fmt.Errorf("KEXINIT name-list %d has length %d", nth, n)
	}
	if n > 0 {
		for name := range strings.SplitSeq(string(p[:n]), ",") {
			names = append(names, clean(name))
		}
	}
	return names, p[n:], nil
}

// clean keeps an algorithm name printable US-ASCII (RFC 4251 §6) and short.
func clean(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x21 || c > 0x7e {
			b[i] = '.'
		}
	}
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// replayConn hands the handshake library a connection on which the version
// exchange and the server's KEXINIT, already read, are read again, and on
// which the client's identification line, already sent, is not sent twice:
// one TCP connection serves both the KEXINIT read and the authentication
// methods query.
type replayConn struct {
	net.Conn
	replay   []byte
	swallow  []byte
	swallowd bool
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.replay) > 0 {
		n := copy(p, c.replay)
		c.replay = c.replay[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func (c *replayConn) Write(p []byte) (int, error) {
	if !c.swallowd {
		c.swallowd = true
		if string(p) == string(c.swallow) {
			return len(p), nil
		}
		return 0, errors.New("the handshake did not start with the identification line already sent")
	}
	return c.Conn.Write(p)
}

package ftpaudit

// The FTP control connection: commands (only allowedCommands) and their
// replies, recorded in the transcript.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/scanners/internal/httpprobe"
)

// allowedCommands are the only commands the tool sends.
var allowedCommands = []string{"FEAT", "AUTH", "USER", "PASS", "EPSV", "PASV", "TYPE", "LIST", "NLST", "QUIT"}

// dial opens a control connection through the guarded dialer.
func (a *audit) dial(ctx context.Context) (*control, error) {
	conn, err := a.env.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(a.host, strconv.Itoa(a.port)))
	if err != nil {
		return nil, err
	}
	a.conns++
	c := &control{conn: conn, r: bufio.NewReaderSize(conn, 4096), log: &a.log}
	a.log.connect(a.host, a.port)
	c.stop = context.AfterFunc(ctx, func() { conn.Close() })
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		c.addr, _ = netip.AddrFromSlice(ta.IP)
		c.addr = c.addr.Unmap()
	}
	if !c.addr.IsValid() {
		conn.Close()
		return nil, errors.New("the control connection has no IP address")
	}
	return c, nil
}

// control is one FTP control connection.
type control struct {
	conn   net.Conn
	r      *bufio.Reader
	addr   netip.Addr // the server's address: the only one data connections go to
	stop   func() bool
	noEPSV bool
	log    *transcript
}

func (c *control) close() {
	c.stop()
	c.conn.Close()
}

// cmd sends one command (of allowedCommands) and reads its reply.
func (c *control) cmd(line string) (int, string, error) {
	verb, _, _ := strings.Cut(line, " ")
	if !slices.Contains(allowedCommands, verb) {
		return 0, "", fmt.Errorf("command %s is not one ftp_audit sends", verb)
	}
	if _, err := io.WriteString(c.conn, line+"\r\n"); err != nil {
		return 0, "", err
	}
	c.log.sent(line)
	return c.reply()
}

// reply reads one reply and records it in the transcript.
func (c *control) reply() (int, string, error) {
	code, text, err := c.readReply()
	if err == nil {
		c.log.received(code, text)
	}
	return code, text, err
}

// readReply reads one reply (RFC 959 section 4.2: "123-" opens a multi-line
// reply that "123 " closes), at most maxReplyBytes.
func (c *control) readReply() (int, string, error) {
	line, err := c.readLine()
	if err != nil {
		return 0, "", err
	}
	code, err := replyCode(line)
	if err != nil {
		return 0, "", err
	}
	if len(line) == 3 || line[3] != '-' {
		return code, strings.TrimSpace(line[3:]), nil
	}
	text, err := c.readMultiLine(code, line)
	if err != nil {
		return 0, "", err
	}
	return code, text, nil
}

// readMultiLine reads the rest of a multi-line reply that first opened:
// its text is every line, the first included, up to the "code " line that
// closes it.
func (c *control) readMultiLine(code int, first string) (string, error) {
	var b strings.Builder
	end := strconv.Itoa(code) + " "
	line := first
	for b.WriteString(line + "\n"); b.Len() < maxReplyBytes; b.WriteString(line + "\n") {
		var err error
		if line, err = c.readLine(); err != nil {
			return "", err
		}
		if strings.HasPrefix(line, end) {
			return b.String() + line + "\n", nil
		}
	}
	return "", errors.New("reply too long")
}

// readLine reads one line of a reply, without its line end. A last line
// without one is a line; only a read that got nothing fails.
func (c *control) readLine() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// replyCode reads the code that starts a reply's first line.
func replyCode(line string) (int, error) {
	if len(line) < 3 {
		return 0, fmt.Errorf("malformed reply %q", httpprobe.Clean(line, 40))
	}
	n, err := strconv.Atoi(line[:3])
	if err != nil || n < 100 || n > 599 {
		return 0, fmt.Errorf("malformed reply %q", httpprobe.Clean(line, 40))
	}
	return n, nil
}

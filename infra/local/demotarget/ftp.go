package demotarget

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	ftpserver "goftp.io/server/v2"
	"golang.org/x/net/netutil"
)

// The FTP service is a real FTP server (goftp.io/server/v2) that greets like
// vsFTPd 2.3.4 and, as vsftpd with `anonymous_enable=YES` does, lets anyone
// log in as anonymous and read a small tree holding a customer export and a
// database backup (invented data). Nothing can be written: every change is
// refused by the driver.
//
// The library opens each passive data listener on all interfaces (goftp
// v2.0.3 data_socket.go: `net.JoinHostPort("", port)`), for one transfer
// and at most 60 s; what it serves there is the invented tree below.
const (
	// FTPCustomerFile and FTPBackupFile are the planted sensitive files.
	FTPCustomerFile = "customers.csv"
	FTPBackupFile   = "backup/db-2024-01.sql"

	ftpMaxConns = 32
	ftpTimeout  = 30 * time.Second // whole control connection
)

// ftpTree is the anonymous tree: path → contents ("" and a trailing slash
// for a directory).
var ftpTree = map[string]string{
	"/pub/":                  "",
	"/pub/README":            "Public downloads of the demo company.\n",
	"/pub/brochure-2024.pdf": "%PDF-1.4 (demo)\n",
	"/" + FTPCustomerFile:    "id,name,email,iban\n1,Ada Example,ada@example.com,DE00 0000 0000 0000 0000 00\n",
	"/backup/":               "",
	"/" + FTPBackupFile:      "-- demo dump\nCREATE TABLE customers (id int, email text);\n",
	"/welcome.msg":           "Welcome to the demo FTP archive.\n",
}

// serveFTP serves the anonymous FTP tree on ln until the returned stop.
func serveFTP(ln net.Listener) (func() error, error) {
	srv, err := ftpserver.NewServer(&ftpserver.Options{
		Driver:         readOnlyTree{},
		Auth:           anonymousOnly{},
		Perm:           ftpserver.NewSimplePerm("ftp", "ftp"),
		Name:           "vsFTPd",
		WelcomeMessage: strings.TrimSuffix(strings.TrimPrefix(FTPBanner, "220 "), "\r\n"),
		Logger:         &ftpserver.DiscardLogger{},
	})
	if err != nil {
		return nil, err
	}
	lim := &deadlineListener{Listener: netutil.LimitListener(ln, ftpMaxConns), conns: map[net.Conn]struct{}{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lim)
	}()
	// Stopped by closing the listener and the sessions, not by the
	// library's Shutdown, which races with Serve (it reads the fields Serve
	// sets, unsynchronised).
	return func() error {
		err := lim.Close()
		lim.closeAll()
		<-done
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		return err
	}, nil
}

// deadlineListener gives each control connection a whole-connection
// deadline and closes the open ones on stop (the library keeps sessions
// open after Shutdown).
type deadlineListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (l *deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(ftpTimeout))
	l.mu.Lock()
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	return c, nil
}

func (l *deadlineListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
	}
}

// anonymousOnly accepts the anonymous accounts (any password, as an e-mail
// address is asked for) and no one else.
type anonymousOnly struct{}

func (anonymousOnly) CheckPasswd(_ *ftpserver.Context, user, _ string) (bool, error) {
	return user == "anonymous" || user == "ftp", nil
}

// readOnlyTree serves ftpTree; every change is refused.
type readOnlyTree struct{}

var errReadOnly = errors.New("permission denied")

type treeInfo struct {
	name string
	size int64
	dir  bool
}

func (i treeInfo) Name() string { return i.name }
func (i treeInfo) Size() int64  { return i.size }
func (i treeInfo) Mode() os.FileMode {
	if i.dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}
func (i treeInfo) ModTime() time.Time { return time.Date(2024, 1, 15, 3, 0, 0, 0, time.UTC) }
func (i treeInfo) IsDir() bool        { return i.dir }
func (i treeInfo) Sys() any           { return nil }

func clean(p string) string { return path.Clean("/" + p) }

func (readOnlyTree) Stat(_ *ftpserver.Context, p string) (os.FileInfo, error) {
	p = clean(p)
	if p == "/" {
		return treeInfo{name: "/", dir: true}, nil
	}
	if _, ok := ftpTree[p+"/"]; ok {
		return treeInfo{name: path.Base(p), dir: true}, nil
	}
	if body, ok := ftpTree[p]; ok {
		return treeInfo{name: path.Base(p), size: int64(len(body))}, nil
	}
	return nil, os.ErrNotExist
}

func (t readOnlyTree) ListDir(ctx *ftpserver.Context, p string, each func(os.FileInfo) error) error {
	dir := strings.TrimSuffix(clean(p), "/") + "/"
	var names []string
	for k := range ftpTree {
		rest, ok := strings.CutPrefix(k, dir)
		if ok && rest != "" && !strings.Contains(strings.TrimSuffix(rest, "/"), "/") {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		info, err := t.Stat(ctx, strings.TrimSuffix(k, "/"))
		if err != nil {
			continue
		}
		if err := each(info); err != nil {
			return err
		}
	}
	return nil
}

func (readOnlyTree) GetFile(_ *ftpserver.Context, p string, offset int64) (int64, io.ReadCloser, error) {
	body, ok := ftpTree[clean(p)]
	if !ok {
		return 0, nil, os.ErrNotExist
	}
	r := bytes.NewReader([]byte(body))
	if _, err := r.Seek(min(offset, int64(len(body))), io.SeekStart); err != nil {
		return 0, nil, err
	}
	return int64(r.Len()), io.NopCloser(r), nil
}

func (readOnlyTree) DeleteDir(*ftpserver.Context, string) error      { return errReadOnly }
func (readOnlyTree) DeleteFile(*ftpserver.Context, string) error     { return errReadOnly }
func (readOnlyTree) Rename(*ftpserver.Context, string, string) error { return errReadOnly }
func (readOnlyTree) MakeDir(*ftpserver.Context, string) error        { return errReadOnly }
func (readOnlyTree) PutFile(*ftpserver.Context, string, io.Reader, int64) (int64, error) {
	return 0, errReadOnly
}

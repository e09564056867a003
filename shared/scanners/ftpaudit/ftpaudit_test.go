package ftpaudit

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ftpserver "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// recorder is a real goftp server's view of a session: every command line
// the client sent (read off the control connection), the control
// connections accepted, and the driver calls that read or change files.
type recorder struct {
	mu       sync.Mutex
	commands []string
	fileOps  []string
	conns    atomic.Int32
}

func (r *recorder) verbs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.commands {
		v, _, _ := strings.Cut(c, " ")
		out = append(out, strings.ToUpper(v))
	}
	return out
}

// recordingListener records what clients send on each control connection.
type recordingListener struct {
	net.Listener
	rec *recorder
}

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.rec.conns.Add(1)
	return &recordingConn{Conn: c, rec: l.rec}, nil
}

type recordingConn struct {
	net.Conn
	rec     *recorder
	partial string
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.partial += string(p[:n])
	for {
		i := strings.Index(c.partial, "\n")
		if i < 0 {
			break
		}
		c.rec.mu.Lock()
		c.rec.commands = append(c.rec.commands, strings.TrimRight(c.partial[:i], "\r"))
		c.rec.mu.Unlock()
		c.partial = c.partial[i+1:]
	}
	return n, err
}

// recordingDriver is the library's file driver, recording every call that
// would read a file's contents or change the tree.
type recordingDriver struct {
	ftpserver.Driver
	rec *recorder
}

func (d recordingDriver) op(s string) {
	d.rec.mu.Lock()
	d.rec.fileOps = append(d.rec.fileOps, s)
	d.rec.mu.Unlock()
}

func (d recordingDriver) GetFile(ctx *ftpserver.Context, p string, off int64) (int64, io.ReadCloser, error) {
	d.op("GetFile " + p)
	return d.Driver.GetFile(ctx, p, off)
}

func (d recordingDriver) PutFile(ctx *ftpserver.Context, p string, r io.Reader, off int64) (int64, error) {
	d.op("PutFile " + p)
	return d.Driver.PutFile(ctx, p, r, off)
}

func (d recordingDriver) MakeDir(ctx *ftpserver.Context, p string) error {
	d.op("MakeDir " + p)
	return d.Driver.MakeDir(ctx, p)
}

func (d recordingDriver) DeleteFile(ctx *ftpserver.Context, p string) error {
	d.op("DeleteFile " + p)
	return d.Driver.DeleteFile(ctx, p)
}

func (d recordingDriver) DeleteDir(ctx *ftpserver.Context, p string) error {
	d.op("DeleteDir " + p)
	return d.Driver.DeleteDir(ctx, p)
}

func (d recordingDriver) Rename(ctx *ftpserver.Context, from, to string) error {
	d.op("Rename " + from)
	return d.Driver.Rename(ctx, from, to)
}

// anonymousAuth accepts anonymous with any password, and one named user.
type anonymousAuth struct{ allowAnonymous bool }

func (a anonymousAuth) CheckPasswd(_ *ftpserver.Context, user, pass string) (bool, error) {
	if a.allowAnonymous && (user == "anonymous" || user == "ftp") {
		return true, nil
	}
	return user == "alice" && pass == "correct horse", nil
}

type serverOpts struct {
	anonymous bool
	publicIP  string // what PASV replies name
	noEPSV    bool
	tls       bool
}

// startFTP starts goftp on 127.0.0.1 serving a tree with customers.csv,
// backup/db.sql and harmless files.
func startFTP(t *testing.T, o serverOpts) (int, *recorder) {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"customers.csv":        "id,name\n1,Alice\n",
		"readme.txt":           "public files\n",
		"backup/db.sql":        "CREATE TABLE t (id int);\n",
		"pub/release-1.0.tgz":  "x",
		"pub/notes/inside.txt": "deeper levels are not listed",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	drv, err := file.NewDriver(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	opts := &ftpserver.Options{
		Driver:   recordingDriver{Driver: drv, rec: rec},
		Auth:     anonymousAuth{allowAnonymous: o.anonymous},
		Perm:     ftpserver.NewSimplePerm("ftp", "ftp"),
		Hostname: "127.0.0.1",
		PublicIP: o.publicIP,
		Logger:   &ftpserver.DiscardLogger{},
	}
	if o.noEPSV {
		opts.Commands = map[string]ftpserver.Command{}
		for k, v := range ftpserver.DefaultCommands() {
			if k != "EPSV" {
				opts.Commands[k] = v
			}
		}
	}
	if o.tls {
		cert, _ := scantest.Certificate(t, "ftp.shop.test")
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		opts.TLS, opts.ExplicitFTPS = true, true
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	opts.Port = port
	srv, err := ftpserver.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	if o.tls {
		// The library takes its TLS configuration only in ListenAndServe,
		// which listens itself (on 127.0.0.1, the port just freed).
		ln.Close()
		go func() { _ = srv.ListenAndServe() }()
		for i := 0; ; i++ {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err == nil {
				c.Close()
				break
			}
			if i == 100 {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Cleanup(func() { _ = srv.Shutdown() })
	} else {
		// Stopped by closing its listener: the library's Shutdown races
		// with Serve.
		go func() { _ = srv.Serve(recordingListener{Listener: ln, rec: rec}) }()
		t.Cleanup(func() { ln.Close() })
	}
	return port, rec
}

func runAudit(t *testing.T, env tools.Env, port int) tools.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"host": "ftp.shop.test", "port": port})
	start := time.Now()
	res, err := New().Run(context.Background(), env, in)
	if err != nil {
		t.Fatalf("ftp_audit: %v", err)
	}
	t.Logf("ftp_audit took %v: %s", time.Since(start).Round(time.Millisecond), res.Outcome)
	scantest.CheckFindings(t, New(), res.Findings)
	return res
}

func siteEnv(t *testing.T) tools.Env {
	t.Helper()
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, nil, "ftp.shop.test")
	return site.Env
}

// forbidden are the commands that read file contents, write, or make the
// server connect out.
var forbidden = []string{"RETR", "STOR", "STOU", "APPE", "MKD", "XMKD", "RMD", "XRMD", "DELE", "RNFR", "RNTO", "SITE", "PORT", "EPRT", "CWD"}

func assertReadOnly(t *testing.T, rec *recorder) {
	t.Helper()
	for _, v := range rec.verbs() {
		if slices.Contains(forbidden, v) {
			t.Errorf("the server received %s", v)
		}
		if !slices.Contains(allowedCommands, v) {
			t.Errorf("the server received %s, not one of the allowed commands", v)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.fileOps) > 0 {
		t.Errorf("file contents were read: %v", rec.fileOps)
	}
}

// An anonymous server with customers.csv and backup/db.sql: the login,
// the sensitive names with their paths, nothing downloaded or written.
func TestAnonymousFTPWithSensitiveFiles(t *testing.T) {
	t.Parallel()
	port, rec := startFTP(t, serverOpts{anonymous: true})
	res := runAudit(t, siteEnv(t), port)
	anon := scantest.ByCheck(res.Findings, checks.FTPAnonymousLogin)
	if anon == nil || anon.Severity != scans.Medium || anon.Host != "ftp.shop.test" || *anon.Port != port {
		t.Fatalf("no anonymous-login finding: %+v", res.Findings)
	}
	for _, want := range []string{"USER anonymous → 331", "PASS <e-mail address> → 230", "/customers.csv", "/backup/", "/backup/db.sql", "/readme.txt", "/pub/release-1.0.tgz"} {
		if !strings.Contains(anon.Evidence, want) {
			t.Errorf("anonymous evidence lacks %q: %s", want, anon.Evidence)
		}
	}
	if strings.Contains(anon.Evidence, "inside.txt") {
		t.Errorf("a second-level directory was listed: %s", anon.Evidence)
	}
	sens := scantest.ByCheck(res.Findings, checks.FTPAnonymousSensitiveFile)
	if sens == nil || sens.Severity != scans.High {
		t.Fatalf("no sensitive-file finding: %+v", res.Findings)
	}
	for _, want := range []string{"/customers.csv (customer or personal data)", "/backup/db.sql (database dump)", "/backup/ (backup)"} {
		if !strings.Contains(sens.Evidence, want) {
			t.Errorf("sensitive evidence lacks %q: %s", want, sens.Evidence)
		}
	}
	for _, harmless := range []string{"readme.txt", "release-1.0.tgz"} {
		if strings.Contains(sens.Evidence, harmless) {
			t.Errorf("%s reported as sensitive: %s", harmless, sens.Evidence)
		}
	}
	// No TLS configured: AUTH TLS refused.
	if f := scantest.ByCheck(res.Findings, checks.FTPNoTLS); f == nil || !strings.Contains(f.Evidence, "AUTH TLS → 550") {
		t.Errorf("no ftp.no-tls finding with the AUTH TLS answer: %+v", res.Findings)
	}
	assertReadOnly(t, rec)
	// Figures: control connections (the audit and the AUTH TLS probe).
	verbs := rec.verbs()
	t.Logf("control connections: %d; commands: %v", rec.conns.Load(), verbs)
	if rec.conns.Load() != 2 {
		t.Errorf("%d control connections, want 2", rec.conns.Load())
	}
	if !slices.Contains(verbs, "EPSV") || slices.Contains(verbs, "PASV") {
		t.Errorf("EPSV was not used: %v", verbs)
	}
}

// Without anonymous access: no anonymous finding, no listing.
func TestFTPWithoutAnonymousAccess(t *testing.T) {
	t.Parallel()
	port, rec := startFTP(t, serverOpts{})
	res := runAudit(t, siteEnv(t), port)
	if f := scantest.ByCheck(res.Findings, checks.FTPAnonymousLogin); f != nil {
		t.Errorf("anonymous finding on a server that refuses it: %+v", f)
	}
	if f := scantest.ByCheck(res.Findings, checks.FTPAnonymousSensitiveFile); f != nil {
		t.Errorf("sensitive-file finding without a login: %+v", f)
	}
	if !strings.Contains(res.Outcome, "anonymous login refused") {
		t.Errorf("outcome: %s", res.Outcome)
	}
	for _, v := range rec.verbs() {
		if v == "LIST" || v == "NLST" || v == "EPSV" || v == "PASV" {
			t.Errorf("the server received %s without a login", v)
		}
	}
	assertReadOnly(t, rec)
}

// A PASV reply naming another address (192.0.2.1, TEST-NET-1): the data
// connection goes to the control connection's address, never there.
func TestPASVReplyAddressIsIgnored(t *testing.T) {
	t.Parallel()
	port, rec := startFTP(t, serverOpts{anonymous: true, publicIP: "192.0.2.1", noEPSV: true})
	env := siteEnv(t)
	// A policy without private networks would refuse 127.0.0.1 as well;
	// the proof is that the listing succeeded through the control's
	// address while the reply named 192.0.2.1 (which nothing answers).
	res := runAudit(t, env, port)
	anon := scantest.ByCheck(res.Findings, checks.FTPAnonymousLogin)
	if anon == nil {
		t.Fatalf("no anonymous finding: %+v", res.Findings)
	}
	if !strings.Contains(anon.Evidence, "/customers.csv") {
		t.Errorf("the listing did not come through: %s", anon.Evidence)
	}
	if !strings.Contains(anon.Evidence, "a PASV reply named 192.0.2.1, ignored") {
		t.Errorf("the ignored PASV address is not noted: %s", anon.Evidence)
	}
	verbs := rec.verbs()
	if !slices.Contains(verbs, "PASV") {
		t.Errorf("PASV was not used: %v", verbs)
	}
	assertReadOnly(t, rec)
}

// The PASV and EPSV parsers: only the port of a reply is used.
func TestPassivePortParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply string
		port  int
	}{
		{"227 Entering Passive Mode (10,0,0,1,195,80).", 195<<8 | 80},
		{"227 Entering Passive Mode (169,254,169,254,0,80)", 80},
		{"227 =127,0,0,1,4,1", 1025},
	} {
		if _, port, err := parsePASV(tc.reply); err != nil || port != tc.port {
			t.Errorf("%q: port %d, %v; want %d", tc.reply, port, err, tc.port)
		}
	}
	if m := epsvReply.FindStringSubmatch("229 Entering Extended Passive Mode (|||6446|)"); m == nil || m[4] != "6446" {
		t.Errorf("EPSV reply not parsed: %v", m)
	}
}

// With explicit FTPS configured, AUTH TLS is accepted: no ftp.no-tls.
func TestFTPWithAuthTLS(t *testing.T) {
	t.Parallel()
	port, rec := startFTP(t, serverOpts{tls: true})
	res := runAudit(t, siteEnv(t), port)
	if f := scantest.ByCheck(res.Findings, checks.FTPNoTLS); f != nil {
		t.Errorf("ftp.no-tls on a server that offers AUTH TLS: %+v", f)
	}
	if !strings.Contains(res.Outcome, "AUTH TLS offered") {
		t.Errorf("outcome: %s", res.Outcome)
	}
	assertReadOnly(t, rec)
}

func TestParseListLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		name string
		dir  bool
		ok   bool
	}{
		{"drwxr-xr-x    2 0        0            4096 Jan 01 10:00 backup", "backup", true, true},
		{"-rw-r--r--    1 ftp      ftp           123 Mar  3  2020 customer list.csv", "customer list.csv", false, true},
		{"lrwxrwxrwx    1 0        0               7 Jan 01 10:00 latest -> rel-1.2", "latest", false, true},
		{"01-15-24  10:30AM       <DIR>          Backups", "Backups", true, true},
		{"01-15-24  10:30AM                 1234 dump.sql", "dump.sql", false, true},
		{"total 12", "", false, false},
		{"drwxr-xr-x 2 0 0 4096 Jan 01 10:00 ..", "", false, false},
	} {
		name, dir, ok := parseListLine(tc.line)
		if name != tc.name || dir != tc.dir || ok != tc.ok {
			t.Errorf("%q: (%q, %v, %v), want (%q, %v, %v)", tc.line, name, dir, ok, tc.name, tc.dir, tc.ok)
		}
	}
}

func TestSensitiveNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"customers.csv": true, "backup": true, "db.sql": true, "dump.tar.gz": true, ".env": true, "id_rsa": true,
		"server.key": true, "cert.pem": true, "passwd": true, "shadow": true, "prod.env": true,
		"readme.txt": false, "index.html": false, "Thumbs.db": false, "release-1.0.tgz": false, "pub": false, "logo.png": false,
	} {
		if got := sensitiveReason(name) != ""; got != want {
			t.Errorf("%s: sensitive %v, want %v", name, got, want)
		}
	}
}

func TestRefusesOutOfScope(t *testing.T) {
	t.Parallel()
	env := siteEnv(t)
	for _, in := range []string{`{"host":"evil.example","port":21}`, `{"port":0}`, `{"port":21,"x":1}`} {
		if _, err := New().Run(context.Background(), env, json.RawMessage(in)); !tools.IsInputError(err) {
			t.Errorf("%s: err %v, want a refused input", in, err)
		}
	}
}

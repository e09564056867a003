// Package ftpaudit owns the ftp_audit tool: what an FTP server lets anyone
// do. It greets the server, reads FEAT, tries an anonymous login (`USER
// anonymous`, an e-mail address as the password) and, when that succeeds,
// lists the root and the first level of directories (names only, passive
// mode) and reports the names that look sensitive with their paths. It
// notes whether the server offers TLS (`AUTH TLS`, RFC 4217).
//
// It never downloads a file (no RETR), never writes (no STOR, APPE, MKD,
// DELE, RNFR, SITE) and never sends PORT/EPRT (the server never connects
// out). The commands it sends are listed in allowedCommands and a test
// asserts that a real server received nothing else.
//
// Every connection goes through the guarded dialer. The data connection
// goes to the control connection's own address and only uses the port of
// the EPSV/PASV reply: the address a PASV reply names is ignored, since a
// reply pointing elsewhere is the classic FTP bounce (an SSRF through the
// scanner).
package ftpaudit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"time"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name    = "ftp_audit"
	cost    = 2
	timeout = 15 * time.Second

	// MaxEntries bounds the names read over all listings, MaxListingBytes
	// the bytes read over all data connections.
	MaxEntries      = 200
	MaxListingBytes = 64 << 10
	// maxDirs bounds the first-level directories listed.
	maxDirs = 16
	// maxReplyBytes bounds one control reply (multi-line FEAT included).
	maxReplyBytes = 8 << 10
	// dataTimeout bounds one listing.
	dataTimeout = 4 * time.Second
	// AnonymousPassword is the e-mail-like placeholder sent as the
	// anonymous password (RFC 1635), in a reserved domain (RFC 2606).
	AnonymousPassword = "secscan@example.com"
)

// Tool is the ftp_audit tool.
type Tool struct{ tooldef.Base }

// New returns the ftp_audit tool.
func New() tools.Tool { return &Tool{tooldef.New(Name, cost, timeout)} }

// Description implements tools.Tool.
func (*Tool) Description() string {
	return "Audits an FTP service (a port port_scan identified as FTP, or port 21): tries an anonymous login " +
		"(USER anonymous), and when it succeeds lists the root and first-level directories (names only, at most " +
		"200 entries and 64 KiB, passive mode to the same address) and reports names that look sensitive " +
		"(customer data, dumps, backups, .env, keys) with their paths; notes whether AUTH TLS is offered. " +
		"Never downloads or writes a file."
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["port"],
  "properties": {
    "host": {"type": "string", "description": "an in-scope host name; default: the scan's domain"},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "the FTP control port"}
  }
}`)
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{checks.FTPAnonymousLogin, checks.FTPAnonymousSensitiveFile, checks.FTPNoTLS}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	return t.RunOnHostPort(ctx, env, raw, 0, func(ctx context.Context, host string, port int) (tools.Result, error) {
		a := &audit{env: env, host: host, port: port}
		if err := a.run(ctx); err != nil {
			return tools.Result{}, err
		}
		return a.result(), nil
	})
}

// audit is the state of one call.
type audit struct {
	env  tools.Env
	host string
	port int

	greeting   string
	notFTP     bool
	authTLS    string // how TLS support was learned; "" when not offered
	noTLS      string // evidence that TLS is not offered
	anonymous  bool
	loginReply string
	entries    []entry
	listed     []string // directories listed
	truncated  string   // why the listing stopped early
	pasvOther  string   // an address a PASV reply named other than the control's
	bytes      int
	conns      int // TCP connections made
	// log is the control connections' exchange, the findings' proof.
	log transcript
}

type entry struct {
	path string
	dir  bool
}

// shown is the entry's path for evidence, a directory's with a trailing
// slash.
func (e entry) shown() string {
	if e.dir {
		return httpprobe.Clean(e.path+"/", 200)
	}
	return httpprobe.Clean(e.path, 200)
}

func (a *audit) run(ctx context.Context) error {
	c, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	if err := a.greet(c); err != nil || a.notFTP {
		return err
	}
	if err := a.features(c); err != nil {
		return err
	}
	if err := a.anonymousSession(ctx, c); err != nil {
		return err
	}
	_, _, _ = c.cmd("QUIT")
	c.close()
	if a.authTLS == "" {
		a.probeAuthTLS(ctx)
	}
	return nil
}

// greet reads the server's greeting; anything but 220 means the service
// is not FTP.
func (a *audit) greet(c *control) error {
	code, text, err := c.reply()
	if err != nil {
		return fmt.Errorf("no greeting: %w", err)
	}
	a.greeting = httpprobe.Clean(text, 160)
	a.notFTP = code != 220
	return nil
}

// anonymousSession tries the anonymous login and, when it is accepted,
// lists what it can see.
func (a *audit) anonymousSession(ctx context.Context, c *control) error {
	code, err := a.loginAnonymous(c)
	if err != nil {
		return err
	}
	if code == 230 {
		a.anonymous = true
		a.list(ctx, c)
	}
	return nil
}

// features reads FEAT (RFC 2389): AUTH TLS listed there means explicit
// FTPS. Only a failed exchange is an error.
func (a *audit) features(c *control) error {
	code, text, err := c.cmd("FEAT")
	if err != nil {
		return err
	}
	if code != 211 {
		return nil
	}
	for line := range strings.SplitSeq(strings.ToUpper(text), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "AUTH" && strings.Contains(line, "TLS") {
			a.authTLS = "FEAT lists " + httpprobe.Clean(strings.TrimSpace(line), 60)
		}
	}
	return nil
}

// loginAnonymous tries USER anonymous (and PASS with an e-mail address
// when asked) and records the replies; code is the last reply's.
func (a *audit) loginAnonymous(c *control) (code int, err error) {
	code, text, err := c.cmd("USER anonymous")
	if err != nil {
		return 0, err
	}
	say := fmt.Sprintf("USER anonymous → %d", code)
	if code == 331 {
		code, text, err = c.cmd("PASS " + AnonymousPassword)
		if err != nil {
			return 0, err
		}
		say += fmt.Sprintf(", PASS <e-mail address> → %d", code)
	}
	a.loginReply = say + " " + httpprobe.Clean(firstLine(text), 80)
	return code, nil
}

// probeAuthTLS asks for AUTH TLS on a fresh control connection (RFC 4217
// wants it before USER; some servers offer it without listing it in FEAT)
// and closes the connection whatever the answer: no handshake, no login.
func (a *audit) probeAuthTLS(ctx context.Context) {
	c, err := a.dial(ctx)
	if err != nil {
		return
	}
	defer c.close()
	if code, _, err := c.reply(); err != nil || code != 220 {
		return
	}
	code, text, err := c.cmd("AUTH TLS")
	switch {
	case err != nil:
		return
	case code == 234:
		a.authTLS = "AUTH TLS → 234"
	default:
		a.noTLS = fmt.Sprintf("FEAT does not list AUTH TLS; AUTH TLS → %d %s", code, httpprobe.Clean(firstLine(text), 80))
	}
}

// list reads the root and its first-level directories: LIST (parsed to
// names and directory flags), NLST when LIST is refused or unreadable.
func (a *audit) list(ctx context.Context, c *control) {
	_, _, _ = c.cmd("TYPE A")
	root, ok := a.listDir(ctx, c, "/")
	if !ok {
		return
	}
	a.listed = append(a.listed, "/")
	if !a.addAll(root) {
		return
	}
	for _, e := range root {
		if e.dir && !a.listSubdir(ctx, c, e.path) {
			return
		}
	}
}

// listSubdir lists one first-level directory, dir; false when the listing
// must stop (a bound reached, the call's time up).
func (a *audit) listSubdir(ctx context.Context, c *control, dir string) bool {
	if len(a.listed) > maxDirs {
		a.stop(fmt.Sprintf("%d directories listed", maxDirs))
		return false
	}
	if ctx.Err() != nil || a.truncated != "" {
		return false
	}
	sub, ok := a.listDir(ctx, c, dir)
	if !ok {
		return true
	}
	a.listed = append(a.listed, dir)
	return a.addAll(sub)
}

// addAll adds the entries while they fit; false when one did not.
func (a *audit) addAll(entries []entry) bool {
	for _, e := range entries {
		if !a.add(e) {
			return false
		}
	}
	return true
}

func (a *audit) add(e entry) bool {
	if len(a.entries) >= MaxEntries {
		a.stop(fmt.Sprintf("%d entries read", MaxEntries))
		return false
	}
	a.entries = append(a.entries, e)
	return true
}

func (a *audit) stop(why string) {
	if a.truncated == "" {
		a.truncated = why
	}
}

// listDir lists dir: LIST first (the directory flags tell which entries to
// descend into), NLST when LIST gives nothing readable.
func (a *audit) listDir(ctx context.Context, c *control, dir string) ([]entry, bool) {
	arg := dir
	if dir == "/" {
		arg = ""
	}
	lines, ok := a.transfer(ctx, c, strings.TrimSpace("LIST "+arg))
	if ok {
		if out := longEntries(dir, lines); len(out) > 0 || len(lines) == 0 {
			return out, true
		}
	}
	lines, ok = a.transfer(ctx, c, strings.TrimSpace("NLST "+arg))
	if !ok {
		return nil, false
	}
	return nameEntries(dir, lines), true
}

// nameEntries are the entries of dir that the lines of an NLST answer
// name (no directory flags).
func nameEntries(dir string, lines []string) []entry {
	var out []entry
	for _, l := range lines {
		if name := path.Base(strings.TrimSpace(l)); listedName(name) {
			out = append(out, entry{path: path.Join(dir, name)})
		}
	}
	return out
}

// longEntries are the entries of dir that the lines of a LIST answer name.
func longEntries(dir string, lines []string) []entry {
	var out []entry
	for _, l := range lines {
		if name, isDir, ok := parseListLine(l); ok {
			out = append(out, entry{path: path.Join(dir, name), dir: isDir})
		}
	}
	return out
}

// listedName reports whether a base name from a listing is an entry: not
// empty, the directory itself, its parent or the root.
func listedName(name string) bool {
	return name != "." && name != ".." && name != "/" && name != ""
}

// transfer runs one listing command over a passive data connection to the
// control connection's own address and returns its lines, bounded by the
// remaining byte budget and dataTimeout.
func (a *audit) transfer(ctx context.Context, c *control, command string) ([]string, bool) {
	if a.bytes >= MaxListingBytes {
		a.stop(fmt.Sprintf("%d KiB read", MaxListingBytes>>10))
		return nil, false
	}
	port, err := a.passivePort(c)
	if err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, dataTimeout)
	defer cancel()
	// The data connection: the control connection's address, the reply's
	// port, through the guarded dialer.
	data, err := a.env.Dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(c.addr, uint16(port)).String())
	if err != nil {
		return nil, false
	}
	a.conns++
	defer data.Close()
	defer netguard.Bind(ctx, data)()
	code, _, err := c.cmd(command)
	if err != nil || (code != 125 && code != 150) {
		return nil, false
	}
	body := a.readListing(data)
	data.Close()
	// The transfer's completion (226), or an error: either way the control
	// connection is in step again.
	_, _, _ = c.reply()
	return nonBlankLines(body), true
}

// nonBlankLines are the lines of a listing that are not blank, without
// their line ends.
func nonBlankLines(body []byte) []string {
	var lines []string
	for l := range strings.SplitSeq(string(body), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// readListing reads a listing from data, within what is left of the byte
// budget.
func (a *audit) readListing(data io.Reader) []byte {
	budget := MaxListingBytes - a.bytes
	body, _ := io.ReadAll(io.LimitReader(data, int64(budget)+1))
	if len(body) > budget {
		body = body[:budget]
		a.stop(fmt.Sprintf("%d KiB read", MaxListingBytes>>10))
	}
	a.bytes += len(body)
	return body
}

var (
	epsvReply = lazyre.New(`\(([!-~])([!-~])([!-~])([0-9]{1,5})([!-~])\)`)
	pasvReply = lazyre.New(`([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3})`)
)

// passivePort asks for passive mode, EPSV first (RFC 2428, port only),
// then PASV, of which only the port is used: the address a PASV reply
// names is never dialled.
func (a *audit) passivePort(c *control) (int, error) {
	if !c.noEPSV {
		p, err := epsvPort(c)
		if err != nil || p > 0 {
			return p, err
		}
		c.noEPSV = true
	}
	return a.pasvPort(c)
}

// pasvPort asks for passive mode with PASV and returns the port its reply
// names; the address is only noted.
func (a *audit) pasvPort(c *control) (int, error) {
	code, text, err := c.cmd("PASV")
	if err != nil {
		return 0, err
	}
	if code != 227 {
		return 0, fmt.Errorf("PASV → %d", code)
	}
	named, p, err := parsePASV(text)
	if err != nil {
		return 0, err
	}
	a.notePASVAddress(named, c.addr)
	if p == 0 {
		return 0, errors.New("PASV reply names port 0")
	}
	return p, nil
}

// notePASVAddress keeps the first address a PASV reply named other than
// the control connection's, control (it is never dialled).
func (a *audit) notePASVAddress(named, control netip.Addr) {
	if named != control.Unmap() && a.pasvOther == "" {
		a.pasvOther = named.String()
	}
}

// parsePASV reads the address and port (maybe 0) a 227 reply's text
// names.
func parsePASV(text string) (netip.Addr, int, error) {
	m := pasvReply.FindStringSubmatch(text)
	if m == nil {
		return netip.Addr{}, 0, errors.New("PASV → 227")
	}
	var n [6]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
		if n[i] > 255 {
			return netip.Addr{}, 0, fmt.Errorf("PASV reply %q", m[0])
		}
	}
	return netip.AddrFrom4([4]byte{byte(n[0]), byte(n[1]), byte(n[2]), byte(n[3])}), n[4]<<8 | n[5], nil
}

// epsvPort asks for extended passive mode: the port, 0 when the server
// does not answer with one.
func epsvPort(c *control) (int, error) {
	code, text, err := c.cmd("EPSV")
	if err != nil || code != 229 {
		return 0, err
	}
	if m := epsvReply.FindStringSubmatch(text); m != nil {
		if p, err := strconv.Atoi(m[4]); err == nil && p > 0 && p < 65536 {
			return p, nil
		}
	}
	return 0, nil
}

// parseListLine reads a name (and whether it is a directory) from one line
// of a LIST answer in the Unix `ls -l` or the MS-DOS/IIS format.
func parseListLine(line string) (name string, dir, ok bool) {
	f := strings.Fields(line)
	switch {
	case len(f) >= 9 && len(f[0]) >= 10 && strings.ContainsRune("-dlbcps", rune(f[0][0])):
		name, dir = unixListName(line, f[0][0])
	case len(f) >= 4 && isDOSDate(f[0]):
		name, dir = afterFields(line, 3), strings.EqualFold(f[2], "<DIR>")
	default:
		return "", false, false
	}
	name = path.Base(name)
	if !listedName(name) {
		return "", false, false
	}
	return name, dir, true
}

// unixListName reads the name of an `ls -l` line whose mode starts with
// kind (a link's name without its target), and whether it is a directory.
func unixListName(line string, kind byte) (string, bool) {
	name := afterFields(line, 8)
	if kind == 'l' {
		name, _, _ = strings.Cut(name, " -> ")
	}
	return name, kind == 'd'
}

var dosDate = lazyre.New(`^[0-9]{2}-[0-9]{2}-[0-9]{2,4}$`)

func isDOSDate(s string) bool { return dosDate.MatchString(s) }

// afterFields returns what follows the first n whitespace-separated fields
// of line (a name may contain spaces).
func afterFields(line string, n int) string {
	s := strings.TrimLeft(line, " \t")
	for range n {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i:], " \t")
	}
	return s
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// sensitive are the name patterns that look like data nobody meant to
// publish, with the reason shown in the evidence. Matched on the lowercase
// base name.
var sensitive = []struct {
	re     *lazyre.Regexp
	reason string
}{
	{lazyre.New(`customer|client|kunden|users?[._-]|accounts?[._-]|payroll|invoice`), "customer or personal data"},
	{lazyre.New(`backup|\.bak$|\.old$|~$|^bak$`), "backup"},
	{lazyre.New(`dump|\.sql(\.gz|\.bz2|\.xz|\.zip)?$|\.sqlite3?$|\.db$|\.mdb$`), "database dump"},
	{lazyre.New(`\.csv$|\.xlsx?$`), "spreadsheet export"},
	{lazyre.New(`^\.env(\..+)?$|\.env$`), "environment file (credentials)"},
	{lazyre.New(`^id_(rsa|dsa|ecdsa|ed25519)$|\.pem$|\.key$|\.p12$|\.pfx$|\.jks$|\.kdbx$|^\.ssh$|authorized_keys|\.ppk$`), "private key or key store"},
	{lazyre.New(`^passwd$|^shadow$|^\.htpasswd$|passwords?|credentials?|secrets?`), "password or credential file"},
}

// maxHitsShown bounds the sensitive paths an evidence lists.
const maxHitsShown = 40

// sensitiveReason is why name looks sensitive, "" when it does not.
func sensitiveReason(name string) string {
	name = strings.ToLower(path.Base(name))
	if name == "thumbs.db" { // Windows' thumbnail cache
		return ""
	}
	for _, s := range sensitive {
		if s.re.MatchString(name) {
			return s.reason
		}
	}
	return ""
}

func (a *audit) result() (res tools.Result) {
	port := a.port
	where := fmt.Sprintf("%s:%d", a.host, a.port)
	defer func() {
		p := a.log.proof()
		for i := range res.Findings {
			res.Findings[i].Confidence = scans.Certain // observed on the wire
			res.Findings[i].Proof = p
		}
	}()
	if a.notFTP {
		return tools.Result{Outcome: fmt.Sprintf("%s is not FTP: it greeted %q", where, a.greeting)}
	}
	tls := a.tlsSupport()
	if a.authTLS == "" && a.noTLS != "" {
		res.Findings = append(res.Findings, checks.FTPNoTLS.Finding(a.host, &port,
			fmt.Sprintf("%s greeted %q; %s", where, a.greeting, a.noTLS)))
	}
	res.Outcome = fmt.Sprintf("%s: %s", where, a.loginReply)
	if !a.anonymous {
		res.Outcome += fmt.Sprintf("; anonymous login refused; %s; %d TCP connections", tls, a.conns)
		return res
	}
	listing := a.listing()
	res.Findings = append(res.Findings, checks.FTPAnonymousLogin.Finding(a.host, &port,
		fmt.Sprintf("%s greeted %q; %s; %s; %s", where, a.greeting, a.loginReply, listing, tls)))
	hits := a.sensitiveNames()
	if len(hits) > 0 {
		f := checks.FTPAnonymousSensitiveFile.Finding(a.host, &port,
			fmt.Sprintf("anonymous FTP on %s lists %d sensitive-looking names (not downloaded): %s", where, len(hits), firstOf(hits, maxHitsShown)))
		res.Findings = append(res.Findings, f)
	}
	res.Outcome += fmt.Sprintf("; anonymous login accepted; %s; %d sensitive-looking names; %s; %d TCP connections", listing, len(hits), tls, a.conns)
	return res
}

// tlsSupport says what is known of AUTH TLS: offered (and how that was
// learned), not offered, or unknown.
func (a *audit) tlsSupport() string {
	switch {
	case a.authTLS != "":
		return "AUTH TLS offered (" + a.authTLS + ")"
	case a.noTLS != "":
		return "AUTH TLS not offered"
	}
	return "AUTH TLS support unknown"
}

// firstOf joins the first n items, with how many more there are.
func firstOf(items []string, n int) string {
	s := strings.Join(items[:min(len(items), n)], ", ")
	if len(items) > n {
		s += fmt.Sprintf(" and %d more", len(items)-n)
	}
	return s
}

// listing describes what the anonymous listing read: how many entries in
// how many directories, the first 20 names, and where it stopped.
func (a *audit) listing() string {
	listing := fmt.Sprintf("%d entries in %d directories read (names only, nothing downloaded)", len(a.entries), len(a.listed))
	if len(a.entries) > 0 {
		var names []string
		for _, e := range a.entries {
			names = append(names, e.shown())
		}
		listing += ": " + firstOf(names, 20)
	}
	if a.truncated != "" {
		listing += "; listing stopped at " + a.truncated
	}
	if a.pasvOther != "" {
		listing += fmt.Sprintf("; a PASV reply named %s, ignored: data connections went to the control connection's address", a.pasvOther)
	}
	return listing
}

// sensitiveNames are the listed names that look sensitive, with why.
func (a *audit) sensitiveNames() []string {
	var hits []string
	for _, e := range a.entries {
		if r := sensitiveReason(e.path); r != "" {
			hits = append(hits, fmt.Sprintf("%s (%s)", e.shown(), r))
		}
	}
	return hits
}

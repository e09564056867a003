package network

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"secscan/shared/lazyre"
	"secscan/shared/safetext"
)

// wellKnownPorts names the service usually listening on a port. It decides
// the probe sent to services that wait for the client, and names services
// that say nothing (then the finding says it was identified by port only).
var wellKnownPorts = map[int]string{
	21: "ftp", 22: "ssh", 23: "telnet", 25: "smtp", 53: "domain",
	80: "http", 81: "http", 110: "pop3", 111: "rpcbind", 135: "msrpc",
	139: "netbios-ssn", 143: "imap", 443: "https", 445: "smb", 465: "smtps",
	587: "submission", 636: "ldaps", 993: "imaps", 995: "pop3s",
	1433: "mssql", 1521: "oracle-tns", 2375: "docker", 2376: "docker-tls",
	3000: "http", 3306: "mysql", 3389: "rdp", 5432: "postgresql",
	5900: "vnc", 5901: "vnc", 5902: "vnc", 5903: "vnc",
	6379: "redis", 8000: "http", 8008: "http", 8080: "http", 8081: "http",
	8443: "https", 8888: "http", 9200: "elasticsearch", 11211: "memcached",
	27017: "mongodb",
	// Admin and cluster APIs served over HTTP(S) (http_fingerprint names
	// the product): etcd, the Kubernetes API server and kubelet, CouchDB,
	// Solr, RabbitMQ management.
	2379: "http", 5984: "http", 6443: "https", 8983: "http", 10250: "https", 15672: "http",
}

// tlsWrapped are services that speak TLS first: a plaintext probe only
// earns an error page, so they are named by port and left to tls_check.
var tlsWrapped = map[string]bool{
	"https": true, "smtps": true, "ldaps": true, "imaps": true, "pop3s": true, "docker-tls": true,
}

// probeFor returns the bytes sent first to a service that waits for the
// client, or nil to just listen. Every probe is read-only: a HEAD or GET of
// "/", Redis PING, memcached "version", PostgreSQL's SSLRequest.
func probeFor(hint, host string) []byte {
	switch hint {
	case "http", "docker":
		return httpRequest("HEAD", host)
	case "elasticsearch":
		// GET, not HEAD: the body names the product on versions that do
		// not send X-Elastic-Product.
		return httpRequest("GET", host)
	case "redis":
		return []byte("PING\r\n")
	case "memcached":
		return []byte("version\r\n")
	case "postgresql":
		// SSLRequest: length 8, code 80877103. The server answers with one
		// byte, S or N, before any authentication.
		return []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}
	}
	return nil
}

func httpRequest(method, host string) []byte {
	return fmt.Appendf(nil, "%s / HTTP/1.0\r\nHost: %s\r\nAccept: */*\r\n\r\n", method, host)
}

// grab reads what the service on conn says (after a probe, for services
// that wait for the client) and identifies it. No read outlives deadline.
func (s *Scanner) grab(conn net.Conn, host string, port int, deadline time.Time) observation {
	hint := s.hints[port]
	if tlsWrapped[hint] {
		return observation{Name: hint, ByPort: true}
	}
	sent := probeFor(hint, host)
	raw := s.exchange(conn, sent, s.bannerTimeout, deadline)
	if len(raw) == 0 && hint == "" {
		// A silent service on a port we know nothing about: HTTP servers
		// are the most common such service, so ask like a browser would.
		sent = httpRequest("HEAD", host)
		raw = s.exchange(conn, sent, s.bannerTimeout/2, deadline)
	}
	obs := identify(hint, raw)
	obs.Sent, obs.Received, obs.At = sent, raw, time.Now()
	return obs
}

// exchange sends probe (if any) and reads at most maxBannerBytes for at most
// wait, and at most bannerTail once the first bytes arrived.
func (s *Scanner) exchange(conn net.Conn, probe []byte, wait time.Duration, deadline time.Time) []byte {
	end := time.Now().Add(wait)
	if end.After(deadline) {
		end = deadline
	}
	if err := conn.SetDeadline(end); err != nil {
		return nil
	}
	if len(probe) > 0 {
		if _, err := conn.Write(probe); err != nil {
			return nil
		}
	}
	return readBanner(conn, end)
}

// readBanner reads at most maxBannerBytes from conn, whose deadline is end,
// and at most bannerTail once the first bytes arrived.
func readBanner(conn net.Conn, end time.Time) []byte {
	buf := make([]byte, maxBannerBytes)
	n := 0
	for n < len(buf) {
		m, err := conn.Read(buf[n:])
		if m > 0 && n == 0 {
			if tail := time.Now().Add(bannerTail); tail.Before(end) {
				_ = conn.SetReadDeadline(tail)
			}
		}
		n += m
		if err != nil { // EOF, the deadline, a reset: what we have is the banner
			break
		}
	}
	return buf[:n]
}

// observation is what one open port told us.
type observation struct {
	// Name is the service, e.g. "ssh", "mysql", or "unknown".
	Name string
	// Product and Version are the software the banner announces, when it
	// does, e.g. "OpenSSH" and "7.4p1".
	Product, Version string
	// Banner is what the service said, sanitised and truncated; for
	// binary greetings a readable summary.
	Banner string
	// ByPort is true when nothing the service said identified it: Name
	// comes from the port number alone.
	ByPort bool
	// NoAuth is true when the service answered a command that only an
	// unauthenticated service answers (Redis PING, memcached version, an
	// Elasticsearch or Docker API request); Answer says what it answered.
	NoAuth bool
	Answer string
	// Sent and Received are the raw exchange (nil Sent: the tool only
	// listened), At when it ended: the proof of the port's findings.
	Sent, Received []byte
	At             time.Time
}

// identify names the service from what it said, falling back on the port.
func identify(hint string, raw []byte) observation {
	text := string(raw)
	switch {
	case len(raw) == 0:
		return silentService(hint)
	case strings.HasPrefix(text, "SSH-"):
		return identifySSH(text)
	case strings.HasPrefix(text, "HTTP/"):
		return identifyHTTP(text)
	}
	if obs, ok := identifyMySQL(raw); ok {
		return obs
	}
	return identifyGreeting(hint, raw)
}

// silentService names a service that said nothing by its port's hint.
func silentService(hint string) observation {
	if hint == "" {
		return observation{Name: "unknown"}
	}
	return observation{Name: hint, ByPort: true}
}

// identifyGreeting recognises the other services that speak first by
// their greeting, raw (not empty), falling back on the port's hint.
func identifyGreeting(hint string, raw []byte) observation {
	text := string(raw)
	banner := safetext.Line(text, maxBannerShown)
	obs := observation{Name: hint, Banner: banner}
	if obs.Name == "" {
		obs.Name = "unknown"
	}
	g := greeting{text: text, raw: raw, hint: hint}
	for _, recognise := range greetings {
		if recognise(g, &obs) {
			return obs
		}
	}
	obs.ByPort = hint != ""
	return obs
}

// greeting is what a service said first (never empty), with the service
// its port is registered for ("" when none).
type greeting struct {
	text string
	raw  []byte
	hint string
}

// greetings recognise services by their greeting, in order; each sets
// what it learns on obs and reports whether it recognised the service.
var greetings = []func(g greeting, obs *observation) bool{
	redisGreeting, memcachedGreeting, textGreeting, telnetGreeting, postgresGreeting,
}

func redisGreeting(g greeting, obs *observation) bool {
	switch {
	case strings.HasPrefix(g.text, "+PONG"):
		obs.Name, obs.NoAuth, obs.Answer = "redis", true, "answered PING with +PONG without authentication"
	case strings.HasPrefix(g.text, "-NOAUTH"), strings.HasPrefix(g.text, "-DENIED"), strings.HasPrefix(g.text, "-ERR") && g.hint == "redis":
		obs.Name = "redis"
	default:
		return false
	}
	return true
}

func memcachedGreeting(g greeting, obs *observation) bool {
	if !strings.HasPrefix(g.text, "VERSION ") || (g.hint != "memcached" && g.hint != "") {
		return false
	}
	obs.Name, obs.Product, obs.Version = "memcached", "memcached", firstField(g.text[len("VERSION "):])
	obs.NoAuth, obs.Answer = true, "answered the version command without authentication"
	return true
}

// textGreeting: FTP and SMTP (220), POP3, IMAP and VNC.
func textGreeting(g greeting, obs *observation) bool {
	switch {
	case strings.HasPrefix(g.text, "220"):
		identify220(g.text, g.hint, obs)
	case strings.HasPrefix(g.text, "+OK"):
		obs.Name = "pop3"
	case strings.HasPrefix(g.text, "* OK"):
		obs.Name = "imap"
	case strings.HasPrefix(g.text, "RFB "):
		obs.Name, obs.Product, obs.Version = "vnc", "RFB", strings.TrimSpace(g.text[len("RFB "):min(len(g.text), 11)])
	default:
		return false
	}
	return true
}

// telnetGreeting: IAC WILL/WONT/DO/DONT, Telnet option negotiation.
func telnetGreeting(g greeting, obs *observation) bool {
	raw := g.raw
	if len(raw) < 2 || raw[0] != 0xff || raw[1] < 0xfb || raw[1] > 0xfe {
		return false
	}
	obs.Name = "telnet"
	obs.Banner = telnetText(raw)
	return true
}

// postgresGreeting: on the PostgreSQL port, an SSLRequest answer or a
// fatal error.
func postgresGreeting(g greeting, obs *observation) bool {
	switch {
	case g.hint != "postgresql":
		return false
	case g.text == "S" || g.text == "N":
		obs.Name = "postgresql"
		obs.Banner = fmt.Sprintf("PostgreSQL SSLRequest answer %q", g.text)
	case g.raw[0] == 'E' && strings.Contains(g.text, "SFATAL"):
		obs.Name = "postgresql"
	default:
		return false
	}
	return true
}

var sshSoftware = lazyre.New(`^SSH-[0-9.]+-([A-Za-z][A-Za-z-]*)[_-]([0-9][0-9A-Za-z.]*)`)

func identifySSH(text string) observation {
	line, _, _ := strings.Cut(text, "\n")
	obs := observation{Name: "ssh", Banner: safetext.Line(line, maxBannerShown)}
	if m := sshSoftware.FindStringSubmatch(line); m != nil {
		obs.Product, obs.Version = m[1], m[2]
	}
	return obs
}

var (
	ftpProducts = []*lazyre.Regexp{
		lazyre.New(`(vsFTPd) ([0-9][0-9.]*[0-9])`),
		lazyre.New(`(ProFTPD) ([0-9][0-9.a-z]*)`),
		lazyre.New(`(FileZilla Server) (?:version )?([0-9][0-9.a-z]*)`),
		lazyre.New(`(Pure-FTPd)`),
	}
	smtpProducts = []*lazyre.Regexp{
		lazyre.New(`(Exim) ([0-9][0-9.]*[0-9])`),
		lazyre.New(`(Postfix)`),
		lazyre.New(`(Sendmail) ([0-9][0-9.]*[0-9])`),
		lazyre.New(`(Microsoft ESMTP MAIL Service)`),
	}
)

// identify220 tells FTP from SMTP: both greet with "220".
func identify220(text, hint string, obs *observation) {
	upper := strings.ToUpper(text)
	switch {
	case strings.Contains(upper, "FTP"):
		obs.Name = "ftp"
		setProduct(obs, text, ftpProducts)
	case strings.Contains(upper, "SMTP") || strings.Contains(upper, "MAIL"):
		obs.Name = "smtp"
		setProduct(obs, text, smtpProducts)
	case hint == "ftp" || hint == "smtp" || hint == "submission":
		obs.Name = hint
	case hint == "":
		// A bare 220 greeting on a port of no registered service: FTP
		// servers with a custom banner greet like this (mail servers name
		// SMTP or mail); ftp_audit confirms it with the protocol.
		obs.Name = "ftp"
	}
}

func setProduct(obs *observation, text string, patterns []*lazyre.Regexp) {
	for _, re := range patterns {
		if m := re.FindStringSubmatch(text); m != nil {
			obs.Product = m[1]
			if len(m) > 2 {
				obs.Version = m[2]
			}
			return
		}
	}
}

// identifyHTTP reads the status line and headers of a (possibly truncated)
// HTTP response.
func identifyHTTP(text string) observation {
	r := parseHTTPResponse(text)
	obs := observation{Name: "http"}
	shown := r.status
	if server := r.headers["server"]; server != "" {
		shown += " | Server: " + server
		obs.Product, obs.Version, _ = strings.Cut(firstField(server), "/")
	}
	switch {
	case r.isDocker():
		shown += dockerAPI(r, &obs)
	case r.isElasticsearch():
		shown += elasticsearchAPI(r, &obs)
	}
	obs.Banner = safetext.Line(shown, maxBannerShown)
	return obs
}

// httpResponse is the head of an HTTP response as a banner shows it:
// headers keyed by lower-case name, and what the body starts with.
type httpResponse struct {
	status, code, body string
	headers            map[string]string
}

func parseHTTPResponse(text string) httpResponse {
	head, body, _ := strings.Cut(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n")
	lines := strings.Split(head, "\n")
	r := httpResponse{status: strings.TrimSpace(lines[0]), body: body, headers: map[string]string{}}
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if ok {
			r.headers[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(value)
		}
	}
	if f := strings.Fields(r.status); len(f) > 1 {
		r.code = f[1]
	}
	return r
}

func (r httpResponse) isDocker() bool {
	return r.headers["api-version"] != "" && strings.Contains(strings.ToLower(r.headers["server"]), "docker")
}

func (r httpResponse) isElasticsearch() bool {
	return strings.EqualFold(r.headers["x-elastic-product"], "Elasticsearch") ||
		strings.Contains(r.body, `"cluster_name"`) || strings.Contains(r.body, "You Know, for Search")
}

// dockerAPI sets on obs what the Docker Engine API's answer tells and
// returns what the banner adds.
func dockerAPI(r httpResponse, obs *observation) string {
	obs.Name = "docker"
	obs.NoAuth, obs.Answer = true, "answered as the Docker Engine API over plain HTTP without authentication ("+r.status+")"
	return " | Api-Version: " + r.headers["api-version"]
}

// elasticsearchAPI sets on obs what Elasticsearch's answer tells and
// returns what the banner adds.
func elasticsearchAPI(r httpResponse, obs *observation) string {
	obs.Name, obs.Product = "elasticsearch", "Elasticsearch"
	shown := ""
	if p := r.headers["x-elastic-product"]; p != "" {
		shown += " | X-Elastic-Product: " + p
	}
	if m := esVersion.FindStringSubmatch(r.body); m != nil {
		obs.Version = m[1]
		shown += " | version " + m[1]
	}
	if r.code == "200" {
		obs.NoAuth, obs.Answer = true, "answered GET / with the cluster information without authentication ("+r.status+")"
	}
	return shown
}

var esVersion = lazyre.New(`"number"\s*:\s*"([0-9][0-9.]*)"`)

// identifyMySQL parses a MySQL/MariaDB initial handshake packet (protocol
// 10) or the error packet a server sends to hosts it does not accept.
func identifyMySQL(raw []byte) (observation, bool) {
	if len(raw) < 6 || raw[3] != 0 {
		return observation{}, false
	}
	length := int(raw[0]) | int(raw[1])<<8 | int(raw[2])<<16
	if length < 2 || length > 4096 {
		return observation{}, false
	}
	switch raw[4] {
	case 0x0a: // protocol version 10, then the server version, NUL-terminated
		return mysqlHandshake(raw[5:])
	case 0xff: // error packet: 2-byte code, then the message
		return mysqlError(string(raw[7:min(len(raw), 4+length)]))
	}
	return observation{}, false
}

// mysqlHandshake reads the server version that starts rest, the handshake
// packet after its protocol version byte.
func mysqlHandshake(rest []byte) (observation, bool) {
	end := bytes.IndexByte(rest, 0)
	if end < 1 {
		return observation{}, false
	}
	version := string(rest[:end])
	if !utf8.ValidString(version) || version[0] < '0' || version[0] > '9' {
		return observation{}, false
	}
	obs := observation{Name: "mysql"}
	obs.Product, obs.Version = mysqlProduct(version)
	obs.Banner = safetext.Line("MySQL protocol 10 greeting, server version "+version, maxBannerShown)
	return obs, true
}

// mysqlProduct reads the product and its version from the server version
// of a handshake: MariaDB announces "5.5.5-<real version>-MariaDB" for old
// clients; MySQL's build suffix ("-log", "-0ubuntu…") is dropped.
func mysqlProduct(version string) (product, v string) {
	if i := strings.Index(version, "-MariaDB"); i >= 0 {
		return "MariaDB", strings.TrimPrefix(version[:i], "5.5.5-")
	}
	v, _, _ = strings.Cut(version, "-")
	return "MySQL", v
}

// mysqlError recognises the message of an error packet as MySQL's.
func mysqlError(msg string) (observation, bool) {
	if !strings.Contains(msg, "MySQL") && !strings.Contains(msg, "MariaDB") {
		return observation{}, false
	}
	return observation{Name: "mysql", Banner: safetext.Line("MySQL error packet: "+msg, maxBannerShown)}, true
}

// telnetText shows a Telnet greeting without its option negotiation bytes.
func telnetText(raw []byte) string {
	text := safetext.Line(string(withoutIAC(raw)), maxBannerShown)
	if text == "" {
		return "Telnet option negotiation (IAC)"
	}
	return "Telnet option negotiation, then: " + text
}

// withoutIAC is raw without its Telnet commands: IAC with an option verb
// (WILL, WONT, DO, DONT) and its option, or IAC and one other byte.
func withoutIAC(raw []byte) []byte {
	var b []byte
	for i := 0; i < len(raw); i++ {
		if raw[i] != 0xff || i+1 == len(raw) {
			b = append(b, raw[i])
			continue
		}
		if raw[i+1] >= 0xfb && raw[i+1] <= 0xfe {
			i += 2 // IAC, verb, option
		} else {
			i++
		}
	}
	return b
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

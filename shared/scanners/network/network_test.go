package network

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const testDomain = "scan.test"

// testEnv returns an Env for scan.test whose names resolve, through a local
// DNS server, to 127.0.0.1.
func testEnv(t testing.TB, allowPrivate bool) tools.Env {
	t.Helper()
	return scantest.Env(t, testDomain, netguard.Policy{AllowPrivate: allowPrivate}, "scan.test. A 127.0.0.1", "ports.scan.test. A 127.0.0.1")
}

// server is a TCP server on 127.0.0.1 that runs handle for each connection
// and counts them.
type server struct {
	port     int
	accepted *atomic.Int64
	received chan []byte // first bytes each connection sent (buffered)
}

func startServer(t testing.TB, handle func(c net.Conn, s *server)) *server {
	t.Helper()
	ln := scantest.LocalListener(t)
	s := &server{port: ln.Addr().(*net.TCPAddr).Port, received: make(chan []byte, 16)}
	s.accepted = scantest.Serve(t, ln, func(c net.Conn) { handle(c, s) })
	return s
}

// greeter sends banner as soon as a client connects, then waits for the
// client to hang up, like SSH, FTP, SMTP and MySQL servers.
func greeter(banner []byte) func(net.Conn, *server) {
	return func(c net.Conn, _ *server) {
		if _, err := c.Write(banner); err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, c)
	}
}

// responder waits for the client's request and answers reply, like HTTP,
// Redis or memcached; it records what it received.
func responder(reply []byte) func(net.Conn, *server) {
	return func(c net.Conn, s *server) {
		buf := make([]byte, 1024)
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		select {
		case s.received <- bytes.Clone(buf[:n]):
		default:
		}
		_, _ = c.Write(reply)
	}
}

// silent accepts and says nothing, answering nothing.
func silent(c net.Conn, _ *server) { _, _ = io.Copy(io.Discard, c) }

func mysqlGreeting(version string) []byte {
	payload := append([]byte{0x0a}, version...)
	payload = append(payload, 0, 1, 0, 0, 0)
	payload = append(payload, "abcdefgh"...)
	payload = append(payload, 0, 0xff, 0xf7, 0x21, 0x02, 0)
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 0}, payload...)
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunFindsPlantedServices runs one scan over banner servers with planted
// exposures and controls, and checks each port's service and findings.
func TestRunFindsPlantedServices(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)

	type want struct {
		severity scans.Severity
		cve      string
	}
	cases := []struct {
		name     string
		hint     string // the service the port stands for (tests use ephemeral ports)
		handle   func(net.Conn, *server)
		service  string
		banner   string // substring of the service's banner
		findings map[string]want
		request  string // prefix of what the server must have received
	}{
		{
			name: "outdated openssh", handle: greeter([]byte("SSH-2.0-OpenSSH_7.4\r\n")),
			service: "ssh", banner: "SSH-2.0-OpenSSH_7.4",
			findings: map[string]want{"Outdated OpenSSH version (before 8.0)": {scans.Medium, ""}},
		},
		{
			name: "current openssh (control)", handle: greeter([]byte("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5\r\n")),
			service: "ssh", banner: "OpenSSH_9.6p1 Ubuntu",
		},
		{
			name: "backdoored vsftpd", handle: greeter([]byte("220 (vsFTPd 2.3.4)\r\n")),
			service: "ftp", banner: "220 (vsFTPd 2.3.4)",
			findings: map[string]want{
				"FTP service exposed (cleartext credentials)": {scans.Medium, ""},
				"vsFTPd 2.3.4 (backdoored release)":           {scans.Critical, "CVE-2011-2523"},
			},
		},
		{
			name: "mysql 5.5", handle: greeter(mysqlGreeting("5.5.62-log")),
			service: "mysql", banner: "server version 5.5.62-log",
			findings: map[string]want{
				"MySQL database exposed to the network": {scans.High, ""},
				"End-of-life MySQL version":             {scans.Medium, ""},
			},
		},
		{
			name: "mariadb 10.3", handle: greeter(mysqlGreeting("5.5.5-10.3.39-MariaDB-log")),
			service: "mysql", banner: "10.3.39-MariaDB",
			findings: map[string]want{
				"MySQL database exposed to the network": {scans.High, ""},
				"End-of-life MariaDB version":           {scans.Medium, ""},
			},
		},
		{
			// A distribution build: the distribution decides the support of
			// the branch it ships, so no upstream end-of-life claim.
			name: "mariadb 10.5 from debian 11", handle: greeter(mysqlGreeting("5.5.5-10.5.23-MariaDB-0+deb11u1")),
			service: "mysql", banner: "10.5.23-MariaDB-0+deb11u1",
			findings: map[string]want{"MySQL database exposed to the network": {scans.High, ""}},
		},
		{
			// OpenSSH 7.4 from a distribution: judged by ssh_audit's
			// algorithms, not by the upstream version.
			name: "openssh 7.4 from debian 9", handle: greeter([]byte("SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u7\r\n")),
			service: "ssh", banner: "SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u7",
		},
		{
			name: "mysql refusing this host", handle: greeter(append([]byte{0x44, 0, 0, 0, 0xff, 0x6a, 0x04},
				"Host '203.0.113.9' is not allowed to connect to this MySQL server"...)),
			service: "mysql", banner: "not allowed to connect",
			findings: map[string]want{"MySQL database exposed to the network": {scans.High, ""}},
		},
		{
			name: "redis without auth", hint: "redis", handle: responder([]byte("+PONG\r\n")),
			service: "redis", banner: "+PONG", request: "PING\r\n",
			findings: map[string]want{"Redis accepts commands without authentication": {scans.Critical, ""}},
		},
		{
			name: "redis with auth", hint: "redis", handle: responder([]byte("-NOAUTH Authentication required.\r\n")),
			service: "redis", banner: "-NOAUTH",
			findings: map[string]want{"Redis exposed to the network": {scans.High, ""}},
		},
		{
			name: "memcached", hint: "memcached", handle: responder([]byte("VERSION 1.6.21\r\n")),
			service: "memcached", banner: "VERSION 1.6.21", request: "version\r\n",
			findings: map[string]want{"Memcached answers without authentication": {scans.High, ""}},
		},
		{
			name: "postgresql", hint: "postgresql", handle: responder([]byte("N")),
			service: "postgresql", banner: "SSLRequest answer", request: "\x00\x00\x00\x08\x04\xd2\x16\x2f",
			findings: map[string]want{"PostgreSQL database exposed to the network": {scans.High, ""}},
		},
		{
			name: "mongodb by port", hint: "mongodb", handle: silent,
			service:  "mongodb",
			findings: map[string]want{"MongoDB database exposed to the network": {scans.High, ""}},
		},
		{
			name: "elasticsearch open", hint: "elasticsearch",
			handle: responder([]byte("HTTP/1.1 200 OK\r\nX-elastic-product: Elasticsearch\r\ncontent-type: application/json\r\n\r\n" +
				`{"name":"node-1","cluster_name":"prod","version":{"number":"7.17.9"},"tagline":"You Know, for Search"}`)),
			service: "elasticsearch", banner: "version 7.17.9", request: "GET / HTTP/1.0",
			findings: map[string]want{"Elasticsearch API answers without authentication": {scans.Critical, ""}},
		},
		{
			name: "docker api", hint: "docker",
			handle:  responder([]byte("HTTP/1.1 404 Not Found\r\nApi-Version: 1.43\r\nServer: Docker/24.0.7 (linux)\r\n\r\n")),
			service: "docker", banner: "Server: Docker/24.0.7", request: "HEAD / HTTP/1.0",
			findings: map[string]want{"Docker Engine API exposed without authentication": {scans.Critical, ""}},
		},
		{
			name: "telnet", handle: greeter([]byte("\xff\xfd\x18\xff\xfd\x20\xff\xfb\x01login: ")),
			service: "telnet", banner: "login:",
			findings: map[string]want{"Telnet service exposed (cleartext remote login)": {scans.High, ""}},
		},
		{
			name: "vnc", handle: greeter([]byte("RFB 003.008\n")),
			service: "vnc", banner: "RFB 003.008",
			findings: map[string]want{"VNC remote desktop exposed to the network": {scans.High, ""}},
		},
		{
			name: "smtp (control)", handle: greeter([]byte("220 mail.scan.test ESMTP Postfix (Debian/GNU)\r\n")),
			service: "smtp", banner: "ESMTP Postfix",
		},
		{
			name: "http on its port (control)", hint: "http",
			handle:  responder([]byte("HTTP/1.0 200 OK\r\nServer: nginx/1.25.3\r\nContent-Type: text/html\r\n\r\n")),
			service: "http", banner: "Server: nginx/1.25.3", request: "HEAD / HTTP/1.0\r\nHost: ports.scan.test\r\n",
		},
		{
			name:    "http on an unknown port (control)",
			handle:  responder([]byte("HTTP/1.1 302 Found\r\nServer: Caddy\r\nLocation: https://scan.test/\r\n\r\n")),
			service: "http", banner: "302 Found | Server: Caddy", request: "HEAD / HTTP/1.0",
		},
		{
			name: "silent unknown port (control)", handle: silent,
			service: "unknown",
		},
	}

	scanner := newScanner()
	scanner.bannerTimeout = 500 * time.Millisecond // silent ports make the scan wait this long
	scanner.hints = map[int]string{}
	servers := make([]*server, len(cases))
	var ports []int
	for i, tc := range cases {
		servers[i] = startServer(t, tc.handle)
		if tc.hint != "" {
			scanner.hints[servers[i].port] = tc.hint
		}
		ports = append(ports, servers[i].port)
	}
	closed := scantest.ClosedPort(t)
	ports = append(ports, closed)

	res, err := scanner.Run(context.Background(), env, mustJSON(t, map[string]any{"host": "ports.scan.test", "ports": ports}))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	scantest.CheckFindings(t, scanner, res.Findings)
	t.Logf("outcome: %s", res.Outcome)
	if want := fmt.Sprintf("%d of %d ports open on ports.scan.test (127.0.0.1)", len(cases), len(ports)); !strings.HasPrefix(res.Outcome, want) {
		t.Errorf("outcome %q does not start with %q", res.Outcome, want)
	}

	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			port := servers[i].port
			idx := slices.IndexFunc(res.Services, func(s scans.Service) bool { return s.Port == port })
			if idx < 0 {
				t.Fatalf("port %d not reported open; services: %+v", port, res.Services)
			}
			svc := res.Services[idx]
			if svc.Name != tc.service || svc.Host != "ports.scan.test" {
				t.Errorf("service = %+v, want name %q on ports.scan.test", svc, tc.service)
			}
			if !strings.Contains(svc.Banner, tc.banner) {
				t.Errorf("banner = %q, want it to contain %q", svc.Banner, tc.banner)
			}
			if tc.request != "" {
				select {
				case got := <-servers[i].received:
					if !strings.HasPrefix(string(got), tc.request) {
						t.Errorf("server received %q, want a request starting %q", got, tc.request)
					}
				default:
					t.Errorf("server received no request, want one starting %q", tc.request)
				}
			}

			got := map[string]scans.Finding{}
			for _, f := range res.Findings {
				if f.Port != nil && *f.Port == port {
					got[f.Title] = f
					t.Logf("%s [%s]: %s", f.Title, f.Severity, f.Evidence)
				}
			}
			for title, w := range tc.findings {
				f, ok := got[title]
				if !ok {
					t.Errorf("missing finding %q; got %v", title, keys(got))
					continue
				}
				if f.Severity != w.severity {
					t.Errorf("%q severity = %s, want %s", title, f.Severity, w.severity)
				}
				if w.cve != "" && (f.CVE == nil || *f.CVE != w.cve) {
					t.Errorf("%q CVE = %v, want %s", title, f.CVE, w.cve)
				}
				checkFindingShape(t, f, port)
			}
			for title := range got {
				if _, ok := tc.findings[title]; !ok {
					t.Errorf("unexpected finding %q (false positive)", title)
				}
			}
		})
	}
	for _, f := range res.Findings {
		if f.Port != nil && *f.Port == closed {
			t.Errorf("finding on the closed port: %+v", f)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkFindingShape checks what every finding must carry.
func checkFindingShape(t *testing.T, f scans.Finding, port int) {
	t.Helper()
	if f.Category != scans.CategoryNetwork || f.Host != "ports.scan.test" || f.Port == nil || *f.Port != port {
		t.Errorf("finding %q: category %s host %s port %v", f.Title, f.Category, f.Host, f.Port)
	}
	if !strings.Contains(f.Evidence, fmt.Sprintf("ports.scan.test:%d", port)) {
		t.Errorf("finding %q: evidence %q does not name host:port", f.Title, f.Evidence)
	}
	if f.Description == "" || f.Remediation == "" || len(f.References) == 0 {
		t.Errorf("finding %q lacks description, remediation or references", f.Title)
	}
	for _, ref := range f.References {
		if !strings.HasPrefix(ref, "https://") {
			t.Errorf("finding %q: reference %q is not an https URL", f.Title, ref)
		}
	}
	if f.CWE == nil || !strings.HasPrefix(*f.CWE, "CWE-") {
		t.Errorf("finding %q: CWE = %v", f.Title, f.CWE)
	}
	if strings.ContainsAny(f.Evidence, "\r\n\x00\xff") {
		t.Errorf("finding %q: evidence %q contains control characters", f.Title, f.Evidence)
	}
}

// TestRunRefusesBadInput checks that refused inputs return an InputError
// and connect nowhere.
func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	listener := startServer(t, silent)
	p := listener.port
	thousandAndOne := make([]int, 1001)
	for i := range thousandAndOne {
		thousandAndOne[i] = i + 1
	}

	cases := []struct {
		name  string
		input string
	}{
		{"out of scope host", fmt.Sprintf(`{"host": "example.com", "ports": [%d]}`, p)},
		{"look-alike host", fmt.Sprintf(`{"host": "evilscan.test", "ports": [%d]}`, p)},
		{"IP literal", fmt.Sprintf(`{"host": "127.0.0.1", "ports": [%d]}`, p)},
		{"host with port", fmt.Sprintf(`{"host": "scan.test:%d"}`, p)},
		{"URL as host", `{"host": "http://scan.test/"}`},
		{"port zero", `{"ports": [0]}`},
		{"port too high", `{"ports": [65536]}`},
		{"negative port", `{"ports": [-22]}`},
		{"fractional port", `{"ports": [22.5]}`},
		{"empty port list", `{"ports": []}`},
		{"too many ports", string(mustJSON(t, map[string]any{"ports": thousandAndOne}))},
		{"range too big", `{"range": {"from": 1, "to": 4097}}`},
		{"range reversed", `{"range": {"from": 100, "to": 1}}`},
		{"range out of bounds", `{"range": {"from": 65000, "to": 70000}}`},
		{"unknown preset", `{"preset": "all"}`},
		{"two selections", fmt.Sprintf(`{"ports": [%d], "preset": "top100"}`, p)},
		{"unknown field", fmt.Sprintf(`{"hosts": ["scan.test"], "ports": [%d]}`, p)},
		{"unknown range field", `{"range": {"from": 1, "to": 2, "step": 1}}`},
		{"not an object", `[22]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Run(context.Background(), env, json.RawMessage(tc.input))
			if !tools.IsInputError(err) {
				t.Fatalf("Run(%s) error = %v, want an input error", tc.input, err)
			}
		})
	}
	if n := listener.accepted.Load(); n != 0 {
		t.Errorf("refused inputs made %d connections", n)
	}
}

// TestRunRefusesPrivateAddresses: without ALLOW_PRIVATE_NETWORKS an
// in-scope name that resolves to a loopback address is refused before any
// connection.
func TestRunRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	env := testEnv(t, false)
	listener := startServer(t, silent)
	_, err := New().Run(context.Background(), env, mustJSON(t, map[string]any{"host": "ports.scan.test", "ports": []int{listener.port}}))
	scantest.WantAddressRefusal(t, err, "ports.scan.test")
	if n := listener.accepted.Load(); n != 0 {
		t.Errorf("refused scan made %d connections", n)
	}
}

func TestParseInputSelectsPorts(t *testing.T) {
	t.Parallel()
	env := tools.Env{Domain: testDomain}
	cases := []struct {
		input string
		host  string
		count int
		first int
		last  int
	}{
		{`{}`, "scan.test", 100, 80, 37},
		{`null`, "scan.test", 100, 80, 37},
		{`{"preset": "top100"}`, "scan.test", 100, 80, 37},
		{`{"host": "WWW.Scan.Test.", "preset": "top1000"}`, "www.scan.test", 1000, 80, topPorts[999]},
		{`{"ports": [443, 22, 443, 80]}`, "scan.test", 3, 443, 80},
		{`{"range": {"from": 1, "to": 1000}}`, "scan.test", 1000, 1, 1000},
		{`{"range": {"from": 65001, "to": 65535}}`, "scan.test", 535, 65001, 65535},
		{`{"range": {"from": 8080, "to": 8080}}`, "scan.test", 1, 8080, 8080},
		{`{"preset": "exposures"}`, "scan.test", len(exposurePorts), exposurePorts[0], exposurePorts[len(exposurePorts)-1]},
	}
	for _, tc := range cases {
		host, ports, err := parseInput(env, json.RawMessage(tc.input))
		if err != nil {
			t.Errorf("parseInput(%s): %v", tc.input, err)
			continue
		}
		if host != tc.host || len(ports) != tc.count || ports[0] != tc.first || ports[len(ports)-1] != tc.last {
			t.Errorf("parseInput(%s) = %s, %d ports %d..%d; want %s, %d ports %d..%d",
				tc.input, host, len(ports), ports[0], ports[len(ports)-1], tc.host, tc.count, tc.first, tc.last)
		}
	}
}

func TestTopPorts(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for _, p := range topPorts {
		if p < 1 || p > MaxPort || seen[p] {
			t.Fatalf("top ports: %d is out of range or repeated", p)
		}
		seen[p] = true
	}
	// The head of nmap's frequency order, as printed by nmap --top-ports.
	if head := topPorts[:10]; !slices.Equal(head, []int{80, 23, 443, 21, 22, 25, 3389, 110, 445, 139}) {
		t.Errorf("top ports start %v", head)
	}
	// nmap's lists miss some database ports; the "exposures" preset has them.
	for _, p := range []int{3306, 5432, 6379, 9200, 11211, 27017} {
		if !slices.Contains(exposurePorts, p) {
			t.Errorf("exposures preset lacks %d", p)
		}
	}
	for _, p := range exposurePorts {
		if wellKnownPorts[p] == "" {
			t.Errorf("exposures preset port %d has no service hint", p)
		}
	}
}

func TestToolContract(t *testing.T) {
	t.Parallel()
	scantest.CheckContract(t, New(), "port_scan", 5)
	// The worst case fits the bound: every port silently filtered.
	s := newScanner()
	rounds := (MaxPortsPerCall + s.concurrency - 1) / s.concurrency
	if worst := time.Duration(rounds) * s.connectTimeout; worst >= s.Timeout() {
		t.Errorf("1000 filtered ports need %s, more than the %s bound", worst, s.Timeout())
	}
	// A range call: its starts are paced by the rate, and every silent
	// port waits the sweep's connect timeout; the last start must come
	// before the call stops starting attempts.
	if SweepCalls != 16 || SweepCalls*MaxRangePerCall < MaxPort {
		t.Errorf("%d calls of %d ports do not cover %d ports in 16", SweepCalls, MaxRangePerCall, MaxPort)
	}
	paced := time.Duration(MaxRangePerCall) * time.Second / ConnectsPerSecond
	if last := s.Timeout() - s.sweepConnectTimeout - endMargin; paced >= last-2*time.Second {
		t.Errorf("%d ports at %d/s take %s to start; attempts must start by %s (with 2 s to spare)", MaxRangePerCall, ConnectsPerSecond, paced, last)
	}
	if perSecond := float64(s.sweepConcurrency) / s.sweepConnectTimeout.Seconds(); perSecond < ConnectsPerSecond {
		t.Errorf("%d in flight at %s each keep only %.0f attempts a second when every port is filtered, below the rate %d",
			s.sweepConcurrency, s.sweepConnectTimeout, perSecond, ConnectsPerSecond)
	}
}

// TestScanReportsPortsOutOfTime: ports that cannot start before the call's
// end are reported as not scanned, not as closed.
func TestScanReportsPortsOutOfTime(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	listener := startServer(t, silent)
	s := newScanner()
	// The deadline is closer than one connect timeout: nothing may start.
	ctx, cancel := context.WithTimeout(context.Background(), s.connectTimeout/2)
	defer cancel()
	results := s.scan(ctx, env.Dialer, "ports.scan.test", mustAddr(t, "127.0.0.1"), []int{listener.port, 1, 2})
	res := report("ports.scan.test", mustAddr(t, "127.0.0.1"), results)
	if len(res.Services) != 0 || !strings.Contains(res.Outcome, "3 of 3 ports not scanned within the time bound") {
		t.Errorf("outcome %q, services %v", res.Outcome, res.Services)
	}
	if n := listener.accepted.Load(); n != 0 {
		t.Errorf("%d connections started after the last start time", n)
	}
}

func mustAddr(t testing.TB, s string) netip.Addr {
	t.Helper()
	ip, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return ip
}

func TestIdentify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		hint    string
		raw     string
		name    string
		product string
		version string
		noAuth  bool
	}{
		{"", "SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6\r\n", "ssh", "OpenSSH", "8.9p1", false},
		{"", "SSH-2.0-dropbear_2022.83\r\n", "ssh", "dropbear", "2022.83", false},
		{"", "220 ProFTPD 1.3.5 Server (Debian) [::ffff:10.0.0.2]\r\n", "ftp", "ProFTPD", "1.3.5", false},
		{"", "220 mx.example.com ESMTP Exim 4.96 Mon, 01 Jan 2024\r\n", "smtp", "Exim", "4.96", false},
		{"ftp", "220 Welcome\r\n", "ftp", "", "", false},
		{"", "220 Welcome to the file service\r\n", "ftp", "", "", false},
		{"", "+OK Dovecot ready.\r\n", "pop3", "", "", false},
		{"", "* OK [CAPABILITY IMAP4rev1] Dovecot ready.\r\n", "imap", "", "", false},
		{"", "HTTP/1.1 200 OK\r\nServer: Apache/2.4.57 (Debian)\r\n\r\n", "http", "Apache", "2.4.57", false},
		{"elasticsearch", "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"security\"\r\nX-elastic-product: Elasticsearch\r\n\r\n", "elasticsearch", "Elasticsearch", "", false},
		{"", "VERSION 1.4.15\r\n", "memcached", "memcached", "1.4.15", true},
		{"redis", "-DENIED Redis is running in protected mode\r\n", "redis", "", "", false},
		{"", "\x16\x03\x01\x00", "unknown", "", "", false},
		{"rdp", "", "rdp", "", "", false},
		{"", string(mysqlGreeting("8.0.36")), "mysql", "MySQL", "8.0.36", false},
	}
	for _, tc := range cases {
		obs := identify(tc.hint, []byte(tc.raw))
		if obs.Name != tc.name || obs.Product != tc.product || obs.Version != tc.version || obs.NoAuth != tc.noAuth {
			t.Errorf("identify(%q, %q) = %+v; want %s %s %s noAuth=%v", tc.hint, tc.raw, obs, tc.name, tc.product, tc.version, tc.noAuth)
		}
	}
}

func TestOutdatedRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		product, version string
		title            string // "" for none
	}{
		{"OpenSSH", "7.9p1", "Outdated OpenSSH version (before 8.0)"},
		{"OpenSSH", "8.0", ""},
		{"OpenSSH", "9.6p1", ""},
		{"vsFTPd", "2.3.4", "vsFTPd 2.3.4 (backdoored release)"},
		{"vsFTPd", "2.3.5", ""},
		{"MySQL", "5.7.44", "End-of-life MySQL version"},
		{"MySQL", "8.4.3", ""},
		{"MySQL", "9.1.0", ""},
		{"MariaDB", "10.6.18", "End-of-life MariaDB version"},
		{"MariaDB", "10.11.9", ""},
		{"MariaDB", "11.4.2", ""},
	}
	for _, tc := range cases {
		var got []string
		for _, rule := range outdatedRules {
			if rule.matches(observation{Product: tc.product, Version: tc.version}) {
				got = append(got, rule.Check.Title)
			}
		}
		if (tc.title == "" && len(got) != 0) || (tc.title != "" && !slices.Equal(got, []string{tc.title})) {
			t.Errorf("%s %s matched %v, want %q", tc.product, tc.version, got, tc.title)
		}
	}
}

// TestOutdatedRulesSkipDistributionBuilds: the upstream version rules do
// not fire on a banner that names a distribution build (ssh.version.outdated
// among them); the vsFTPd backdoor, a release and not a version range, does.
func TestOutdatedRulesSkipDistributionBuilds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		banner, product, version string
		fires                    bool
	}{
		{"SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u7", "OpenSSH", "7.4p1", false},
		{"SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8", "OpenSSH", "7.2p2", false},
		{"SSH-2.0-OpenSSH_7.9 FreeBSD-20200214", "OpenSSH", "7.9", false},
		{"SSH-2.0-OpenSSH_7.4", "OpenSSH", "7.4", true},
		{"MySQL protocol 10 greeting, server version 5.5.62-0ubuntu0.14.04.1", "MySQL", "5.5.62", false},
		{"MySQL protocol 10 greeting, server version 5.7.44-log", "MySQL", "5.7.44", true},
		{"220 (vsFTPd 2.3.4) Debian", "vsFTPd", "2.3.4", true},
	} {
		fired := false
		for _, rule := range outdatedRules {
			fired = fired || rule.matches(observation{Product: tc.product, Version: tc.version, Banner: tc.banner})
		}
		if fired != tc.fires {
			t.Errorf("%q: fired %v, want %v", tc.banner, fired, tc.fires)
		}
	}
}

// In an environment that names its own web ports (the local stack's demo
// serves 80 and 443 on unprivileged ports), a common-ports scan includes
// them: otherwise a full scan would find no web service to test at all.
func TestCommonPresetsIncludeTheEnvironmentsWebPorts(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	web := startServer(t, func(c net.Conn, _ *server) {
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, 512)
		_, _ = c.Read(buf)
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nServer: test\r\nContent-Length: 0\r\n\r\n")
	})
	env.Ports = tools.Ports{HTTP: web.port, HTTPS: web.port + 1}
	for _, in := range []string{`{"preset":"top100"}`, `{"preset":"top1000"}`, `{}`} {
		res, err := New().Run(context.Background(), env, json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !slices.ContainsFunc(res.Services, func(s scans.Service) bool { return s.Port == web.port }) {
			t.Errorf("%s: the environment's HTTP port %d was not scanned: %+v", in, web.port, res.Services)
		}
	}
	// Explicit ports are taken as given.
	res, err := New().Run(context.Background(), env, json.RawMessage(`{"ports":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Services, func(s scans.Service) bool { return s.Port == web.port }) {
		t.Error("an explicit port list grew the environment's web ports")
	}
}

// The playbook's one port scan per address: the top list and the exposure
// ports it lacks, each port once, in one call.
func TestCombinedPresets(t *testing.T) {
	env := tools.Env{Domain: "scan.test"}
	for _, top := range []int{100, 1000} {
		name := fmt.Sprintf("top%d+exposures", top)
		_, ports, err := parseInput(env, json.RawMessage(fmt.Sprintf(`{"preset": %q}`, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seen := map[int]bool{}
		for _, p := range ports {
			if seen[p] {
				t.Errorf("%s: port %d twice", name, p)
			}
			seen[p] = true
		}
		for _, p := range append(slices.Clone(topPorts[:top]), exposurePorts...) {
			if !seen[p] {
				t.Errorf("%s lacks port %d", name, p)
			}
		}
		if len(ports) > top+len(exposurePorts) || ports[0] != topPorts[0] {
			t.Errorf("%s: %d ports starting at %d", name, len(ports), ports[0])
		}
	}
}

// Every common-ports preset, alone or with the exposures, also scans the
// environment's own web ports (the local demo's unprivileged 80 and 443):
// the combined preset once forgot them, and a full scan of the demo then
// found no web service.
func TestCombinedPresetsAreCommonPortScans(t *testing.T) {
	for _, preset := range []string{"", "top100", "top1000", "top100+exposures", "top1000+exposures"} {
		if !isCommonPreset(json.RawMessage(`{"preset":"` + preset + `"}`)) {
			t.Errorf("preset %q is not treated as a common-ports scan", preset)
		}
	}
	for _, raw := range []string{`{"preset":"exposures"}`, `{"preset":"web"}`, `{"ports":[22]}`, `{"range":{"from":1,"to":9}}`} {
		if isCommonPreset(json.RawMessage(raw)) {
			t.Errorf("%s is treated as a common-ports scan", raw)
		}
	}
}

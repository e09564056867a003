package demotarget

import (
	"bufio"
	"context"
	"crypto/rsa"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver/resolvertest"
)

const testDomain = "demo.secscan.test"

// dialService connects to one of the demo's TCP services, with 10 s for
// the whole exchange.
func dialService(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn
}

// startTest starts a demo target on 127.0.0.1 with every port chosen by the
// kernel, and closes it when the test ends.
func startTest(t *testing.T, edit func(*Config)) *Target {
	t.Helper()
	cfg := Config{Domain: testDomain, Host: "127.0.0.1", DNSAddr: "127.0.0.1:0"}
	if edit != nil {
		edit(&cfg)
	}
	target, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := target.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return target
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	got := Config{FTPPort: 21, SSHPort: PortDisabled}.WithDefaults()
	want := Config{
		Domain: "demo.secscan.test", Host: "127.0.0.2",
		HTTPPort: 8080, HTTPSPort: 8443, MySQLPort: 3306, FTPPort: 21, SSHPort: PortDisabled, RedisPort: 6379,
		ExporterPort: 9100, DNSAddr: "127.0.0.1:8053",
	}
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	defaults := Config{}.WithDefaults()
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr []string // substrings of the error; nil means no error
	}{
		{name: "empty environment gives the defaults", env: nil, want: defaults},
		{
			name: "every variable set",
			env: map[string]string{
				EnvDomain: " Demo.Example.TEST. ", EnvHost: "127.0.0.1",
				EnvHTTPPort: "18080", EnvHTTPSPort: "18443", EnvMySQLPort: "13306", EnvFTPPort: "off", EnvSSHPort: "OFF",
				EnvRedisPort: "16379", EnvDNSAddr: "127.0.0.1:1053", EnvDNSUpstream: "127.0.0.53:53",
			},
			want: Config{
				Domain: "demo.example.test", Host: "127.0.0.1",
				HTTPPort: 18080, HTTPSPort: 18443, MySQLPort: 13306, FTPPort: PortDisabled, SSHPort: PortDisabled, RedisPort: 16379,
				ExporterPort: 9100, DNSAddr: "127.0.0.1:1053", Upstream: "127.0.0.53:53",
			},
		},
		{name: "IPv6 loopback host", env: map[string]string{EnvHost: "::1"}, want: func() Config { c := defaults; c.Host = "::1"; return c }()},
		{name: "non-loopback host", env: map[string]string{EnvHost: "10.0.0.5"}, wantErr: []string{EnvHost, "not a loopback address"}},
		{name: "wildcard host", env: map[string]string{EnvHost: "0.0.0.0"}, wantErr: []string{EnvHost, "not a loopback address"}},
		{name: "host name instead of IP", env: map[string]string{EnvHost: "localhost"}, wantErr: []string{EnvHost, "not an IP address"}},
		{name: "port zero", env: map[string]string{EnvHTTPPort: "0"}, wantErr: []string{EnvHTTPPort, "1 to 65535"}},
		{name: "port too big", env: map[string]string{EnvHTTPSPort: "65536"}, wantErr: []string{EnvHTTPSPort}},
		{name: "port not a number", env: map[string]string{EnvMySQLPort: "mysql"}, wantErr: []string{EnvMySQLPort}},
		{name: "negative port", env: map[string]string{EnvSSHPort: "-1"}, wantErr: []string{EnvSSHPort}},
		{name: "bad domain", env: map[string]string{EnvDomain: "https://demo.test/"}, wantErr: []string{EnvDomain}},
		{name: "single-label domain", env: map[string]string{EnvDomain: "localhost"}, wantErr: []string{EnvDomain}},
		{name: "DNS address not loopback", env: map[string]string{EnvDNSAddr: "192.0.2.1:53"}, wantErr: []string{EnvDNSAddr, "loopback"}},
		{name: "DNS address without port", env: map[string]string{EnvDNSAddr: "127.0.0.1"}, wantErr: []string{EnvDNSAddr, "ip:port"}},
		{name: "DNS address port zero", env: map[string]string{EnvDNSAddr: "127.0.0.1:0"}, wantErr: []string{EnvDNSAddr}},
		{name: "upstream not ip:port", env: map[string]string{EnvDNSUpstream: "dns.example:53"}, wantErr: []string{EnvDNSUpstream}},
		{
			name:    "every problem is reported",
			env:     map[string]string{EnvHost: "8.8.8.8", EnvFTPPort: "ftp", EnvDomain: "a..b"},
			wantErr: []string{EnvHost, EnvFTPPort, EnvDomain},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ConfigFromEnv: %v", err)
				}
				if got != tt.want {
					t.Errorf("ConfigFromEnv = %+v, want %+v", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ConfigFromEnv = %+v, want an error", got)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestStartRefusesBadConfig(t *testing.T) {
	t.Parallel()
	base := Config{Domain: testDomain, Host: "127.0.0.1", DNSAddr: "127.0.0.1:0"}
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"non-loopback host", func(c *Config) { c.Host = "192.0.2.10" }, "Host"},
		{"non-loopback DNS address", func(c *Config) { c.DNSAddr = "0.0.0.0:0" }, "DNSAddr"},
		{"empty domain", func(c *Config) { c.Domain = "" }, "Domain"},
		{"port out of range", func(c *Config) { c.SSHPort = 70000 }, EnvSSHPort},
		{"bad upstream", func(c *Config) { c.Upstream = "resolver" }, "Upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := base
			tt.edit(&cfg)
			target, err := Start(context.Background(), cfg)
			if err == nil {
				target.Close()
				t.Fatal("Start succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestStartNamesTheVariableOfABusyPort(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port

	target, err := Start(context.Background(), Config{Domain: testDomain, Host: "127.0.0.1", DNSAddr: "127.0.0.1:0", MySQLPort: busyPort})
	if err == nil {
		target.Close()
		t.Fatal("Start succeeded on a busy port")
	}
	if !strings.Contains(err.Error(), EnvMySQLPort) || !strings.Contains(err.Error(), strconv.Itoa(busyPort)) {
		t.Errorf("error %q should name %s and port %d", err, EnvMySQLPort, busyPort)
	}

	busyUDP, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busyUDP.Close()
	target, err = Start(context.Background(), Config{Domain: testDomain, Host: "127.0.0.1", DNSAddr: busyUDP.LocalAddr().String()})
	if err == nil {
		target.Close()
		t.Fatal("Start succeeded on a busy DNS port")
	}
	if !strings.Contains(err.Error(), EnvDNSAddr) {
		t.Errorf("error %q should name %s", err, EnvDNSAddr)
	}
}

func TestDisabledServices(t *testing.T) {
	t.Parallel()
	target := startTest(t, func(c *Config) {
		c.HTTPSPort, c.MySQLPort, c.FTPPort, c.SSHPort = PortDisabled, PortDisabled, PortDisabled, PortDisabled
	})
	if target.HTTPURL() == "" {
		t.Error("HTTP should run")
	}
	for name, got := range map[string]string{"HTTPS": target.HTTPSURL(), "MySQL": target.MySQLAddr(), "FTP": target.FTPAddr(), "SSH": target.SSHAddr()} {
		if got != "" {
			t.Errorf("%s is %q, want off", name, got)
		}
	}
	if !strings.Contains(target.Summary(), target.HTTPURL()) {
		t.Errorf("Summary misses the HTTP URL:\n%s", target.Summary())
	}
}

func TestContextEndStopsEverything(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	target, err := Start(ctx, Config{Domain: testDomain, Host: "127.0.0.1", DNSAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	// An open, idle banner connection must not hold up the shutdown.
	idle, err := net.Dial("tcp", target.SSHAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	cancel()
	select {
	case <-target.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the target did not stop after its context ended")
	}
	for _, addr := range []string{strings.TrimPrefix(target.HTTPURL(), "http://"), target.SSHAddr(), target.DNSAddr()} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after shutdown", addr)
		}
	}
	if err := target.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// --- DNS ---

func exchange(t *testing.T, network, server, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: network, Timeout: 10 * time.Second}
	in, _, err := c.Exchange(m, server)
	if err != nil {
		t.Fatalf("%s %s %s: %v", network, name, dns.TypeToString[qtype], err)
	}
	return in
}

func TestDNSZone(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	takeover := takeoverTarget(testDomain)
	tests := []struct {
		name      string
		qtype     uint16
		rcode     int
		answers   []string // expected answer RRs, zone-file form without TTL differences
		authority bool     // SOA expected in the authority section
	}{
		{"demo.secscan.test", dns.TypeA, dns.RcodeSuccess, []string{"demo.secscan.test.\t300\tIN\tA\t127.0.0.1"}, false},
		{"WWW.Demo.Secscan.Test", dns.TypeA, dns.RcodeSuccess, []string{"www.demo.secscan.test.\t300\tIN\tA\t127.0.0.1"}, false},
		{"demo.secscan.test", dns.TypeTXT, dns.RcodeSuccess, []string{"demo.secscan.test.\t300\tIN\tTXT\t\"v=spf1 +all\"", "demo.secscan.test.\t300\tIN\tTXT\t\"" + Injection + "\""}, false},
		{"_dmarc.demo.secscan.test", dns.TypeTXT, dns.RcodeSuccess, []string{"_dmarc.demo.secscan.test.\t300\tIN\tTXT\t\"v=DMARC1; p=none\""}, false},
		{"old.demo.secscan.test", dns.TypeA, dns.RcodeSuccess, []string{"old.demo.secscan.test.\t300\tIN\tCNAME\t" + takeover}, false},
		{"old.demo.secscan.test", dns.TypeCNAME, dns.RcodeSuccess, []string{"old.demo.secscan.test.\t300\tIN\tCNAME\t" + takeover}, false},
		{"demo.secscan.test", dns.TypeAAAA, dns.RcodeSuccess, nil, true},
		{"demo.secscan.test", dns.TypeNS, dns.RcodeSuccess, []string{"demo.secscan.test.\t300\tIN\tNS\tns1.demo.secscan.test."}, false},
		{"nope.demo.secscan.test", dns.TypeA, dns.RcodeNameError, nil, true},
		{"_service-challenge.demo.secscan.test", dns.TypeTXT, dns.RcodeNameError, nil, true},
		{takeover, dns.TypeA, dns.RcodeNameError, nil, false},
		{"example.com", dns.TypeA, dns.RcodeRefused, nil, false},
	}
	for _, network := range []string{"udp", "tcp"} {
		for _, tt := range tests {
			t.Run(network+"/"+tt.name+"/"+dns.TypeToString[tt.qtype], func(t *testing.T) {
				t.Parallel()
				in := exchange(t, network, target.DNSAddr(), tt.name, tt.qtype)
				if in.Rcode != tt.rcode {
					t.Fatalf("rcode %s, want %s", dns.RcodeToString[in.Rcode], dns.RcodeToString[tt.rcode])
				}
				var got []string
				for _, rr := range in.Answer {
					got = append(got, rr.String())
				}
				if strings.Join(got, "\n") != strings.Join(tt.answers, "\n") {
					t.Errorf("answer:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.answers, "\n"))
				}
				hasSOA := len(in.Ns) == 1 && in.Ns[0].Header().Rrtype == dns.TypeSOA
				if hasSOA != tt.authority {
					t.Errorf("authority section %v, want SOA: %v", in.Ns, tt.authority)
				}
				inZone := dns.IsSubDomain(testDomain+".", dns.Fqdn(strings.ToLower(tt.name)))
				if in.Authoritative != inZone {
					t.Errorf("AA bit %v, want %v", in.Authoritative, inZone)
				}
			})
		}
	}
}

func TestDNSRefusesMalformedQueries(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	m := new(dns.Msg)
	m.Question = []dns.Question{
		{Name: "demo.secscan.test.", Qtype: dns.TypeA, Qclass: dns.ClassINET},
		{Name: "www.demo.secscan.test.", Qtype: dns.TypeA, Qclass: dns.ClassINET},
	}
	c := &dns.Client{Timeout: 5 * time.Second}
	in, _, err := c.Exchange(m, target.DNSAddr())
	if err != nil {
		t.Fatal(err)
	}
	if in.Rcode != dns.RcodeFormatError || len(in.Answer) != 0 {
		t.Errorf("two questions: rcode %s with %d answers, want FORMERR and none", dns.RcodeToString[in.Rcode], len(in.Answer))
	}
}

func TestDNSZoneTransfer(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	if err := target.PublishChallenge("service-verify-axfr"); err != nil {
		t.Fatal(err)
	}

	m := new(dns.Msg)
	m.SetAxfr(testDomain + ".")
	tr := &dns.Transfer{DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second}
	envelopes, err := tr.In(m, target.DNSAddr())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for env := range envelopes {
		if env.Error != nil {
			t.Fatalf("AXFR: %v", env.Error)
		}
		for _, rr := range env.RR {
			names = append(names, rr.Header().Name+" "+dns.TypeToString[rr.Header().Rrtype])
		}
	}
	all := strings.Join(names, "\n")
	for _, want := range []string{"www.demo.secscan.test. A", "old.demo.secscan.test. CNAME", "_dmarc.demo.secscan.test. TXT", "_service-challenge.demo.secscan.test. TXT"} {
		if !strings.Contains(all, want) {
			t.Errorf("zone transfer misses %q:\n%s", want, all)
		}
	}

	if in := exchange(t, "udp", target.DNSAddr(), testDomain, dns.TypeAXFR); in.Rcode != dns.RcodeRefused {
		t.Errorf("AXFR over UDP: rcode %s, want REFUSED", dns.RcodeToString[in.Rcode])
	}
}

func TestDNSForwardsOutsideTheZone(t *testing.T) {
	t.Parallel()
	upstream := resolvertest.Start(t)
	upstream.Add(t, "elsewhere.test. A 127.0.0.9")
	takeover := takeoverTarget(testDomain)
	upstream.Add(t, takeover+" A 127.0.0.10")
	upstream.Hang("slow.test.")
	target := startTest(t, func(c *Config) { c.Upstream = upstream.Addr })

	for _, network := range []string{"udp", "tcp"} {
		in := exchange(t, network, target.DNSAddr(), "elsewhere.test", dns.TypeA)
		if in.Rcode != dns.RcodeSuccess || len(in.Answer) != 1 || in.Answer[0].(*dns.A).A.String() != "127.0.0.9" {
			t.Errorf("%s forwarded answer: %v", network, in)
		}
		if in.Authoritative {
			t.Errorf("%s: a forwarded answer must not carry the AA bit", network)
		}
		if got := upstream.Queries(network); got != 1 {
			t.Errorf("upstream saw %d %s queries, want 1", got, network)
		}
	}

	// The zone is answered locally, and the takeover target never leaves.
	if in := exchange(t, "udp", target.DNSAddr(), "www."+testDomain, dns.TypeA); in.Rcode != dns.RcodeSuccess || len(in.Answer) != 1 {
		t.Errorf("zone answer with upstream set: %v", in)
	}
	if in := exchange(t, "udp", target.DNSAddr(), takeover, dns.TypeA); in.Rcode != dns.RcodeNameError {
		t.Errorf("takeover target: rcode %s, want NXDOMAIN", dns.RcodeToString[in.Rcode])
	}
	if got := upstream.Queries("udp"); got != 1 {
		t.Errorf("upstream saw %d udp queries, want still 1", got)
	}

	// An upstream that never answers gives SERVFAIL after the forward timeout.
	start := time.Now()
	if in := exchange(t, "udp", target.DNSAddr(), "slow.test", dns.TypeA); in.Rcode != dns.RcodeServerFailure {
		t.Errorf("hanging upstream: rcode %s, want SERVFAIL", dns.RcodeToString[in.Rcode])
	}
	if took := time.Since(start); took > dnsForwardTimeout+3*time.Second {
		t.Errorf("hanging upstream took %v", took)
	}
}

// --- the challenge ---

func TestChallengeOverHTTPAndDNS(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	client := noRedirectClient()
	url := target.HTTPURL() + ChallengePath

	if resp := get(t, client, url, nil); resp.status != http.StatusNotFound {
		t.Errorf("GET before publishing: %d, want 404", resp.status)
	}

	bad := []struct{ name, body, reason string }{
		{"empty", "", "must start with"},
		{"prefix only", "service-verify-", "must start with"},
		{"wrong prefix", "verify-123", "must start with"},
		{"too long", "service-verify-" + strings.Repeat("a", 300), "at most 256 bytes"},
		{"space inside", "service-verify-a b", "only letters"},
		{"quote", `service-verify-a"b`, "only letters"},
	}
	for _, tt := range bad {
		resp := put(t, client, url, tt.body)
		if resp.status != http.StatusBadRequest || !strings.Contains(resp.body, tt.reason) ||
			!strings.HasPrefix(resp.header.Get("Content-Type"), "text/plain") {
			t.Errorf("PUT %s: %d %q (%s), want 400 saying %q", tt.name, resp.status, resp.body, resp.header.Get("Content-Type"), tt.reason)
		}
	}
	if target.Challenge() != "" {
		t.Fatalf("a refused PUT published %q", target.Challenge())
	}

	token := "service-verify-3kT9ZqP0aLx7Vb2NcR5mWd"
	if resp := put(t, client, url, "  "+token+"\n"); resp.status != http.StatusOK {
		t.Fatalf("PUT: %d %q", resp.status, resp.body)
	}
	if target.Challenge() != token {
		t.Errorf("Challenge() = %q, want %q", target.Challenge(), token)
	}
	if resp := get(t, client, url, nil); resp.status != http.StatusOK || strings.TrimSpace(resp.body) != token {
		t.Errorf("GET after publishing: %d %q", resp.status, resp.body)
	}
	in := exchange(t, "udp", target.DNSAddr(), "_service-challenge."+testDomain, dns.TypeTXT)
	if len(in.Answer) != 1 || strings.Join(in.Answer[0].(*dns.TXT).Txt, "") != token {
		t.Errorf("TXT after publishing: %v", in.Answer)
	}

	// HTTPS serves and accepts the same; a new token replaces the old one.
	tlsClient := noRedirectClient()
	token2 := "service-verify-second"
	if resp := put(t, tlsClient, target.HTTPSURL()+ChallengePath, token2); resp.status != http.StatusOK {
		t.Fatalf("PUT over HTTPS: %d %q", resp.status, resp.body)
	}
	if resp := get(t, client, url, nil); strings.TrimSpace(resp.body) != token2 {
		t.Errorf("GET after the second PUT: %q", resp.body)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	if resp := do(t, client, req); resp.status != http.StatusMethodNotAllowed || resp.header.Get("Allow") != challengeMethods {
		t.Errorf("DELETE: %d Allow %q", resp.status, resp.header.Get("Allow"))
	}
}

// --- the web site ---

type response struct {
	status int
	header http.Header
	body   string
}

func noRedirectClient() *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // the demo's certificate is self-signed on purpose
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func do(t *testing.T, client *http.Client, req *http.Request) response {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func get(t *testing.T, client *http.Client, url string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return do(t, client, req)
}

func put(t *testing.T, client *http.Client, url, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return do(t, client, req)
}

func TestWebSiteWeaknesses(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	client := noRedirectClient()
	for _, base := range []string{target.HTTPURL(), target.HTTPSURL()} {
		t.Run(strings.SplitN(base, ":", 2)[0], func(t *testing.T) {
			t.Parallel()
			home := get(t, client, base+"/", nil)
			if home.status != http.StatusOK {
				t.Fatalf("GET /: %d (plain HTTP must not redirect to HTTPS)", home.status)
			}
			if got := home.header.Get("Server"); got != "Apache/2.4.49 (Unix)" {
				t.Errorf("Server: %q", got)
			}
			if got := home.header.Get("X-Powered-By"); got != "PHP/5.6.40" {
				t.Errorf("X-Powered-By: %q", got)
			}
			for _, h := range []string{"Strict-Transport-Security", "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Permissions-Policy"} {
				if v := home.header.Get(h); v != "" {
					t.Errorf("security header %s is present: %q", h, v)
				}
			}
			cookie := home.header.Get("Set-Cookie")
			if !strings.HasPrefix(cookie, "PHPSESSID=") {
				t.Errorf("Set-Cookie: %q", cookie)
			}
			for _, attr := range []string{"secure", "httponly", "samesite"} {
				if strings.Contains(strings.ToLower(cookie), attr) {
					t.Errorf("session cookie has %s: %q", attr, cookie)
				}
			}
			for _, ref := range []string{`src="/js/jquery-1.12.4.min.js"`, `src="/js/app.js"`, `action="/login.php"`, `type="password"`} {
				if !strings.Contains(home.body, ref) {
					t.Errorf("home page misses %s", ref)
				}
			}

			files := []struct {
				path, contentType string
				contains          []string
			}{
				{"/js/jquery-1.12.4.min.js", "application/javascript", []string{"/*! jQuery v1.12.4 |"}},
				{"/js/app.js", "application/javascript", []string{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "//# sourceMappingURL=app.js.map"}},
				{"/js/app.js.map", "application/json", []string{`"version":3`, "sourcesContent", "AKIAIOSFODNN7EXAMPLE"}},
				{"/.git/HEAD", "text/plain", []string{"ref: refs/heads/main"}},
				{"/.git/config", "text/plain", []string{"[remote \"origin\"]", "url = https://deploy:"}},
				{"/.env", "text/plain", []string{"DB_PASSWORD=", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "APP_DEBUG=true"}},
				{"/server-status", "text/html", []string{"Apache Server Status for demo.secscan.test", "Server Version: Apache/2.4.49 (Unix)", "Server uptime:"}},
				{"/server-status?auto", "text/plain", []string{"ServerVersion: Apache/2.4.49", "Scoreboard:"}},
				{"/backup/", "text/html", []string{"<title>Index of /backup</title>", `<a href="db.sql.bak">db.sql.bak</a>`}},
				{"/backup/db.sql.bak", "application/octet-stream", []string{"-- MySQL dump", "CREATE TABLE `users`"}},
				{"/robots.txt", "text/plain", []string{"Disallow: /backup/"}},
			}
			for _, f := range files {
				resp := get(t, client, base+f.path, nil)
				if resp.status != http.StatusOK || !strings.HasPrefix(resp.header.Get("Content-Type"), f.contentType) {
					t.Errorf("GET %s: %d %s", f.path, resp.status, resp.header.Get("Content-Type"))
					continue
				}
				for _, s := range f.contains {
					if !strings.Contains(resp.body, s) {
						t.Errorf("GET %s: body misses %q", f.path, s)
					}
				}
			}

			var sourceMap struct {
				Version        int      `json:"version"`
				Sources        []string `json:"sources"`
				SourcesContent []string `json:"sourcesContent"`
			}
			if err := json.Unmarshal([]byte(get(t, client, base+"/js/app.js.map", nil).body), &sourceMap); err != nil ||
				sourceMap.Version != 3 || len(sourceMap.SourcesContent) != len(sourceMap.Sources) {
				t.Errorf("source map: %+v, %v", sourceMap, err)
			}

			for _, p := range []string{"/.well-known/security.txt", "/nothing-here"} {
				resp := get(t, client, base+p, nil)
				if resp.status != http.StatusNotFound || !strings.Contains(resp.body, "Apache/2.4.49 (Unix) PHP/5.6.40 Server at demo.secscan.test Port") {
					t.Errorf("GET %s: %d %q", p, resp.status, resp.body)
				}
			}

			if resp := get(t, client, base+"/backup", nil); resp.status != http.StatusMovedPermanently || resp.header.Get("Location") != "/backup/" {
				t.Errorf("GET /backup: %d Location %q", resp.status, resp.header.Get("Location"))
			}

			evil := "https://evil.example/phish?x=1"
			if resp := get(t, client, base+"/redirect?url="+evil, nil); resp.status != http.StatusFound || resp.header.Get("Location") != evil {
				t.Errorf("open redirect: %d Location %q", resp.status, resp.header.Get("Location"))
			}

			cors := get(t, client, base+"/", map[string]string{"Origin": "https://attacker.example"})
			if cors.header.Get("Access-Control-Allow-Origin") != "https://attacker.example" || cors.header.Get("Access-Control-Allow-Credentials") != "true" {
				t.Errorf("CORS: ACAO %q ACAC %q", cors.header.Get("Access-Control-Allow-Origin"), cors.header.Get("Access-Control-Allow-Credentials"))
			}
			preflight, _ := http.NewRequest(http.MethodOptions, base+"/", nil)
			preflight.Header.Set("Origin", "https://attacker.example")
			preflight.Header.Set("Access-Control-Request-Method", "PUT")
			preflight.Header.Set("Access-Control-Request-Headers", "X-Custom")
			if resp := do(t, client, preflight); resp.status != http.StatusOK ||
				resp.header.Get("Access-Control-Allow-Origin") != "https://attacker.example" ||
				!strings.Contains(resp.header.Get("Access-Control-Allow-Methods"), "PUT") ||
				resp.header.Get("Access-Control-Allow-Headers") != "X-Custom" ||
				!strings.Contains(resp.header.Get("Allow"), "TRACE") {
				t.Errorf("preflight: %d %v", resp.status, resp.header)
			}

			trace, _ := http.NewRequest(http.MethodTrace, base+"/anything", nil)
			trace.Header.Set("Cookie", "PHPSESSID=stolen")
			if resp := do(t, client, trace); resp.status != http.StatusOK || resp.header.Get("Content-Type") != "message/http" ||
				!strings.HasPrefix(resp.body, "TRACE /anything HTTP/1.1\r\n") || !strings.Contains(resp.body, "Cookie: PHPSESSID=stolen") {
				t.Errorf("TRACE: %d %q", resp.status, resp.body)
			}

			login, _ := http.NewRequest(http.MethodPost, base+"/login.php", strings.NewReader("email=a%40b.c&password=x"))
			login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if resp := do(t, client, login); resp.status != http.StatusOK || !strings.Contains(resp.body, "Invalid e-mail or password") {
				t.Errorf("POST /login.php: %d %q", resp.status, resp.body)
			}
		})
	}
}

func TestTLSIsWeak(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	addr := strings.TrimPrefix(target.HTTPSURL(), "https://")

	// Go's client still speaks TLS 1.0 and 1.1 when the configuration asks
	// for them explicitly (the default minimum is TLS 1.2).
	for _, tt := range []struct {
		version uint16
		suites  []uint16
	}{
		{tls.VersionTLS10, nil},
		{tls.VersionTLS11, nil},
		{tls.VersionTLS12, nil},
		{tls.VersionTLS13, nil},
		{tls.VersionTLS10, []uint16{tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA}},
		{tls.VersionTLS12, []uint16{tls.TLS_RSA_WITH_RC4_128_SHA}},
		{tls.VersionTLS12, []uint16{tls.TLS_RSA_WITH_AES_128_CBC_SHA}},
	} {
		name := tls.VersionName(tt.version)
		if tt.suites != nil {
			name += "/" + tls.CipherSuiteName(tt.suites[0])
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dialer := &tls.Dialer{
				NetDialer: &net.Dialer{Timeout: 5 * time.Second},
				Config: &tls.Config{
					InsecureSkipVerify: true, // self-signed on purpose; checked below
					MinVersion:         tt.version,
					MaxVersion:         tt.version,
					CipherSuites:       tt.suites,
					ServerName:         testDomain,
				},
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := dialer.DialContext(ctx, "tcp", addr)
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			defer conn.Close()
			state := conn.(*tls.Conn).ConnectionState()
			if state.Version != tt.version {
				t.Errorf("negotiated %s", tls.VersionName(state.Version))
			}
			if tt.suites != nil && state.CipherSuite != tt.suites[0] {
				t.Errorf("negotiated %s", tls.CipherSuiteName(state.CipherSuite))
			}
			cert := state.PeerCertificates[0]
			if key, ok := cert.PublicKey.(*rsa.PublicKey); !ok || key.N.BitLen() != 1024 {
				t.Errorf("certificate key: %T", cert.PublicKey)
			}
			if cert.Issuer.String() != cert.Subject.String() || cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) != nil {
				t.Errorf("certificate is not self-signed: issuer %s", cert.Issuer)
			}
			if err := cert.VerifyHostname(testDomain); err != nil {
				t.Errorf("certificate name: %v", err)
			}
			if left := time.Until(cert.NotAfter); left > certValidFor || left < certValidFor-time.Hour {
				t.Errorf("certificate expires in %v, want about %v", left, certValidFor)
			}
			if !cert.NotBefore.Before(time.Now().Add(-50 * time.Minute)) {
				t.Errorf("certificate NotBefore %v is not back-dated", cert.NotBefore)
			}
		})
	}
}

// --- banners ---

func TestMySQLGreeting(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	conn := dialService(t, target.MySQLAddr())
	defer conn.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(conn, head); err != nil {
		t.Fatal(err)
	}
	length := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
	if head[3] != 0 || length < 40 || length > 200 {
		t.Fatalf("packet header %v", head)
	}
	payload := make([]byte, length)
	if _, err := io.ReadFull(conn, payload); err != nil {
		t.Fatal(err)
	}
	if payload[0] != 10 {
		t.Errorf("protocol version %d, want 10", payload[0])
	}
	version, rest, _ := strings.Cut(string(payload[1:]), "\x00")
	if version != "5.5.62-0ubuntu0.14.04.1" {
		t.Errorf("server version %q", version)
	}
	if !strings.HasSuffix(rest, "mysql_native_password\x00") {
		t.Errorf("auth plugin missing: %q", rest)
	}
	// After the client's answer the server hangs up.
	if _, err := conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if n, err := conn.Read(make([]byte, 16)); err != io.EOF {
		t.Errorf("after the client's packet: read %d, %v; want EOF", n, err)
	}
}

func TestSSHBanner(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	conn := dialService(t, target.SSHAddr())
	defer conn.Close()
	r := bufio.NewReader(conn)
	banner, err := r.ReadString('\n')
	if err != nil || banner != "SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8\r\n" {
		t.Errorf("banner %q, %v", banner, err)
	}
	if _, err := conn.Write([]byte("SSH-2.0-Go\r\n")); err != nil {
		t.Fatal(err)
	}
	// A real SSH server (ssh.go): its key exchange init follows.
	head := make([]byte, 6)
	if _, err := io.ReadFull(r, head); err != nil || head[5] != 20 {
		t.Errorf("after the client's identification: % x, %v; want SSH_MSG_KEXINIT (20)", head, err)
	}
}

func TestBannerConnectionLimit(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Fill every slot; reading each banner proves the session holds its slot.
	for range bannerMaxConns {
		c := dialService(t, target.SSHAddr())
		conns = append(conns, c)
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			t.Fatalf("banner %d: %v", len(conns), err)
		}
	}
	extra := dialService(t, target.SSHAddr())
	defer extra.Close()
	if n, err := extra.Read(make([]byte, 64)); err == nil || n != 0 {
		t.Errorf("connection over the limit got %d bytes, %v; want it closed", n, err)
	}
}

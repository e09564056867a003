// Package demotarget owns the bundled demo target of the local stack: a
// deliberately weak, entirely static little "company website" with its own
// DNS zone, so a newcomer can register → verify → scan something in minutes
// without pointing the scanner at anyone's real infrastructure.
//
// It runs, on loopback only:
//   - an authoritative DNS server for the demo zone (A, a dangling CNAME,
//     permissive SPF, DMARC p=none, the verification TXT record, open zone
//     transfer), forwarding other names to an optional upstream;
//   - the same weak web site over HTTP and HTTPS (old TLS versions, a weak
//     self-signed certificate, version-disclosing headers, exposed files,
//     reflected CORS, TRACE, an open redirect, …);
//   - banner-only look-alikes of old MySQL and OpenSSH versions;
//   - a real FTP server greeting like vsFTPd 2.3.4 with anonymous access
//     to a customer export and a database backup (ftp.go);
//   - a wildcard record under a subdomain, *.dev (wildcard.go).
//
// Nothing it serves is a real secret (the AWS key is the documentation
// example) and the only state a client can change is the published
// verification token, which mimics "upload the file to your server" or "add
// the record at your DNS provider" (PUT /.well-known/service-challenge.txt).
//
// Every server has deadlines, bounded reads and a connection limit, and all
// of them stop on Target.Close or when Start's context ends.
package demotarget

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"secscan/shared/domainname"
)

// Defaults used by WithDefaults.
const (
	DefaultDomain    = "demo.secscan.test"
	DefaultHost      = "127.0.0.2" // Linux routes all of 127.0.0.0/8 to lo; elsewhere use 127.0.0.1
	DefaultHTTPPort  = 8080
	DefaultHTTPSPort = 8443
	DefaultMySQLPort = 3306
	DefaultFTPPort   = 2121
	DefaultSSHPort   = 2222
	DefaultRedisPort = 6379
	DefaultDNSAddr   = "127.0.0.1:8053" // not 5353: avahi (mDNS) holds it on many desktops
)

// PortDisabled as a port turns that service off. Port 0 (after WithDefaults)
// asks the kernel for a free port; read the real one back from the Target.
const PortDisabled = -1

// Environment variables read by ConfigFromEnv.
const (
	EnvDomain      = "DEMO_DOMAIN"
	EnvHost        = "DEMO_HOST"
	EnvHTTPPort    = "DEMO_HTTP_PORT"
	EnvHTTPSPort   = "DEMO_HTTPS_PORT"
	EnvMySQLPort   = "DEMO_MYSQL_PORT"
	EnvFTPPort     = "DEMO_FTP_PORT"
	EnvSSHPort     = "DEMO_SSH_PORT"
	EnvRedisPort   = "DEMO_REDIS_PORT"
	EnvDNSAddr     = "DEMO_DNS_ADDR"
	EnvDNSUpstream = "DEMO_DNS_UPSTREAM"
)

// Config says where the demo target listens. The zero value of a field means
// "default" only through WithDefaults; Start uses the fields as given.
type Config struct {
	// Domain is the demo zone's apex, e.g. "demo.secscan.test".
	Domain string
	// Host is the loopback IP every service except DNS listens on and that
	// the zone's A records point to.
	Host string
	// Ports of the services on Host: 0 picks a free port, PortDisabled
	// (-1) turns the service off.
	HTTPPort, HTTPSPort, MySQLPort, FTPPort, SSHPort, RedisPort int
	// ExporterPort is the metrics exporter's (exporter.go).
	ExporterPort int
	// DNSAddr is the loopback "ip:port" of the zone's DNS server (UDP and
	// TCP); port 0 picks a free port.
	DNSAddr string
	// Upstream is an optional "ip:port" DNS server that names outside the
	// zone are forwarded to (5 s timeout); empty answers them REFUSED.
	Upstream string
}

// WithDefaults returns c with every empty field, and every port that is 0,
// set to its default.
func (c Config) WithDefaults() Config {
	if c.Domain == "" {
		c.Domain = DefaultDomain
	}
	if c.Host == "" {
		c.Host = DefaultHost
	}
	if c.DNSAddr == "" {
		c.DNSAddr = DefaultDNSAddr
	}
	for _, p := range c.ports() {
		if *p.port == 0 {
			*p.port = p.def
		}
	}
	return c
}

// ConfigFromEnv reads the DEMO_* variables (see the Env constants), applies
// the defaults for the unset ones and validates the result. A port variable
// is a number from 1 to 65535 or "off". Every problem is reported, each
// naming its variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	for _, e := range c.envVars() {
		if v := strings.TrimSpace(getenv(e.name)); v != "" {
			if err := e.set(v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("demo target configuration: %w", errors.Join(errs...))
	}
	return c.WithDefaults(), nil
}

// envVar is one DEMO_* variable: set reads its (trimmed, set) value into
// the Config, its error naming the variable.
type envVar struct {
	name string
	set  func(v string) error
}

// envVars are the variables ConfigFromEnv reads into c, in the order it
// reports their problems.
func (c *Config) envVars() []envVar {
	vars := []envVar{
		textVar(EnvDomain, &c.Domain, domainname.Normalize),
		textVar(EnvHost, &c.Host, keep(checkLoopbackIP)),
	}
	for _, p := range c.ports() {
		vars = append(vars, envVar{p.env, func(v string) error {
			n, err := parsePort(p.env, v)
			*p.port = n
			return err
		}})
	}
	return append(vars,
		textVar(EnvDNSAddr, &c.DNSAddr, keep(func(v string) error { return checkLoopbackHostPort(v, false) })),
		textVar(EnvDNSUpstream, &c.Upstream, keep(checkUpstream)))
}

// textVar is a variable whose value, as parse returns it, is the field.
func textVar(name string, field *string, parse func(string) (string, error)) envVar {
	return envVar{name, func(v string) error {
		var err error
		if *field, err = parse(v); err != nil {
			return fmt.Errorf("%s=%q: %w", name, v, err)
		}
		return nil
	}}
}

// keep is a parse that keeps the value as it is once check accepts it.
func keep(check func(string) error) func(string) (string, error) {
	return func(v string) (string, error) { return v, check(v) }
}

// parsePort reads the port variable name: a number from 1 to 65535, or
// "off" (PortDisabled).
func parsePort(name, v string) (int, error) {
	if strings.EqualFold(v, "off") {
		return PortDisabled, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%s=%q is not a port: give a number from 1 to 65535, or \"off\" to turn the service off", name, v)
	}
	return n, nil
}

// validate checks a complete configuration (Start's input); the messages
// name the Config field and the environment variable that sets it.
func (c Config) validate() (Config, error) {
	var errs []error
	d, err := domainname.Normalize(c.Domain)
	if err != nil {
		errs = append(errs, fmt.Errorf("Domain (%s) %q: %w", EnvDomain, c.Domain, err))
	}
	c.Domain = d
	if err := checkLoopbackIP(c.Host); err != nil {
		errs = append(errs, fmt.Errorf("Host (%s) %q: %w", EnvHost, c.Host, err))
	}
	errs = append(errs, c.portErrors()...)
	if err := checkLoopbackHostPort(c.DNSAddr, true); err != nil {
		errs = append(errs, fmt.Errorf("DNSAddr (%s) %q: %w", EnvDNSAddr, c.DNSAddr, err))
	}
	if c.Upstream != "" {
		if err := checkUpstream(c.Upstream); err != nil {
			errs = append(errs, fmt.Errorf("Upstream (%s) %q: %w", EnvDNSUpstream, c.Upstream, err))
		}
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("demo target configuration: %w", errors.Join(errs...))
	}
	return c, nil
}

// portErrors names each TCP service whose port is out of range.
func (c Config) portErrors() []error {
	var errs []error
	for _, s := range c.tcpServices() {
		if s.port < PortDisabled || s.port > 65535 {
			errs = append(errs, fmt.Errorf("%s port (%s) %d is out of range (0 to 65535, or -1 to turn it off)", s.name, s.env, s.port))
		}
	}
	return errs
}

type tcpService struct {
	name string // "HTTP", "HTTPS", ...
	env  string
	port int
}

func (c Config) tcpServices() []tcpService {
	var out []tcpService
	for _, p := range c.ports() {
		out = append(out, tcpService{p.name, p.env, *p.port})
	}
	return out
}

// portField is one TCP service's port in a Config: the service's name, the
// variable that sets the port, its default and the field.
type portField struct {
	name, env string
	def       int
	port      *int
}

func (c *Config) ports() []portField {
	return []portField{
		{"HTTP", EnvHTTPPort, DefaultHTTPPort, &c.HTTPPort},
		{"HTTPS", EnvHTTPSPort, DefaultHTTPSPort, &c.HTTPSPort},
		{"MySQL", EnvMySQLPort, DefaultMySQLPort, &c.MySQLPort},
		{"FTP", EnvFTPPort, DefaultFTPPort, &c.FTPPort},
		{"SSH", EnvSSHPort, DefaultSSHPort, &c.SSHPort},
		{"Redis", EnvRedisPort, DefaultRedisPort, &c.RedisPort},
		{"Exporter", EnvExporterPort, DefaultExporterPort, &c.ExporterPort},
	}
}

func checkLoopbackIP(s string) error {
	ip, err := netip.ParseAddr(s)
	if err != nil || ip.Zone() != "" {
		return errors.New("not an IP address; the demo target listens on a loopback IP such as 127.0.0.2 (Linux) or 127.0.0.1")
	}
	if !ip.IsLoopback() {
		return errors.New("not a loopback address; the demo target is deliberately weak and only ever listens on loopback (127.0.0.0/8 or ::1)")
	}
	return nil
}

// checkLoopbackHostPort accepts "loopback-ip:port"; port 0 only if allowZero.
func checkLoopbackHostPort(s string, allowZero bool) error {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("want ip:port, e.g. 127.0.0.1:8053")
	}
	if err := checkLoopbackIP(host); err != nil {
		return err
	}
	port, err := strconv.Atoi(portText)
	lowest := 1
	if allowZero {
		lowest = 0
	}
	if err != nil || port < lowest || port > 65535 {
		return fmt.Errorf("port %q is not a number from %d to 65535", portText, lowest)
	}
	return nil
}

// checkUpstream accepts "ip:port" with an IP literal: the demo target never
// resolves names itself to find its upstream.
func checkUpstream(s string) error {
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 {
		return errors.New("want ip:port of a DNS server, e.g. 127.0.0.53:53")
	}
	return nil
}

// Target is a running demo target.
type Target struct {
	cfg       Config // validated, ports as configured
	challenge atomic.Pointer[string]

	// Real addresses (port 0 resolved); empty when the service is off.
	dnsAddr, httpAddr, httpsAddr, mysqlAddr, ftpAddr, sshAddr, redisAddr, exporterAddr string
	// ca signs the subdomains' certificates.
	ca *demoCA

	stops     []func() error // in start order; run in reverse by Close
	closeOnce sync.Once
	closeErr  error
	closed    chan struct{} // closed when Close starts
	done      chan struct{} // closed when every service has stopped
}

// Start validates cfg, starts every enabled service and returns once all of
// them are listening. A port already in use is an error naming the
// environment variable to change. The services stop on Close or when ctx
// ends.
func Start(ctx context.Context, cfg Config) (*Target, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start demo target: %w", err)
	}
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, closed: make(chan struct{}), done: make(chan struct{})}
	if err := t.start(); err != nil {
		_ = t.Close()
		return nil, fmt.Errorf("start demo target: %w", err)
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = t.Close()
		case <-t.closed:
		}
	}()
	return t, nil
}

func (t *Target) start() error {
	dns, err := startDNS(t)
	if err != nil {
		return err
	}
	t.dnsAddr = dns.addr
	t.stops = append(t.stops, dns.stop)
	if t.ca, err = newDemoCA(time.Now()); err != nil {
		return err
	}
	// The zone's name server (ns1) lives on the demo's host: when the DNS
	// server listens elsewhere, zone transfers (TCP) are served there too.
	if stop, err := startTransferListener(t, dns); err != nil {
		return err
	} else if stop != nil {
		t.stops = append(t.stops, stop)
	}
	return t.startTCPServices()
}

// startTCPServices listens on and serves each TCP service not turned off.
func (t *Target) startTCPServices() error {
	web := newWebHandler(t)
	for _, s := range t.cfg.tcpServices() {
		if s.port == PortDisabled {
			continue
		}
		ln, err := listenTCP(t.cfg.Host, s)
		if err != nil {
			return err
		}
		if err := t.serve(s.name, ln, web); err != nil {
			ln.Close()
			return err
		}
	}
	return nil
}

// serve starts the service named name on ln and records its address.
func (t *Target) serve(name string, ln net.Listener, web *webHandler) error {
	addr := ln.Addr().String()
	var stop func() error
	switch name {
	case "HTTP":
		t.httpAddr, stop = addr, serveHTTP(ln, web, nil)
	case "HTTPS":
		tlsConfig, err := siteTLS(t.cfg.Domain, t.ca, time.Now())
		if err != nil {
			return err
		}
		t.httpsAddr, stop = addr, serveHTTP(ln, web, tlsConfig)
	case "MySQL":
		t.mysqlAddr, stop = addr, serveBanner(ln, mysqlSession)
	case "FTP":
		var err error
		if stop, err = serveFTP(ln); err != nil {
			return err
		}
		t.ftpAddr = addr
	case "SSH":
		t.sshAddr, stop = addr, serveBanner(ln, sshSession)
	case "Redis":
		t.redisAddr, stop = addr, serveBanner(ln, redisSession)
	case "Exporter":
		t.exporterAddr, stop = addr, serveHTTP(ln, exporterHandler(t.cfg.Domain), nil)
	default:
		return fmt.Errorf("unknown demo service %q", name)
	}
	t.stops = append(t.stops, stop)
	return nil
}

func listenTCP(host string, s tcpService) (net.Listener, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(s.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(s.name, addr, s.env, err)
	}
	return ln, nil
}

// listenError explains how to get past a failed bind.
func listenError(service, addr, env string, err error) error {
	hint := fmt.Sprintf("set %s to a free port", env)
	if env != EnvDNSAddr {
		hint += ` or to "off"`
	}
	if strings.Contains(err.Error(), "assign requested address") {
		hint = fmt.Sprintf("this system does not route %s to loopback; set %s=127.0.0.1", addr, EnvHost)
		if env == EnvDNSAddr {
			hint = fmt.Sprintf("set %s to an address on 127.0.0.1", EnvDNSAddr)
		}
	}
	return fmt.Errorf("%s listen on %s: %w (%s)", service, addr, err, hint)
}

// Close stops every service and waits for them; it is safe to call more
// than once.
func (t *Target) Close() error {
	t.closeOnce.Do(func() {
		close(t.closed)
		var errs []error
		for i := len(t.stops) - 1; i >= 0; i-- {
			if err := t.stops[i](); err != nil {
				errs = append(errs, err)
			}
		}
		t.closeErr = errors.Join(errs...)
		close(t.done)
	})
	return t.closeErr
}

// Done is closed once every service has stopped, after Close or the end of
// Start's context.
func (t *Target) Done() <-chan struct{} { return t.done }

// Config returns the validated configuration (ports as configured; the
// address methods give the real ones).
func (t *Target) Config() Config { return t.cfg }

// Domain returns the demo zone's apex, e.g. "demo.secscan.test".
func (t *Target) Domain() string { return t.cfg.Domain }

// DNSAddr returns the "ip:port" of the zone's DNS server (UDP and TCP).
func (t *Target) DNSAddr() string { return t.dnsAddr }

// HTTPURL returns "http://ip:port" of the web site, or "" when off.
func (t *Target) HTTPURL() string { return urlOf("http", t.httpAddr) }

// HTTPSURL returns "https://ip:port" of the web site, or "" when off.
func (t *Target) HTTPSURL() string { return urlOf("https", t.httpsAddr) }

// MySQLAddr returns the "ip:port" of the MySQL look-alike, or "" when off.
func (t *Target) MySQLAddr() string { return t.mysqlAddr }

// FTPAddr returns the "ip:port" of the anonymous FTP server, or "" when off.
func (t *Target) FTPAddr() string { return t.ftpAddr }

// SSHAddr returns the "ip:port" of the OpenSSH look-alike, or "" when off.
func (t *Target) SSHAddr() string { return t.sshAddr }

// RedisAddr returns the "ip:port" of the Redis look-alike, or "" when off.
func (t *Target) RedisAddr() string { return t.redisAddr }

// RootCAs is the pool of the CA that signed the subdomains' certificates,
// for a scanner that should trust the demo's "internal" CA.
func (t *Target) RootCAs() *x509.CertPool { return t.ca.pool }

// DNSPort is the port the zone's name server answers on (zone transfers
// included), for a scanner that must reach it there instead of 53.
func (t *Target) DNSPort() int { return portOf(t.dnsAddr) }

// HTTPPort is the port the web site answers http:// on (0 when off), for a
// scanner whose web checks must reach it there instead of 80.
func (t *Target) HTTPPort() int { return portOf(t.httpAddr) }

// HTTPSPort is the port the web site answers https:// on (0 when off).
func (t *Target) HTTPSPort() int { return portOf(t.httpsAddr) }

func urlOf(scheme, addr string) string {
	if addr == "" {
		return ""
	}
	return scheme + "://" + addr
}

// Challenge returns the currently published verification token ("" until
// one is published).
func (t *Target) Challenge() string {
	if p := t.challenge.Load(); p != nil {
		return *p
	}
	return ""
}

// PublishChallenge publishes token as both the HTTP challenge file and the
// _service-challenge TXT record, exactly like PUT
// /.well-known/service-challenge.txt does.
func (t *Target) PublishChallenge(token string) error {
	token, err := checkChallenge(token)
	if err != nil {
		return err
	}
	t.challenge.Store(&token)
	return nil
}

const (
	challengePrefix = "service-verify-"
	maxChallenge    = 256
)

// checkChallenge trims token and checks it looks like a verification token;
// the error is a sentence for a plain-text 400.
func checkChallenge(token string) (string, error) {
	if len(token) > maxChallenge {
		return "", fmt.Errorf("the token must be at most %d bytes", maxChallenge)
	}
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, challengePrefix) || len(token) == len(challengePrefix) {
		return "", fmt.Errorf("the token must start with %q followed by the random part (copy verification_token from the target record)", challengePrefix)
	}
	if strings.IndexFunc(token, notTokenRune) >= 0 {
		return "", fmt.Errorf("the token may contain only letters, digits, '-', '_' and '.'")
	}
	return token, nil
}

// notTokenRune says whether r is outside a verification token's alphabet:
// ASCII letters and digits, '-', '_' and '.'.
func notTokenRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// Summary is a few lines saying what runs where, for the local stack's log.
func (t *Target) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "demo target %s (deliberately weak, loopback only)\n", t.cfg.Domain)
	fmt.Fprintf(&b, "  DNS    %s (udp+tcp): %s and www.%s -> %s\n", t.dnsAddr, t.cfg.Domain, t.cfg.Domain, t.cfg.Host)
	fmt.Fprintf(&b, "         subdomains to discover (zone transfer, certificate, link): %s\n", strings.Join(Subdomains, ", "))
	for _, line := range []struct{ name, addr string }{
		{"HTTP", t.HTTPURL()}, {"HTTPS", t.HTTPSURL()},
		{"MySQL", t.mysqlAddr}, {"FTP", t.ftpAddr}, {"SSH", t.sshAddr}, {"Redis", t.redisAddr},
		{"Metrics", t.ExporterURL()},
	} {
		if line.addr != "" {
			fmt.Fprintf(&b, "  %-6s %s\n", line.name, line.addr)
		}
	}
	if web := cmp.Or(t.HTTPURL(), t.HTTPSURL()); web != "" {
		fmt.Fprintf(&b, "  publish a verification token (HTTP file and TXT record at once):\n    curl -k -X PUT --data 'service-verify-…' %s%s\n", web, ChallengePath)
	}
	return b.String()
}

// Package resolver owns every DNS lookup the service makes: address lookups
// for outbound connections (through netguard), TXT lookups for domain
// verification, and Query, one record type as the answer has it (RCODE, AD
// bit, CNAME chain), for the DNS checks. All queries go to one configured
// server (the DNS_SERVER setting, or the first nameserver of
// /etc/resolv.conf), never through the Go or libc resolver, so tests and
// local stacks can point every name the service resolves at a local DNS
// server.
//
// The resolver itself is configuration, not user input: the guarded dialer
// does not apply to the connection to the DNS server.
package resolver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

const (
	// DefaultTimeout bounds one lookup when New is given no timeout.
	DefaultTimeout = 5 * time.Second

	// MaxAnswers bounds how many records one lookup returns; the answer
	// comes from servers we do not control.
	MaxAnswers = 32

	// maxCNAMEHops bounds how far a CNAME chain inside one answer is followed.
	maxCNAMEHops = 8

	// ednsBufferSize is the UDP payload size we advertise (the DNS flag day
	// 2020 value): big enough for most answers, small enough to avoid IP
	// fragmentation. Larger answers come back truncated and are retried
	// over TCP.
	ednsBufferSize = 1232
)

// resolvConfPath is a variable so tests can point New at a fixture.
var resolvConfPath = "/etc/resolv.conf"

var (
	// ErrNXDomain means the name does not exist (RCODE NXDOMAIN).
	ErrNXDomain = errors.New("name does not exist (NXDOMAIN)")
	// ErrNoRecords means the name exists but has no record of the asked type.
	ErrNoRecords = errors.New("no records of the requested type")
	// ErrTimeout means the DNS server did not answer in time.
	ErrTimeout = errors.New("DNS query timed out")
)

// RcodeError reports an answer with an error RCODE other than NXDOMAIN
// (SERVFAIL, REFUSED, ...).
type RcodeError struct {
	Rcode int
}

func (e *RcodeError) Error() string {
	name, ok := dns.RcodeToString[e.Rcode]
	if !ok {
		name = "RCODE " + strconv.Itoa(e.Rcode)
	}
	return "DNS server answered " + name
}

// timeoutError is what lookups return on timeout. It matches both ErrTimeout
// and context.DeadlineExceeded, so callers may test either.
type timeoutError struct {
	after time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s after %s", ErrTimeout, e.after.Round(time.Millisecond))
}

func (e *timeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

func (e *timeoutError) Timeout() bool { return true }

// Resolver sends queries to one DNS server. It is safe for concurrent use.
type Resolver struct {
	server  string
	timeout time.Duration
}

// New returns a Resolver that asks server ("host:port"). An empty server
// means the first nameserver of /etc/resolv.conf on port 53. timeout bounds
// each lookup (both the UDP attempt and a TCP retry); zero or less means
// DefaultTimeout.
func New(server string, timeout time.Duration) (*Resolver, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if server == "" {
		var err error
		if server, err = systemServer(); err != nil {
			return nil, err
		}
	}
	addr, err := serverAddr(server)
	if err != nil {
		return nil, err
	}
	return &Resolver{server: addr, timeout: timeout}, nil
}

// serverAddr checks a "host:port" server address and returns it joined
// again (IPv6 hosts in brackets).
func serverAddr(server string) (string, error) {
	host, port, err := net.SplitHostPort(server)
	if err != nil {
		return "", fmt.Errorf("DNS server %q must be host:port: %w", server, err)
	}
	if host == "" {
		return "", fmt.Errorf("DNS server %q has no host", server)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("DNS server %q has an invalid port", server)
	}
	return net.JoinHostPort(host, port), nil
}

// systemServer is the first nameserver of /etc/resolv.conf, on port 53.
func systemServer() (string, error) {
	cfg, err := dns.ClientConfigFromFile(resolvConfPath)
	if err != nil {
		return "", fmt.Errorf("read system resolver configuration: %w", err)
	}
	if len(cfg.Servers) == 0 {
		return "", fmt.Errorf("no nameserver in %s", resolvConfPath)
	}
	return net.JoinHostPort(cfg.Servers[0], "53"), nil
}

// Server returns the "host:port" queries are sent to.
func (r *Resolver) Server() string { return r.server }

// LookupIP returns the IPv4 (A) and IPv6 (AAAA) addresses of host, IPv4
// first, at most MaxAnswers. An IP literal (optionally in brackets) is
// returned as-is without a query. CNAME chains inside the answer are
// followed.
//
// When neither lookup yields an address, the error matches ErrNXDomain if
// the name does not exist, else the error of a failed query (timeout, RCODE),
// else ErrNoRecords.
func (r *Resolver) LookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	literal := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(literal); err == nil {
		return []netip.Addr{ip}, nil
	}
	name, err := queryName(host)
	if err != nil {
		return nil, err
	}

	type result struct {
		rrs []dns.RR
		err error
	}
	var a, aaaa result
	var wg sync.WaitGroup
	wg.Go(func() { a.rrs, a.err = r.lookup(ctx, name, dns.TypeA) })
	wg.Go(func() { aaaa.rrs, aaaa.err = r.lookup(ctx, name, dns.TypeAAAA) })
	wg.Wait()

	if addrs := addresses(a.rrs, aaaa.rrs); len(addrs) > 0 {
		return addrs, nil
	}
	if err := lookupFailure(a.err, aaaa.err); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("lookup %s A/AAAA: %w", host, ErrNoRecords)
}

// addresses are the distinct addresses of A then AAAA records, at most
// MaxAnswers.
func addresses(a, aaaa []dns.RR) []netip.Addr {
	seen := make(map[netip.Addr]bool)
	var addrs []netip.Addr
	add := func(ip netip.Addr) {
		if ip.IsValid() && !seen[ip] && len(addrs) < MaxAnswers {
			seen[ip] = true
			addrs = append(addrs, ip)
		}
	}
	for _, rr := range a {
		add(addressOf(rr))
	}
	for _, rr := range aaaa {
		add(addressOf(rr))
	}
	return addrs
}

// addressOf is the address of an A or AAAA record (IPv4 unmapped); the
// zero Addr for other records.
func addressOf(rr dns.RR) netip.Addr {
	switch rec := rr.(type) {
	case *dns.A:
		ip, _ := netip.AddrFromSlice(rec.A)
		return ip.Unmap()
	case *dns.AAAA:
		ip, _ := netip.AddrFromSlice(rec.AAAA)
		return ip
	}
	return netip.Addr{}
}

// lookupFailure is the error of an address lookup that found none: a
// non-existent name first, then a failed query; nil when both only found
// no records.
func lookupFailure(aErr, aaaaErr error) error {
	switch {
	case errors.Is(aErr, ErrNXDomain):
		return aErr
	case errors.Is(aaaaErr, ErrNXDomain):
		return aaaaErr
	case aErr != nil && !errors.Is(aErr, ErrNoRecords):
		return aErr
	case aaaaErr != nil && !errors.Is(aaaaErr, ErrNoRecords):
		return aaaaErr
	}
	return nil
}

// LookupTXT returns the TXT records of name, at most MaxAnswers. Each
// record's character-strings are concatenated into one value, as DNS TXT
// semantics say (RFC 7208 section 3.3). CNAME chains inside the answer are
// followed.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	qname, err := queryName(name)
	if err != nil {
		return nil, err
	}
	rrs, err := r.lookup(ctx, qname, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	values := make([]string, 0, len(rrs))
	for _, rr := range rrs {
		if txt, ok := rr.(*dns.TXT); ok {
			var b strings.Builder
			for _, s := range txt.Txt {
				b.WriteString(unescapeTXT(s))
			}
			values = append(values, b.String())
		}
	}
	return values, nil
}

// queryName validates a host name and returns it fully qualified.
func queryName(host string) (string, error) {
	name := dns.Fqdn(host)
	if host == "" || host == "." {
		return "", errors.New("lookup: empty name")
	}
	if _, ok := dns.IsDomainName(name); !ok || len(name) > 254 {
		return "", fmt.Errorf("lookup %q: not a valid domain name", host)
	}
	return name, nil
}

// lookup asks for one type and returns the matching records from the answer
// section (following a CNAME chain), or an error; never an empty success.
func (r *Resolver) lookup(ctx context.Context, name string, qtype uint16) ([]dns.RR, error) {
	typeName := dns.TypeToString[qtype]
	resp, err := r.exchange(ctx, name, qtype)
	if err != nil {
		return nil, fmt.Errorf("lookup %s %s: %w", strings.TrimSuffix(name, "."), typeName, err)
	}
	switch resp.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return nil, fmt.Errorf("lookup %s %s: %w", strings.TrimSuffix(name, "."), typeName, ErrNXDomain)
	default:
		return nil, fmt.Errorf("lookup %s %s: %w", strings.TrimSuffix(name, "."), typeName, &RcodeError{Rcode: resp.Rcode})
	}
	rrs := answersFor(resp.Answer, name, qtype)
	if len(rrs) == 0 {
		return nil, fmt.Errorf("lookup %s %s: %w", strings.TrimSuffix(name, "."), typeName, ErrNoRecords)
	}
	return rrs, nil
}

// answersFor returns the records of type qtype owned by name or by a name
// its CNAME chain (within the answer, bounded) leads to.
func answersFor(answer []dns.RR, name string, qtype uint16) []dns.RR {
	current := dns.CanonicalName(name)
	owners := map[string]bool{current: true}
	for _, target := range followCNAMEs(cnameTargets(answer, false), current, maxCNAMEHops) {
		owners[target] = true
	}

	var out []dns.RR
	for _, rr := range answer {
		h := rr.Header()
		if h.Rrtype == qtype && h.Class == dns.ClassINET && owners[dns.CanonicalName(h.Name)] {
			out = append(out, rr)
			if len(out) == MaxAnswers {
				break
			}
		}
	}
	return out
}

// exchange sends one query over UDP and retries over TCP when the answer is
// truncated. The whole exchange is bounded by the resolver timeout and ctx.
func (r *Resolver) exchange(ctx context.Context, name string, qtype uint16) (*dns.Msg, error) {
	return r.exchangeFlags(ctx, name, qtype, false)
}

// exchangeFlags is exchange; askAD sets the AD bit in the query, which asks
// a validating resolver to report whether it validated the answer (RFC 6840
// section 5.7) without asking for the DNSSEC records themselves (DO).
func (r *Resolver) exchangeFlags(ctx context.Context, name string, qtype uint16, askAD bool) (*dns.Msg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()

	query := newQuery(name, qtype, askAD)
	resp, err := r.exchangeOver(qctx, "udp", query)
	if err == nil && resp.Truncated {
		resp, err = r.exchangeOver(qctx, "tcp", query)
	}
	if err != nil {
		return nil, r.exchangeError(ctx, qctx, err, start)
	}
	if !answers(resp, name, qtype) {
		return nil, fmt.Errorf("query %s: answer does not match the question", r.server)
	}
	return resp, nil
}

// newQuery is a recursive query for name and qtype with EDNS0; askAD sets
// the AD bit.
func newQuery(name string, qtype uint16, askAD bool) *dns.Msg {
	query := new(dns.Msg)
	query.SetQuestion(name, qtype)
	query.RecursionDesired = true
	query.AuthenticatedData = askAD
	query.SetEdns0(ednsBufferSize, false)
	return query
}

// answers reports whether resp is an answer to the one question name,
// qtype (the name compared case-insensitively).
func answers(resp *dns.Msg, name string, qtype uint16) bool {
	return len(resp.Question) == 1 && resp.Question[0].Qtype == qtype && strings.EqualFold(resp.Question[0].Name, name)
}

// exchangeError is the error of an exchange started at start that failed
// with err: the caller's cancellation (ctx), a timeout (qctx is the
// exchange's bound) or the server's failure.
func (r *Resolver) exchangeError(ctx, qctx context.Context, err error, start time.Time) error {
	// A cancelled caller is not a slow server.
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	var netErr net.Error
	if qctx.Err() != nil || (errors.As(err, &netErr) && netErr.Timeout()) {
		return &timeoutError{after: time.Since(start)}
	}
	return fmt.Errorf("query %s: %w", r.server, err)
}

func (r *Resolver) exchangeOver(ctx context.Context, network string, query *dns.Msg) (*dns.Msg, error) {
	client := &dns.Client{Net: network, Timeout: r.timeout}
	conn, err := client.DialContext(ctx, r.server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// miekg/dns honours only the context deadline; closing the connection
	// makes a cancellation interrupt a pending read as well.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	resp, _, err := client.ExchangeWithConnContext(ctx, query, conn)
	return resp, err
}

// unescapeTXT turns miekg/dns's presentation form of a character-string
// (\" \\ and \DDD escapes) back into the raw bytes that were on the wire.
func unescapeTXT(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if v, ok := decimalEscape(s[i+1:]); ok {
			b.WriteByte(v)
			i += 3
			continue
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

// decimalEscape reads the DDD of a \DDD escape (a byte value, at most 255)
// that starts rest.
func decimalEscape(rest string) (byte, bool) {
	if len(rest) < 3 || !isDigit(rest[0]) || !isDigit(rest[1]) || !isDigit(rest[2]) {
		return 0, false
	}
	v := int(rest[0]-'0')*100 + int(rest[1]-'0')*10 + int(rest[2]-'0')
	return byte(v), v <= 255
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

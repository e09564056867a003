package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"secscan/shared/resolver"
)

const (
	// DefaultConnectTimeout bounds each connection attempt.
	DefaultConnectTimeout = 5 * time.Second

	// maxDialAttempts bounds how many resolved addresses are tried, so a
	// name with dozens of dead addresses cannot hold a caller for minutes.
	maxDialAttempts = 4

	// maxResponseHeaderBytes caps response headers from servers we do not
	// control.
	maxResponseHeaderBytes = 64 << 10
)

// Dialer makes outbound connections that only reach addresses its Policy
// allows. Build it with New; it is safe for concurrent use.
type Dialer struct {
	// ConnectTimeout bounds each connection attempt (one resolved address);
	// zero means DefaultConnectTimeout. The context bounds the whole dial.
	ConnectTimeout time.Duration

	resolver *resolver.Resolver
	policy   Policy
}

// New returns a Dialer that resolves names with res and checks every
// address with policy. With a nil res only IP literals can be dialled.
func New(res *resolver.Resolver, policy Policy) *Dialer {
	return &Dialer{resolver: res, policy: policy}
}

// Policy returns the policy the dialer enforces.
func (d *Dialer) Policy() Policy { return d.policy }

// DialContext connects to address ("host:port") on network ("tcp", "tcp4",
// "tcp6", "udp", "udp4", "udp6"). The host is resolved with the configured
// resolver; every resolved address must pass the policy or nothing is
// dialled, and the addresses are dialled as IPs, in order, until one
// connects. The error of a refusal matches ErrForbiddenAddress.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := splitTarget(network, address)
	if err != nil {
		return nil, err
	}
	ips, err := d.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	ips = filterFamily(network, ips)
	if len(ips) == 0 {
		return nil, fmt.Errorf("dial %s: no %s address for %s", address, network, host)
	}
	// One bad address refuses the whole name: a name that mixes public and
	// internal addresses is a rebinding attempt, not a misconfiguration.
	for _, ip := range ips {
		if err := d.policy.check(hostLabel(host, ip), ip); err != nil {
			return nil, err
		}
	}
	return d.dialFirst(ctx, network, address, host, ips, port)
}

// splitTarget checks network and splits address into its host and port.
func splitTarget(network, address string) (string, uint16, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6":
	default:
		return "", 0, fmt.Errorf("dial %s %s: network not supported", network, address)
	}
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, fmt.Errorf("dial %s: %w", address, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("dial %s: invalid port %q", address, portText)
	}
	return host, uint16(port), nil
}

// dialFirst dials the checked addresses ips of host in order (at most
// maxDialAttempts) until one connects.
func (d *Dialer) dialFirst(ctx context.Context, network, address, host string, ips []netip.Addr, port uint16) (net.Conn, error) {
	timeout := d.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	dialer := &net.Dialer{Timeout: timeout, Control: d.policy.control(host)}
	var errs []error
	for _, ip := range ips[:min(len(ips), maxDialAttempts)] {
		conn, err := dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, port).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil || errors.Is(err, ErrForbiddenAddress) {
			break
		}
	}
	if len(errs) == 1 {
		return nil, errs[0] // already names network and address
	}
	return nil, fmt.Errorf("dial %s: %w", address, errors.Join(errs...))
}

// control returns a net.Dialer.Control hook that checks the address the
// socket actually connects to, after every step of DialContext: the last
// line of defense against anything that re-resolves the name.
func (p Policy) control(host string) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse %q", ErrForbiddenAddress, address)
		}
		return p.check(hostLabel(host, ap.Addr()), ap.Addr())
	}
}

// resolve returns the addresses for host; IP literals are parsed, not looked
// up, but still go through the policy like any other address.
func (d *Dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	if d.resolver == nil {
		return nil, fmt.Errorf("resolve %s: no resolver configured", host)
	}
	return d.resolver.LookupIP(ctx, host)
}

// hostLabel is the Host of an AddressError: empty for IP literals.
func hostLabel(host string, ip netip.Addr) string {
	if lit, err := netip.ParseAddr(host); err == nil && lit == ip {
		return ""
	}
	return host
}

func filterFamily(network string, ips []netip.Addr) []netip.Addr {
	want4, want6 := true, true
	switch network[len(network)-1] {
	case '4':
		want6 = false
	case '6':
		want4 = false
	}
	out := ips[:0:0]
	for _, ip := range ips {
		is4 := ip.Unmap().Is4()
		if (is4 && want4) || (!is4 && want6) {
			out = append(out, ip)
		}
	}
	return out
}

// HTTPClient returns an HTTP client whose every connection goes through the
// guarded dialer. It never uses a proxy from the environment (a proxy would
// make the connection, bypassing the check). tlsConfig is cloned and may be
// nil. timeout bounds each request including redirects and reading the body
// (zero: no overall limit beyond the caller's context). Redirects follow
// net/http's default policy; callers set CheckRedirect.
func (d *Dialer) HTTPClient(timeout time.Duration, tlsConfig *tls.Config) *http.Client {
	var tlsClone *tls.Config
	if tlsConfig != nil {
		tlsClone = tlsConfig.Clone()
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		TLSClientConfig:        tlsClone,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
	}
	return &http.Client{Transport: transport, Timeout: timeout}
}

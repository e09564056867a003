// Package netguard owns the one guarded dialer that every outbound
// connection of the product (verification, scanners, webhooks) goes through.
// It resolves names with package resolver, refuses non-public addresses
// (loopback, private, link-local, cloud metadata, ...) after resolution, and
// dials exactly the address it checked; the same check runs again as the
// socket's Control hook on the address actually dialled, which defeats DNS
// rebinding.
//
// The address policy builds on code.dny.dev/ssrf (the IANA special-purpose
// registries); this package adds IPv4-mapped and NAT64 handling, the
// ALLOW_PRIVATE_NETWORKS switch and human-readable refusals.
package netguard

import (
	"errors"
	"fmt"
	"net/netip"

	"code.dny.dev/ssrf"
)

// ErrForbiddenAddress is matched (errors.Is) by every refusal of the policy.
var ErrForbiddenAddress = errors.New("forbidden address")

// Policy decides which IP addresses outbound connections may reach. The zero
// value allows public addresses only. Ports are not restricted: scanners
// need every port.
type Policy struct {
	// AllowPrivate lets connections reach loopback, RFC 1918, carrier-grade
	// NAT and IPv6 unique-local addresses (ALLOW_PRIVATE_NETWORKS, for local
	// stacks and tests).
	AllowPrivate bool
}

// AddressError is the refusal of one address. It matches ErrForbiddenAddress.
type AddressError struct {
	// Host is the name that resolved to Addr; empty when Addr was given as a
	// literal.
	Host string
	// Addr is the refused address as resolved or given (before unmapping).
	Addr netip.Addr
	// Reason describes the address class, e.g. "a loopback address".
	Reason string
	// Private is true when AllowPrivate would have allowed the address.
	Private bool

	cause error // the code.dny.dev/ssrf refusal, when there is one
}

func (e *AddressError) Error() string {
	return e.Summary() + "; " + e.Rule()
}

// Summary says what was refused without revealing what a name resolved to:
// "example.com resolves to a non-public address" (the answer of the
// service's resolver, possibly a private zone, is not the caller's to learn)
// or, for an address the caller gave, "10.0.0.1 is a private address (RFC 1918)".
// Addr and Reason keep the detail for logs.
func (e *AddressError) Summary() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return e.Host + " resolves to a non-public address"
	}
	return e.Addr.String() + " is " + e.Reason
}

// Plain is the refusal as people read it in step outcomes, scanner notes and
// verification errors: Summary then Rule, e.g. "app.example.com resolves to
// a non-public address (private networks are not allowed)". It is the one
// wording of a refusal; callers add their own prefix ("refused: ").
func (e *AddressError) Plain() string {
	return e.Summary() + " (" + e.Rule() + ")"
}

// Rule says which rule refused the address.
func (e *AddressError) Rule() string {
	if e.Private {
		return "private networks are not allowed"
	}
	return "such addresses are never allowed"
}

// Unwrap exposes ErrForbiddenAddress and the underlying ssrf error.
func (e *AddressError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrForbiddenAddress}
	}
	return []error{ErrForbiddenAddress, e.cause}
}

var (
	// privatePrefixes are what AllowPrivate opens. Link-local (including
	// 169.254.169.254, the cloud metadata service), multicast and unspecified
	// addresses are deliberately absent: defense in depth, a local stack
	// never needs them and a metadata endpoint is the classic SSRF prize.
	privateV4Prefixes = []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
	}
	privateV6Prefixes = []netip.Prefix{
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("fc00::/7"),
	}

	// metadataAddrs are cloud metadata endpoints that sit inside ranges
	// AllowPrivate opens; they are refused under every policy. Azure's and
	// GCP's (metadata.google.internal) 169.254.169.254 and AWS's IPv4
	// endpoint are link-local, which AllowPrivate never opens anyway.
	metadataAddrs = []struct {
		addr   netip.Addr
		reason string
	}{
		{netip.MustParseAddr("fd00:ec2::254"), "a unique local address (the AWS metadata service over IPv6)"},
		{netip.MustParseAddr("100.100.100.200"), "a carrier-grade NAT address (the Alibaba Cloud metadata service)"},
	}

	// Networks and ports are not this policy's business (the dialer checks
	// networks itself; scanners need every port), so both are opened.
	publicOnly   = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())
	allowPrivate = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork(),
		ssrf.WithAllowedV4Prefixes(privateV4Prefixes...),
		ssrf.WithAllowedV6Prefixes(privateV6Prefixes...))
)

// Check returns nil when ip may be connected to, else an *AddressError
// (matching ErrForbiddenAddress) saying why. It never touches the network.
func (p Policy) Check(ip netip.Addr) error {
	return p.check("", ip)
}

// CheckResolved is Check for an address that host resolved to: a refusal
// names host and never the address (see AddressError.Summary), so callers
// that resolve a name themselves and dial its addresses as literals word a
// refusal as the dialer does.
func (p Policy) CheckResolved(host string, ip netip.Addr) error {
	return p.check(hostLabel(host, ip), ip)
}

func (p Policy) check(host string, ip netip.Addr) error {
	if !ip.IsValid() {
		return &AddressError{Host: host, Addr: ip, Reason: "not a valid IP address"}
	}
	// Zones only scope link-local and multicast addresses; netip prefixes
	// never contain a zoned address, so judge the address without it.
	bare := ip.WithZone("").Unmap()

	// NAT64 (64:ff9b::/96) reaches the embedded IPv4 address through a
	// gateway: judge that address, and never open it for private networks
	// (a local stack reaches them directly, not through NAT64).
	if ssrf.IPv6NAT64Prefix.Contains(bare) {
		return checkNAT64(host, ip, bare)
	}
	for _, m := range metadataAddrs {
		if bare == m.addr {
			return &AddressError{Host: host, Addr: ip, Reason: mappedReason(ip, bare, m.reason), Private: false}
		}
	}

	guard := publicOnly
	if p.AllowPrivate {
		guard = allowPrivate
	}
	err := guard.SafeAddr(bare)
	if err == nil {
		return nil
	}
	reason, private := classify(bare)
	return &AddressError{Host: host, Addr: ip, Reason: mappedReason(ip, bare, reason), Private: private, cause: err}
}

// checkNAT64 judges the IPv4 address embedded in the NAT64 address bare
// (ip unmapped and without its zone) as a public one.
func checkNAT64(host string, ip, bare netip.Addr) error {
	b := bare.As16()
	v4 := netip.AddrFrom4([4]byte(b[12:16]))
	if err := publicOnly.SafeAddr(v4); err != nil {
		reason, _ := classify(v4)
		return &AddressError{Host: host, Addr: ip, cause: err,
			Reason: fmt.Sprintf("a NAT64 address for %s, %s", v4, reason)}
	}
	return nil
}

// mappedReason words the reason for refusing bare as the reason for ip,
// which may be bare's IPv4-mapped form.
func mappedReason(ip, bare netip.Addr, reason string) string {
	if bare != ip.WithZone("") {
		return fmt.Sprintf("an IPv4-mapped form of %s, %s", bare, reason)
	}
	return reason
}

// Named classes for readable refusals; anything else the ssrf registry
// denies is reported as special-purpose with its prefix.
var addressClasses = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("0.0.0.0/8"), `a "this network" address (0.0.0.0/8)`},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address (RFC 1918)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address (RFC 1918)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address (RFC 6598)"},
	{netip.MustParsePrefix("169.254.169.254/32"), "a link-local address (the cloud metadata service)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique local address (IPv6 ULA)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address (240.0.0.0/4)"},
}

// classify names the class of a refused (unmapped, zoneless) address and
// whether AllowPrivate opens it.
func classify(ip netip.Addr) (reason string, private bool) {
	_, private = firstContaining(ip, privateV4Prefixes, privateV6Prefixes)
	for _, c := range addressClasses {
		if c.prefix.Contains(ip) {
			return c.reason, private
		}
	}
	if p, ok := firstContaining(ip, ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes); ok {
		return "a special-purpose address (" + p.String() + ")", private
	}
	if ip.Is6() && !ssrf.IPv6GlobalUnicast.Contains(ip) {
		return "outside the IPv6 global unicast range", private
	}
	return "not a public address", private
}

// firstContaining is the first prefix of the lists that contains ip.
func firstContaining(ip netip.Addr, lists ...[]netip.Prefix) (netip.Prefix, bool) {
	for _, list := range lists {
		for _, p := range list {
			if p.Contains(ip) {
				return p, true
			}
		}
	}
	return netip.Prefix{}, false
}

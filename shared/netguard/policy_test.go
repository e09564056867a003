package netguard

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"code.dny.dev/ssrf"
)

// These cases only call Policy.Check, which is pure: no address here is
// ever dialled (the tests never send packets beyond loopback).
func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		// allowed under the zero Policy and under AllowPrivate.
		public, private bool
		reason          string // substring of the refusal under the zero Policy
	}{
		{"169.254.169.254", false, false, "a link-local address (the cloud metadata service)"},
		{"169.254.1.1", false, false, "a link-local address"},
		// Metadata endpoints inside ranges AllowPrivate opens stay refused.
		{"fd00:ec2::254", false, false, "the AWS metadata service over IPv6"},
		{"100.100.100.200", false, false, "the Alibaba Cloud metadata service"},
		{"::ffff:100.100.100.200", false, false, "the Alibaba Cloud metadata service"},
		{"64:ff9b::6464:64c8", false, false, "a NAT64 address for 100.100.100.200"},
		{"fd00:ec2::253", false, true, "a unique local address"},
		{"100.100.100.201", false, true, "a carrier-grade NAT address"},
		{"10.0.0.1", false, true, "a private address (RFC 1918)"},
		{"172.16.0.1", false, true, "a private address (RFC 1918)"},
		{"172.31.255.255", false, true, "a private address (RFC 1918)"},
		{"192.168.1.1", false, true, "a private address (RFC 1918)"},
		{"100.64.0.1", false, true, "a carrier-grade NAT address"},
		{"127.0.0.1", false, true, "a loopback address"},
		{"127.1.2.3", false, true, "a loopback address"},
		{"::1", false, true, "a loopback address"},
		{"::ffff:127.0.0.1", false, true, "an IPv4-mapped form of 127.0.0.1, a loopback address"},
		{"::ffff:10.0.0.1", false, true, "an IPv4-mapped form of 10.0.0.1, a private address"},
		{"::ffff:169.254.169.254", false, false, "the cloud metadata service"},
		{"64:ff9b::7f00:1", false, false, "a NAT64 address for 127.0.0.1, a loopback address"},
		{"64:ff9b::a00:1", false, false, "a NAT64 address for 10.0.0.1, a private address"},
		{"64:ff9b::a9fe:a9fe", false, false, "a NAT64 address for 169.254.169.254"},
		{"64:ff9b::808:808", true, true, ""}, // NAT64 form of 8.8.8.8
		{"64:ff9b:1::a00:1", false, false, "outside the IPv6 global unicast range"},
		{"fe80::1", false, false, "a link-local address"},
		{"fe80::1%eth0", false, false, "a link-local address"},
		{"fc00::1", false, true, "a unique local address"},
		{"fd12:3456::1", false, true, "a unique local address"},
		{"224.0.0.1", false, false, "a multicast address"},
		{"239.255.255.250", false, false, "a multicast address"},
		{"ff02::1", false, false, "a multicast address"},
		{"0.0.0.0", false, false, "the unspecified address"},
		{"0.1.2.3", false, false, `a "this network" address`},
		{"::", false, false, "the unspecified address"},
		{"255.255.255.255", false, false, "the broadcast address"},
		{"240.0.0.1", false, false, "a reserved address"},
		{"192.0.2.1", false, false, "a special-purpose address (192.0.2.0/24)"},
		{"198.18.0.1", false, false, "a special-purpose address (198.18.0.0/15)"},
		{"2001:db8::1", false, false, "a special-purpose address (2001:db8::/32)"},
		{"::127.0.0.1", false, false, "outside the IPv6 global unicast range"}, // IPv4-compatible, deprecated
		{"8.8.8.8", true, true, ""},
		{"1.1.1.1", true, true, ""},
		{"2606:4700::1111", true, true, ""},
		{"::ffff:8.8.8.8", true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(tt.addr)
			for _, p := range []Policy{{AllowPrivate: false}, {AllowPrivate: true}} {
				want := tt.public
				if p.AllowPrivate {
					want = tt.private
				}
				err := p.Check(ip)
				if want {
					if err != nil {
						t.Errorf("%+v.Check(%s) = %v, want allowed", p, ip, err)
					}
					continue
				}
				if !errors.Is(err, ErrForbiddenAddress) {
					t.Fatalf("%+v.Check(%s) = %v, want ErrForbiddenAddress", p, ip, err)
				}
				var ae *AddressError
				if !errors.As(err, &ae) || ae.Addr != ip || ae.Private != tt.private {
					t.Errorf("%+v.Check(%s): AddressError = %+v, want Addr %s, Private %v", p, ip, ae, ip, tt.private)
				}
				if !strings.Contains(err.Error(), tt.reason) {
					t.Errorf("%+v.Check(%s) = %q, want it to mention %q", p, ip, err, tt.reason)
				}
			}
		})
	}
}

func TestPolicyCheckMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy Policy
		host   string
		addr   string
		want   string
	}{
		{Policy{}, "", "127.0.0.1",
			"127.0.0.1 is a loopback address; private networks are not allowed"},
		{Policy{}, "app.example.test", "127.0.0.1",
			"app.example.test resolves to a non-public address; private networks are not allowed"},
		{Policy{AllowPrivate: true}, "", "169.254.169.254",
			"169.254.169.254 is a link-local address (the cloud metadata service); such addresses are never allowed"},
		{Policy{}, "", "::ffff:10.0.0.1",
			"::ffff:10.0.0.1 is an IPv4-mapped form of 10.0.0.1, a private address (RFC 1918); private networks are not allowed"},
		{Policy{AllowPrivate: true}, "", "64:ff9b::7f00:1",
			"64:ff9b::7f00:1 is a NAT64 address for 127.0.0.1, a loopback address; such addresses are never allowed"},
	}
	for _, tt := range tests {
		err := tt.policy.check(tt.host, netip.MustParseAddr(tt.addr))
		if err == nil || err.Error() != tt.want {
			t.Errorf("check(%q, %s) = %v\nwant %q", tt.host, tt.addr, err, tt.want)
		}
	}
}

// The policy says metadata endpoints are refused always: with
// ALLOW_PRIVATE_NETWORKS on, the private ranges open but never these.
func TestMetadataEndpointsRefusedWithPrivateNetworks(t *testing.T) {
	t.Parallel()
	p := Policy{AllowPrivate: true}
	for _, a := range []string{"fd00:ec2::254", "100.100.100.200", "169.254.169.254"} {
		err := p.Check(netip.MustParseAddr(a))
		var ae *AddressError
		if !errors.As(err, &ae) || ae.Private || !strings.HasSuffix(err.Error(), "such addresses are never allowed") {
			t.Errorf("AllowPrivate Check(%s) = %v, want refused as never allowed", a, err)
		}
	}
}

func TestPolicyCheckInvalidAndSSRFCause(t *testing.T) {
	t.Parallel()
	if err := (Policy{AllowPrivate: true}).Check(netip.Addr{}); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("Check(zero Addr) = %v, want ErrForbiddenAddress", err)
	}
	// The library's own sentinel stays reachable for callers that use it.
	if err := (Policy{}).Check(netip.MustParseAddr("10.1.1.1")); !errors.Is(err, ssrf.ErrProhibitedIP) {
		t.Errorf("Check(10.1.1.1) = %v, want it to wrap ssrf.ErrProhibitedIP", err)
	}
}

func TestControlHookChecksDialledAddress(t *testing.T) {
	t.Parallel()
	strict := Policy{}.control("rebind.example.test")
	err := strict("tcp4", "127.0.0.1:8080", nil)
	if !errors.Is(err, ErrForbiddenAddress) || err.Error() != "rebind.example.test resolves to a non-public address; private networks are not allowed" {
		t.Errorf("control(127.0.0.1:8080) = %v, want a refusal naming the host", err)
	}
	if err := strict("tcp4", "8.8.8.8:53", nil); err != nil {
		t.Errorf("control(8.8.8.8:53) = %v, want allowed (any port)", err)
	}
	if err := strict("tcp4", "not-an-address", nil); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("control(garbage) = %v, want ErrForbiddenAddress", err)
	}
	lenient := Policy{AllowPrivate: true}.control("app.example.test")
	if err := lenient("tcp6", "[::1]:22", nil); err != nil {
		t.Errorf("AllowPrivate control([::1]:22) = %v, want allowed", err)
	}
	if err := lenient("tcp4", "169.254.169.254:80", nil); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("AllowPrivate control(169.254.169.254:80) = %v, want refused", err)
	}
}

package tools

import (
	"context"
	"encoding/json"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/plans"
	"secscan/shared/scans"
)

// An in-scope name may point (A/AAAA) at anyone's address. Every in-scope
// address gets the tier's usual port list and the service audits, but a
// sweep beyond that list (the deep tier's 65,535 ports, any port range or
// a port list outside the usual one) runs only on an address tied to the
// verified domain: an address of the domain itself, one that serves a TLS
// certificate naming an in-scope name, one that answered HTTP for an
// in-scope Host, or one whose reverse DNS name is in scope. AddressTie
// decides from what the scan already learned; the planner plans the sweep
// with it and port_scan refuses an untied address with it (LookupTie adds
// at most one forward lookup of the domain and one reverse lookup).

// tieLookupTimeout bounds each lookup LookupTie makes.
const tieLookupTimeout = 2 * time.Second

// AddressTie is what ties addr to domain in the surface sf ("" when
// nothing does), and the in-scope name the evidence is about.
func AddressTie(sf scans.Surface, domain, addr string) (scans.Tie, string) {
	if h, ok := sf.Host(domain); ok && slices.Contains(h.Addresses, addr) {
		return scans.TieApex, domain
	}
	if a, ok := sf.Addr(addr); ok && a.TiedBy != "" {
		return a.TiedBy, a.TiedName
	}
	for _, w := range sf.Web {
		if host, port, ok := originHostPort(w.Origin); ok && domainname.InScope(host, domain) && servedAt(sf, host, port, addr) {
			return scans.TieHTTP, host
		}
	}
	return "", ""
}

// originHostPort is the host and port of a web origin.
func originHostPort(origin string) (string, int, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() == "" {
		return "", 0, false
	}
	port := map[string]int{"http": 80, "https": 443}[u.Scheme]
	if p := u.Port(); p != "" {
		port, err = strconv.Atoi(p)
		if err != nil {
			return "", 0, false
		}
	}
	return strings.ToLower(u.Hostname()), port, port > 0
}

// servedAt reports whether the surface's port scans found host's port on
// addr (under host's name or under a name sharing the address).
func servedAt(sf scans.Surface, host string, port int, addr string) bool {
	h, _ := sf.Host(host)
	return slices.ContainsFunc(sf.Services, func(v scans.ServiceInfo) bool {
		return v.Port == port && v.Address == addr && (v.Host == host || slices.Contains(h.Addresses, addr))
	})
}

// LookupTie is AddressTie, completed when the surface has no record of
// addr yet (no port scan probed it): an address of the domain as the
// resolver answers now, or an in-scope reverse DNS name. It returns the
// address's surface entry (not marked probed) with the tie found.
func (e Env) LookupTie(ctx context.Context, addr netip.Addr) scans.Address {
	entry := scans.Address{Address: addr.String()}
	if tie, name := AddressTie(e.Surface, e.Domain, entry.Address); tie != "" {
		entry.TiedBy, entry.TiedName = tie, name
		return entry
	}
	if _, seen := e.Surface.Addr(entry.Address); seen || e.Resolver == nil {
		return entry // looked up when it was first probed
	}
	if _, known := e.Surface.Host(e.Domain); !known {
		lctx, cancel := context.WithTimeout(ctx, tieLookupTimeout)
		ips, err := e.Resolver.LookupIP(lctx, e.Domain)
		cancel()
		if err == nil && slices.Contains(ips, addr) {
			entry.TiedBy, entry.TiedName = scans.TieApex, e.Domain
			return entry
		}
	}
	if name := e.reverseName(ctx, addr); name != "" {
		entry.TiedBy, entry.TiedName = scans.TieReverseDNS, name
	}
	return entry
}

// reverseName is addr's first in-scope reverse DNS name, "" when none.
func (e Env) reverseName(ctx context.Context, addr netip.Addr) string {
	arpa, err := dns.ReverseAddr(addr.String())
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, tieLookupTimeout)
	defer cancel()
	ans, err := e.Resolver.Query(ctx, arpa, dns.TypePTR)
	if err != nil {
		return ""
	}
	for _, rr := range ans.Records {
		if ptr, ok := rr.(*dns.PTR); ok {
			if name := strings.ToLower(strings.TrimSuffix(ptr.Ptr, ".")); domainname.InScope(name, e.Domain) {
				return name
			}
		}
	}
	return ""
}

// Limits are the limits of the scan's tier, not ok outside a scan (no
// tier: a retest re-runs a recorded call).
func (e Env) Limits() (plans.Limits, bool) {
	if e.Tier == "" {
		return plans.Limits{}, false
	}
	return e.Tier.Limits(), true
}

// DeepOnly refuses what only the deep tier may ask for (what describes it)
// on a scan of another tier; nil on the deep tier or outside a scan (no
// tier).
func DeepOnly(tier plans.Tier, what string) error {
	if tier == "" || tier == plans.Deep {
		return nil
	}
	return Refuse("%s is the deep tier's; this is a %s scan", what, tier)
}

// TierBound is a tool with inputs beyond some tiers' limits (plans.Limits:
// the deep tier's range calls, wordlist and crawl). CheckTier refuses them
// for tier with an *InputError; the tool checks its input with it before
// running, and a model's proposal is checked with it before it is run.
type TierBound interface {
	CheckTier(tier plans.Tier, input json.RawMessage) error
}

// CheckAddressCap refuses a probe of host's address addr when the scan's
// port scans have already probed the most distinct addresses its tier
// allows and addr is not one of them.
func (e Env) CheckAddressCap(host string, addr netip.Addr) error {
	lim, ok := e.Limits()
	if !ok {
		return nil
	}
	probed := 0
	for _, a := range e.Surface.Addresses {
		if a.Probed {
			if a.Address == addr.String() {
				return nil
			}
			probed++
		}
	}
	if probed >= lim.Addresses {
		return Refuse("the scan already probed %d distinct addresses, the most a %s scan probes; %s is on another one: %s",
			probed, e.Tier, host, scans.NotProbedAddressCap)
	}
	return nil
}

package discovery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"secscan/shared/checks"
	"secscan/shared/domainname"
	"secscan/shared/resolver"
	"secscan/shared/scans"
)

// Wildcard DNS. A zone that answers for random labels has a wildcard
// record: the apex and every discovered subzone (a name with evidence of
// children, or any discovered subdomain) are asked for two random labels,
// and when both resolve the zone is reported (dns.wildcard) and guessed
// names under it whose addresses are all wildcard answers are not hosts.
const (
	// MaxWildcardZones bounds the zones asked for random labels per call,
	// the apex included.
	MaxWildcardZones = 20
	// maxSubZones bounds the subzones whose common labels are tried.
	maxSubZones = 8
)

// subLabels are the labels tried under subzones with evidence of children:
// the most common ones of the wordlist.
var subLabels = []string{"www", "api", "app", "admin", "portal", "dev", "test", "staging", "beta", "internal", "db", "git"}

// wildcards is what one call learned of wildcard zones.
type wildcards struct {
	mu      sync.Mutex
	zones   map[string]map[netip.Addr]bool // zone → the wildcard's addresses (nil: no wildcard)
	probes  map[string][2]string           // zone → the random names asked
	hints   map[string]bool                // names with evidence of children
	dropped map[string]int                 // zone → guessed names dropped as its answers
}

func newWildcards() *wildcards {
	return &wildcards{zones: map[string]map[netip.Addr]bool{}, probes: map[string][2]string{},
		hints: map[string]bool{}, dropped: map[string]int{}}
}

// hint records that name has children (a `*.name` record or certificate
// name, or an empty non-terminal).
func (w *wildcards) hint(name string) {
	w.mu.Lock()
	w.hints[name] = true
	w.mu.Unlock()
}

// randomLabel is a label nobody configured: "secscan-" and 16 hex digits.
func randomLabel() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "secscan-" + hex.EncodeToString(b)
}

// probe asks for two random labels under zone; the zone has a wildcard
// when both resolve (the second is asked only when the first resolves).
func (d *discovery) probe(ctx context.Context, zone string) {
	w := d.wild
	w.mu.Lock()
	if _, done := w.zones[zone]; done {
		w.mu.Unlock()
		return
	}
	w.zones[zone] = nil
	w.mu.Unlock()
	var names [2]string
	set := map[netip.Addr]bool{}
	for i := range names {
		names[i] = randomLabel() + "." + zone
		ips, err := d.env.Resolver.LookupIP(ctx, names[i])
		if err != nil || len(ips) == 0 {
			return
		}
		for _, ip := range ips {
			set[ip] = true
		}
	}
	w.mu.Lock()
	w.zones[zone], w.probes[zone] = set, names
	w.mu.Unlock()
}

// wildcardOf returns the addresses of the wildcard covering names directly
// under zone: zone's own, else its nearest ancestor's in scope; nil when
// none is known.
func (d *discovery) wildcardOf(zone string) map[netip.Addr]bool {
	w := d.wild
	w.mu.Lock()
	defer w.mu.Unlock()
	for z := zone; ; {
		if set := w.zones[z]; len(set) > 0 {
			return set
		}
		if z == d.domain {
			return nil
		}
		_, parent, ok := strings.Cut(z, ".")
		if !ok || !domainname.InScope(parent, d.domain) {
			return nil
		}
		z = parent
	}
}

// phantom reports whether a guessed name under zone answered only with the
// wildcard's addresses (and counts it).
func (d *discovery) phantom(zone string, ips []netip.Addr) bool {
	set := d.wildcardOf(zone)
	if len(set) == 0 || slices.ContainsFunc(ips, func(ip netip.Addr) bool { return !set[ip] }) {
		return false
	}
	d.wild.mu.Lock()
	d.wild.dropped[zone]++
	d.wild.mu.Unlock()
	d.mu.Lock()
	d.wildcards++
	d.mu.Unlock()
	return true
}

// subzones are the in-scope names below the apex worth asking for random
// labels, best evidence first: names known to have children (wildcard
// names, empty non-terminals), ancestors of candidates, then the
// candidates themselves; at most MaxWildcardZones-1.
func (d *discovery) subzones() (withChildren, all []string) {
	cands := d.candidateNames()
	hints, ancestors := d.hintNames(), ancestorsOf(cands, d.domain)
	seen := map[string]bool{d.domain: true}
	add := func(list *[]string, names []string) {
		for _, n := range names {
			if !seen[n] && domainname.InScope(n, d.domain) && len(all) < MaxWildcardZones-1 {
				seen[n] = true
				*list = append(*list, n)
				if list != &all {
					all = append(all, n)
				}
			}
		}
	}
	add(&withChildren, hints)
	add(&withChildren, ancestors)
	add(&all, cands)
	return withChildren, all
}

// hintNames are the names with evidence of children, sorted.
func (d *discovery) hintNames() []string {
	d.wild.mu.Lock()
	defer d.wild.mu.Unlock()
	return slices.Sorted(maps.Keys(d.wild.hints))
}

// ancestorsOf are the distinct names between each of names and domain,
// sorted.
func ancestorsOf(names []string, domain string) []string {
	var out []string
	for _, n := range names {
		for _, p := range between(n, domain) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// between are the names strictly between name and domain: a.b.c.example.com
// → b.c.example.com, c.example.com.
func between(name, domain string) []string {
	var out []string
	for {
		_, parent, ok := strings.Cut(name, ".")
		if !ok || parent == domain || !strings.HasSuffix(parent, "."+domain) {
			return out
		}
		out = append(out, parent)
		name = parent
	}
}

// wildcardSubzones asks every subzone for random labels and, with the
// wordlist source, tries the common labels under subzones that have
// children or a wildcard; names answering only the wildcard's addresses
// are dropped.
func (d *discovery) wildcardSubzones(ctx context.Context, bruteForce bool) {
	withChildren, all := d.subzones()
	inParallel(ctx, resolveConcurrency, all, func(_ int, z string) { d.probe(ctx, z) })
	if !bruteForce {
		return
	}
	var guesses [][2]string // label, zone
	for _, z := range d.guessZones(withChildren, all) {
		for _, l := range subLabels {
			guesses = append(guesses, [2]string{l, z})
		}
	}
	inParallel(ctx, resolveConcurrency, guesses, func(_ int, g [2]string) { d.guess(ctx, g[0], g[1]) })
}

// guessZones are the first maxSubZones subzones that have children or a
// wildcard of their own: the zones whose common labels are tried.
func (d *discovery) guessZones(withChildren, all []string) []string {
	var out []string
	for _, z := range all {
		if len(out) < maxSubZones && (slices.Contains(withChildren, z) || d.ownWildcard(z)) {
			out = append(out, z)
		}
	}
	return out
}

// guess resolves label.zone and considers it found by the wordlist unless
// it has no address or answers only the zone's wildcard; it returns the
// lookup's error.
func (d *discovery) guess(ctx context.Context, label, zone string) error {
	name := label + "." + zone
	ips, err := d.env.Resolver.LookupIP(ctx, name)
	if err != nil || len(ips) == 0 || d.phantom(zone, ips) {
		return err
	}
	d.consider(name, scans.SourceWordlist)
	return nil
}

// ownWildcard reports whether zone has a wildcard of its own: its random
// labels resolved to other addresses than its nearest wildcard ancestor's
// (a wildcard matching several levels, as some DNS services do, is the
// ancestor's, not another one).
func (d *discovery) ownWildcard(zone string) bool {
	d.wild.mu.Lock()
	set := d.wild.zones[zone]
	d.wild.mu.Unlock()
	if len(set) == 0 {
		return false
	}
	if zone == d.domain {
		return true
	}
	_, parent, _ := strings.Cut(zone, ".")
	above := d.wildcardOf(parent)
	if len(above) != len(set) {
		return true
	}
	for ip := range set {
		if !above[ip] {
			return true
		}
	}
	return false
}

// wildcardFindings are the dns.wildcard findings: one per zone with a
// wildcard of its own.
func (d *discovery) wildcardFindings() []scans.Finding {
	d.wild.mu.Lock()
	zones := make([]string, 0, len(d.wild.zones))
	for z, set := range d.wild.zones {
		if len(set) > 0 {
			zones = append(zones, z)
		}
	}
	d.wild.mu.Unlock()
	slices.Sort(zones)
	var out []scans.Finding
	for _, z := range zones {
		if !d.ownWildcard(z) {
			continue
		}
		d.wild.mu.Lock()
		names, set, dropped := d.wild.probes[z], d.wild.zones[z], d.wild.dropped[z]
		d.wild.mu.Unlock()
		ev := fmt.Sprintf("the random names %s and %s resolve to %s: *.%s answers for any label", names[0], names[1], joinAddrs(set), z)
		if dropped > 0 {
			ev += fmt.Sprintf("; %d guessed names under it answered only these addresses and were not taken as hosts", dropped)
		}
		f := checks.DNSWildcard.Finding(z, nil, ev)
		f.Confidence = scans.Certain
		out = append(out, f)
	}
	return out
}

func joinAddrs(m map[netip.Addr]bool) string {
	var out []string
	for a := range m {
		out = append(out, a.String())
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// isEmptyNonTerminal reports whether a lookup error says the name exists
// without addresses (it may have children).
func isEmptyNonTerminal(err error) bool {
	return errors.Is(err, resolver.ErrNoRecords)
}

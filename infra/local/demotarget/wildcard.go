package demotarget

import (
	"strings"

	"github.com/miekg/dns"
)

// WildcardLabel is the subzone with a wildcard record: *.dev.<zone> answers
// any name with the demo host's address, while dev.<zone> itself has no
// record (an empty non-terminal) and the wildcard is left out of the zone
// transfer, so only asking random names finds it.
const WildcardLabel = "dev"

// addWildcard adds the wildcard record to zone.
func addWildcard(zone map[string][]dns.RR, z string, address func(string) dns.RR) {
	name := "*." + WildcardLabel + "." + z
	zone[name] = []dns.RR{address(name)}
}

// lookupName returns the records of name as an authoritative server
// would: its own; else, for a name that does not exist, those the wildcard
// of its closest encloser synthesises (RFC 4592, owned by name); exists
// without records for an empty non-terminal (a name with names below it).
func lookupName(zone map[string][]dns.RR, name string) ([]dns.RR, bool) {
	if rrs, ok := zone[name]; ok {
		return rrs, true
	}
	if hasBelow(zone, name) {
		return nil, true
	}
	for p := name; ; {
		_, parent, ok := strings.Cut(p, ".")
		if !ok || parent == "" {
			return nil, false
		}
		if rrs, ok := zone["*."+parent]; ok {
			return ownedBy(rrs, name), true
		}
		if _, exists := zone[parent]; exists || hasBelow(zone, parent) {
			return nil, false // the closest encloser has no wildcard
		}
		p = parent
	}
}

// ownedBy is a copy of the wildcard's records rrs owned by name.
func ownedBy(rrs []dns.RR, name string) []dns.RR {
	out := make([]dns.RR, len(rrs))
	for i, rr := range rrs {
		out[i] = dns.Copy(rr)
		out[i].Header().Name = name
	}
	return out
}

func hasBelow(zone map[string][]dns.RR, name string) bool {
	for owner := range zone {
		if strings.HasSuffix(owner, "."+name) {
			return true
		}
	}
	return false
}

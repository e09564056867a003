package resolver

import (
	"context"
	"fmt"
	"strings"

	"github.com/miekg/dns"
)

// Answer is what one Query saw: the RCODE, the AD bit and the records that
// matter for the question, each list at most MaxAnswers long.
type Answer struct {
	// Rcode is the answer's RCODE (dns.RcodeSuccess, dns.RcodeNameError,
	// ...). With a CNAME chain in the answer it is about the chain's last
	// name (RFC 6604).
	Rcode int
	// Authenticated is the AD bit. A validating resolver sets it when it
	// validated the answer with DNSSEC; it means nothing when the resolver
	// does not validate or the path to it is not trusted (RFC 4035 section
	// 4.9.3), so treat it as a hint, never as proof.
	Authenticated bool
	// Records are the records of the asked type owned by the queried name
	// itself. A CNAME query returns the name's CNAME record here.
	Records []dns.RR
	// CNAMEs is the CNAME chain the answer holds from the queried name, in
	// order, as canonical (lowercase, fully qualified) names: CNAMEs[0] is
	// the queried name's target. At most maxCNAMEHops long.
	CNAMEs []string
	// Aliased are the records of the asked type owned by the names of
	// CNAMEs: what a lookup that follows aliases would return besides
	// Records.
	Aliased []dns.RR
	// Authority holds the SOA and NS records of the authority section, e.g.
	// the SOA of the zone that says a name or type does not exist.
	Authority []dns.RR
}

// NXDomain reports whether the answer says the name (or the last name of
// its CNAME chain) does not exist.
func (a Answer) NXDomain() bool { return a.Rcode == dns.RcodeNameError }

// Followed returns Records and Aliased: the records a lookup that follows
// the CNAME chain inside the answer would use.
func (a Answer) Followed() []dns.RR {
	out := make([]dns.RR, 0, len(a.Records)+len(a.Aliased))
	out = append(out, a.Records...)
	return append(out, a.Aliased...)
}

// Zone returns the owner of the SOA record in the authority section
// (canonical), which names the zone a negative answer came from; "" when
// there is none.
func (a Answer) Zone() string {
	for _, rr := range a.Authority {
		if soa, ok := rr.(*dns.SOA); ok {
			return dns.CanonicalName(soa.Hdr.Name)
		}
	}
	return ""
}

// Query asks for one record type of name and reports the answer as it is.
// Unlike LookupIP and LookupTXT, a negative answer is not an error: the
// RCODE (NXDOMAIN, SERVFAIL, REFUSED, ...) and an empty Records are in the
// Answer, so callers that need "does not exist" versus "exists without
// records" can tell. The error is for what yields no answer at all: an
// invalid name or type, a timeout (matching ErrTimeout), a transport
// failure, an answer that does not match the question.
//
// Query sends exactly one query (two when a truncated UDP answer is retried
// over TCP) and follows no CNAME itself: Records are owned by name. The
// recursive resolver usually puts the chain into the answer; Query reports
// it in CNAMEs and Aliased, and Followed joins them for callers that want
// aliases followed. Zone transfers (AXFR, IXFR) and meta types (ANY, OPT,
// TSIG, ...) are refused: they are not lookups.
func (r *Resolver) Query(ctx context.Context, name string, qtype uint16) (Answer, error) {
	qname, err := queryName(name)
	if err != nil {
		return Answer{}, err
	}
	typeName, known := dns.TypeToString[qtype]
	if !known {
		typeName = fmt.Sprintf("TYPE%d", qtype)
	}
	if !queryable(qtype) {
		return Answer{}, fmt.Errorf("query %s %s: not a lookup type", strings.TrimSuffix(qname, "."), typeName)
	}
	resp, err := r.exchangeFlags(ctx, qname, qtype, true)
	if err != nil {
		return Answer{}, fmt.Errorf("query %s %s: %w", strings.TrimSuffix(qname, "."), typeName, err)
	}
	return answerOf(resp, qname, qtype), nil
}

// queryable reports whether qtype names data a lookup can ask for: not a
// meta type (RFC 6895 section 3.1: OPT, TSIG, TKEY, ...), not a zone
// transfer, not ANY (RFC 8482 lets servers answer it with anything).
func queryable(qtype uint16) bool {
	switch qtype {
	case dns.TypeNone, dns.TypeOPT, dns.TypeTKEY, dns.TypeTSIG, dns.TypeIXFR, dns.TypeAXFR,
		dns.TypeMAILB, dns.TypeMAILA, dns.TypeANY:
		return false
	}
	// 128-255 is the meta/question-only range.
	return qtype < 128 || qtype > 255
}

// answerOf extracts an Answer from a response to name/qtype.
func answerOf(resp *dns.Msg, name string, qtype uint16) Answer {
	a := Answer{Rcode: resp.Rcode, Authenticated: resp.AuthenticatedData}
	owner := dns.CanonicalName(name)
	var onChain map[string]bool
	a.CNAMEs, onChain = cnameChain(resp.Answer, owner, qtype)
	for _, rr := range resp.Answer {
		h := rr.Header()
		if h.Rrtype != qtype || h.Class != dns.ClassINET {
			continue
		}
		switch rrOwner := dns.CanonicalName(h.Name); {
		case rrOwner == owner:
			a.Records = appendBounded(a.Records, rr)
		case onChain[rrOwner] && qtype != dns.TypeCNAME:
			a.Aliased = appendBounded(a.Aliased, rr)
		}
	}
	a.Authority = authority(resp.Ns)
	return a
}

// authority are the SOA and NS records of an authority section, at most
// MaxAnswers.
func authority(ns []dns.RR) []dns.RR {
	var out []dns.RR
	for _, rr := range ns {
		switch rr.Header().Rrtype {
		case dns.TypeSOA, dns.TypeNS:
			out = appendBounded(out, rr)
		}
	}
	return out
}

// appendBounded appends rr unless rrs holds MaxAnswers already.
func appendBounded(rrs []dns.RR, rr dns.RR) []dns.RR {
	if len(rrs) < MaxAnswers {
		rrs = append(rrs, rr)
	}
	return rrs
}

// cnameChain follows the chain from the queried name (owner) through the
// CNAME records of the answer, bounded and loop-free: the targets in
// order, and every name on the chain (owner included). A CNAME question
// ends at the first hop: the resolver does not chase a CNAME asked for as
// data.
func cnameChain(answer []dns.RR, owner string, qtype uint16) (targets []string, onChain map[string]bool) {
	hops := maxCNAMEHops
	if qtype == dns.TypeCNAME {
		hops = 1
	}
	targets = followCNAMEs(cnameTargets(answer, true), owner, hops)
	onChain = map[string]bool{owner: true}
	for _, t := range targets {
		onChain[t] = true
	}
	return targets, onChain
}

// cnameTargets maps the owner of each CNAME record of answer (of class IN
// only, when inetOnly) to its target, canonical; an owner's first record
// wins.
func cnameTargets(answer []dns.RR, inetOnly bool) map[string]string {
	cnames := make(map[string]string)
	for _, rr := range answer {
		c, ok := rr.(*dns.CNAME)
		if !ok || inetOnly && c.Hdr.Class != dns.ClassINET {
			continue
		}
		owner := dns.CanonicalName(c.Hdr.Name)
		if _, dup := cnames[owner]; !dup {
			cnames[owner] = dns.CanonicalName(c.Target)
		}
	}
	return cnames
}

// followCNAMEs follows cnames from owner, at most hops steps and never
// back to a name already on the chain: the targets in order.
func followCNAMEs(cnames map[string]string, owner string, hops int) []string {
	var targets []string
	seen := map[string]bool{owner: true}
	for current := owner; len(targets) < hops; {
		target, ok := cnames[current]
		if !ok || seen[target] {
			break
		}
		targets = append(targets, target)
		seen[target] = true
		current = target
	}
	return targets
}

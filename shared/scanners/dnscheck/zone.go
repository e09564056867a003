package dnscheck

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"secscan/shared/checks"
	"secscan/shared/resolver"
	"secscan/shared/safetext"
)

// maxCAANames bounds the RFC 8659 climb from the domain towards the top
// level domain (which is not asked: registries publish no CAA for users).
const maxCAANames = 8

// queryResult is one Query of the checks.
type queryResult struct {
	name string
	ans  resolver.Answer
	err  error
}

// failure says why the query proves nothing, or "" when it is an answer
// (NOERROR with or without records, or NXDOMAIN).
func (q queryResult) failure() string {
	switch {
	case q.err != nil:
		return safetext.Line(q.err.Error(), 160)
	case q.ans.Rcode != dns.RcodeSuccess && q.ans.Rcode != dns.RcodeNameError:
		return strings.TrimSuffix(q.name, ".") + ": " + rcodeName(q.ans.Rcode)
	}
	return ""
}

func rcodeName(rcode int) string {
	if name, ok := dns.RcodeToString[rcode]; ok {
		return name
	}
	return "RCODE " + strconv.Itoa(rcode)
}

// caaNames are the names whose CAA records may apply to domain (RFC 8659
// section 3): the domain, then each parent down to two labels.
func caaNames(domain string) []string {
	var names []string
	for name := domain; strings.Count(name, ".") >= 1 && len(names) < maxCAANames; {
		names = append(names, name)
		_, parent, _ := strings.Cut(name, ".")
		name = parent
	}
	return names
}

// caa checks the CAA record set relevant to the domain: the first one found
// climbing from the domain to its parents (each name's CNAME is followed,
// as RFC 8659 says). results are in climbing order.
func (r *report) caa(results []queryResult) {
	var climbed []string
	for _, q := range results {
		if reason := q.failure(); reason != "" {
			r.notes = append(r.notes, "CAA: not checked ("+reason+")")
			return
		}
		if note, found := caaNote(q); found {
			r.notes = append(r.notes, note)
			return
		}
		climbed = append(climbed, q.name)
	}
	r.add(checks.CAAMissing, fmt.Sprintf("no CAA record at %s; RFC 8659 applies the closest CAA record set up the tree, and there is none, so every CA may issue for %s",
		strings.Join(climbed, ", "), r.domain))
	r.notes = append(r.notes, "CAA: none")
}

// caaNote describes the CAA record set of one answer; false when it has
// none.
func caaNote(q queryResult) (string, bool) {
	props, restricts := caaProperties(q.ans.Followed())
	if len(props) == 0 {
		return "", false
	}
	note := fmt.Sprintf("CAA (%s): %s", q.name, strings.Join(props[:min(len(props), 4)], ", "))
	if len(props) > 4 {
		note += fmt.Sprintf(" and %d more", len(props)-4)
	}
	if !restricts {
		// RFC 8659 section 4.2: without issue or issuewild, any CA may
		// issue; iodef alone only asks for reports.
		note += " (no issue or issuewild property: it restricts no CA)"
	}
	return note, true
}

// caaProperties describes the CAA records among rrs (tag and value) and
// reports whether any restricts issuance (issue or issuewild).
func caaProperties(rrs []dns.RR) (props []string, restricts bool) {
	for _, rr := range rrs {
		c, ok := rr.(*dns.CAA)
		if !ok {
			continue
		}
		tag := strings.ToLower(c.Tag)
		restricts = restricts || tag == "issue" || tag == "issuewild"
		props = append(props, fmt.Sprintf("%s %q", tag, safetext.Line(c.Value, 80)))
	}
	return props, restricts
}

// zoneApex decides which zone the domain's zone-level checks (DNSSEC, zone
// transfer) look at: the domain when it has NS records, else the zone the
// resolver's negative NS answer names in its SOA, else the scan's domain
// (scope, canonical) when the domain is below it. how explains a choice
// other than the domain.
func zoneApex(domain, scope string, ns queryResult) (apex, how string) {
	if ns.err == nil && len(ns.ans.Records) > 0 {
		return domain, ""
	}
	if ns.err == nil {
		zone := strings.TrimSuffix(ns.ans.Zone(), ".")
		if zone != "" && (zone == domain || strings.HasSuffix(domain, "."+zone)) {
			return zone, fmt.Sprintf("%s has no NS records; the resolver's answer puts it in zone %s", domain, zone)
		}
	}
	if strings.HasSuffix(domain, "."+scope) {
		return scope, fmt.Sprintf("%s has no NS records; its zone is taken to be the scan's domain %s", domain, scope)
	}
	return domain, ""
}

// zoneInfo is what the zone-level checks learnt about the apex.
type zoneInfo struct {
	apex       string
	how        string
	ns, ds, ky queryResult
}

// dnssec reports a zone without a DS record at its parent. Through a
// non-validating resolver only the presence of DS and DNSKEY records can
// be seen; the AD bit is noted when the resolver sets it.
func (r *report) dnssec(z zoneInfo) {
	if reason := z.dnssecUnchecked(); reason != "" {
		r.notes = append(r.notes, "DNSSEC: not checked ("+reason+")")
		return
	}
	ds, keys := countType(z.ds.ans.Records, dns.TypeDS), countType(z.ky.ans.Records, dns.TypeDNSKEY)
	if ds > 0 {
		r.notes = append(r.notes, z.signedNote(ds, keys))
		return
	}
	evidence := fmt.Sprintf("DS query for %s: %s without a DS record, so its parent zone publishes no DS for it", z.apex, rcodeName(z.ds.ans.Rcode))
	if keys > 0 {
		evidence += fmt.Sprintf("; the zone publishes %s, which no validator can trust without a DS at the parent", plural(keys, "DNSKEY record"))
	} else {
		evidence += "; DNSKEY query: no DNSKEY records either"
	}
	if z.how != "" {
		evidence += " (" + z.how + ")"
	}
	evidence += "; only the presence of records was checked, through the scan's resolver, not signatures"
	r.add(checks.DNSSECMissing, evidence)
	r.notes = append(r.notes, fmt.Sprintf("DNSSEC (%s): no DS record, %s", z.apex, plural(keys, "DNSKEY record")))
}

// dnssecUnchecked says why the DS and DNSKEY answers cannot be judged; ""
// when they can.
func (z zoneInfo) dnssecUnchecked() string {
	for _, q := range []queryResult{z.ds, z.ky} {
		if reason := q.failure(); reason != "" {
			if q.err == nil && q.ans.Rcode == dns.RcodeServerFailure {
				// A validating resolver answers SERVFAIL for a zone whose
				// signatures do not validate; a broken server does too.
				reason += ", which a validating resolver also answers for a zone whose signatures fail"
			}
			return reason
		}
	}
	if z.ds.ans.NXDomain() {
		// No zone to speak of (e.g. the domain is a dangling alias).
		return z.apex + " does not exist: NXDOMAIN"
	}
	return ""
}

// signedNote describes a zone with ds DS records at its parent and keys
// DNSKEY records.
func (z zoneInfo) signedNote(ds, keys int) string {
	note := fmt.Sprintf("DNSSEC (%s): %s at the parent, %s", z.apex, plural(ds, "DS record"), plural(keys, "DNSKEY record"))
	switch {
	case keys == 0:
		return note + "; no DNSKEY published, so validating resolvers cannot check the zone's signatures"
	case z.ds.ans.Authenticated && z.ky.ans.Authenticated:
		return note + "; the resolver reports them validated (AD bit)"
	}
	return note + "; presence only, the resolver did not report validation (no AD bit)"
}

func countType(rrs []dns.RR, qtype uint16) int {
	n := 0
	for _, rr := range rrs {
		if rr.Header().Rrtype == qtype {
			n++
		}
	}
	return n
}

// plural is "1 record" or "n records".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

package dnscheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/safetext"
	"secscan/shared/scanners/internal/dnswire"
	"secscan/shared/tools"
)

const (
	// defaultAXFRPort is where name servers answer zone transfers.
	defaultAXFRPort = 53
	// axfrTimeout bounds one name server: resolving it, connecting and
	// reading the start of the answer.
	axfrTimeout = 5 * time.Second
	// maxAXFRServers bounds the name servers tried per call.
	maxAXFRServers = 4
	// maxNSAddrs bounds the addresses of one name server tried.
	maxNSAddrs = 2
	// maxAXFRRecords, maxAXFRBytes and maxAXFRMessages bound what is read
	// from one server. Reading stops much earlier, as soon as the answer
	// shows the transfer is allowed.
	maxAXFRRecords  = 100
	maxAXFRBytes    = 256 << 10
	maxAXFRMessages = 16
	// maxNamesShown caps the name servers listed in one outcome note.
	maxNamesShown = 5
	// maxTransferAliases bounds the names of the CNAME records of an
	// allowed transfer (in the messages read, nothing more is read for
	// them) that are checked for a dangling alias besides aliasNames.
	maxTransferAliases = 32
)

// transferAttempt is one name server's answer to an AXFR request.
type transferAttempt struct {
	ns      string // host name, canonical without the trailing dot
	addr    string // "ip:port" last dialled; "" when none was
	allowed bool
	records int    // records read before stopping, at most maxAXFRRecords
	result  string // short outcome for the notes, e.g. "refused (REFUSED)"
	// aliases are the owner names of the CNAME records read, inside the
	// zone, canonical without the trailing dot, at most maxTransferAliases:
	// the only record data kept, to be checked for dangling aliases.
	aliases []string
}

// transferCheck is the zone-transfer check of one zone.
type transferCheck struct {
	zone       string
	skip       string // why nothing was tried; "" when servers were tried
	attempts   []transferAttempt
	outOfScope []string // name servers not contacted: outside the scan's domain
	overLimit  []string // in scope, not tried: beyond maxAXFRServers
}

// checkTransfers tries an AXFR of zone at each in-scope name server of ns
// (at most maxAXFRServers, in parallel), through the guarded dialer. Name
// servers outside the scan's domain are never contacted, only listed.
func (c Checker) checkTransfers(ctx context.Context, env tools.Env, zone string, ns queryResult) transferCheck {
	tc := transferCheck{zone: zone}
	hosts := nsHosts(ns)
	switch {
	case !env.InScope(zone):
		tc.skip = fmt.Sprintf("zone %s is outside the scan's domain", zone)
		return tc
	case ns.failure() != "":
		tc.skip = "NS lookup failed: " + ns.failure()
		return tc
	case len(hosts) == 0:
		tc.skip = "no NS records at " + zone
		return tc
	}
	tried := tc.sortServers(env, hosts)
	if len(tried) > 0 && env.Dialer == nil {
		tc.skip = "no guarded dialer in the environment"
		return tc
	}
	tc.attempts = make([]transferAttempt, len(tried))
	var wg sync.WaitGroup
	for i, host := range tried {
		wg.Go(func() { tc.attempts[i] = c.tryTransfer(ctx, env, zone, host) })
	}
	wg.Wait()
	return tc
}

// nsHosts are the distinct name servers of an NS answer, canonical
// without the trailing dot, in the answer's order.
func nsHosts(ns queryResult) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, rr := range ns.ans.Records {
		if n, ok := rr.(*dns.NS); ok {
			host := strings.TrimSuffix(dns.CanonicalName(n.Ns), ".")
			if host != "" && !seen[host] {
				seen[host] = true
				hosts = append(hosts, host)
			}
		}
	}
	return hosts
}

// sortServers returns the name servers to try (in scope, at most
// maxAXFRServers) and lists the others on tc.
func (tc *transferCheck) sortServers(env tools.Env, hosts []string) []string {
	var tried []string
	for _, host := range hosts {
		switch {
		case !env.InScope(host):
			tc.outOfScope = append(tc.outOfScope, host)
		case len(tried) == maxAXFRServers:
			tc.overLimit = append(tc.overLimit, host)
		default:
			tried = append(tried, host)
		}
	}
	return tried
}

// tryTransfer resolves one name server and asks it for the zone over TCP
// through the guarded dialer, within axfrTimeout.
func (c Checker) tryTransfer(ctx context.Context, env tools.Env, zone, host string) transferAttempt {
	ctx, cancel := context.WithTimeout(ctx, axfrTimeout)
	defer cancel()
	attempt := transferAttempt{ns: host}
	ips, err := env.Resolver.LookupIP(ctx, host)
	if err != nil {
		attempt.result = "not resolved (" + safetext.Line(err.Error(), 120) + ")"
		return attempt
	}
	for _, ip := range ips[:min(len(ips), maxNSAddrs)] {
		// Checked here, where the name is known, so a refusal names the
		// server and never the address it resolved to.
		var refused *netguard.AddressError
		if err := env.Dialer.Policy().CheckResolved(host, ip); errors.As(err, &refused) {
			attempt.result = "not contacted, refused: " + refused.Plain()
			break
		}
		attempt.addr = netip.AddrPortFrom(ip, uint16(c.port(env))).String()
		conn, err := env.Dialer.DialContext(ctx, "tcp", attempt.addr)
		if err != nil {
			attempt.result = "not contacted (" + safetext.Line(err.Error(), 160) + ")"
			if errors.Is(err, netguard.ErrForbiddenAddress) || ctx.Err() != nil {
				break
			}
			continue
		}
		attempt.allowed, attempt.records, attempt.result, attempt.aliases = readTransfer(ctx, conn, zone)
		return attempt
	}
	return attempt
}

func (c Checker) port(env tools.Env) int {
	if c.axfrPort > 0 {
		return c.axfrPort
	}
	if env.Ports.DNS > 0 {
		return env.Ports.DNS
	}
	return defaultAXFRPort
}

// readTransfer sends an AXFR request for zone on conn and reads the answer
// just far enough to tell whether the transfer is allowed: the first record
// is the zone's SOA and at least one more record follows. It counts records
// and keeps none but the owner names of the CNAME records in what it read
// (aliases, inside the zone), and closes conn.
func readTransfer(ctx context.Context, conn net.Conn, zone string) (allowed bool, records int, result string, aliases []string) {
	defer conn.Close()
	// Closing the connection interrupts a pending read on cancellation.
	defer netguard.Bind(ctx, conn)()
	id, failed := sendAXFR(conn, zone)
	if failed != "" {
		return false, 0, failed, nil
	}

	read := 0
	for range maxAXFRMessages {
		body, err := dnswire.ReadFrame(conn, maxAXFRBytes-read)
		if errors.Is(err, dnswire.ErrOverBudget) {
			return false, records, fmt.Sprintf("stopped after %d bytes without a complete answer", maxAXFRBytes), nil
		}
		if err != nil {
			return false, records, closedResult(ctx, err, records), nil
		}
		read += 2 + len(body)
		answer, refusal := transferAnswer(body, id, zone, records == 0)
		if refusal != "" {
			return false, records, refusal, nil
		}
		records = min(records+len(answer), maxAXFRRecords)
		aliases = appendAliases(aliases, answer, zone)
		if records >= 2 {
			return true, records, fmt.Sprintf("allowed (%d records read)", records), aliases
		}
	}
	return false, records, "no records after the SOA", nil
}

// appendAliases adds to names the owners of the CNAME records of rrs below
// zone, each once, at most maxTransferAliases.
func appendAliases(names []string, rrs []dns.RR, zone string) []string {
	suffix := "." + strings.TrimSuffix(dns.CanonicalName(zone), ".")
	for _, rr := range rrs {
		if _, ok := rr.(*dns.CNAME); !ok || len(names) == maxTransferAliases {
			continue
		}
		owner := strings.TrimSuffix(dns.CanonicalName(rr.Header().Name), ".")
		if strings.HasSuffix(owner, suffix) && !slices.Contains(names, owner) {
			names = append(names, owner)
		}
	}
	return names
}

// sendAXFR sends an AXFR request for zone on conn: its id, or why it was
// not sent.
func sendAXFR(conn net.Conn, zone string) (id uint16, failed string) {
	frame, id, err := dnswire.AXFRRequest(zone)
	if err != nil {
		return 0, "request not built: " + err.Error()
	}
	if _, err := conn.Write(frame); err != nil {
		return 0, "request not sent (" + safetext.Line(err.Error(), 120) + ")"
	}
	return id, ""
}

// transferAnswer reads one message of a transfer of zone asked with id:
// its records, or why it does not continue the transfer (first: the
// first message, which must start with the zone's SOA).
func transferAnswer(body []byte, id uint16, zone string, first bool) ([]dns.RR, string) {
	var msg dns.Msg
	if err := msg.Unpack(body); err != nil {
		return nil, "malformed answer"
	}
	if msg.Id != id || !msg.Response {
		return nil, "answer does not match the request"
	}
	if msg.Rcode != dns.RcodeSuccess {
		return nil, "refused (" + rcodeName(msg.Rcode) + ")"
	}
	if len(msg.Answer) == 0 {
		return nil, "refused (empty answer)"
	}
	if first && !isZoneSOA(msg.Answer[0], zone) {
		return nil, "answer is not a transfer of the zone (no SOA first)"
	}
	return msg.Answer, ""
}

// isZoneSOA reports whether rr is the SOA record of zone.
func isZoneSOA(rr dns.RR, zone string) bool {
	soa, ok := rr.(*dns.SOA)
	return ok && strings.EqualFold(dns.CanonicalName(soa.Hdr.Name), dns.CanonicalName(zone))
}

// closedResult says why reading stopped early: the deadline (which also
// closes the connection), or the server closing it.
func closedResult(ctx context.Context, err error, records int) string {
	var netErr net.Error
	switch {
	case ctx.Err() != nil || (errors.As(err, &netErr) && netErr.Timeout()):
		return "no complete answer in time"
	case records == 0:
		return "refused (connection closed without an answer)"
	}
	return "connection closed after the SOA"
}

// zoneTransfer reports name servers that allowed the transfer and notes
// what was tried and what was skipped.
func (r *report) zoneTransfer(tc transferCheck) {
	if tc.skip != "" {
		r.notes = append(r.notes, "zone transfer: not checked ("+tc.skip+")")
		return
	}
	var parts []string
	for _, a := range tc.attempts {
		parts = append(parts, a.ns+" "+a.result)
		if !a.allowed {
			continue
		}
		evidence := fmt.Sprintf("AXFR request for zone %s sent to name server %s (%s) over TCP: answered NOERROR, "+
			"starting with the zone's SOA; %d records seen in the first answer, reading stopped there on purpose "+
			"and no record was kept (only the names of its aliases, checked for dangling CNAMEs)", tc.zone, a.ns, a.addr, a.records)
		f := finding(checks.ZoneTransfer, a.ns, evidence)
		f.Proof = transferProof(tc.zone, a, time.Now())
		if ap, err := netip.ParseAddrPort(a.addr); err == nil {
			port := int(ap.Port())
			f.Port = &port
		}
		r.findings = append(r.findings, f)
	}
	if len(tc.outOfScope) > 0 {
		parts = append(parts, "skipped as out of scope: "+listNames(tc.outOfScope))
	}
	if len(tc.overLimit) > 0 {
		parts = append(parts, fmt.Sprintf("not tried (limit %d servers): %s", maxAXFRServers, listNames(tc.overLimit)))
	}
	r.notes = append(r.notes, fmt.Sprintf("zone transfer (%s): %s", tc.zone, strings.Join(parts, ", ")))
}

func listNames(names []string) string {
	text := strings.Join(names[:min(len(names), maxNamesShown)], ", ")
	if len(names) > maxNamesShown {
		text += fmt.Sprintf(" and %d more", len(names)-maxNamesShown)
	}
	return text
}

// Package dnscheck owns the dns_check tool: the DNS configuration of an
// in-scope domain as seen through the configured resolver. It checks
// e-mail authentication, SPF (RFC 7208) and DMARC (RFC 7489), which decide
// whether anyone can send mail in the domain's name; CAA (RFC 8659), which
// limits the certificate authorities that may issue for it; whether the
// zone has a DNSSEC chain of trust (DS at the parent; presence only, the
// resolver is not assumed to validate); whether its in-scope name servers
// hand the zone to anyone (AXFR, over TCP through the guarded dialer); and
// dangling CNAMEs of the domain, its common subdomains and the in-scope
// names of the surface earlier steps learnt (at most maxAliasNames) into
// hosting services where a released name can be claimed (DNS only, the
// targets are never contacted; discover_hosts checks every name it learns
// the same way, package takeover). The outcome also lists the domain's
// addresses.
//
// Everything but the zone transfer is DNS queries to the configured
// resolver, which is configuration, not a target. The zone transfer
// connects to name servers, so it is only attempted against those whose
// host name is within the scan's domain; the others are listed as skipped.
package dnscheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/checks"
	"secscan/shared/domainname"
	"secscan/shared/resolver"
	"secscan/shared/safetext"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	toolName = "dns_check"
	toolCost = 3
	// callTimeout covers a first round of lookups, a second (the DMARC
	// fallback, the zone apex's records, the alias targets), and the zone
	// transfer attempts (axfrTimeout each, in parallel); the lookups are
	// each bounded by the resolver's own timeout (5 s in production).
	callTimeout = 18 * time.Second
	// queryConcurrency bounds one call's queries in flight (the SPF, DMARC
	// and address lookups come on top).
	queryConcurrency = 8
	// maxSPFLookups is RFC 7208 section 4.6.4's limit on DNS-querying terms.
	maxSPFLookups = 10
	// maxShown caps one record in evidence; maxRecordsShown the records.
	maxShown        = 300
	maxRecordsShown = 5
	maxAddrsShown   = 8
)

// Checker is the dns_check tool. Build it with New.
type Checker struct {
	tooldef.Base
	axfrPort int // 0: defaultAXFRPort
}

// Option configures a Checker.
type Option func(*Checker)

// WithAXFRPort makes zone transfer attempts connect to port instead of 53.
// It exists for tests, whose name servers cannot listen on port 53.
func WithAXFRPort(port int) Option {
	return func(c *Checker) {
		if port > 0 && port <= 65535 {
			c.axfrPort = port
		}
	}
}

// New returns the dns_check tool.
func New(opts ...Option) tools.Tool {
	c := Checker{Base: tooldef.New(toolName, toolCost, callTimeout)}
	for _, opt := range opts {
		opt(&c)
	}
	return c
}

// Description implements tools.Tool.
func (Checker) Description() string {
	return "Checks the DNS configuration of an in-scope domain (default: the scan's domain): SPF (missing, " +
		"several records, +all or ?all, no all, more than 10 DNS lookups), DMARC at _dmarc (missing, several " +
		"records, no valid policy, p=none, pct below 100), CAA (none up the tree), DNSSEC (no DS at the parent; " +
		"presence of records only), zone transfer (AXFR) allowed by the zone's name servers (only name servers " +
		"inside the scan's domain are contacted, over TCP port 53), and dangling CNAMEs of the domain, " +
		"common subdomains (www, mail, app, api, ...) and the in-scope names found so far into services where a released name can be claimed " +
		"(subdomain takeover; DNS only). The outcome also lists the domain's A/AAAA addresses."
}

// InputSchema implements tools.Tool.
func (Checker) InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }

const inputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "domain": {"type": "string", "description": "Domain to check: the scan's domain or one of its subdomains. Default: the scan's domain."}
  }
}`

// Checks implements checks.Emitter.
func (Checker) Checks() []*checks.Check { return emitted }

type input struct {
	Domain string `json:"domain"`
}

// txtAnswer is one TXT lookup: the records, or why there are none.
type txtAnswer struct {
	name    string
	records []string
	err     error
}

// absent reports whether the lookup proved there is no record: the name
// does not exist or has no TXT record. Other errors prove nothing.
func (a txtAnswer) absent() bool {
	return errors.Is(a.err, resolver.ErrNXDomain) || errors.Is(a.err, resolver.ErrNoRecords)
}

// checkedDomain is the domain to check (default: the scan's), normalized;
// a name outside the scan's domain is refused.
func checkedDomain(env tools.Env, domain string) (string, error) {
	if domain == "" {
		domain = env.Domain
	}
	name, err := domainname.Normalize(domain)
	if err != nil {
		return "", tools.Refuse("domain: %v", err)
	}
	if !env.InScope(name) {
		return "", tools.Refuse("domain %s is outside the scan's domain %s", name, env.Domain)
	}
	return name, nil
}

// Run implements tools.Tool.
func (c Checker) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return tools.Result{}, err
	}
	name, err := checkedDomain(env, in.Domain)
	if err != nil {
		return tools.Result{}, err
	}
	if env.Resolver == nil {
		return tools.Result{}, errors.New("dns_check: the environment has no resolver")
	}
	callCtx, cancel := context.WithTimeout(ctx, c.Timeout())
	defer cancel()
	l := &lookups{ctx: callCtx, env: env, q: newQuerier(env.Resolver, queryConcurrency),
		name: name, scope: strings.TrimSuffix(strings.ToLower(env.Domain), ".")}

	l.firstRound()
	if err := ctx.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("dns_check %s: %w", name, err)
	}
	// A dangling alias makes the name look absent to TXT and address
	// lookups, which follow it; it is still a name worth reporting.
	if l.nonexistent() {
		return tools.Result{}, fmt.Errorf("dns_check: %s does not exist (NXDOMAIN)", name)
	}
	rep := &report{domain: name, subdomain: !strings.EqualFold(name, l.scope)}
	l.secondRound(c, rep.subdomain)
	if err := ctx.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("dns_check %s: %w", name, err)
	}
	l.judge(rep)
	return rep.result(), nil
}

// lookups are the queries of one call and their answers.
type lookups struct {
	ctx         context.Context
	env         tools.Env
	q           *querier
	name, scope string

	spf, dmarc, orgDMARC txtAnswer
	addrs                []netip.Addr
	addrErr              error
	caa                  []queryResult
	zone                 zoneInfo
	aliases              []alias
	transfers            transferCheck
	// transferAliases are the names of the CNAME records an allowed zone
	// transfer showed that aliases did not check.
	transferAliases []alias
	// fallback: the name is a subdomain without a DMARC record of its own,
	// and orgDMARC was looked up.
	fallback bool
}

// nonexistent reports that the first round found no such name: TXT and
// address lookups say NXDOMAIN and the name is no alias.
func (l *lookups) nonexistent() bool {
	return errors.Is(l.spf.err, resolver.ErrNXDomain) && errors.Is(l.addrErr, resolver.ErrNXDomain) && l.aliases[0].target == ""
}

// firstRound runs every lookup that depends on nothing else.
func (l *lookups) firstRound() {
	var wg sync.WaitGroup
	ctx, res, name := l.ctx, l.env.Resolver, l.name
	l.caa = make([]queryResult, len(caaNames(name)))
	l.zone = zoneInfo{apex: name}
	wg.Go(func() { l.spf = lookupTXT(ctx, res, name) })
	wg.Go(func() { l.dmarc = lookupTXT(ctx, res, "_dmarc."+name) })
	wg.Go(func() { l.addrs, l.addrErr = res.LookupIP(ctx, name) })
	for i, n := range caaNames(name) {
		wg.Go(func() { l.caa[i] = ask(ctx, l.q, n, dns.TypeCAA) })
	}
	wg.Go(func() { l.askZone(name) })
	wg.Go(func() { l.aliases = lookupAliases(ctx, l.q, aliasNames(name, l.env.Surface.Hosts)) })
	wg.Wait()
}

// askZone asks for the NS, DS and DNSKEY records of apex.
func (l *lookups) askZone(apex string) {
	var wg sync.WaitGroup
	wg.Go(func() { l.zone.ns = ask(l.ctx, l.q, apex, dns.TypeNS) })
	wg.Go(func() { l.zone.ds = ask(l.ctx, l.q, apex, dns.TypeDS) })
	wg.Go(func() { l.zone.ky = ask(l.ctx, l.q, apex, dns.TypeDNSKEY) })
	wg.Wait()
}

// secondRound runs what the first answers lead to.
func (l *lookups) secondRound(c Checker, subdomain bool) {
	var wg sync.WaitGroup
	// A subdomain without its own DMARC record is covered by its
	// organizational domain's (RFC 7489 section 6.6.3). The scan's domain
	// stands in for the organizational domain, which would need the public
	// suffix list to find.
	l.fallback = subdomain && l.dmarc.absent()
	if l.fallback {
		wg.Go(func() { l.orgDMARC = lookupTXT(l.ctx, l.env.Resolver, "_dmarc."+l.scope) })
	}
	// The names are read before resolveTargets writes to l.aliases.
	checked := make([]string, len(l.aliases))
	for i, a := range l.aliases {
		checked[i] = a.name
	}
	wg.Go(func() { resolveTargets(l.ctx, l.q, l.aliases) })
	wg.Go(func() {
		l.zone.apex, l.zone.how = zoneApex(l.name, l.scope, l.zone.ns)
		if l.zone.apex != l.name {
			l.askZone(l.zone.apex)
		}
		l.transfers = c.checkTransfers(l.ctx, l.env, l.zone.apex, l.zone.ns)
		// The zone's own aliases, in the same call: a name only the
		// transfer shows is checked like the common ones.
		if names := l.transfers.aliasesBeyond(checked); len(names) > 0 {
			l.transferAliases = lookupAliases(l.ctx, l.q, names)
			resolveTargets(l.ctx, l.q, l.transferAliases)
		}
	})
	wg.Wait()
}

// judge reports on every answer.
func (l *lookups) judge(rep *report) {
	rep.spf(l.spf)
	if l.fallback && !l.orgDMARC.absent() {
		rep.dmarc(l.orgDMARC, true)
	} else {
		rep.dmarc(l.dmarc, false)
	}
	rep.caa(l.caa)
	rep.dnssec(l.zone)
	rep.zoneTransfer(l.transfers)
	rep.danglingAliases(append(slices.Clone(l.aliases), l.transferAliases...))
	rep.addresses(l.addrs, l.addrErr)
}

// ask runs one Query of the checks.
func ask(ctx context.Context, q *querier, name string, qtype uint16) queryResult {
	ans, err := q.query(ctx, name, qtype)
	return queryResult{name: name, ans: ans, err: err}
}

func lookupTXT(ctx context.Context, res *resolver.Resolver, name string) txtAnswer {
	records, err := res.LookupTXT(ctx, name)
	return txtAnswer{name: name, records: records, err: err}
}

// report accumulates what one call found.
type report struct {
	domain    string
	subdomain bool
	findings  []scans.Finding
	notes     []string // one per check, for the outcome line
}

func (r *report) add(c *checks.Check, evidence string) {
	r.findings = append(r.findings, finding(c, r.domain, evidence))
}

// spf checks the SPF record of the domain.
func (r *report) spf(a txtAnswer) {
	records, ok := r.recordsOf(a, "SPF", isSPF)
	switch {
	case !ok:
		return
	case len(records) == 0:
		f := finding(checks.SPFMissing, r.domain, fmt.Sprintf("no TXT record at %s starts with v=spf1 (%s)", a.name, answered(a)))
		if r.subdomain {
			// Subdomains that send no mail often go without; the domain's
			// own record matters most.
			f.Severity = scans.Low
		}
		r.findings = append(r.findings, f)
		r.notes = append(r.notes, "SPF: none")
	case len(records) > 1:
		r.multiple(checks.SPFMultiple, "SPF", a, records)
	default:
		from := len(r.findings)
		r.spfPolicy(a.name, records[0])
		// The record's findings are proven by the TXT answer.
		p := txtProof(a, time.Now())
		for i := from; i < len(r.findings); i++ {
			r.findings[i].Proof = p
		}
	}
}

// recordsOf returns the records of a that is accepts (kind names them in
// the outcome); false when the lookup failed, which it notes.
func (r *report) recordsOf(a txtAnswer, kind string, is func(string) bool) ([]string, bool) {
	if a.err != nil && !a.absent() {
		r.notes = append(r.notes, kind+": not checked ("+safetext.Line(a.err.Error(), maxShown)+")")
		return nil, false
	}
	var records []string
	for _, txt := range a.records {
		if is(txt) {
			records = append(records, txt)
		}
	}
	return records, true
}

// multiple reports the several records of one kind at a name, where one
// is allowed.
func (r *report) multiple(c *checks.Check, kind string, a txtAnswer, records []string) {
	r.add(c, fmt.Sprintf("%d %s records at %s: %s", len(records), kind, a.name, quoteAll(records)))
	r.notes = append(r.notes, fmt.Sprintf("%s: %d records", kind, len(records)))
}

// spfPolicy judges the one SPF record at name.
func (r *report) spfPolicy(name, record string) {
	r.notes = append(r.notes, "SPF: "+safetext.Line(record, 120))
	evidence := fmt.Sprintf("TXT %s: %q", name, safetext.Line(record, maxShown))
	policy := parseSPF(record)
	switch {
	case policy.all == '+':
		r.add(checks.SPFPassAll, evidence+"; the all mechanism without a qualifier, or with +, lets every sender pass")
	case policy.all == '?':
		r.add(checks.SPFNeutral, evidence+"; ?all gives no verdict for unlisted senders")
	case policy.all == 0 && !policy.redirect:
		r.add(checks.SPFNoAll, evidence+"; without an all mechanism or a redirect, unlisted senders get a neutral result")
	}
	if policy.lookups > maxSPFLookups {
		r.add(checks.SPFTooManyLookups, fmt.Sprintf("%s; the record itself has %d DNS-querying terms (include, a, mx, ptr, exists, redirect), more than the limit of %d",
			evidence, policy.lookups, maxSPFLookups))
	}
}

// isSPF reports whether a TXT record is an SPF record (RFC 7208 section
// 4.5: "v=spf1" alone or followed by a space, case-insensitive).
func isSPF(txt string) bool {
	const prefix = "v=spf1"
	return len(txt) >= len(prefix) && strings.EqualFold(txt[:len(prefix)], prefix) &&
		(len(txt) == len(prefix) || txt[len(prefix)] == ' ')
}

// spfPolicy is what matters in an SPF record for these checks.
type spfPolicy struct {
	all      byte // qualifier of the first all mechanism: '+', '-', '~', '?', or 0 when absent
	redirect bool
	lookups  int // DNS-querying terms in the record itself (includes are not followed)
}

func parseSPF(record string) spfPolicy {
	var p spfPolicy
	fields := strings.Fields(record)
	for _, term := range fields[min(1, len(fields)):] { // after v=spf1
		qualifier, name, term := spfTerm(term)
		switch {
		case name == "all" && p.all == 0:
			p.all = qualifier
		case strings.HasPrefix(term, "redirect="):
			p.redirect = true
			p.lookups++
		case lookupMechanisms[name]:
			p.lookups++
		}
	}
	return p
}

// lookupMechanisms are the SPF mechanisms that query DNS (RFC 7208
// section 4.6.4; the redirect modifier is the other term that does).
var lookupMechanisms = map[string]bool{"include": true, "a": true, "mx": true, "ptr": true, "exists": true}

// spfTerm splits one term of an SPF record, lowercased, into its qualifier
// ('+' when it has none), its name and the term without the qualifier.
func spfTerm(term string) (qualifier byte, name, rest string) {
	rest, qualifier = strings.ToLower(term), '+'
	if strings.ContainsRune("+-~?", rune(rest[0])) {
		qualifier, rest = rest[0], rest[1:]
	}
	name = rest
	if j := strings.IndexAny(rest, ":/="); j >= 0 {
		name = rest[:j]
	}
	return qualifier, name, rest
}

// dmarc checks the DMARC record. inherited is true when the record is the
// scan's domain's, applied to a subdomain without its own.
func (r *report) dmarc(a txtAnswer, inherited bool) {
	records, ok := r.recordsOf(a, "DMARC", isDMARC)
	switch {
	case !ok:
	case len(records) == 0:
		r.add(checks.DMARCMissing, fmt.Sprintf("no TXT record at %s starts with v=DMARC1 (%s)", a.name, answered(a)))
		r.notes = append(r.notes, "DMARC: none")
	case len(records) > 1:
		r.multiple(checks.DMARCMultiple, "DMARC", a, records)
	default:
		r.dmarcPolicy(a.name, records[0], inherited)
	}
}

// dmarcPolicy judges the policy of the DMARC record at name (inherited:
// the organizational domain's, whose sp= tag applies when present).
func (r *report) dmarcPolicy(name, record string, inherited bool) {
	tags := parseTags(record)
	policy, key := tags["p"], "p"
	if inherited && tags["sp"] != "" {
		policy, key = tags["sp"], "sp"
	}
	evidence := fmt.Sprintf("TXT %s: %q", name, safetext.Line(record, maxShown))
	if inherited {
		evidence += fmt.Sprintf(" (%s has no DMARC record of its own, so this one applies, with its %s= tag)", r.domain, key)
	}
	r.notes = append(r.notes, fmt.Sprintf("DMARC (%s): %s=%s", name, key, safetext.Line(policy, 20)))
	switch strings.ToLower(policy) {
	case "none":
		r.add(checks.DMARCNone, evidence+"; "+key+"=none only monitors, receivers still deliver spoofed mail")
	case "quarantine", "reject":
		if n, ok := partialPct(tags); ok {
			r.add(checks.DMARCPartial, fmt.Sprintf("%s; pct=%d applies the policy to %d%% of failing mail", evidence, n, n))
		}
	default:
		r.add(checks.DMARCInvalid, fmt.Sprintf("%s; the %s= tag is missing or not none, quarantine or reject", evidence, key))
	}
}

// partialPct is the pct= tag of a DMARC record when it applies the policy
// to less than all failing mail.
func partialPct(tags map[string]string) (int, bool) {
	pct, ok := tags["pct"]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pct)
	return n, err == nil && n >= 0 && n < 100
}

// isDMARC reports whether a TXT record is a DMARC record: it starts with
// the v=DMARC1 tag, whose value must match exactly (RFC 7489 sections
// 6.3 and 6.6.3).
func isDMARC(txt string) bool {
	first, _, _ := strings.Cut(txt, ";")
	name, value, ok := strings.Cut(first, "=")
	return ok && strings.TrimSpace(name) == "v" && strings.TrimSpace(value) == "DMARC1"
}

// parseTags splits a DMARC record into its tags (names lowercased, values
// trimmed; the first occurrence wins). At most 32 tags are read.
func parseTags(record string) map[string]string {
	tags := map[string]string{}
	for i, part := range strings.Split(record, ";") {
		if i == 32 {
			break
		}
		name, value, ok := strings.Cut(part, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if _, dup := tags[name]; ok && !dup {
			tags[name] = strings.TrimSpace(value)
		}
	}
	return tags
}

// addresses notes the domain's addresses in the outcome.
func (r *report) addresses(addrs []netip.Addr, err error) {
	if err != nil {
		r.notes = append(r.notes, "A/AAAA: none ("+safetext.Line(err.Error(), 120)+")")
		return
	}
	shown := make([]string, 0, min(len(addrs), maxAddrsShown))
	for _, ip := range addrs[:min(len(addrs), maxAddrsShown)] {
		shown = append(shown, ip.String())
	}
	text := strings.Join(shown, ", ")
	if len(addrs) > maxAddrsShown {
		text += fmt.Sprintf(" and %d more", len(addrs)-maxAddrsShown)
	}
	r.notes = append(r.notes, "A/AAAA: "+text)
}

func (r *report) result() tools.Result {
	return tools.Result{
		Outcome:  fmt.Sprintf("%s: %s; %d findings", r.domain, strings.Join(r.notes, "; "), len(r.findings)),
		Findings: r.findings,
	}
}

// answered says how a lookup ended, for evidence.
func answered(a txtAnswer) string {
	switch {
	case errors.Is(a.err, resolver.ErrNXDomain):
		return "the name does not exist: NXDOMAIN"
	case errors.Is(a.err, resolver.ErrNoRecords):
		return "the name has no TXT records"
	case len(a.records) == 0:
		return "no TXT records"
	}
	return "TXT records found: " + quoteAll(a.records)
}

func quoteAll(records []string) string {
	quoted := make([]string, 0, maxRecordsShown)
	for _, rec := range records[:min(len(records), maxRecordsShown)] {
		quoted = append(quoted, strconv.Quote(safetext.Line(rec, maxShown)))
	}
	text := strings.Join(quoted, ", ")
	if len(records) > maxRecordsShown {
		text += fmt.Sprintf(" and %d more", len(records)-maxRecordsShown)
	}
	return text
}

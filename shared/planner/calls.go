package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// what each scan type looks at.
type scope struct {
	dns, ports, tls, web, exposed, code, version, crawl bool
	// ssh: every SSH service found is audited (ssh_audit).
	ssh bool
	// fingerprint: every HTTP(S) service the port scan finds is identified
	// (admin, metrics and debug endpoints on any port).
	fingerprint bool
	// webOnlyPorts: the port scan checks only the web ports.
	webOnlyPorts bool
}

// scopes are the scope of each scan type, given whether the tier is above
// quick.
var scopes = map[scans.Type]func(std bool) scope{
	scans.Full: func(std bool) scope {
		return scope{dns: true, ports: true, tls: true, web: true, exposed: true, code: true, version: true, crawl: std, ssh: true, fingerprint: true}
	},
	scans.Network: func(bool) scope { return scope{dns: true, ports: true, ssh: true, fingerprint: true} },
	scans.Web: func(std bool) scope {
		return scope{ports: true, webOnlyPorts: true, web: true, exposed: true, tls: std, code: std, crawl: std, fingerprint: true}
	},
	scans.SSL:  func(std bool) scope { return scope{ports: true, webOnlyPorts: true, tls: true, web: std} },
	scans.Vuln: func(bool) scope { return scope{ports: true, version: true} },
	scans.Code: func(bool) scope {
		return scope{ports: true, webOnlyPorts: true, exposed: true, code: true, version: true}
	},
}

func scopeOf(t scans.Type, tier plans.Tier) (scope, error) {
	of, ok := scopes[t]
	if !ok {
		return scope{}, fmt.Errorf("no playbook for scan type %q", t)
	}
	return of(tier != plans.Quick), nil
}

// Calls derives the ordered plan of a scan from its state: the domain-wide
// checks and host discovery, follow-ups of findings, a port scan per
// address of the selected hosts, TLS and web checks of every service and
// origin, then the deeper web checks and, on the deep tier, every port.
func Calls(s State) ([]Call, error) {
	sc, err := scopeOf(s.Scan.Type, s.Scan.Tier)
	if err != nil {
		return nil, err
	}
	p := &plan{s: s, sc: sc}
	p.domainWide()
	hosts := selectHosts(s)
	p.calls = append(p.calls, followUps(s, hosts)...)
	p.basics(hosts)
	p.serviceNames()
	p.deeper(hosts)
	p.sweep(hosts)
	return p.calls, nil
}

// plan accumulates the calls of Calls, round by round.
type plan struct {
	s     State
	sc    scope
	calls []Call
	// once-per-address-and-port bookkeeping of round 1.
	scanned, audited, ftpAudited, fingerprinted map[string]bool
}

func (p *plan) add(host, why, tool string, input map[string]any) {
	p.calls = append(p.calls, Call{Tool: tool, Input: encode(input), Host: host, Why: why})
}

// domainWide: the domain's DNS checks and host discovery.
func (p *plan) domainWide() {
	if p.sc.dns {
		p.add("", "DNS records of the domain: e-mail authentication, zone transfer, dangling aliases", DNSCheck, nil)
	}
	if p.s.Scan.Tier == plans.Quick {
		p.add("", "a quick scan covers the domain and www", DiscoverHosts, map[string]any{"sources": []string{"www"}})
	} else {
		p.add("", "map the in-scope hosts before testing them", DiscoverHosts, nil)
	}
	if p.s.Scan.Tier == plans.Deep {
		p.add("", "the deep tier's larger wordlist of subdomain labels", DiscoverHosts,
			map[string]any{"sources": []scans.HostSource{scans.SourceWordlist}, "wordlist": "deep"})
	}
}

// basics is round 1, host by host in priority order: a port scan of its
// address (once per address), then TLS, SSH and web basics of what it
// serves, and an audit of its FTP services.
func (p *plan) basics(hosts []scans.Host) {
	p.scanned = map[string]bool{}
	p.audited = map[string]bool{}
	p.ftpAudited = map[string]bool{}
	p.fingerprinted = map[string]bool{}
	for _, h := range hosts {
		p.hostBasics(hosts, h)
	}
}

// hostBasics are the first calls about one host: its ports, TLS, SSH,
// fingerprints, web origin and FTP.
func (p *plan) hostBasics(hosts []scans.Host, h scans.Host) {
	sc := p.sc
	if h.CNAME != "" {
		p.aliasedOutside(h)
		return
	}
	p.portScan(h)
	svcs := servicesOf(p.s.Surface, h)
	if sc.tls {
		p.tlsChecks(hosts, h, svcs)
	}
	if sc.ssh {
		p.sshAudits(h, svcs)
	}
	if sc.fingerprint {
		p.fingerprints(h, svcs)
	}
	if sc.web {
		p.originCheck(h, svcs)
	}
	if sc.ports && auditsServices(p.s.Scan.Type) {
		p.calls = append(p.calls, ftpAudits(h, svcs, p.ftpAudited)...)
	}
}

// originCheck is the http_check of h's web origin, if it serves one.
func (p *plan) originCheck(h scans.Host, svcs []scans.ServiceInfo) {
	if o := webOrigin(h.Name, svcs); o != "" {
		p.add(h.Name, "web origin "+o, HTTPCheck, map[string]any{"url": o})
	}
}

// aliasedOutside is the call about a host aliased outside the scope: the
// addresses are a third party's, so only the name's home page, as a
// browser would fetch it.
func (p *plan) aliasedOutside(h scans.Host) {
	if p.sc.web {
		p.add(h.Name, "web origin of "+h.Name+", aliased outside the scope to "+h.CNAME+": HTTP(S) checks only", HTTPCheck,
			map[string]any{"url": Origin("https", h.Name, 443)})
	}
}

// portScan: one call per address.
func (p *plan) portScan(h scans.Host) {
	addr := firstAddress(h)
	if !p.sc.ports || p.scanned[addr] {
		return
	}
	p.scanned[addr] = true
	if p.sc.webOnlyPorts {
		p.add(h.Name, "find the web services of "+h.Name, PortScan, map[string]any{"host": h.Name, "preset": "web"})
		return
	}
	// One call per address: the common ports and the default
	// ports of databases, caches and remote administration.
	preset := "top1000+exposures"
	if p.s.Scan.Tier == plans.Quick {
		preset = "top100+exposures"
	}
	p.add(h.Name, "open ports of "+h.Name+", databases, caches and remote administration included", PortScan,
		map[string]any{"host": h.Name, "preset": preset})
}

// tlsChecks: every TLS service of h, once per address, port and
// certificate (tlsCalls).
func (p *plan) tlsChecks(hosts []scans.Host, h scans.Host, svcs []scans.ServiceInfo) {
	for _, v := range svcs {
		if scans.TLSProtocol(v.Protocol) {
			p.calls = append(p.calls, tlsCalls(p.s, hosts, h, v.Port)...)
		}
	}
}

// sshAudits: every service that answered as SSH (a banner starting with
// SSH-, on any port), once per address and port.
func (p *plan) sshAudits(h scans.Host, svcs []scans.ServiceInfo) {
	for _, v := range svcs {
		key := fmt.Sprintf("%s|%d", cmp.Or(v.Address, h.Name), v.Port)
		if v.Protocol == "ssh" && !p.audited[key] {
			p.audited[key] = true
			p.add(h.Name, fmt.Sprintf("SSH service on %s:%d: algorithms, authentication methods, Terrapin", h.Name, v.Port),
				SSHAudit, map[string]any{"host": h.Name, "port": v.Port})
		}
	}
}

// fingerprints: once per address and port (names sharing an address share
// its services), before http_check, which skips the browser header checks
// on a service identified as a machine endpoint.
func (p *plan) fingerprints(h scans.Host, svcs []scans.ServiceInfo) {
	for _, v := range originLast(h.Name, svcs) {
		scheme := httpScheme(v.Protocol)
		key := cmp.Or(v.Address, h.Name) + ":" + strconv.Itoa(v.Port)
		if scheme == "" || p.fingerprinted[key] {
			continue
		}
		p.fingerprinted[key] = true
		o := Origin(scheme, h.Name, v.Port)
		p.add(h.Name, "identify the product behind "+o+" (admin, metrics and debug endpoints)", HTTPFingerprint, map[string]any{"url": o})
	}
}

// originLast orders the services other than the host's web origin first:
// the origin gets the web checks anyway, and a fingerprint is no floor
// call (IsFloor), so a tight budget spends on the others.
func originLast(host string, svcs []scans.ServiceInfo) []scans.ServiceInfo {
	origin := webOrigin(host, svcs)
	ordered := slices.Clone(svcs)
	last := func(v scans.ServiceInfo) int { // 1 for the origin and the web ports
		if Origin(httpScheme(v.Protocol), host, v.Port) == origin || v.Port == 80 || v.Port == 443 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ordered, func(a, b scans.ServiceInfo) int { return cmp.Compare(last(a), last(b)) })
	return ordered
}

// serviceNames: names in the certificates and pages of the services found.
func (p *plan) serviceNames() {
	if p.s.Scan.Tier != plans.Quick && p.sc.ports && len(p.s.Surface.Services) > 0 {
		p.add("", "names in the certificates and pages of the services found", DiscoverHosts, map[string]any{
			"sources": []scans.HostSource{scans.SourceCertificate, scans.SourceCNAME, scans.SourceLink, scans.SourceCSP, scans.SourceCORS, scans.SourceRedirect}})
	}
}

// deeper is round 2: the deeper web checks, host by host; a host that is
// an alias of one before it (same addresses, certificate and home page:
// www and the apex, typically) is covered by that host's calls.
func (p *plan) deeper(hosts []scans.Host) {
	anyOrigin := false
	aliasOf, coveredBy := aliasesOf(p.s, hosts)
	for _, h := range hosts {
		o := webOrigin(h.Name, servicesOf(p.s.Surface, h))
		if o == "" || h.CNAME != "" {
			continue
		}
		anyOrigin = true
		if aliasOf[h.Name] != "" {
			continue
		}
		p.heavyChecks(h, o, coveredBy[h.Name])
	}
	if p.sc.version && !anyOrigin && hasVersionedService(p.s.Surface) {
		p.add(p.s.Scan.Target, "software versions announced in banners", VersionCheck, nil)
	}
}

// heavyChecks are the deeper web checks of one host's origin o, covering
// the hosts that are its aliases.
func (p *plan) heavyChecks(h scans.Host, o string, covers []string) {
	sc := p.sc
	heavy := func(why, tool string, input map[string]any) {
		p.calls = append(p.calls, Call{Tool: tool, Input: encode(input), Host: h.Name, Why: why, Covers: covers})
	}
	if sc.exposed {
		heavy("sensitive files on "+o, ExposedFiles, map[string]any{"base_url": o})
	}
	if sc.version {
		heavy("software versions of "+o+" and banners", VersionCheck, map[string]any{"url": o})
	}
	if sc.code {
		heavy("secrets in the scripts of "+o, CodeScan, map[string]any{"url": o})
	}
	if sc.crawl {
		p.crawls(h, o, heavy)
	}
}

// crawls adds, through heavy, the crawls of h's origin o: the deep tier's
// crawl, and the light crawl from the plain-HTTP origin when the host
// serves one (login forms served over plain HTTP live there) or on the
// other tiers.
func (p *plan) crawls(h scans.Host, o string, heavy func(why, tool string, input map[string]any)) {
	light := cmp.Or(plainOrigin(h.Name, servicesOf(p.s.Surface, h)), o)
	if p.s.Scan.Tier == plans.Deep {
		// Deeper than the light crawl of the same start page, which it
		// covers (breadth-first from the same page, larger bounds).
		heavy("crawl "+o, WebCrawl, map[string]any{"url": o, "max_pages": DeepCrawlPages, "max_depth": DeepCrawlDepth})
	}
	if p.s.Scan.Tier != plans.Deep || light != o {
		heavy("light crawl of "+light+": login forms, forms posting over HTTP, mixed content", WebCrawl,
			map[string]any{"url": light, "max_pages": LightCrawlPages, "max_depth": LightCrawlDepth})
	}
}

// sweep is round 3 (deep): every port of every address tied to the
// verified domain (tools.AddressTie), in SweepChunk ranges, once per
// address whichever names share it; a range the tool could not finish
// within its time bound is continued from where it stopped. An address
// nothing ties to the domain (an in-scope name may point at anyone's
// machine) keeps the usual port scan of round 1.
func (p *plan) sweep(hosts []scans.Host) {
	for _, sw := range sweeps(p.s, p.sc, hosts) {
		if sw.tie != "" {
			p.calls = append(p.calls, addressSweep(hosts, sw.host, sw.addr)...)
		}
	}
	if p.sc.ports && !p.sc.webOnlyPorts && p.s.Scan.Tier == plans.Deep {
		p.calls = append(p.calls, continuations(p.s.Steps)...)
	}
}

// addressSweep is one address the deep tier sweeps, with the host whose
// name its calls use and what ties it to the domain ("" when nothing
// does: no sweep).
type addrSweep struct {
	host scans.Host
	addr string
	tie  scans.Tie
}

// sweeps are the distinct addresses of hosts the deep tier would sweep,
// in plan order, each with its tie (none below the deep tier or without
// port scans).
func sweeps(s State, sc scope, hosts []scans.Host) []addrSweep {
	if !sc.ports || sc.webOnlyPorts || s.Scan.Tier != plans.Deep {
		return nil
	}
	var out []addrSweep
	seen := map[string]bool{}
	for _, h := range hosts {
		addr := firstAddress(h)
		if addr == "" || seen[addr] || h.CNAME != "" || len(h.Addresses) == 0 {
			continue
		}
		seen[addr] = true
		tie, _ := tools.AddressTie(s.Surface, s.Scan.Target, addr)
		out = append(out, addrSweep{host: h, addr: addr, tie: tie})
	}
	return out
}

// notSweptSentence is the summary's line about the addresses a deep scan
// did not sweep because nothing ties them to the domain, "" when none.
func notSweptSentence(s State) string {
	sc, err := scopeOf(s.Scan.Type, s.Scan.Tier)
	if err != nil {
		return ""
	}
	var names []string
	for _, sw := range sweeps(s, sc, selectHosts(s)) {
		if sw.tie == "" {
			names = append(names, sw.host.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%d addresses got the usual port scan but not every port, since nothing ties them to the domain (no certificate "+
		"naming it, no HTTP answer for it, no reverse DNS name in it): %s", len(names), strings.Join(names, ", "))
}

// addressSweep are the range calls over every port of addr, made with h's name.
func addressSweep(hosts []scans.Host, h scans.Host, addr string) []Call {
	// The tool's outcome names the hosts sharing the address.
	why := fmt.Sprintf("every port of %s (%d ranges of %d)", addr, (MaxPort+SweepChunk-1)/SweepChunk, SweepChunk)
	if sharing := namesSharing(hosts, h, addr); len(sharing) > 0 {
		why += ", once for " + strings.Join(append([]string{h.Name}, sharing...), ", ")
	}
	var out []Call
	for from := 1; from <= MaxPort; from += SweepChunk {
		out = append(out, rangeCall(h.Name, why, from, min(from+SweepChunk-1, MaxPort)))
	}
	return out
}

// rangeCall is a port_scan call of the ports from-to of host.
func rangeCall(host, why string, from, to int) Call {
	return Call{Tool: PortScan, Host: host, Why: why,
		Input: encode(map[string]any{"host": host, "range": map[string]int{"from": from, "to": to}})}
}

// Deep tier bounds.
const (
	// MaxPort is the highest TCP port; SweepChunk is the size of one range
	// call of the deep tier's sweep (the port_scan tool's range bound).
	MaxPort    = 65535
	SweepChunk = 4096
	// LightCrawlPages/Depth bound the standard tier's light crawl;
	// DeepCrawlPages/Depth the deep tier's crawl (the web_crawl tool's
	// maximum).
	LightCrawlPages = 10
	LightCrawlDepth = 2
	DeepCrawlPages  = 50
	DeepCrawlDepth  = 3
)

// namesSharing are the other selected hosts whose addresses include addr
// (port-scanned with h's name), sorted.
func namesSharing(hosts []scans.Host, h scans.Host, addr string) []string {
	var out []string
	for _, o := range hosts {
		if o.Name != h.Name && o.CNAME == "" && slices.Contains(o.Addresses, addr) {
			out = append(out, o.Name)
		}
	}
	slices.Sort(out)
	return out
}

// stoppedAt finds where a port_scan range call stopped when its time bound
// ran out ("... not scanned within the time bound (from port N on ...").
var stoppedAt = lazyre.New(`not scanned within the time bound \(from port (\d+) on`)

// continuations are the range calls that finish the ranges earlier calls
// could not within their time bound.
func continuations(steps []scans.Step) []Call {
	var out []Call
	for _, st := range steps {
		if c, ok := continuation(st); ok {
			out = append(out, c)
		}
	}
	return out
}

// continuation is the range call that finishes the range of the step st,
// when st is a range call that stopped at its time bound after progress.
func continuation(st scans.Step) (Call, bool) {
	if st.Tool != PortScan || st.Status != scans.StepOK {
		return Call{}, false
	}
	host, start, end, ok := rangeInput(st.Input)
	if !ok {
		return Call{}, false
	}
	m := stoppedAt.FindStringSubmatch(st.Outcome)
	if m == nil {
		return Call{}, false
	}
	from, err := strconv.Atoi(m[1])
	if err != nil || from <= start || from > end {
		return Call{}, false // no progress: never plan the same range again
	}
	return rangeCall(host, fmt.Sprintf("ports %d-%d of %s, which the range call starting at %d had no time for", from, end, host, start),
		from, end), true
}

// rangeInput reads a port_scan input: its host and range; not ok unless
// it is a range call.
func rangeInput(raw json.RawMessage) (host string, from, to int, ok bool) {
	var in struct {
		Host  string `json:"host"`
		Range *struct {
			From int `json:"from"`
			To   int `json:"to"`
		} `json:"range"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Range == nil {
		return "", 0, 0, false
	}
	return in.Host, in.Range.From, in.Range.To, true
}

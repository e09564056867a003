// Package planner decides the scan agent's next step. Planner is the seam
// between the agent loop and whatever chooses tools: Playbook, the
// deterministic, evidence-driven planner used when no language model is
// configured, or a model-driven planner. Whatever a planner proposes is
// untrusted: the agent checks the tool exists, charges its cost and the tool
// validates its own input.
//
// Playbook plans from what the scan has found so far (State: the surface,
// the findings and the steps recorded): it derives the full ordered list of
// calls the evidence calls for (Calls) and runs the first one not yet run
// that the remaining budget pays for. The same state always gives the same
// plan, and a call is never planned twice.
package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/domainname"
	"secscan/shared/lazyre"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// State is what a planner sees: the scan, the steps recorded so far, the
// findings and the attack surface they produced.
type State struct {
	Scan     scans.Scan
	Steps    []scans.Step
	Findings []scans.Finding
	Surface  scans.Surface
}

// Decision is the next step, or Done when the scan has covered what it should.
type Decision struct {
	Done      bool
	Tool      string
	Input     json.RawMessage
	Reasoning string // why, when a model chose the step
	// Note is appended to the step's outcome: which other host names a
	// call covers (names sharing its address, certificate and home page).
	Note string
	// Model is the model call behind the decision, and ModelCredits what its
	// tokens cost: charged on the step with the tool's cost.
	Model        *scans.ModelUsage
	ModelCredits int
	// Refused, when set, says why the model's proposal (Tool with Input)
	// is not run: out of scope, invalid input, an unknown tool. The agent
	// records it as a refused step, charging the model's tokens only
	// (CONTRACT "Scans"), and never runs the tool.
	Refused string
	// EndTurn, when set, records a model call that chose no tool while the
	// playbook had nothing left to run: a step of tool EndTurnTool, status
	// ok, with EndTurn as its outcome, charged ModelCredits only, so that
	// every model call is charged (CONTRACT "Tiers and credits").
	EndTurn string
}

// EndTurnTool is the tool name of the step that records a model's end of
// turn when no playbook call remained to charge its tokens on.
const EndTurnTool = scans.EndTurnTool

// Summarizer is a planner that can write the executive summary itself (a
// model); rules is the rule-based summary, its fallback.
type Summarizer interface {
	Summarize(ctx context.Context, s State, rules scans.Summary) SummaryResult
}

// SummaryResult is the summary to publish and, when a model was asked, the
// step that records the call (its outcome, tokens and credits).
type SummaryResult struct {
	Summary scans.Summary
	Asked   bool
	Outcome string
	Model   *scans.ModelUsage
	Credits int
}

// ConfigError is a planner failure only the operator can fix (an unknown
// model id, access denied): the agent fails the scan with Reason rather than
// retrying.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return e.Reason }

// Planner chooses the next step of a scan.
type Planner interface {
	Next(ctx context.Context, s State) (Decision, error)
}

// Coverer is a planner that can say, once a scan is done, which discovered
// hosts it did not scan and why (the surface's not_scanned), and in one
// sentence for the summary what the budget or the tier left out ("" when
// nothing).
type Coverer interface {
	Coverage(s State) (notScanned []scans.Host, partial string)
}

// Call is one planned tool call; Host is the host it is about ("" for the
// whole domain), so coverage can tell which hosts were looked at.
type Call struct {
	Tool  string
	Input json.RawMessage
	Host  string
	Why   string
	// Covers are the other host names the call stands for (aliases of Host:
	// the same addresses, certificate and home page), recorded in the
	// step's outcome.
	Covers []string
}

// note is what the step's outcome records about the names c covers.
func (c Call) note() string {
	if len(c.Covers) == 0 {
		return ""
	}
	return "also covers " + strings.Join(c.Covers, ", ") + " (same address, certificate and home page as " + c.Host + ")"
}

// Playbook is the deterministic, evidence-driven planner.
type Playbook struct {
	Tools *tools.Registry
}

// Tool names the planner uses.
const (
	DiscoverHosts = "discover_hosts"
	PortScan      = "port_scan"
	TLSCheck      = "tls_check"
	DNSCheck      = "dns_check"
	HTTPCheck     = "http_check"
	ExposedFiles  = "exposed_files"
	VersionCheck  = "version_check"
	CodeScan      = "code_scan"
	WebCrawl      = "web_crawl"
	ServiceInfo   = "service_info"
	FileSecrets   = "file_secrets"
	ListingFiles  = "listing_files"
	ConfirmCVE    = "confirm_cve"
	SSHAudit      = "ssh_audit"
	// HTTPFingerprint identifies the product of every HTTP(S) service.
	HTTPFingerprint = "http_fingerprint"
)

// HostLimit is how many discovered hosts a tier scans: quick the apex and
// www, standard up to 16, deep up to 64.
func HostLimit(tier plans.Tier) int {
	switch tier {
	case plans.Quick:
		return 2
	case plans.Deep:
		return 64
	}
	return 16
}

// Next returns the next call of the plan not yet run, or Done.
//
// The budget decides how far the plan goes, within CONTRACT "Tiers and
// credits": the domain's own checks (calls about the target domain itself
// or the whole domain, except follow-ups) are the scan's floor. They run in
// order, and when the next of them costs more than the credits left, Next
// proposes it anyway and the agent ends the scan failed with the budget
// error. Everything else (other hosts, follow-ups) runs only while the
// floor's remaining calls stay affordable, and is otherwise left out and
// reported by Coverage: a large surface narrows the scan instead of failing
// it, and a budget too small for the domain itself fails as the contract
// says.
func (p Playbook) Next(_ context.Context, s State) (Decision, error) {
	calls, err := Calls(s)
	if err != nil {
		return Decision{}, err
	}
	done := doneCalls(s.Steps)
	var pending []Call
	floorLeft := 0
	for _, c := range calls {
		if done[callKey(c.Tool, c.Input)] {
			continue
		}
		if p.Tools != nil {
			if _, ok := p.Tools.Get(c.Tool); !ok {
				continue // a tool this deployment does not have
			}
		}
		pending = append(pending, c)
		if floor(c, s.Scan.Target) {
			floorLeft += p.cost(c)
		}
	}
	left := s.Scan.MaxCredits - s.Scan.CreditsUsed
	for _, c := range pending {
		cost := p.cost(c)
		if floor(c, s.Scan.Target) {
			// Affordable or not: an unaffordable floor call is the budget
			// failure the agent reports.
			return Decision{Tool: c.Tool, Input: c.Input, Reasoning: c.Why, Note: c.note()}, nil
		}
		if cost <= left-floorLeft {
			return Decision{Tool: c.Tool, Input: c.Input, Reasoning: c.Why, Note: c.note()}, nil
		}
	}
	return Decision{Done: true}, nil
}

// Baseline is what the playbook still plans for s: the calls not yet run
// (of tools the registry has), the credits of those among them that are the
// domain's own checks (the floor, see Next), and of all of them.
func (p Playbook) Baseline(s State) (pending []Call, floorCost, totalCost int, err error) {
	calls, err := Calls(s)
	if err != nil {
		return nil, 0, 0, err
	}
	done := doneCalls(s.Steps)
	for _, c := range calls {
		if done[callKey(c.Tool, c.Input)] {
			continue
		}
		if p.Tools != nil {
			if _, ok := p.Tools.Get(c.Tool); !ok {
				continue
			}
		}
		pending = append(pending, c)
		totalCost += p.cost(c)
		if floor(c, s.Scan.Target) {
			floorCost += p.cost(c)
		}
	}
	return pending, floorCost, totalCost, nil
}

// IsFloor reports whether c is one of the domain's own checks.
func IsFloor(c Call, domain string) bool { return floor(c, domain) }

// CallKey identifies a call by its tool and canonical input: two calls with
// the same key do the same thing.
func CallKey(tool string, input json.RawMessage) string { return callKey(tool, input) }

// floor reports whether c is one of the domain's own checks (see Next).
func floor(c Call, domain string) bool {
	if c.Host != "" && c.Host != domain {
		return false
	}
	switch c.Tool {
	case ListingFiles, FileSecrets, ServiceInfo, ConfirmCVE, FTPAudit, HTTPFingerprint:
		return false
	}
	return true
}

func (p Playbook) cost(c Call) int {
	if p.Tools == nil {
		return 1
	}
	if tool, ok := p.Tools.Get(c.Tool); ok {
		return tool.Cost()
	}
	return 0
}

// Coverage implements Coverer: the hosts not scanned, and a sentence
// naming them and the planned checks the budget left out.
func (p Playbook) Coverage(s State) ([]scans.Host, string) {
	hosts := p.NotScanned(s)
	var parts []string
	if sentence := NotScannedSentence(hosts, len(s.Surface.Hosts)); sentence != "" {
		parts = append(parts, sentence)
	}
	if calls, err := Calls(s); err == nil {
		done := doneCalls(s.Steps)
		skipped := 0
		for _, c := range calls {
			if !done[callKey(c.Tool, c.Input)] {
				if _, ok := p.Tools.Get(c.Tool); ok || p.Tools == nil {
					skipped++
				}
			}
		}
		if skipped > 0 {
			parts = append(parts, fmt.Sprintf("%d planned checks were not run: credit budget", skipped))
		}
	}
	return hosts, strings.Join(parts, "; ")
}

// NotScanned lists the discovered hosts no step looked at, with the reason:
// the tier's host limit or the credit budget.
func (p Playbook) NotScanned(s State) []scans.Host {
	touched := map[string]bool{}
	for _, st := range s.Steps {
		if h := inputHost(st.Input); h != "" {
			touched[h] = true
		} else if st.Status == scans.StepOK || st.Status == "" {
			touched[s.Scan.Target] = true
		}
	}
	selected := selectHosts(s)
	var out []scans.Host
	for _, h := range s.Surface.Hosts {
		if touched[h.Name] || h.NotScanned != "" {
			continue
		}
		reason := "credit budget"
		if !slices.ContainsFunc(selected, func(x scans.Host) bool { return x.Name == h.Name }) {
			reason = fmt.Sprintf("tier limit (%s scans at most %d hosts)", s.Scan.Tier, HostLimit(s.Scan.Tier))
			if s.Scan.Tier == plans.Quick {
				reason = "tier limit (quick scans only the domain and www)"
			}
		}
		out = append(out, scans.Host{Name: h.Name, NotScanned: reason})
	}
	return out
}

// NotScannedSentence is the summary's line about hosts left out, e.g. "3 of
// 11 discovered hosts were not scanned: credit budget"; empty when none.
func NotScannedSentence(hosts []scans.Host, discovered int) string {
	if len(hosts) == 0 {
		return ""
	}
	var reasons []string
	for _, h := range hosts {
		r, _, _ := strings.Cut(h.NotScanned, " (")
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	verb := "were"
	if len(hosts) == 1 {
		verb = "was"
	}
	return fmt.Sprintf("%d of %d discovered hosts %s not scanned: %s", len(hosts), max(discovered, len(hosts)), verb, strings.Join(reasons, ", "))
}

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

func scopeOf(t scans.Type, tier plans.Tier) (scope, error) {
	std := tier != plans.Quick
	switch t {
	case scans.Full:
		return scope{dns: true, ports: true, tls: true, web: true, exposed: true, code: true, version: true, crawl: std, ssh: true, fingerprint: true}, nil
	case scans.Network:
		return scope{dns: true, ports: true, ssh: true, fingerprint: true}, nil
	case scans.Web:
		return scope{ports: true, webOnlyPorts: true, web: true, exposed: true, tls: std, code: std, crawl: std, fingerprint: true}, nil
	case scans.SSL:
		return scope{ports: true, webOnlyPorts: true, tls: true, web: std}, nil
	case scans.Vuln:
		return scope{ports: true, version: true}, nil
	case scans.Code:
		return scope{ports: true, webOnlyPorts: true, exposed: true, code: true, version: true}, nil
	}
	return scope{}, fmt.Errorf("no playbook for scan type %q", t)
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
	domain := s.Scan.Target
	var calls []Call
	add := func(host, why, tool string, input map[string]any) {
		calls = append(calls, Call{Tool: tool, Input: encode(input), Host: host, Why: why})
	}
	if sc.dns {
		add("", "DNS records of the domain: e-mail authentication, zone transfer, dangling aliases", DNSCheck, nil)
	}
	if s.Scan.Tier == plans.Quick {
		add("", "a quick scan covers the domain and www", DiscoverHosts, map[string]any{"sources": []string{"www"}})
	} else {
		add("", "map the in-scope hosts before testing them", DiscoverHosts, nil)
	}
	if s.Scan.Tier == plans.Deep {
		add("", "the deep tier's larger wordlist of subdomain labels", DiscoverHosts,
			map[string]any{"sources": []scans.HostSource{scans.SourceWordlist}, "wordlist": "deep"})
	}

	hosts := selectHosts(s)
	for _, c := range followUps(s, hosts) {
		calls = append(calls, c)
	}

	// Round 1, host by host in priority order: a port scan of its address
	// (once per address), then TLS, SSH and web basics of what it serves, and
	// an audit of its FTP services.
	scanned := map[string]bool{}
	audited := map[string]bool{}
	ftpAudited := map[string]bool{}
	fingerprinted := map[string]bool{}
	for _, h := range hosts {
		if h.CNAME != "" {
			// Aliased outside the scope: the addresses are a third party's,
			// so only the name's home page, as a browser would fetch it.
			if sc.web {
				add(h.Name, "web origin of "+h.Name+", aliased outside the scope to "+h.CNAME+": HTTP(S) checks only", HTTPCheck,
					map[string]any{"url": Origin("https", h.Name, 443)})
			}
			continue
		}
		if addr := firstAddress(h); sc.ports && !scanned[addr] {
			scanned[addr] = true
			switch {
			case sc.webOnlyPorts:
				add(h.Name, "find the web services of "+h.Name, PortScan, map[string]any{"host": h.Name, "preset": "web"})
			default:
				// One call per address: the common ports and the default
				// ports of databases, caches and remote administration.
				preset := "top1000+exposures"
				if s.Scan.Tier == plans.Quick {
					preset = "top100+exposures"
				}
				add(h.Name, "open ports of "+h.Name+", databases, caches and remote administration included", PortScan,
					map[string]any{"host": h.Name, "preset": preset})
			}
		}
		svcs := servicesOf(s.Surface, h)
		if sc.tls {
			for _, v := range svcs {
				if scans.TLSProtocol(v.Protocol) {
					calls = append(calls, tlsCalls(s, hosts, h, v.Port)...)
				}
			}
		}
		if sc.ssh {
			// Every service that answered as SSH (a banner starting with
			// SSH-, on any port), once per address and port.
			for _, v := range svcs {
				key := fmt.Sprintf("%s|%d", cmpOr(v.Address, h.Name), v.Port)
				if v.Protocol == "ssh" && !audited[key] {
					audited[key] = true
					add(h.Name, fmt.Sprintf("SSH service on %s:%d: algorithms, authentication methods, Terrapin", h.Name, v.Port),
						SSHAudit, map[string]any{"host": h.Name, "port": v.Port})
				}
			}
		}
		if sc.fingerprint {
			// Once per address and port (names sharing an address share its
			// services), before http_check, which skips the browser header
			// checks on a service identified as a machine endpoint.
			// The services other than the host's web origin first: the
			// origin gets the web checks anyway, and a fingerprint is no
			// floor call (IsFloor), so a tight budget spends on the others.
			origin := webOrigin(h.Name, svcs)
			ordered := slices.Clone(svcs)
			slices.SortStableFunc(ordered, func(a, b scans.ServiceInfo) int {
				isOrigin := func(v scans.ServiceInfo) bool {
					return Origin(httpScheme(v.Protocol), h.Name, v.Port) == origin || v.Port == 80 || v.Port == 443
				}
				switch ia, ib := isOrigin(a), isOrigin(b); {
				case ia && !ib:
					return 1
				case ib && !ia:
					return -1
				}
				return 0
			})
			for _, v := range ordered {
				scheme := httpScheme(v.Protocol)
				key := cmpOr(v.Address, h.Name) + ":" + strconv.Itoa(v.Port)
				if scheme == "" || fingerprinted[key] {
					continue
				}
				fingerprinted[key] = true
				o := Origin(scheme, h.Name, v.Port)
				add(h.Name, "identify the product behind "+o+" (admin, metrics and debug endpoints)", HTTPFingerprint, map[string]any{"url": o})
			}
		}
		if o := webOrigin(h.Name, svcs); o != "" && sc.web {
			add(h.Name, "web origin "+o, HTTPCheck, map[string]any{"url": o})
		}
		if sc.ports && auditsServices(s.Scan.Type) {
			calls = append(calls, ftpAudits(h, svcs, ftpAudited)...)
		}
	}
	// Names in the certificates and pages of the services found.
	if s.Scan.Tier != plans.Quick && sc.ports && len(s.Surface.Services) > 0 {
		add("", "names in the certificates and pages of the services found", DiscoverHosts, map[string]any{
			"sources": []scans.HostSource{scans.SourceCertificate, scans.SourceCNAME, scans.SourceLink, scans.SourceCSP, scans.SourceCORS, scans.SourceRedirect}})
	}
	// Round 2: the deeper web checks, host by host; a host that is an
	// alias of one before it (same addresses, certificate and home page:
	// www and the apex, typically) is covered by that host's calls.
	anyOrigin := false
	aliasOf, coveredBy := aliasesOf(s, hosts)
	for _, h := range hosts {
		o := webOrigin(h.Name, servicesOf(s.Surface, h))
		if o == "" || h.CNAME != "" {
			continue
		}
		anyOrigin = true
		if aliasOf[h.Name] != "" {
			continue
		}
		covers := coveredBy[h.Name]
		heavy := func(why, tool string, input map[string]any) {
			calls = append(calls, Call{Tool: tool, Input: encode(input), Host: h.Name, Why: why, Covers: covers})
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
			// Login forms served over plain HTTP live on the http origin: the
			// light crawl starts there when the host serves one.
			light := o
			if p := plainOrigin(h.Name, servicesOf(s.Surface, h)); p != "" {
				light = p
			}
			if s.Scan.Tier == plans.Deep {
				// Deeper than the light crawl of the same start page, which it
				// covers (breadth-first from the same page, larger bounds).
				heavy("crawl "+o, WebCrawl, map[string]any{"url": o, "max_pages": DeepCrawlPages, "max_depth": DeepCrawlDepth})
			}
			if s.Scan.Tier != plans.Deep || light != o {
				heavy("light crawl of "+light+": login forms, forms posting over HTTP, mixed content", WebCrawl,
					map[string]any{"url": light, "max_pages": LightCrawlPages, "max_depth": LightCrawlDepth})
			}
		}
	}
	if sc.version && !anyOrigin && hasVersionedService(s.Surface) {
		add(domain, "software versions announced in banners", VersionCheck, nil)
	}
	// Round 3 (deep): every port of every address, in SweepChunk ranges,
	// once per address whichever names share it; a range the tool could not
	// finish within its time bound is continued from where it stopped.
	if sc.ports && !sc.webOnlyPorts && s.Scan.Tier == plans.Deep {
		scanned := map[string]bool{}
		for _, h := range hosts {
			addr := firstAddress(h)
			if addr == "" || scanned[addr] || h.CNAME != "" {
				continue
			}
			scanned[addr] = true
			// The tool's outcome names the hosts sharing the address.
			why := fmt.Sprintf("every port of %s (%d ranges of %d)", addr, (MaxPort+SweepChunk-1)/SweepChunk, SweepChunk)
			if sharing := namesSharing(hosts, h, addr); len(sharing) > 0 {
				why += ", once for " + strings.Join(append([]string{h.Name}, sharing...), ", ")
			}
			for from := 1; from <= MaxPort; from += SweepChunk {
				calls = append(calls, Call{Tool: PortScan, Host: h.Name, Why: why,
					Input: encode(map[string]any{"host": h.Name, "range": map[string]int{"from": from, "to": min(from+SweepChunk-1, MaxPort)}})})
			}
		}
		calls = append(calls, continuations(s.Steps)...)
	}
	return calls, nil
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
		if st.Tool != PortScan || st.Status != scans.StepOK {
			continue
		}
		var in struct {
			Host  string `json:"host"`
			Range *struct {
				From int `json:"from"`
				To   int `json:"to"`
			} `json:"range"`
		}
		if json.Unmarshal(st.Input, &in) != nil || in.Range == nil {
			continue
		}
		m := stoppedAt.FindStringSubmatch(st.Outcome)
		if m == nil {
			continue
		}
		from, err := strconv.Atoi(m[1])
		if err != nil || from <= in.Range.From || from > in.Range.To {
			continue // no progress: never plan the same range again
		}
		out = append(out, Call{Tool: PortScan, Host: in.Host,
			Why:   fmt.Sprintf("ports %d-%d of %s, which the range call starting at %d had no time for", from, in.Range.To, in.Host, in.Range.From),
			Input: encode(map[string]any{"host": in.Host, "range": map[string]int{"from": from, "to": in.Range.To}})})
	}
	return out
}

// aliasesOf maps each selected host that is an alias of a host before it
// (in plan order) to that host, and each host that has aliases to them:
// the same addresses, the same web origin scheme and port, the same
// certificate on it (tls_check's outcome: subject and expiry) and the same
// home page (http_check's title, server and technologies). Such names are
// one site under two names (www and the apex, typically): the heavy checks
// (exposed_files, version_check, code_scan, web_crawl) of the first cover
// the others, which would only report the same weaknesses again. Until
// their tls_check and http_check have run, hosts are not aliases.
func aliasesOf(s State, hosts []scans.Host) (aliasOf map[string]string, coveredBy map[string][]string) {
	aliasOf, coveredBy = map[string]string{}, map[string][]string{}
	first := map[string]string{} // identity → host name
	for _, h := range hosts {
		if h.CNAME != "" || len(h.Addresses) == 0 {
			continue
		}
		id := siteIdentity(s, h)
		if id == "" {
			continue
		}
		if c, ok := first[id]; ok {
			coveredBy[c] = append(coveredBy[c], h.Name)
			aliasOf[h.Name] = c
			continue
		}
		first[id] = h.Name
	}
	return aliasOf, coveredBy
}

// siteIdentity is what makes two host names the same site, "" when it is
// not known (yet).
func siteIdentity(s State, h scans.Host) string {
	svcs := servicesOf(s.Surface, h)
	o := webOrigin(h.Name, svcs)
	if o == "" {
		return ""
	}
	u, err := url.Parse(o)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	cert := "plain"
	if u.Scheme == "https" {
		cert = certificateOf(s.Steps, h.Name, port)
		if cert == "" {
			return ""
		}
	}
	i := slices.IndexFunc(s.Surface.Web, func(w scans.WebOrigin) bool { return w.Origin == strings.TrimSuffix(o, "/") || w.Origin == o })
	if i < 0 {
		return ""
	}
	w := s.Surface.Web[i]
	addrs := slices.Clone(h.Addresses)
	slices.Sort(addrs)
	return strings.Join([]string{strings.Join(addrs, ","), u.Scheme, port, cert,
		w.Title, w.Server, strings.Join(w.Technologies, ",")}, "\x00")
}

// tlsCertificate finds the certificate in a tls_check outcome
// ("...; certificate \"CN=...\" expiring 2027-01-01; ...").
var tlsCertificate = lazyre.New(`; certificate ("(?:[^"\\]|\\.)*" expiring \S+|none)`)

// certificateOf is the certificate tls_check saw on host:port (checked
// itself or covered as an alias), "" when no successful tls_check of it is
// recorded.
func certificateOf(steps []scans.Step, host, port string) string {
	for _, st := range steps {
		if st.Tool != TLSCheck || st.Status != scans.StepOK {
			continue
		}
		var in struct {
			Host string `json:"host"`
			Port int    `json:"port"`
		}
		if json.Unmarshal(st.Input, &in) != nil || !strings.EqualFold(in.Host, host) || strconv.Itoa(in.Port) != port {
			continue
		}
		if m := tlsCertificate.FindStringSubmatch(st.Outcome); m != nil {
			return strings.TrimSuffix(m[1], ";")
		}
	}
	// A name covered by the tls_check of another name on its address
	// presents that name's certificate.
	if m := tlsCertificate.FindStringSubmatch(coveringTLSStep(steps, host, port)); m != nil {
		return strings.TrimSuffix(m[1], ";")
	}
	return ""
}

// followUps are the calls findings ask for: the files a directory listing
// shows, the credentials in an exposed configuration file, the version of a
// cache answering without a password, and a safe confirmation of a
// critical version match.
func followUps(s State, hosts []scans.Host) []Call {
	selected := map[string]bool{}
	for _, h := range hosts {
		selected[h.Name] = true
	}
	var out []Call
	seen := map[string]bool{}
	add := func(host, why, tool string, input map[string]any) {
		c := Call{Tool: tool, Input: encode(input), Host: host, Why: why}
		if k := callKey(c.Tool, c.Input); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	// A service answers the same whichever name reaches its address: a
	// service read or a CVE confirmation runs once per address and port.
	service := serviceKeys(s, hosts)
	addService := func(f scans.Finding, why, tool string, input map[string]any) {
		if f.Port == nil {
			return
		}
		input["host"], input["port"] = f.Host, *f.Port
		k := tool + " " + service(f.Host, *f.Port) + " " + deref(f.CVE)
		if !seen[k] {
			seen[k] = true
			add(f.Host, why, tool, input)
		}
	}
	fs := slices.Clone(s.Findings)
	slices.SortFunc(fs, func(a, b scans.Finding) int { return strings.Compare(a.ID, b.ID) })
	for _, f := range fs {
		if !selected[f.Host] && f.Host != s.Scan.Target {
			continue
		}
		switch followUpOf(f) {
		case followListing:
			if u := evidenceURL(f, s.Scan.Target); u != "" {
				add(f.Host, "classify the files the directory listing shows", ListingFiles, map[string]any{"url": u})
			}
		case followSecrets:
			if u := evidenceURL(f, s.Scan.Target); u != "" {
				add(f.Host, "which credentials the exposed file leaks", FileSecrets, map[string]any{"url": u})
			}
		case followServiceInfo:
			addService(f, "read the version of the unauthenticated service", ServiceInfo, map[string]any{})
		case followConfirm:
			if cve := confirmableCVE(f); cve != "" {
				f.CVE = &cve
				addService(f, "safe read-only confirmation of "+cve, ConfirmCVE, map[string]any{"cve": cve})
			}
		}
	}
	return out
}

// serviceKeys returns what identifies the service on host:port: its first
// address and the port when the host is known with addresses, else the
// name and the port.
func serviceKeys(s State, hosts []scans.Host) func(host string, port int) string {
	addr := map[string]string{}
	for _, h := range append(slices.Clone(s.Surface.Hosts), hosts...) {
		if len(h.Addresses) > 0 && h.CNAME == "" {
			addr[h.Name] = firstAddress(h)
		}
	}
	return func(host string, port int) string {
		return cmpOr(addr[host], "name:"+host) + ":" + strconv.Itoa(port)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

type followUp int

const (
	followNone followUp = iota
	followListing
	followSecrets
	followServiceInfo
	followConfirm
)

// Confirmable are the CVEs confirm_cve can confirm safely (read-only).
var Confirmable = []string{"CVE-2021-41773", "CVE-2021-42013"}

// followUpOf says which follow-up a finding calls for, from its title and
// CVE (titles are fixed per check, so they are stable).
func followUpOf(f scans.Finding) followUp {
	t := strings.ToLower(f.Title)
	switch {
	case strings.Contains(t, "directory listing"):
		return followListing
	case strings.Contains(t, ".env") || strings.Contains(t, "environment file") || strings.Contains(t, "git repository") ||
		strings.Contains(t, "configuration file"):
		if f.Category == scans.CategoryWeb || f.Category == scans.CategoryCode {
			return followSecrets
		}
	case (strings.Contains(t, "redis") || strings.Contains(t, "memcached")) && strings.Contains(t, "without authentication"):
		return followServiceInfo
	case f.Confidence != scans.Certain && confirmableCVE(f) != "":
		return followConfirm
	}
	return followNone
}

// confirmableCVE is the first CVE of a finding (its cve, then those its
// evidence lists, as a grouped version match does) that has a safe
// confirmation.
func confirmableCVE(f scans.Finding) string {
	if f.CVE != nil && slices.Contains(Confirmable, *f.CVE) {
		return *f.CVE
	}
	if f.Category != scans.CategoryVuln {
		return ""
	}
	for _, c := range Confirmable {
		if strings.Contains(f.Evidence, c) {
			return c
		}
	}
	return ""
}

// evidenceURL is the in-scope URL a finding's evidence names first.
func evidenceURL(f scans.Finding, domain string) string {
	for _, field := range strings.Fields(f.Evidence) {
		if !strings.HasPrefix(field, "http://") && !strings.HasPrefix(field, "https://") {
			continue
		}
		field = strings.TrimRight(field, ".,;:)\"'")
		u, err := url.Parse(field)
		if err != nil || !domainname.InScope(u.Hostname(), domain) {
			continue
		}
		u.RawQuery, u.Fragment = "", ""
		return u.String()
	}
	return ""
}

// selectHosts orders the discovered hosts (the domain first, then hosts
// with web or TLS services, then the rest, each by name) and keeps the
// tier's share. Before discovery ran, the domain alone is the surface.
func selectHosts(s State) []scans.Host {
	domain := s.Scan.Target
	hosts := slices.Clone(s.Surface.Hosts)
	if !slices.ContainsFunc(hosts, func(h scans.Host) bool { return h.Name == domain }) {
		hosts = append(hosts, scans.Host{Name: domain, Sources: []scans.HostSource{scans.SourceApex}})
	}
	rank := func(h scans.Host) int {
		switch {
		case h.Name == domain:
			return 0
		case webOrigin(h.Name, servicesOf(s.Surface, h)) != "":
			return 1
		case len(servicesOf(s.Surface, h)) > 0:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(hosts, func(a, b scans.Host) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return strings.Compare(a.Name, b.Name)
	})
	if s.Scan.Tier == plans.Quick {
		hosts = slices.DeleteFunc(hosts, func(h scans.Host) bool { return h.Name != domain && h.Name != "www."+domain })
	}
	return hosts[:min(len(hosts), HostLimit(s.Scan.Tier))]
}

// servicesOf are the services on h's addresses, whichever host name the
// port scan used (names sharing an address share its services), one per
// port.
func servicesOf(sf scans.Surface, h scans.Host) []scans.ServiceInfo {
	var out []scans.ServiceInfo
	for _, v := range sf.Services {
		if (v.Host == h.Name || slices.Contains(h.Addresses, v.Address)) &&
			!slices.ContainsFunc(out, func(x scans.ServiceInfo) bool { return x.Port == v.Port }) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b scans.ServiceInfo) int { return a.Port - b.Port })
	return out
}

// webOrigin is the host's preferred web origin: HTTPS on the lowest port
// serving it, else plain HTTP; "" when it serves no web.
func webOrigin(host string, svcs []scans.ServiceInfo) string {
	for _, scheme := range []string{"https", "http"} {
		for _, v := range svcs {
			if v.Protocol == scheme {
				return Origin(scheme, host, v.Port)
			}
		}
	}
	return ""
}

// httpScheme is the scheme to speak to a service the port scan named
// protocol: http or https, and the HTTP APIs it names by product; "" for
// anything else.
func httpScheme(protocol string) string {
	switch protocol {
	case "https":
		return "https"
	case "http", "elasticsearch", "docker":
		return "http"
	}
	return ""
}

// cmpOr is a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// plainOrigin is the host's plain-HTTP origin, "" when it serves none.
func plainOrigin(host string, svcs []scans.ServiceInfo) string {
	for _, v := range svcs {
		if v.Protocol == "http" {
			return Origin("http", host, v.Port)
		}
	}
	return ""
}

// Origin returns scheme://host[:port]/ with the default port left out.
func Origin(scheme, host string, port int) string {
	if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) {
		return scheme + "://" + host + "/"
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
}

func firstAddress(h scans.Host) string {
	addrs := slices.Clone(h.Addresses)
	slices.SortFunc(addrs, func(a, b string) int {
		x, errA := netip.ParseAddr(a)
		y, errB := netip.ParseAddr(b)
		if errA != nil || errB != nil {
			return strings.Compare(a, b)
		}
		return x.Compare(y)
	})
	if len(addrs) == 0 {
		return "name:" + h.Name // not resolved yet: the port scan resolves it
	}
	return addrs[0]
}

func hasVersionedService(sf scans.Surface) bool {
	return slices.ContainsFunc(sf.Services, func(v scans.ServiceInfo) bool { return v.Version != "" })
}

// doneCalls are the calls the recorded steps ran (whatever their outcome:
// a call that failed is not retried).
func doneCalls(steps []scans.Step) map[string]bool {
	done := map[string]bool{}
	for _, st := range steps {
		done[callKey(st.Tool, st.Input)] = true
	}
	return done
}

// callKey identifies a call by its tool and its input in canonical JSON.
func callKey(tool string, input json.RawMessage) string {
	var v any
	if len(input) == 0 || json.Unmarshal(input, &v) != nil {
		return tool + " " + string(input)
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return tool + " {}"
	}
	canon, _ := json.Marshal(v)
	return tool + " " + string(canon)
}

// inputHost is the host a step's input names (host, url or base_url).
func inputHost(input json.RawMessage) string {
	var in struct {
		Host    string `json:"host"`
		URL     string `json:"url"`
		BaseURL string `json:"base_url"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.Host != "" {
		return strings.ToLower(in.Host)
	}
	for _, raw := range []string{in.URL, in.BaseURL} {
		if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
			return strings.ToLower(u.Hostname())
		}
	}
	return ""
}

func encode(input map[string]any) json.RawMessage {
	if input == nil {
		return json.RawMessage("{}")
	}
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err) // maps of strings and numbers above
	}
	return raw
}

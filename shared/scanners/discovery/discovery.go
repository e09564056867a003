// Package discovery owns the discover_hosts tool: it maps the hosts of the
// scan's scope (the verified domain and its subdomains) from the sources a
// careful tester would use — the apex and www, the names of a zone transfer
// when a name server allows one, a bounded wordlist of common labels (with
// wildcard-DNS detection), the SANs of certificates of in-scope TLS
// services, CNAME chains, in-scope names in MX, NS and SPF records, and the
// names in CSP and CORS headers, redirects and links of in-scope pages —
// and resolves every candidate through the scan's resolver. A candidate
// whose CNAME chain ends in NXDOMAIN at a hosting service where a released
// name can be claimed is reported as a dangling CNAME (the answer the
// resolution read; nothing is asked of the service), so every name the
// scan learns is checked, not only the common ones dns_check tries.
//
// Scope is strict. A name outside the domain is counted, never resolved as a
// host nor contacted; a name whose CNAME chain leaves the domain is a host
// recorded with that CNAME target and why its services are not probed (its
// addresses are someone else's: it gets HTTP(S) checks only). Only names with at least one
// address the guarded dialer's policy allows become hosts. The only
// connections the tool makes are the zone transfer to in-scope name
// servers, TLS handshakes with in-scope services the scan already found and
// GETs of in-scope pages, all through the guarded dialer. Zone transfers
// keep names only, never other record data.
package discovery

import (
	"context"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/domainname"
	"secscan/shared/plans"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/takeover"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name    = "discover_hosts"
	cost    = 5
	timeout = 18 * time.Second

	// maxCandidates bounds the names considered in one call.
	maxCandidates = 512
	// resolveConcurrency bounds the DNS queries in flight.
	resolveConcurrency = 16
	// maxAXFRRecords, maxAXFRBytes bound what is read of a zone transfer.
	maxAXFRRecords = 2000
	maxAXFRBytes   = 1 << 20
	maxNameServers = 4
	// maxTLSEndpoints and maxOrigins bound the certificates and pages read.
	maxTLSEndpoints = 8
	maxOrigins      = 8
	pageBody        = 256 << 10
	maxLinks        = 500
	dialTimeout     = 4 * time.Second
)

//go:embed wordlist.txt
var wordlistText string

// The deep tier's wordlist: a superset of wordlist.txt, about ten times its
// size (see internal/genwordlist for where the labels come from).
//
//go:generate go run ./internal/genwordlist
//go:embed wordlist_deep.txt
var deepWordlistText string

// deepResolveConcurrency bounds the wordlist queries in flight of a call
// with the deep wordlist: 3,651 names in 57 rounds, about 6 s at 100 ms a
// query.
const deepResolveConcurrency = 64

// DeepWordlist returns the deep tier's labels, in file order (the
// standard list first).
func DeepWordlist() []string { return labelsOf(deepWordlistText) }

// Wordlist returns the built-in labels, in file order.
func Wordlist() []string { return labelsOf(wordlistText) }

func labelsOf(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// Option configures the tool.
type Option func(*Tool)

// WithAXFRPort makes zone transfers use port instead of 53 (tests and the
// local demo, whose name server listens on an unprivileged port).
func WithAXFRPort(port int) Option { return func(t *Tool) { t.axfrPort = port } }

// WithRootCAs verifies page certificates with pool instead of the system
// roots; certificates of TLS services are read whatever their chain.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(t *Tool) { t.web = httpprobe.NewOptions([]httpprobe.Option{httpprobe.WithRootCAs(pool)}) }
}

// Tool is the discover_hosts tool.
type Tool struct {
	tooldef.Base
	axfrPort int
	web      httpprobe.Options
}

// New returns the discover_hosts tool.
func New(opts ...Option) tools.Tool {
	t := &Tool{Base: tooldef.New(Name, cost, timeout)}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	return fmt.Sprintf("Maps the hosts of the scan's scope (the domain and its subdomains) from: the apex and www, a zone "+
		"transfer when an in-scope name server allows one (names only), a wordlist of %d common labels (wordlist \"deep\": %d) with wildcard-DNS "+
		"detection, SANs of certificates of TLS services already found, CNAME chains, MX/NS/SPF records, and CSP and CORS "+
		"headers, redirects and links of in-scope pages. Names outside the scope are counted and never contacted; a name "+
		"whose CNAME leaves the scope is a host with its cname and not_probed_reason (HTTP(S) checks only). Every in-scope name "+
		"learnt (at most %d a call) is checked for a dangling CNAME into a service where a released name can be claimed "+
		"(subdomain takeover; DNS only). Returns hosts with their addresses and sources.", len(Wordlist()), len(DeepWordlist()), maxCandidates)
}

// Sources a call may be limited to.
var allSources = []scans.HostSource{scans.SourceWWW, scans.SourceAXFR, scans.SourceWordlist, scans.SourceCertificate,
	scans.SourceCNAME, scans.SourceLink, scans.SourceMX, scans.SourceNS, scans.SourceSPF, scans.SourceCSP,
	scans.SourceCORS, scans.SourceRedirect}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	names, _ := json.Marshal(allSources)
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "sources": {"type": "array", "uniqueItems": true, "maxItems": %d, "items": {"type": "string", "enum": %s},
      "description": "the sources to use; default: all. The apex is always a host."},
    "wordlist": {"type": "string", "enum": ["standard", "deep"], "description": "the labels the wordlist source tries: standard (%d, the default) or deep (%d, a superset: the deep tier)"}
  }
}`, len(allSources), names, len(Wordlist()), len(DeepWordlist())))
}

// Checks implements checks.Emitter: discovery maps the surface; the
// weaknesses it reports are a wildcard zone (which it also keeps from
// creating phantom hosts) and a dangling alias among the names it learnt.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{checks.DNSWildcard, checks.DanglingCNAME}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	in, err := readInput(raw)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.CheckTier(env.Tier, raw); err != nil {
		return tools.Result{}, err
	}
	domain, err := domainname.Normalize(env.Domain)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: scan domain: %w", Name, err)
	}
	if env.Resolver == nil || env.Dialer == nil {
		return tools.Result{}, errors.New("discover_hosts: the environment has no resolver or dialer")
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, httpprobe.CallBudget(timeout))
	defer cancel()

	use := in.use
	d := &discovery{env: env, domain: domain, use: use, tool: t, cands: map[string]map[scans.HostSource]bool{}, outside: map[string]bool{},
		wild: newWildcards(), labels: in.labels, labelConcurrency: in.concurrency, deep: in.deep}
	hosts := d.run(ctx)
	if err := parent.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	return d.result(hosts), nil
}

// run gathers the candidates, source after source, and resolves them
// into hosts.
func (d *discovery) run(ctx context.Context) []scans.Host {
	d.consider(d.domain, scans.SourceApex)
	if d.use[scans.SourceWWW] {
		d.consider("www."+d.domain, scans.SourceWWW)
	}
	d.independentSources(ctx)
	if d.use[scans.SourceWordlist] {
		d.wordlist(ctx)
	}
	d.wildcardSubzones(ctx, d.use[scans.SourceWordlist])
	return d.resolveAll(ctx)
}

// input is a call's decoded input: the sources to use (all when none are
// named) and the wordlist with its resolution concurrency.
type input struct {
	use         map[scans.HostSource]bool
	labels      []string
	concurrency int
	deep        bool
}

// readInput decodes and checks a call's input; unknown sources and
// wordlists are refused.
func readInput(raw json.RawMessage) (input, error) {
	var in struct {
		Sources  []scans.HostSource `json:"sources"`
		Wordlist string             `json:"wordlist"`
	}
	if err := tools.DecodeInput(raw, &in); err != nil {
		return input{}, err
	}
	labels, concurrency, err := wordlistOf(in.Wordlist)
	if err != nil {
		return input{}, err
	}
	use, err := usedSources(in.Sources)
	if err != nil {
		return input{}, err
	}
	return input{use: use, labels: labels, concurrency: concurrency, deep: in.Wordlist == "deep"}, nil
}

// CheckTier implements tools.TierBound: the deep wordlist is the deep
// tier's.
func (*Tool) CheckTier(tier plans.Tier, raw json.RawMessage) error {
	var in struct {
		Wordlist string `json:"wordlist"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Wordlist != "deep" || tier.Limits().DeepWordlist {
		return nil
	}
	return tools.DeepOnly(tier, fmt.Sprintf("the deep wordlist (%d labels)", len(DeepWordlist())))
}

// wordlistOf are the labels of the named wordlist and the concurrency
// they are resolved with.
func wordlistOf(name string) (labels []string, concurrency int, err error) {
	switch name {
	case "", "standard":
		return Wordlist(), resolveConcurrency, nil
	case "deep":
		return DeepWordlist(), deepResolveConcurrency, nil
	}
	return nil, 0, tools.Refuse("wordlist %q is unknown; use standard or deep", name)
}

// usedSources is the set of sources a call named (all when it named
// none); an unknown one is refused.
func usedSources(names []scans.HostSource) (map[scans.HostSource]bool, error) {
	if names == nil {
		names = allSources
	}
	use := map[scans.HostSource]bool{}
	for _, s := range names {
		if !slices.Contains(allSources, s) {
			return nil, tools.Refuse("source %q is unknown", s)
		}
		use[s] = true
	}
	return use, nil
}

// independentSources runs every source that depends on nothing else, in
// parallel, and waits for them.
func (d *discovery) independentSources(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { d.probe(ctx, d.domain) })
	for _, src := range d.sources() {
		if slices.ContainsFunc(src.feeds, func(s scans.HostSource) bool { return d.use[s] }) {
			wg.Go(func() { src.run(ctx) })
		}
	}
	wg.Wait()
}

// source is one independent source: it runs when the call uses any of the
// sources it feeds.
type source struct {
	feeds []scans.HostSource
	run   func(context.Context)
}

// sources are the independent sources, each with the sources it feeds.
func (d *discovery) sources() []source {
	return []source{
		{[]scans.HostSource{scans.SourceNS, scans.SourceAXFR}, d.nameServers},
		{[]scans.HostSource{scans.SourceMX}, d.mailExchangers},
		{[]scans.HostSource{scans.SourceSPF}, d.spf},
		{[]scans.HostSource{scans.SourceCertificate}, d.certificates},
		{[]scans.HostSource{scans.SourceLink, scans.SourceCSP, scans.SourceCORS, scans.SourceRedirect}, d.pages},
	}
}

// discovery is the state of one call.
type discovery struct {
	env    tools.Env
	domain string
	use    map[scans.HostSource]bool
	tool   *Tool

	mu        sync.Mutex
	cands     map[string]map[scans.HostSource]bool
	outside   map[string]bool
	notes     []string
	wildcards int // wordlist names dropped as wildcard answers
	wild      *wildcards
	// dangling are the candidates whose CNAME chain ends in NXDOMAIN at a
	// service where names can be claimed (see chain).
	dangling []takeover.Alias

	labels           []string // the wordlist
	labelConcurrency int
	deep             bool // the deep wordlist: the outcome says how much of it was tried
	tried            int  // wordlist names resolved
}

// consider records name as found by src: a candidate host when it is in
// scope, else an out-of-scope name (counted, never contacted).
func (d *discovery) consider(name string, src scans.HostSource) {
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	name, wildcard := strings.CutPrefix(name, "*.")
	if name == "" {
		return
	}
	norm, err := domainname.Normalize(name)
	if err != nil {
		return // not a host name (an IP literal, a wildcard, garbage)
	}
	inScope := domainname.InScope(norm, d.domain)
	if wildcard && inScope {
		d.wild.hint(norm) // *.name: name has children, maybe a wildcard
	}
	d.keep(norm, inScope, src)
}

// keep records a normalised name found by src: an in-scope one as a
// candidate, another as a name outside the scope; each set is bounded.
func (d *discovery) keep(norm string, inScope bool, src scans.HostSource) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !inScope {
		if len(d.outside) < maxCandidates {
			d.outside[norm] = true
		}
		return
	}
	if d.cands[norm] == nil {
		if len(d.cands) >= maxCandidates {
			return
		}
		d.cands[norm] = map[scans.HostSource]bool{}
	}
	d.cands[norm][src] = true
}

func (d *discovery) note(format string, args ...any) {
	d.mu.Lock()
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
	d.mu.Unlock()
}

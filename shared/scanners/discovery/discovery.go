// Package discovery owns the discover_hosts tool: it maps the hosts of the
// scan's scope (the verified domain and its subdomains) from the sources a
// careful tester would use — the apex and www, the names of a zone transfer
// when a name server allows one, a bounded wordlist of common labels (with
// wildcard-DNS detection), the SANs of certificates of in-scope TLS
// services, CNAME chains, in-scope names in MX, NS and SPF records, and the
// names in CSP and CORS headers, redirects and links of in-scope pages —
// and resolves every candidate through the scan's resolver.
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
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/checks"
	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
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
	axfrPort int
	web      httpprobe.Options
}

// New returns the discover_hosts tool.
func New(opts ...Option) tools.Tool {
	t := &Tool{}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Name implements tools.Tool.
func (*Tool) Name() string { return Name }

// Description implements tools.Tool.
func (*Tool) Description() string {
	return fmt.Sprintf("Maps the hosts of the scan's scope (the domain and its subdomains) from: the apex and www, a zone "+
		"transfer when an in-scope name server allows one (names only), a wordlist of %d common labels (wordlist \"deep\": %d) with wildcard-DNS "+
		"detection, SANs of certificates of TLS services already found, CNAME chains, MX/NS/SPF records, and CSP and CORS "+
		"headers, redirects and links of in-scope pages. Names outside the scope are counted and never contacted; a name "+
		"whose CNAME leaves the scope is a host with its cname and not_probed_reason (HTTP(S) checks only). Returns hosts with their addresses and sources.", len(Wordlist()), len(DeepWordlist()))
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

// Cost implements tools.Tool.
func (*Tool) Cost() int { return cost }

// Timeout implements tools.Tool.
func (*Tool) Timeout() time.Duration { return timeout }

// Checks implements checks.Emitter: discovery maps the surface; the one
// weakness it reports is a wildcard zone (which it also keeps from
// creating phantom hosts).
func (*Tool) Checks() []*checks.Check { return []*checks.Check{checks.DNSWildcard} }

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	in, err := readInput(raw)
	if err != nil {
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
	d.consider(domain, scans.SourceApex)
	if use[scans.SourceWWW] {
		d.consider("www."+domain, scans.SourceWWW)
	}
	d.independentSources(ctx)
	if use[scans.SourceWordlist] {
		d.wordlist(ctx)
	}
	d.wildcardSubzones(ctx, use[scans.SourceWordlist])
	hosts := d.resolveAll(ctx)
	if err := parent.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	return d.result(hosts), nil
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
	out := input{labels: Wordlist(), concurrency: resolveConcurrency, deep: in.Wordlist == "deep", use: map[scans.HostSource]bool{}}
	switch in.Wordlist {
	case "", "standard":
	case "deep":
		out.labels, out.concurrency = DeepWordlist(), deepResolveConcurrency
	default:
		return input{}, tools.Refuse("wordlist %q is unknown; use standard or deep", in.Wordlist)
	}
	for _, s := range in.Sources {
		if !slices.Contains(allSources, s) {
			return input{}, tools.Refuse("source %q is unknown", s)
		}
		out.use[s] = true
	}
	if in.Sources == nil {
		for _, s := range allSources {
			out.use[s] = true
		}
	}
	return out, nil
}

// independentSources runs every source that depends on nothing else, in
// parallel, and waits for them.
func (d *discovery) independentSources(ctx context.Context) {
	use := d.use
	var wg sync.WaitGroup
	wg.Go(func() { d.probe(ctx, d.domain) })
	if use[scans.SourceNS] || use[scans.SourceAXFR] {
		wg.Go(func() { d.nameServers(ctx) })
	}
	if use[scans.SourceMX] {
		wg.Go(func() { d.mailExchangers(ctx) })
	}
	if use[scans.SourceSPF] {
		wg.Go(func() { d.spf(ctx) })
	}
	if use[scans.SourceCertificate] {
		wg.Go(func() { d.certificates(ctx) })
	}
	if use[scans.SourceLink] || use[scans.SourceCSP] || use[scans.SourceCORS] || use[scans.SourceRedirect] {
		wg.Go(func() { d.pages(ctx) })
	}
	wg.Wait()
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
	if norm, err := domainname.Normalize(name); wildcard && err == nil && domainname.InScope(norm, d.domain) {
		d.wild.hint(norm) // *.name: name has children, maybe a wildcard
	}
	norm, err := domainname.Normalize(name)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		return // not a host name (an IP literal, a wildcard, garbage)
	}
	if !domainname.InScope(norm, d.domain) {
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

// nameServers reads the domain's NS records (in-scope ones are hosts) and
// tries a zone transfer at in-scope name servers, keeping the names.
func (d *discovery) nameServers(ctx context.Context) {
	ans, err := d.env.Resolver.Query(ctx, d.domain, dns.TypeNS)
	if err != nil {
		d.note("NS lookup failed: %s", httpprobe.Clean(err.Error(), 120))
		return
	}
	var servers []string
	for _, rr := range ans.Records {
		if ns, ok := rr.(*dns.NS); ok {
			name := strings.TrimSuffix(dns.CanonicalName(ns.Ns), ".")
			if d.use[scans.SourceNS] {
				d.consider(name, scans.SourceNS)
			}
			if domainname.InScope(name, d.domain) && len(servers) < maxNameServers && !slices.Contains(servers, name) {
				servers = append(servers, name)
			}
		}
	}
	if !d.use[scans.SourceAXFR] {
		return
	}
	var wg sync.WaitGroup
	for _, ns := range servers {
		wg.Go(func() { d.transfer(ctx, ns) })
	}
	wg.Wait()
}

// transfer asks one in-scope name server for the zone and keeps the owner
// names (and in-zone targets) of its records; nothing else is kept.
func (d *discovery) transfer(ctx context.Context, ns string) {
	ctx, cancel := context.WithTimeout(ctx, 6*time.Second)
	defer cancel()
	conn := d.dialNameServer(ctx, ns)
	if conn == nil {
		return
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	q := new(dns.Msg)
	q.SetAxfr(dns.Fqdn(d.domain))
	wire, err := q.Pack()
	if err != nil {
		return
	}
	frame := binary.BigEndian.AppendUint16(nil, uint16(len(wire)))
	if _, err := conn.Write(append(frame, wire...)); err != nil {
		return
	}
	if records := d.readZone(conn, q.Id); records > 0 {
		d.note("zone transfer allowed by %s: %d records read, names kept", ns, records)
	}
}

// dialNameServer connects to a name server's DNS port over TCP; nil (and
// a note when the policy or the network refuses) when it cannot.
func (d *discovery) dialNameServer(ctx context.Context, ns string) net.Conn {
	ips, err := d.env.Resolver.LookupIP(ctx, ns)
	if err != nil || len(ips) == 0 {
		return nil
	}
	port := d.env.Ports.DNSPort()
	if d.tool.axfrPort > 0 {
		port = d.tool.axfrPort
	}
	// Checked here, where the name is known, so a refusal names the server
	// and never the address it resolved to.
	var refused *netguard.AddressError
	if err := d.env.Dialer.Policy().CheckResolved(ns, ips[0]); errors.As(err, &refused) {
		d.note("zone transfer at %s not tried: refused: %s", ns, refused.Plain())
		return nil
	}
	conn, err := d.env.Dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(ips[0], uint16(port)).String())
	if err != nil {
		d.note("zone transfer at %s not tried: %s", ns, httpprobe.Clean(err.Error(), 120))
		return nil
	}
	return conn
}

// readZone reads the answers to the transfer query id, within the
// record and byte bounds, until the closing SOA, considering the names;
// it returns the number of records read.
func (d *discovery) readZone(conn io.Reader, id uint16) (records int) {
	read, soas := 0, 0
	for records < maxAXFRRecords {
		var size [2]byte
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			break
		}
		n := int(binary.BigEndian.Uint16(size[:]))
		if read += 2 + n; read > maxAXFRBytes {
			break
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(conn, body); err != nil {
			break
		}
		var msg dns.Msg
		if msg.Unpack(body) != nil || msg.Id != id || msg.Rcode != dns.RcodeSuccess || len(msg.Answer) == 0 {
			break
		}
		records += len(msg.Answer)
		soas += d.zoneRecords(msg.Answer)
		if soas >= 2 { // the closing SOA: the transfer is complete
			break
		}
	}
	return records
}

// zoneRecords considers the owner names of a transfer's address and alias
// records (and the aliases' targets); it returns the number of SOAs.
func (d *discovery) zoneRecords(answer []dns.RR) (soas int) {
	for _, rr := range answer {
		switch v := rr.(type) {
		case *dns.SOA:
			soas++
		case *dns.A, *dns.AAAA:
			d.consider(rr.Header().Name, scans.SourceAXFR)
		case *dns.CNAME:
			d.consider(rr.Header().Name, scans.SourceAXFR)
			if d.use[scans.SourceCNAME] {
				d.consider(v.Target, scans.SourceCNAME)
			}
		}
	}
	return soas
}

// mailExchangers: in-scope MX hosts.
func (d *discovery) mailExchangers(ctx context.Context) {
	ans, err := d.env.Resolver.Query(ctx, d.domain, dns.TypeMX)
	if err != nil {
		return
	}
	for _, rr := range ans.Records {
		if mx, ok := rr.(*dns.MX); ok {
			d.consider(mx.Mx, scans.SourceMX)
		}
	}
}

// spf: the names an SPF record mentions (include:, a:, mx:, ptr:,
// exists:, redirect=).
func (d *discovery) spf(ctx context.Context) {
	txts, err := d.env.Resolver.LookupTXT(ctx, d.domain)
	if err != nil {
		return
	}
	for _, txt := range txts {
		if !strings.HasPrefix(strings.ToLower(txt), "v=spf1") {
			continue
		}
		for _, term := range strings.Fields(txt)[1:] {
			term = strings.TrimLeft(strings.ToLower(term), "+-~?")
			for _, prefix := range []string{"include:", "a:", "mx:", "ptr:", "exists:", "redirect="} {
				if rest, ok := strings.CutPrefix(term, prefix); ok {
					name, _, _ := strings.Cut(rest, "/")
					if !strings.Contains(name, "%") { // macros name nothing
						d.consider(name, scans.SourceSPF)
					}
				}
			}
		}
	}
}

// certificates reads the SANs of the certificates of in-scope TLS services
// the scan found (and the domain's HTTPS port).
func (d *discovery) certificates(ctx context.Context) {
	type endpoint struct {
		host string
		port int
	}
	eps := []endpoint{{d.domain, d.env.Ports.HTTPSPort()}}
	for _, v := range d.env.Surface.Services {
		if len(eps) == maxTLSEndpoints {
			break
		}
		ep := endpoint{v.Host, v.Port}
		if scans.TLSProtocol(v.Protocol) && domainname.InScope(v.Host, d.domain) && !slices.Contains(eps, ep) {
			eps = append(eps, ep)
		}
	}
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, dialTimeout)
			defer cancel()
			conn, err := d.env.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(ep.host, strconv.Itoa(ep.port)))
			if err != nil {
				return
			}
			defer conn.Close()
			// The certificate is read, not trusted: judging it is tls_check's job.
			tc := tls.Client(conn, &tls.Config{ServerName: ep.host, InsecureSkipVerify: true, MinVersion: tls.VersionTLS10}) //nolint:gosec
			if tc.HandshakeContext(ctx) != nil {
				return
			}
			state := tc.ConnectionState()
			if len(state.PeerCertificates) == 0 {
				return
			}
			leaf := state.PeerCertificates[0]
			names := slices.Clone(leaf.DNSNames)
			if len(names) == 0 && leaf.Subject.CommonName != "" {
				names = append(names, leaf.Subject.CommonName)
			}
			for _, n := range names[:min(len(names), 100)] {
				d.consider(n, scans.SourceCertificate)
			}
		})
	}
	wg.Wait()
}

// pages fetches the in-scope home pages (the domain's, www's and the web
// origins the scan found) and reads names from their CSP and CORS headers,
// redirects and links.
func (d *discovery) pages(ctx context.Context) {
	client, err := httpprobe.NewClient(d.env, d.tool.web.RootCAs)
	if err != nil {
		return
	}
	defer client.Close()
	var wg sync.WaitGroup
	for _, u := range d.homePages() {
		wg.Go(func() {
			chain, _ := client.Follow(ctx, u, pageBody)
			for i, resp := range chain {
				d.readPage(i, resp)
			}
		})
	}
	wg.Wait()
}

// homePages are the domain's https and http home pages, then the web
// origins the scan found that the policy allows, up to maxOrigins.
func (d *discovery) homePages() []*url.URL {
	var starts []*url.URL
	https, http := httpprobe.DefaultURLs(d.env)
	starts = append(starts, https, http)
	origins := map[string]bool{https.String(): true, http.String(): true}
	for _, v := range d.env.Surface.Services {
		if v.Protocol == "http" || v.Protocol == "https" {
			u := httpprobe.SiteURL(v.Protocol, v.Host, v.Port)
			if len(starts) < maxOrigins && !origins[u.String()] && httpprobe.CheckURL(d.env, u) == nil {
				origins[u.String()] = true
				starts = append(starts, u)
			}
		}
	}
	return starts
}

// readPage considers the names of the i-th response of a redirect chain:
// where it was redirected, its CSP and CORS headers and its links.
func (d *discovery) readPage(i int, resp *httpprobe.Response) {
	if i > 0 && d.use[scans.SourceRedirect] {
		d.consider(resp.URL.Hostname(), scans.SourceRedirect)
	}
	if resp.Location != nil && d.use[scans.SourceRedirect] {
		d.consider(resp.Location.Hostname(), scans.SourceRedirect)
	}
	if d.use[scans.SourceCSP] {
		for _, v := range resp.Header.Values("Content-Security-Policy") {
			for _, n := range cspNames(v) {
				d.consider(n, scans.SourceCSP)
			}
		}
	}
	if d.use[scans.SourceCORS] {
		if o, err := url.Parse(resp.Header.Get("Access-Control-Allow-Origin")); err == nil && o.Hostname() != "" {
			d.consider(o.Hostname(), scans.SourceCORS)
		}
	}
	if d.use[scans.SourceLink] && strings.Contains(resp.ContentType(), "html") {
		for _, n := range linkHosts(resp.Body, resp.URL) {
			d.consider(n, scans.SourceLink)
		}
	}
}

// wordlist resolves label.domain for every built-in label; a name whose
// addresses are all wildcard answers is dropped, and a name that exists
// without addresses (an empty non-terminal) is noted as having children.
func (d *discovery) wordlist(ctx context.Context) {
	labels := d.labels
	sem := make(chan struct{}, max(d.labelConcurrency, 1))
	var wg sync.WaitGroup
	for _, l := range labels {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		d.tried++
		wg.Go(func() {
			defer func() { <-sem }()
			name := l + "." + d.domain
			ips, err := d.env.Resolver.LookupIP(ctx, name)
			if isEmptyNonTerminal(err) {
				d.wild.hint(name)
			}
			if err != nil || len(ips) == 0 || d.phantom(d.domain, ips) {
				return
			}
			d.consider(name, scans.SourceWordlist)
		})
	}
	wg.Wait()
}

// resolveAll turns candidates into hosts: at least one address must be
// allowed by the dialer's policy; the in-scope names of CNAME chains are
// candidates too, and a chain that leaves the scope is recorded on the host.
func (d *discovery) resolveAll(ctx context.Context) []scans.Host {
	// CNAME chains first: they may add candidates.
	names := d.candidateNames()
	leaves := d.resolveChains(ctx, names)
	if extra := d.candidateNames(); len(extra) > len(names) {
		for k, v := range d.resolveChains(ctx, slices.DeleteFunc(extra, func(n string) bool { return slices.Contains(names, n) })) {
			leaves[k] = v
		}
	}
	names = d.candidateNames()
	policy := d.env.Dialer.Policy()
	hosts := make([]*scans.Host, len(names))
	sem := make(chan struct{}, resolveConcurrency)
	var wg sync.WaitGroup
	for i, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ips, err := d.env.Resolver.LookupIP(ctx, name)
			if err != nil {
				return
			}
			var addrs []string
			for _, ip := range ips {
				if policy.Check(ip) == nil {
					addrs = append(addrs, ip.String())
				}
			}
			if len(addrs) == 0 {
				return
			}
			d.mu.Lock()
			var srcs []scans.HostSource
			for s := range d.cands[name] {
				srcs = append(srcs, s)
			}
			d.mu.Unlock()
			slices.Sort(srcs)
			slices.Sort(addrs)
			hosts[i] = &scans.Host{Name: name, Addresses: addrs, Sources: srcs}
			if target := leaves[name]; target != "" {
				// The third party's addresses: HTTP(S) checks of the name only.
				hosts[i].CNAME, hosts[i].NotProbed = target, scans.NotProbedThirdParty
			}
		})
	}
	wg.Wait()
	var out []scans.Host
	for _, h := range hosts {
		if h != nil {
			out = append(out, *h)
		}
	}
	return out
}

// resolveChains asks for the A record of each name to see its CNAME chain:
// in-scope links of the chain become candidates; a chain that leaves the
// scope maps the name to the first name outside it (that name is counted,
// never a host): the name is a host whose services are not probed.
func (d *discovery) resolveChains(ctx context.Context, names []string) map[string]string {
	leaves := map[string]string{}
	var mu sync.Mutex
	sem := make(chan struct{}, resolveConcurrency)
	var wg sync.WaitGroup
	for _, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ans, err := d.env.Resolver.Query(ctx, name, dns.TypeA)
			if err != nil {
				return
			}
			for _, target := range ans.CNAMEs {
				target = strings.TrimSuffix(target, ".")
				if !domainname.InScope(target, d.domain) {
					d.consider(target, scans.SourceCNAME) // counted, never a host
					mu.Lock()
					if leaves[name] == "" {
						leaves[name] = target
					}
					mu.Unlock()
					continue
				}
				if d.use[scans.SourceCNAME] {
					d.consider(target, scans.SourceCNAME)
				}
			}
		})
	}
	wg.Wait()
	return leaves
}

func (d *discovery) candidateNames() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for n := range d.cands {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (d *discovery) result(hosts []scans.Host) tools.Result {
	var outside []string
	for n := range d.outside {
		outside = append(outside, n)
	}
	slices.Sort(outside)
	res := tools.Result{Surface: scans.Surface{Hosts: hosts, OutOfScopeNames: outside, OutOfScope: len(outside)},
		Findings: d.wildcardFindings()}
	for _, f := range res.Findings {
		d.notes = append(d.notes, "wildcard DNS: *."+f.Host+" answers for any label")
	}
	var names []string
	aliased := 0
	for _, h := range hosts {
		names = append(names, h.Name)
		if h.CNAME != "" {
			aliased++
		}
	}
	shown := names[:min(len(names), 20)]
	res.Outcome = fmt.Sprintf("%d hosts in scope", len(hosts))
	if len(shown) > 0 {
		res.Outcome += ": " + strings.Join(shown, ", ")
		if len(names) > len(shown) {
			res.Outcome += fmt.Sprintf(" and %d more", len(names)-len(shown))
		}
	}
	if len(outside) > 0 {
		if len(outside) == 1 {
			res.Outcome += "; 1 name outside the scope seen, not contacted"
		} else {
			res.Outcome += fmt.Sprintf("; %d names outside the scope seen, not contacted", len(outside))
		}
	}
	if d.deep {
		res.Outcome += fmt.Sprintf("; deep wordlist: %d of %d labels tried", d.tried, len(d.labels))
	}
	if d.wildcards > 0 {
		res.Outcome += fmt.Sprintf("; %d wordlist names dropped as wildcard answers", d.wildcards)
	}
	if aliased > 0 {
		res.Outcome += fmt.Sprintf("; %d hosts aliased outside the scope get HTTP(S) checks only", aliased)
	}
	slices.Sort(d.notes)
	for _, n := range d.notes {
		res.Outcome += "; " + n
	}
	return res
}

// cspNames are the host names of a Content-Security-Policy's sources.
func cspNames(policy string) []string {
	var out []string
	for _, directive := range strings.Split(policy, ";") {
		fields := strings.Fields(directive)
		for _, src := range fields[min(len(fields), 1):] {
			if strings.HasPrefix(src, "'") || strings.HasSuffix(src, ":") {
				continue // keywords and bare schemes
			}
			if !strings.Contains(src, "://") {
				src = "https://" + src
			}
			if u, err := url.Parse(src); err == nil && u.Hostname() != "" {
				out = append(out, u.Hostname())
			}
		}
		if len(out) > maxLinks {
			break
		}
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

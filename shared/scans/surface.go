package scans

import (
	"cmp"
	"slices"
	"strings"
)

// Surface is the attack surface a scan discovered (CONTRACT "Scans",
// surface): the hosts of the target's scope, the services listening on
// them and the web origins they serve. Every entry is in scope; names seen
// outside the scope are only counted, never contacted. Tools report
// fragments of it in their results; the store merges them; planners read
// the merged surface to decide what to test next.
type Surface struct {
	Hosts    []Host        `json:"hosts"`
	Services []ServiceInfo `json:"services"`
	Web      []WebOrigin   `json:"web"`
	// Addresses are the addresses the scan's port scans probed and the
	// evidence that ties an address to the verified domain (see Tie).
	Addresses []Address `json:"addresses,omitempty"`
	// OutOfScope counts distinct names the scan saw that lie outside the
	// target's scope (a CNAME, SAN, link, MX or SPF include elsewhere).
	OutOfScope int `json:"out_of_scope_names"`
	// OutOfScopeNames are those names (kept to count them once; never
	// contacted, not shown).
	OutOfScopeNames []string `json:"-"`
}

// Host is one in-scope name with at least one usable address.
type Host struct {
	Name      string       `json:"name"`
	Addresses []string     `json:"addresses"`
	Sources   []HostSource `json:"sources"`
	// NotScanned says why no tool looked at the host (set when the scan
	// completes), e.g. "credit budget"; empty when it was scanned.
	NotScanned string `json:"not_scanned,omitempty"`
	// CNAME is the first name outside the scope in the host's CNAME chain
	// (a vendor's status page, a CDN), without the trailing dot; empty when
	// the chain stays in scope or there is none.
	CNAME string `json:"cname,omitempty"`
	// NotProbed says why the host's services were not probed (only its
	// home page is fetched: NotProbedThirdParty); empty when they may be.
	NotProbed string `json:"not_probed_reason,omitempty"`
}

// NotProbedThirdParty is why a host aliased outside the scope gets only a
// GET of its home page over http and https on the standard ports, as a
// browser would open it: its addresses are the third party's, not the
// target's.
const NotProbedThirdParty = "its CNAME points outside the scope (a third party's service): only its home page is fetched (GET / over HTTP and HTTPS on the standard ports), no other port, path or method, no port scan, service, exposure or exploit-confirming probe, no TLS enumeration"

// NotProbedAddressCap is why a host whose address lies beyond the tier's
// cap of distinct addresses was not probed (plans.Limits.Addresses).
const NotProbedAddressCap = "its address is beyond the distinct addresses this tier probes in one scan: no port scan, service probe or TLS enumeration"

// Address is one address of the scan's hosts: whether a port scan probed
// it, and what ties it to the verified domain. An in-scope name may point
// at anyone's address, so a sweep beyond the tier's port list runs only on
// an address with a tie.
type Address struct {
	Address string `json:"address"`
	// Probed is set once a port scan of the scan probed the address (the
	// tier's address cap counts these).
	Probed bool `json:"probed"`
	// TiedBy is the evidence that ties the address to the domain, and
	// TiedName the in-scope name it is about; empty when none was seen.
	TiedBy   Tie    `json:"tied_by,omitempty"`
	TiedName string `json:"tied_name,omitempty"`
}

// Tie is the evidence that an address belongs to the verified domain's
// owner and not merely to whoever an in-scope name points at.
type Tie string

// Ties, strongest first.
const (
	// TieApex: an address of the verified domain itself (the name the
	// ownership was proved on).
	TieApex Tie = "apex"
	// TieCertificate: it serves a TLS certificate naming an in-scope name.
	TieCertificate Tie = "certificate"
	// TieHTTP: it answered HTTP for an in-scope Host.
	TieHTTP Tie = "http"
	// TieReverseDNS: its reverse DNS name is in scope.
	TieReverseDNS Tie = "reverse_dns"
)

// HostSource is where a host name was found.
type HostSource string

// Host sources (CONTRACT "Scans", surface).
const (
	SourceApex        HostSource = "apex"
	SourceWWW         HostSource = "www"
	SourceAXFR        HostSource = "axfr"
	SourceWordlist    HostSource = "wordlist"
	SourceCertificate HostSource = "certificate"
	SourceCNAME       HostSource = "cname"
	SourceLink        HostSource = "link"
	SourceMX          HostSource = "mx"
	SourceNS          HostSource = "ns"
	SourceSPF         HostSource = "spf"
	SourceCSP         HostSource = "csp"
	SourceCORS        HostSource = "cors"
	SourceRedirect    HostSource = "redirect"
)

// HostSources lists every source.
var HostSources = []HostSource{SourceApex, SourceWWW, SourceAXFR, SourceWordlist, SourceCertificate, SourceCNAME,
	SourceLink, SourceMX, SourceNS, SourceSPF, SourceCSP, SourceCORS, SourceRedirect}

// ServiceInfo is one listening service of an in-scope host.
type ServiceInfo struct {
	Host      string `json:"host"`
	Address   string `json:"address"`
	Port      int    `json:"port"`
	Transport string `json:"transport"` // "tcp"
	Protocol  string `json:"protocol"`  // e.g. "https", "ssh", "redis", "unknown"
	Product   string `json:"product"`   // e.g. "Redis", "" when unknown
	Version   string `json:"version"`   // e.g. "6.0.5", "" when unknown
}

// WebOrigin is one web origin (scheme://host[:port]) an in-scope host serves.
type WebOrigin struct {
	Origin       string   `json:"origin"`
	Title        string   `json:"title"`
	Server       string   `json:"server"`
	Technologies []string `json:"technologies"`
}

// Bounds of a surface, so a hostile zone or site cannot grow a scan record
// without limit.
const (
	MaxSurfaceHosts    = 256
	MaxSurfaceServices = 2000
	MaxSurfaceWeb      = 512
	MaxSurfaceAddrs    = 256
	maxOutOfScope      = 1000
	maxListField       = 16
)

// Merge adds o's entries to s: hosts by name (addresses and sources
// united), services by host, address and port, web origins by origin
// (later non-empty fields fill empty ones). The result is sorted, so the
// same entries always give the same surface.
func (s *Surface) Merge(o Surface) {
	for _, h := range o.Hosts {
		s.mergeHost(h)
	}
	for _, v := range o.Services {
		s.mergeService(v)
	}
	for _, w := range o.Web {
		s.mergeWeb(w)
	}
	for _, a := range o.Addresses {
		s.mergeAddress(a)
	}
	for _, n := range o.OutOfScopeNames {
		if !slices.Contains(s.OutOfScopeNames, n) && len(s.OutOfScopeNames) < maxOutOfScope {
			s.OutOfScopeNames = append(s.OutOfScopeNames, n)
		}
	}
	s.OutOfScope = max(s.OutOfScope, o.OutOfScope, len(s.OutOfScopeNames))
	s.Sort()
}

// mergeHost unites h with the host of its name, added when there is room;
// a later reason it was not scanned, or alias, wins.
func (s *Surface) mergeHost(h Host) {
	i := indexOrAdd(&s.Hosts, func(x Host) bool { return x.Name == h.Name }, MaxSurfaceHosts, Host{Name: h.Name})
	if i < 0 {
		return
	}
	x := &s.Hosts[i]
	x.Addresses = union(x.Addresses, h.Addresses)
	x.Sources = union(x.Sources, h.Sources)
	if h.NotScanned != "" {
		x.NotScanned = h.NotScanned
	}
	if h.CNAME != "" {
		x.CNAME, x.NotProbed = h.CNAME, h.NotProbed
	}
	if h.NotProbed != "" && x.NotProbed == "" {
		x.NotProbed = h.NotProbed
	}
}

// mergeAddress unites a with the entry of its address, added when there
// is room: probed once probed, and the first tie seen stays.
func (s *Surface) mergeAddress(a Address) {
	i := indexOrAdd(&s.Addresses, func(x Address) bool { return x.Address == a.Address }, MaxSurfaceAddrs, Address{Address: a.Address})
	if i < 0 {
		return
	}
	x := &s.Addresses[i]
	x.Probed = x.Probed || a.Probed
	if x.TiedBy == "" && a.TiedBy != "" {
		x.TiedBy, x.TiedName = a.TiedBy, a.TiedName
	}
}

// Addr returns the entry of address addr.
func (s Surface) Addr(addr string) (Address, bool) {
	i := slices.IndexFunc(s.Addresses, func(a Address) bool { return a.Address == addr })
	if i < 0 {
		return Address{}, false
	}
	return s.Addresses[i], true
}

// indexOrAdd is the index of the entry of *list that match finds, else of
// fresh, appended; -1 when there is no such entry and *list holds limit.
func indexOrAdd[T any](list *[]T, match func(T) bool, limit int, fresh T) int {
	if i := slices.IndexFunc(*list, match); i >= 0 {
		return i
	}
	if len(*list) >= limit {
		return -1
	}
	*list = append(*list, fresh)
	return len(*list) - 1
}

// mergeService fills the service of v's host, address and port with what
// it lacks (a later version wins with its product), or adds v when there
// is room.
func (s *Surface) mergeService(v ServiceInfo) {
	i := slices.IndexFunc(s.Services, func(x ServiceInfo) bool {
		return x.Host == v.Host && x.Address == v.Address && x.Port == v.Port
	})
	if i < 0 {
		if len(s.Services) < MaxSurfaceServices {
			s.Services = append(s.Services, v)
		}
		return
	}
	x := &s.Services[i]
	x.Transport = cmp.Or(x.Transport, v.Transport)
	if x.Protocol == "" || x.Protocol == "unknown" {
		x.Protocol = cmp.Or(v.Protocol, x.Protocol)
	}
	if v.Version != "" { // a later, closer look (e.g. Redis INFO) wins
		x.Product, x.Version = cmp.Or(v.Product, x.Product), v.Version
	}
	x.Product = cmp.Or(x.Product, v.Product)
}

// mergeWeb fills the web origin of w's origin with what it lacks, added
// when there is room; technologies are united.
func (s *Surface) mergeWeb(w WebOrigin) {
	i := indexOrAdd(&s.Web, func(x WebOrigin) bool { return x.Origin == w.Origin }, MaxSurfaceWeb, WebOrigin{Origin: w.Origin})
	if i < 0 {
		return
	}
	x := &s.Web[i]
	x.Title, x.Server = cmp.Or(x.Title, w.Title), cmp.Or(x.Server, w.Server)
	x.Technologies = union(x.Technologies, w.Technologies)
}

// Sort orders every list: hosts and origins by name, services by host,
// address and port.
func (s *Surface) Sort() {
	slices.SortFunc(s.Hosts, func(a, b Host) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Services, func(a, b ServiceInfo) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.Address, b.Address), a.Port-b.Port)
	})
	slices.SortFunc(s.Web, func(a, b WebOrigin) int { return strings.Compare(a.Origin, b.Origin) })
	slices.SortFunc(s.Addresses, func(a, b Address) int { return strings.Compare(a.Address, b.Address) })
	slices.Sort(s.OutOfScopeNames)
}

// Empty reports a surface with nothing in it.
func (s Surface) Empty() bool {
	return len(s.Hosts) == 0 && len(s.Services) == 0 && len(s.Web) == 0 && len(s.Addresses) == 0 && s.OutOfScope == 0
}

// Host returns the host called name.
func (s Surface) Host(name string) (Host, bool) {
	i := slices.IndexFunc(s.Hosts, func(h Host) bool { return h.Name == name })
	if i < 0 {
		return Host{}, false
	}
	return s.Hosts[i], true
}

// union returns a with b's values it lacks, sorted, at most maxListField.
func union[T cmp.Ordered](a, b []T) []T {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) && len(out) < maxListField {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// TLSProtocol reports whether a service protocol (as port_scan names it)
// speaks TLS from the first byte.
func TLSProtocol(p string) bool {
	switch p {
	case "https", "smtps", "ldaps", "imaps", "pop3s", "docker-tls", "tls":
		return true
	}
	return false
}

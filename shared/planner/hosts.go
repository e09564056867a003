package planner

import (
	"cmp"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/plans"
	"secscan/shared/scans"
)

// selectHosts orders the discovered hosts (the domain first, then hosts
// with web or TLS services, then the rest, each by name) and keeps the
// tier's share. Before discovery ran, the domain alone is the surface.
func selectHosts(s State) []scans.Host {
	selected, _ := selection(s)
	return selected
}

// selection is selectHosts, and the hosts it leaves out because their
// address is beyond the tier's cap of distinct addresses (AddressLimit):
// the addresses the port scans already probed count first, then the first
// address of each host in order. A host aliased outside the scope, or not
// resolved yet, takes no address.
func selection(s State) (selected []scans.Host, capped map[string]bool) {
	domain := s.Scan.Target
	hosts := slices.Clone(s.Surface.Hosts)
	if !slices.ContainsFunc(hosts, func(h scans.Host) bool { return h.Name == domain }) {
		hosts = append(hosts, scans.Host{Name: domain, Sources: []scans.HostSource{scans.SourceApex}})
	}
	slices.SortStableFunc(hosts, func(a, b scans.Host) int {
		return cmp.Or(hostRank(s, a)-hostRank(s, b), strings.Compare(a.Name, b.Name))
	})
	if s.Scan.Tier == plans.Quick {
		hosts = slices.DeleteFunc(hosts, func(h scans.Host) bool { return h.Name != domain && h.Name != "www."+domain })
	}
	addrs := map[string]bool{}
	for _, a := range s.Surface.Addresses {
		if a.Probed {
			addrs[a.Address] = true
		}
	}
	capped = map[string]bool{}
	for _, h := range hosts {
		if h.CNAME == "" && len(h.Addresses) > 0 {
			addr := firstAddress(h)
			if !addrs[addr] && len(addrs) >= AddressLimit(s.Scan.Tier) {
				capped[h.Name] = true
				continue
			}
			addrs[addr] = true
		}
		if len(selected) < HostLimit(s.Scan.Tier) {
			selected = append(selected, h)
		}
	}
	return selected, capped
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

// hostRank orders the hosts a scan selects: the domain, then hosts with a
// web origin, then hosts with other services, then the rest.
func hostRank(s State, h scans.Host) int {
	switch {
	case h.Name == s.Scan.Target:
		return 0
	case webOrigin(h.Name, servicesOf(s.Surface, h)) != "":
		return 1
	case len(servicesOf(s.Surface, h)) > 0:
		return 2
	}
	return 3
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

package discovery

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

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
	aliased := 0
	for _, h := range hosts {
		if h.CNAME != "" {
			aliased++
		}
	}
	res.Outcome = hostsInScope(hosts) + outsideScope(len(outside))
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

func joinAddrs(m map[netip.Addr]bool) string {
	var out []string
	for a := range m {
		out = append(out, a.String())
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// hostsInScope counts the hosts and names the first 20.
func hostsInScope(hosts []scans.Host) string {
	out := fmt.Sprintf("%d hosts in scope", len(hosts))
	if len(hosts) == 0 {
		return out
	}
	names := make([]string, 0, min(len(hosts), 20))
	for _, h := range hosts[:min(len(hosts), 20)] {
		names = append(names, h.Name)
	}
	out += ": " + strings.Join(names, ", ")
	if len(hosts) > len(names) {
		out += fmt.Sprintf(" and %d more", len(hosts)-len(names))
	}
	return out
}

// outsideScope is the outcome's note on the n names seen outside the
// scope ("" when none).
func outsideScope(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "; 1 name outside the scope seen, not contacted"
	}
	return fmt.Sprintf("; %d names outside the scope seen, not contacted", n)
}

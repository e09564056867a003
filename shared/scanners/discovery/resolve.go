package discovery

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/takeover"
	"secscan/shared/scans"
)

// inParallel calls fn with each item and its index, at most limit calls at
// a time, starting none once ctx is done; it waits for the calls it started
// and returns their number.
func inParallel[T any](ctx context.Context, limit int, items []T, fn func(int, T)) (started int) {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, item := range items {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		started++
		wg.Go(func() {
			defer func() { <-sem }()
			fn(i, item)
		})
	}
	wg.Wait()
	return started
}

// resolveAll turns candidates into hosts: at least one address must be
// allowed by the dialer's policy; the in-scope names of CNAME chains are
// candidates too, and a chain that leaves the scope is recorded on the host.
func (d *discovery) resolveAll(ctx context.Context) []scans.Host {
	leaves := d.chains(ctx)
	names := d.candidateNames()
	policy := d.env.Dialer.Policy()
	hosts := make([]*scans.Host, len(names))
	inParallel(ctx, resolveConcurrency, names, func(i int, name string) {
		hosts[i] = d.host(ctx, name, policy, leaves[name])
	})
	var out []scans.Host
	for _, h := range hosts {
		if h != nil {
			out = append(out, *h)
		}
	}
	return out
}

// chains resolves the CNAME chains of the candidates, then of the
// candidates the chains added; it maps names to their first target
// outside the scope (see resolveChains).
func (d *discovery) chains(ctx context.Context) map[string]string {
	names := d.candidateNames()
	leaves := d.resolveChains(ctx, names)
	if extra := d.candidateNames(); len(extra) > len(names) {
		maps.Copy(leaves, d.resolveChains(ctx, slices.DeleteFunc(extra, func(n string) bool { return slices.Contains(names, n) })))
	}
	return leaves
}

// host resolves one candidate: nil when none of its addresses is allowed
// by policy; a host aliased to alias (outside the scope) gets HTTP(S)
// checks of the name only.
func (d *discovery) host(ctx context.Context, name string, policy netguard.Policy, alias string) *scans.Host {
	ips, err := d.env.Resolver.LookupIP(ctx, name)
	if err != nil {
		return nil
	}
	var addrs []string
	for _, ip := range ips {
		if policy.Check(ip) == nil {
			addrs = append(addrs, ip.String())
		}
	}
	if len(addrs) == 0 {
		return nil
	}
	slices.Sort(addrs)
	h := &scans.Host{Name: name, Addresses: addrs, Sources: d.sourcesOf(name)}
	if alias != "" {
		// The third party's addresses: HTTP(S) checks of the name only.
		h.CNAME, h.NotProbed = alias, scans.NotProbedThirdParty
	}
	return h
}

// sourcesOf are the sources that found a candidate, sorted.
func (d *discovery) sourcesOf(name string) []scans.HostSource {
	d.mu.Lock()
	srcs := slices.Collect(maps.Keys(d.cands[name]))
	d.mu.Unlock()
	slices.Sort(srcs)
	return srcs
}

// resolveChains asks for the A record of each name to see its CNAME chain:
// in-scope links of the chain become candidates; a chain that leaves the
// scope maps the name to the first name outside it (that name is counted,
// never a host): the name is a host whose services are not probed.
func (d *discovery) resolveChains(ctx context.Context, names []string) map[string]string {
	leaves := map[string]string{}
	var mu sync.Mutex
	inParallel(ctx, resolveConcurrency, names, func(_ int, name string) {
		if leaf := d.chain(ctx, name); leaf != "" {
			mu.Lock()
			leaves[name] = leaf
			mu.Unlock()
		}
	})
	return leaves
}

// chain considers the names of name's CNAME chain and returns the first
// one outside the scope ("" when the chain stays inside); a dangling chain
// is kept for its finding.
func (d *discovery) chain(ctx context.Context, name string) (leaf string) {
	ans, err := d.env.Resolver.Query(ctx, name, dns.TypeA)
	if err != nil {
		return ""
	}
	// Checked where the name is learnt: a chain that ends in NXDOMAIN at a
	// service where names can be claimed is a dangling alias, whichever
	// source named it (zone transfer, certificate, link...). The answer is
	// the one just read; nothing more is asked.
	if a, ok := takeover.Dangling(name, ans.CNAMEs, ans.Rcode); ok {
		d.mu.Lock()
		d.dangling = append(d.dangling, a)
		d.mu.Unlock()
	}
	for _, target := range ans.CNAMEs {
		target = strings.TrimSuffix(target, ".")
		if !domainname.InScope(target, d.domain) {
			d.consider(target, scans.SourceCNAME) // counted, never a host
			if leaf == "" {
				leaf = target
			}
			continue
		}
		if d.use[scans.SourceCNAME] {
			d.consider(target, scans.SourceCNAME)
		}
	}
	return leaf
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

package dnscheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"secscan/shared/resolver"
	"secscan/shared/scanners/internal/takeover"
	"secscan/shared/scans"
)

// commonSubdomains are the names checked for dangling aliases besides the
// domain itself: the ones most often pointed at hosted services. With the
// domain they stay within maxAliasNames.
var commonSubdomains = []string{
	"www", "mail", "app", "api", "dev", "staging", "test", "blog", "shop",
	"cdn", "static", "assets", "old", "beta", "docs", "status", "portal",
}

// maxAliasNames bounds the names one call checks for a dangling alias:
// the domain, the common subdomains and the in-scope names of the scan's
// surface so far (the names discovery learnt, when it ran before).
const maxAliasNames = 64

// aliasNames are the names checked for dangling aliases: domain, the
// common subdomains under it, then the surface's hosts under it, each
// once, at most maxAliasNames.
func aliasNames(domain string, surface []scans.Host) []string {
	names := []string{domain}
	add := func(name string) {
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if len(names) < maxAliasNames && len(name) <= 253 && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, prefix := range commonSubdomains {
		add(prefix + "." + domain)
	}
	for _, h := range surface {
		if strings.HasSuffix(strings.ToLower(h.Name), "."+domain) {
			add(h.Name)
		}
	}
	return names
}

// alias is what the checks learnt about one name's CNAME.
type alias struct {
	name   string
	target string // the CNAME target, canonical; "" when the name has none
	err    error  // the CNAME query failed: nothing is known

	// After resolving the target (only when there is one):
	dead     takeover.Alias // the dangling alias, when dangling
	dangling bool
}

// aliasesBeyond are the alias names the allowed transfers showed that
// checked does not hold, each once, at most maxTransferAliases.
func (tc transferCheck) aliasesBeyond(checked []string) []string {
	var names []string
	for _, a := range tc.attempts {
		for _, name := range a.aliases {
			if len(names) < maxTransferAliases && !slices.Contains(names, name) &&
				!slices.Contains(checked, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// lookupAliases asks for the CNAME of every name, at most concurrency at
// a time.
func lookupAliases(ctx context.Context, q *querier, names []string) []alias {
	out := make([]alias, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			out[i].name = name
			a, err := q.query(ctx, name, dns.TypeCNAME)
			if err != nil {
				out[i].err = err
				return
			}
			for _, rr := range a.Records {
				if c, ok := rr.(*dns.CNAME); ok {
					out[i].target = dns.CanonicalName(c.Target)
					return
				}
			}
		})
	}
	wg.Wait()
	return out
}

// resolveTargets resolves (A, through the resolver; never a connection) the
// target of every alias that has one, and notes the aliases whose chain
// ends in NXDOMAIN at a takeover-prone service.
func resolveTargets(ctx context.Context, q *querier, aliases []alias) {
	var wg sync.WaitGroup
	for i := range aliases {
		a := &aliases[i]
		if a.target == "" {
			continue
		}
		wg.Go(func() {
			ans, err := q.query(ctx, a.target, dns.TypeA)
			if err == nil {
				a.dead, a.dangling = takeover.Dangling(a.name, append([]string{a.target}, ans.CNAMEs...), ans.Rcode)
			}
		})
	}
	wg.Wait()
}

// danglingAliases reports aliases whose chain reaches a takeover-prone
// service and ends in NXDOMAIN: one finding per dead target (a wildcard
// record makes every checked name an alias of the same target).
func (r *report) danglingAliases(aliases []alias) {
	s := sortAliases(aliases)
	found := takeover.Findings(s.dangling)
	r.findings = append(r.findings, found...)
	note := fmt.Sprintf("CNAMEs: %d of %d names are aliases", s.withCNAME, s.checked)
	if len(found) > 0 {
		note += fmt.Sprintf(", %d dangling", len(found))
	}
	if s.failed > 0 {
		note += fmt.Sprintf(", %d not checked", s.failed)
	}
	r.notes = append(r.notes, note)
}

// aliasTally is what the alias lookups of a call found.
type aliasTally struct {
	checked, withCNAME, failed int
	dangling                   []takeover.Alias // in the order of the names
}

// sortAliases counts the aliases and collects the dangling ones.
func sortAliases(aliases []alias) aliasTally {
	var s aliasTally
	for _, a := range aliases {
		if a.err != nil {
			s.failed++
			continue
		}
		s.checked++
		if a.target == "" {
			continue
		}
		s.withCNAME++
		if a.dangling {
			s.dangling = append(s.dangling, a.dead)
		}
	}
	return s
}

// querier bounds how many of one call's queries are in flight, so a call
// does not flood the resolver.
type querier struct {
	res *resolver.Resolver
	sem chan struct{}
}

func newQuerier(res *resolver.Resolver, concurrency int) *querier {
	return &querier{res: res, sem: make(chan struct{}, concurrency)}
}

func (q *querier) query(ctx context.Context, name string, qtype uint16) (resolver.Answer, error) {
	select {
	case q.sem <- struct{}{}:
	case <-ctx.Done():
		return resolver.Answer{}, ctx.Err()
	}
	defer func() { <-q.sem }()
	return q.res.Query(ctx, name, qtype)
}

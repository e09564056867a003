package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/scans"
)

// A name of the scope can be an alias (CNAME) of a name outside it: a
// vendor's status page, a CDN. Its addresses are the third party's, so the
// tools that probe a host's own services (port scans, service probes, TLS
// enumeration) take their host through ProbedHost, which refuses such
// names; HTTP(S) checks of the name, as a browser would make them, take
// ScopedHost and still run.

// OutsideAlias returns the first name outside the scope in host's CNAME
// chain, without the trailing dot, or "" when the chain stays in scope or
// there is none. It asks the resolver for host's A record once.
func (e Env) OutsideAlias(ctx context.Context, host string) (string, error) {
	if e.Resolver == nil {
		return "", fmt.Errorf("the environment has no resolver to read %s's CNAME chain", host)
	}
	ans, err := e.Resolver.Query(ctx, host, dns.TypeA)
	if err != nil {
		return "", fmt.Errorf("CNAME chain of %s: %w", host, err)
	}
	for _, target := range ans.CNAMEs {
		if target = strings.TrimSuffix(target, "."); !domainname.InScope(target, e.Domain) {
			return target, nil
		}
	}
	return "", nil
}

// ProbedHost is ScopedHost for the tools that probe the host's services:
// besides being in scope, the name must not alias a name outside the scope
// (an input error naming the alias and scans.NotProbedThirdParty
// otherwise). A failed lookup is the tool's error: nothing is probed.
func (e Env) ProbedHost(ctx context.Context, host string) (string, error) {
	name, err := e.ScopedHost(host)
	if err != nil {
		return "", err
	}
	target, err := e.OutsideAlias(ctx, name)
	switch {
	case err != nil:
		return "", err
	case target != "":
		return "", Refuse("host %s is an alias of %s: %s", name, target, scans.NotProbedThirdParty)
	}
	return name, nil
}

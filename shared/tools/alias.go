package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/scans"
)

// A name of the scope can be an alias (CNAME) of a name outside it: a
// vendor's status page, a CDN. Its addresses are the third party's, so
// the one rule for every tool that takes a host is: such a name may be
// opened as a browser opens it — a GET of its home page over http and
// https on the standard web ports (HomePage) — and nothing else (Probe:
// other ports, services, TLS enumeration, other paths and methods,
// exposure and exploit-confirming requests). Env.Admit states the rule
// for a call, Access.Check for one request; a tool declares what its
// calls do at least (ReachOf), and the model planner's refusals apply the
// same Check to the aliases the surface knows.

// Reach is what a call, or one request, does to the host it names. The
// zero value is Probe: a tool that declares nothing is held to the strict
// side of the rule.
type Reach int

const (
	// Probe is anything beyond opening the name's home page.
	Probe Reach = iota
	// HomePage is a GET of "/" without a query over http on the HTTP port
	// or https on the HTTPS port, as a browser opening the name makes it.
	HomePage
)

func (r Reach) String() string {
	if r == HomePage {
		return "home page"
	}
	return "probe"
}

// Reacher is a tool that declares the least its calls do: a tool whose
// calls can be only HomePage on a third party's name (http_check checks
// the headers of such a page and skips its probes). A tool that is no
// Reacher is a Probe tool.
type Reacher interface {
	// Reach is the least the tool's calls do.
	Reach() Reach
}

// ReachOf is what t's calls do at least: its declared Reach, else Probe.
func ReachOf(t Tool) Reach {
	if r, ok := t.(Reacher); ok {
		return r.Reach()
	}
	return Probe
}

// Access is what the rule grants the calls and requests on one host.
type Access struct {
	// Host is the name, normalised and in scope.
	Host string
	// Alias is the first name outside the scope in Host's CNAME chain; ""
	// when the chain stays in scope or there is none.
	Alias string
}

// ThirdParty reports whether Host is an alias of a name outside the scope.
func (a Access) ThirdParty() bool { return a.Alias != "" }

// Check returns nil when what r says may be done to Host, else the input
// error naming the alias and scans.NotProbedThirdParty: on a third party's
// name only HomePage is allowed.
func (a Access) Check(r Reach) error {
	if a.Alias == "" || r == HomePage {
		return nil
	}
	return Refuse("host %s is an alias of %s: %s", a.Host, a.Alias, scans.NotProbedThirdParty)
}

// Admit is the rule for a call that does r to host (the scan's domain when
// empty): the host must be in scope (ScopedHost), and when its CNAME chain
// leaves the scope (one A query, OutsideAlias) r must be HomePage. It
// returns the access, which tells a HomePage tool whether to leave out
// the rest. A failed lookup is the tool's error: nothing is probed.
func (e Env) Admit(ctx context.Context, host string, r Reach) (Access, error) {
	name, err := e.ScopedHost(host)
	if err != nil {
		return Access{}, err
	}
	alias, err := e.OutsideAlias(ctx, name)
	if err != nil {
		return Access{}, err
	}
	a := Access{Host: name, Alias: alias}
	return a, a.Check(r)
}

// AdmitURL is Admit for a call that does least and starts at u (nil: the
// scan's domain, its home page): a start anywhere but a home page
// (RequestReach) makes the call a Probe.
func (e Env) AdmitURL(ctx context.Context, u *url.URL, least Reach) (Access, error) {
	if u == nil {
		return e.Admit(ctx, "", least)
	}
	return e.Admit(ctx, u.Hostname(), e.CallReach(least, u))
}

// CallReach is what a call that does least does when it starts at u: least,
// or Probe when u is not a home page.
func (e Env) CallReach(least Reach, u *url.URL) Reach {
	if u != nil && e.RequestReach(http.MethodGet, u) != HomePage {
		return Probe
	}
	return least
}

// RequestReach is what a request of method for u does: HomePage for a GET
// of "/" (or an empty path) without a query on its scheme's standard port
// (80 or 443, or the port Ports maps it to), else Probe.
func (e Env) RequestReach(method string, u *url.URL) Reach {
	if (method != "" && method != http.MethodGet) || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery ||
		(u.Path != "" && u.Path != "/") || u.User != nil {
		return Probe
	}
	port, std, mapped := u.Port(), 0, 0
	switch u.Scheme {
	case "http":
		std, mapped = 80, e.Ports.HTTPPort()
	case "https":
		std, mapped = 443, e.Ports.HTTPSPort()
	default:
		return Probe
	}
	if port == "" || port == strconv.Itoa(std) || port == strconv.Itoa(mapped) {
		return HomePage
	}
	return Probe
}

// KnownAccess is the access of host by what the scan's surface knows: its
// alias as discovery recorded it (no lookup; "" when the surface does not
// name host as an alias). The model planner's refusals use it.
func (e Env) KnownAccess(host string) (Access, error) {
	name, err := e.ScopedHost(host)
	if err != nil {
		return Access{}, err
	}
	a := Access{Host: name}
	if h, ok := e.Surface.Host(name); ok && h.CNAME != "" {
		a.Alias = h.CNAME
	}
	return a, nil
}

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

// ProbedHost is Admit for the tools that probe the host's services: the
// name in scope and no alias of a name outside it.
func (e Env) ProbedHost(ctx context.Context, host string) (string, error) {
	a, err := e.Admit(ctx, host, Probe)
	if err != nil {
		return "", err
	}
	return a.Host, nil
}

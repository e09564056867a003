package fingerprint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// result builds the findings, the surface and the outcome line.
func (s *scan) result(ctx context.Context, env tools.Env) tools.Result {
	host, port := httpprobe.HostPort(s.base)
	findings, codes := s.findings(host, port)
	product, version, techs := s.products()
	res := tools.Result{Findings: findings}
	origin := httpprobe.Origin(s.base).String()
	res.Surface.Web = []scans.WebOrigin{{Origin: origin, Server: httpprobe.Clean(s.root.Header.Get("Server"), 120), Technologies: techs}}
	res.Services = []scans.Service{{Host: host, Port: port, Name: s.base.Scheme, Banner: httpprobe.Clean(product, 120)}}
	res.Surface.Services = []scans.ServiceInfo{{Host: host, Address: address(ctx, env, host, port), Port: port, Transport: "tcp",
		Protocol: s.base.Scheme, Product: product, Version: httpprobe.Clean(version, 40)}}
	res.Outcome = s.outcome(ctx, origin, techs, len(findings), codes)
	return res
}

// findings are what the signatures seen found open (merged), and their
// check codes.
func (s *scan) findings(host string, port int) (findings []scans.Finding, codes []string) {
	for _, sg := range s.seen {
		if sg.check == nil || sg.auth {
			continue
		}
		f := sg.check.Finding(host, &port, httpprobe.Clean(sg.resp.Summary()+": "+sg.detail, 1500))
		f.Proof = sg.resp.Proof("")
		if sg.title != "" {
			f.Title = sg.title
		}
		if sg.severity != "" {
			f.Severity = sg.severity
		}
		findings = append(findings, f)
		codes = append(codes, string(sg.check.Code))
	}
	return checks.Merge(findings), codes
}

// products is the product and version of the first signature that is
// not an endpoint alone, and every product seen once, with its version
// and whether it asked for authentication.
func (s *scan) products() (product, version string, techs []string) {
	for _, sg := range s.seen {
		if product == "" && !sg.endpointOnly {
			product, version = sg.product, sg.version
		}
		tech := sg.product
		if sg.version != "" {
			tech += " " + httpprobe.Clean(sg.version, 40)
		}
		if sg.auth {
			tech += " (authentication required)"
		}
		if !slices.ContainsFunc(techs, func(t string) bool { return strings.HasPrefix(t, sg.product) }) {
			techs = append(techs, tech)
		}
	}
	return product, version, techs
}

// outcome is the call's outcome line.
func (s *scan) outcome(ctx context.Context, origin string, techs []string, findings int, codes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s answered %d", origin, s.root.Status)
	if len(techs) > 0 {
		fmt.Fprintf(&b, "; identified %s", strings.Join(techs, ", "))
	} else {
		b.WriteString("; no known admin, metrics or debug endpoint identified")
	}
	if findings > 0 {
		fmt.Fprintf(&b, "; %d findings: %s", findings, strings.Join(codes, ", "))
	}
	fmt.Fprintf(&b, "; %d GET requests", s.requests)
	if s.failed > 0 {
		fmt.Fprintf(&b, " (%d failed)", s.failed)
	}
	if s.note != "" {
		b.WriteString("; " + s.note)
	}
	if ctx.Err() != nil {
		b.WriteString("; the call's time ran out before every request finished")
	}
	return b.String()
}

// knownAddress is the address of host:port in the surface, else the
// host's first address there; "" when the surface has none.
func knownAddress(sf scans.Surface, host string, port int) string {
	for _, v := range sf.Services {
		if v.Host == host && v.Port == port && v.Address != "" {
			return v.Address
		}
	}
	if h, ok := sf.Host(host); ok && len(h.Addresses) > 0 {
		return h.Addresses[0]
	}
	return ""
}

// address is the address the scan knows host:port by (the port scan's), so
// the surface merges this service into the one it found; else the host's
// first address.
func address(ctx context.Context, env tools.Env, host string, port int) string {
	if a := knownAddress(env.Surface, host, port); a != "" {
		return a
	}
	if env.Resolver != nil {
		if ips, err := env.Resolver.LookupIP(ctx, host); err == nil && len(ips) > 0 {
			return ips[0].String()
		}
	}
	return ""
}

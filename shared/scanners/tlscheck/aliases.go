package tlscheck

import (
	"bytes"
	"context"
	"crypto/tls"
	"net/netip"
	"slices"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// maxAlso bounds the aliases one call may cover (the input schema's maxItems).
const maxAlso = 8

// coverAliases extends res, the result of the check of tgt, to the names
// of also that are the same TLS service: in scope, resolving to tgt's
// address, and presenting, for their own name, the very leaf certificate
// tgt presented (first), negotiating the same version and cipher suite,
// with the same hostname verdict. One handshake per
// name; each covered name gets the call's TLS findings (not the HSTS ones,
// which are about a name's own web responses) and a service entry, by
// which the planner knows it needs no call of its own. A name that differs
// in any way is left out, silently: it is checked by a call of its own.
func (c *Checker) coverAliases(ctx context.Context, env tools.Env, tgt target, first tls.ConnectionState, also []string, res *tools.Result) {
	if len(first.PeerCertificates) == 0 {
		return
	}
	base := slices.Clone(res.Findings)
	for i, name := range also {
		if i >= maxAlso || ctx.Err() != nil {
			return
		}
		host, ok := c.sameTLSService(ctx, env, tgt, first, name)
		if !ok {
			continue
		}
		res.Findings = append(res.Findings, aliasFindings(base, tgt, host)...)
		res.Services = append(res.Services, scans.Service{Host: host, Port: tgt.port, Name: res.Services[0].Name, Banner: res.Services[0].Banner})
		res.Outcome += "; also covers " + host + " (same address and certificate)"
	}
}

// sameTLSService returns the in-scope host name names, and whether it is
// the TLS service of tgt, whose handshake was first: another name,
// resolving to tgt's address, and meeting the same service (sameService)
// with the same hostname verdict.
func (c *Checker) sameTLSService(ctx context.Context, env tools.Env, tgt target, first tls.ConnectionState, name string) (string, bool) {
	host, err := env.ScopedHost(name)
	if err != nil || strings.EqualFold(host, tgt.host) {
		return "", false
	}
	ip, err := c.ResolveProbed(ctx, env, host)
	if err != nil || ip != netip.MustParseAddrPort(tgt.addr).Addr() {
		return "", false
	}
	leaf := first.PeerCertificates[0]
	alias := target{host: host, port: tgt.port, addr: tgt.addr}
	st, err := handshake(ctx, env, alias, baseConfig(host, tls.VersionTLS10, 0, allSuites))
	if err != nil || !sameService(first, st, leaf.Raw) {
		return "", false
	}
	return host, (st.PeerCertificates[0].VerifyHostname(host) == nil) == (leaf.VerifyHostname(tgt.host) == nil)
}

// aliasFindings are the TLS findings of tgt, named for host.
func aliasFindings(fs []scans.Finding, tgt target, host string) []scans.Finding {
	var out []scans.Finding
	for _, f := range fs {
		if f.Check == checks.HeaderHSTS.Code || f.Check == checks.HeaderHSTSMaxAge.Code {
			continue
		}
		f.Host = host
		f.Evidence += " (" + host + " presents the same certificate on the same address as " + tgt.String() + ")"
		out = append(out, f)
	}
	return out
}

// sameService reports whether a handshake with an alias's name met the
// same TLS service as the first: the same leaf certificate, and the same
// negotiated version and cipher suite (a server that picks its
// configuration by name shows it here first).
func sameService(first, alias tls.ConnectionState, leaf []byte) bool {
	return len(alias.PeerCertificates) > 0 && bytes.Equal(alias.PeerCertificates[0].Raw, leaf) &&
		alias.Version == first.Version && alias.CipherSuite == first.CipherSuite
}

package discovery

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"secscan/shared/domainname"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// certificates reads the SANs of the certificates of in-scope TLS services
// the scan found (and the domain's HTTPS port).
func (d *discovery) certificates(ctx context.Context) {
	var wg sync.WaitGroup
	for _, ep := range d.tlsEndpoints() {
		wg.Go(func() {
			names := d.certificateNames(ctx, ep)
			for _, n := range names[:min(len(names), 100)] {
				d.consider(n, scans.SourceCertificate)
			}
		})
	}
	wg.Wait()
}

// tlsEndpoint is a host and port that speaks TLS.
type tlsEndpoint struct {
	host string
	port int
}

// tlsEndpoints are the domain's HTTPS port and the in-scope TLS services
// of the surface, at most maxTLSEndpoints.
func (d *discovery) tlsEndpoints() []tlsEndpoint {
	eps := []tlsEndpoint{{d.domain, d.env.Ports.HTTPSPort()}}
	for _, v := range d.env.Surface.Services {
		if len(eps) == maxTLSEndpoints {
			break
		}
		ep := tlsEndpoint{v.Host, v.Port}
		if scans.TLSProtocol(v.Protocol) && domainname.InScope(v.Host, d.domain) && !slices.Contains(eps, ep) {
			eps = append(eps, ep)
		}
	}
	return eps
}

// certificateNames are the names of the leaf certificate ep presents: its
// DNS SANs, or its common name when it has none (none when the handshake
// fails).
func (d *discovery) certificateNames(ctx context.Context, ep tlsEndpoint) []string {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn, err := d.env.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(ep.host, strconv.Itoa(ep.port)))
	if err != nil {
		return nil
	}
	defer conn.Close()
	// The certificate is read, not trusted: judging it is tls_check's job.
	tc := tls.Client(conn, &tls.Config{ServerName: ep.host, InsecureSkipVerify: true, MinVersion: tls.VersionTLS10}) //nolint:gosec
	if tc.HandshakeContext(ctx) != nil {
		return nil
	}
	state := tc.ConnectionState()
	if len(state.PeerCertificates) == 0 {
		return nil
	}
	leaf := state.PeerCertificates[0]
	names := slices.Clone(leaf.DNSNames)
	if len(names) == 0 && leaf.Subject.CommonName != "" {
		names = append(names, leaf.Subject.CommonName)
	}
	return names
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
	for _, ps := range pageSources {
		if d.use[ps.source] {
			for _, n := range ps.names(i, resp) {
				d.consider(n, ps.source)
			}
		}
	}
}

// pageSources are where a response of a redirect chain names hosts, in the
// order readPage considers them.
var pageSources = []struct {
	source scans.HostSource
	names  func(i int, resp *httpprobe.Response) []string
}{
	{scans.SourceRedirect, redirectNames},
	{scans.SourceCSP, cspHeaderNames},
	{scans.SourceCORS, corsNames},
	{scans.SourceLink, pageLinkNames},
}

// cspHeaderNames are the hosts of the response's Content-Security-Policy
// headers.
func cspHeaderNames(_ int, resp *httpprobe.Response) []string {
	var out []string
	for _, v := range resp.Header.Values("Content-Security-Policy") {
		out = append(out, cspNames(v)...)
	}
	return out
}

// corsNames is the host of the origin the response's CORS header allows.
func corsNames(_ int, resp *httpprobe.Response) []string {
	if o, err := url.Parse(resp.Header.Get("Access-Control-Allow-Origin")); err == nil && o.Hostname() != "" {
		return []string{o.Hostname()}
	}
	return nil
}

// pageLinkNames are the hosts an HTML response links to.
func pageLinkNames(_ int, resp *httpprobe.Response) []string {
	if !strings.Contains(resp.ContentType(), "html") {
		return nil
	}
	return linkHosts(resp.Body, resp.URL)
}

// redirectNames are the host a redirect led to (every response after the
// first) and the host it redirects to.
func redirectNames(i int, resp *httpprobe.Response) []string {
	var out []string
	if i > 0 {
		out = append(out, resp.URL.Hostname())
	}
	if resp.Location != nil {
		out = append(out, resp.Location.Hostname())
	}
	return out
}

// cspNames are the host names of a Content-Security-Policy's sources.
func cspNames(policy string) []string {
	var out []string
	for _, directive := range strings.Split(policy, ";") {
		fields := strings.Fields(directive)
		for _, src := range fields[min(len(fields), 1):] {
			if h := cspSourceHost(src); h != "" {
				out = append(out, h)
			}
		}
		if len(out) > maxLinks {
			break
		}
	}
	return out
}

// cspSourceHost is the host name of a CSP source expression ("" for
// keywords, bare schemes and sources without a host); a source without a
// scheme is read as https.
func cspSourceHost(src string) string {
	if strings.HasPrefix(src, "'") || strings.HasSuffix(src, ":") {
		return "" // keywords and bare schemes
	}
	if !strings.Contains(src, "://") {
		src = "https://" + src
	}
	if u, err := url.Parse(src); err == nil {
		return u.Hostname()
	}
	return ""
}

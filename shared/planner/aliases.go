package planner

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/scans"
)

// aliasesOf maps each selected host that is an alias of a host before it
// (in plan order) to that host, and each host that has aliases to them:
// the same addresses, the same web origin scheme and port, the same
// certificate on it (tls_check's outcome: subject and expiry) and the same
// home page (http_check's title, server and technologies). Such names are
// one site under two names (www and the apex, typically): the heavy checks
// (exposed_files, version_check, code_scan, web_crawl) of the first cover
// the others, which would only report the same weaknesses again. Until
// their tls_check and http_check have run, hosts are not aliases.
func aliasesOf(s State, hosts []scans.Host) (aliasOf map[string]string, coveredBy map[string][]string) {
	aliasOf, coveredBy = map[string]string{}, map[string][]string{}
	first := map[string]string{} // identity → host name
	for _, h := range hosts {
		if h.CNAME != "" || len(h.Addresses) == 0 {
			continue
		}
		id := siteIdentity(s, h)
		if id == "" {
			continue
		}
		if c, ok := first[id]; ok {
			coveredBy[c] = append(coveredBy[c], h.Name)
			aliasOf[h.Name] = c
			continue
		}
		first[id] = h.Name
	}
	return aliasOf, coveredBy
}

// siteIdentity is what makes two host names the same site, "" when it is
// not known (yet).
func siteIdentity(s State, h scans.Host) string {
	svcs := servicesOf(s.Surface, h)
	o := webOrigin(h.Name, svcs)
	if o == "" {
		return ""
	}
	u, err := url.Parse(o)
	if err != nil {
		return ""
	}
	port := cmp.Or(u.Port(), map[string]string{"https": "443", "http": "80"}[u.Scheme])
	cert := "plain"
	if u.Scheme == "https" {
		cert = certificateOf(s.Steps, h.Name, port)
	}
	w, found := homePage(s.Surface, o)
	if cert == "" || !found {
		return ""
	}
	addrs := slices.Clone(h.Addresses)
	slices.Sort(addrs)
	return strings.Join([]string{strings.Join(addrs, ","), u.Scheme, port, cert,
		w.Title, w.Server, strings.Join(w.Technologies, ",")}, "\x00")
}

// homePage is what http_check saw on origin o (with or without its
// trailing slash).
func homePage(sf scans.Surface, o string) (scans.WebOrigin, bool) {
	i := slices.IndexFunc(sf.Web, func(w scans.WebOrigin) bool { return w.Origin == strings.TrimSuffix(o, "/") || w.Origin == o })
	if i < 0 {
		return scans.WebOrigin{}, false
	}
	return sf.Web[i], true
}

// tlsCertificate finds the certificate in a tls_check outcome
// ("...; certificate \"CN=...\" expiring 2027-01-01; ...").
var tlsCertificate = lazyre.New(`; certificate ("(?:[^"\\]|\\.)*" expiring \S+|none)`)

// certificateOf is the certificate tls_check saw on host:port (checked
// itself or covered as an alias), "" when no successful tls_check of it is
// recorded.
func certificateOf(steps []scans.Step, host, port string) string {
	for _, st := range steps {
		if st.Status != scans.StepOK || !isTLSCheckOf(st, host, port) {
			continue
		}
		if cert := certificateIn(st.Outcome); cert != "" {
			return cert
		}
	}
	// A name covered by the tls_check of another name on its address
	// presents that name's certificate.
	return certificateIn(coveringTLSStep(steps, host, port))
}

// certificateIn is the certificate a tls_check outcome names, "" when none.
func certificateIn(outcome string) string {
	if m := tlsCertificate.FindStringSubmatch(outcome); m != nil {
		return strings.TrimSuffix(m[1], ";")
	}
	return ""
}

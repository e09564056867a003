package vuln

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// sighting is one product version seen at one place.
type sighting struct {
	product string
	version Version
	host    string
	port    int
	where   string // evidence: where and how the version was seen
}

// ver matches a dotted version with an optional pre-release suffix.
const ver = `(\d+\.\d+(?:\.\d+)?(?:-(?:alpha|beta|rc)\.?\d*)?)`

// headerTokens maps the product tokens of Server / X-Powered-By headers
// (and of banners that quote them) to dataset products.
var headerTokens = map[string]string{
	"apache":        "apache_httpd",
	"nginx":         "nginx",
	"microsoft-iis": "iis",
	"php":           "php",
	"openssl":       "openssl",
}

// productToken matches "Name/1.2.3" tokens.
var productToken = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.\-]{0,40})/(\d[0-9A-Za-z.\-]{0,40})`)

// headerSightings reads Server-style product tokens from text.
func headerSightings(text, host string, port int, where string) []sighting {
	var out []sighting
	for _, m := range productToken.FindAllStringSubmatch(text, 8) {
		product, ok := headerTokens[strings.ToLower(m[1])]
		if !ok {
			continue
		}
		v, err := ParseVersion(m[2])
		if err != nil {
			continue
		}
		out = append(out, sighting{product: product, version: v, host: host, port: port,
			where: fmt.Sprintf("%s: %s", where, httpprobe.Clean(text, 120))})
	}
	return out
}

// bannerPatterns recognise versions in service banners.
var bannerPatterns = []struct {
	product string
	re      *regexp.Regexp
}{
	{"openssh", regexp.MustCompile(`(?i)OpenSSH[_-](\d+\.\d+(?:\.\d+)?(?:p\d+)?)`)},
	{"vsftpd", regexp.MustCompile(`(?i)\bvsFTPd (\d+\.\d+\.\d+)`)},
	{"exim", regexp.MustCompile(`(?i)\bExim (\d+\.\d+(?:\.\d+)?)`)},
	{"mariadb", regexp.MustCompile(`(?i)(\d+\.\d+\.\d+)-MariaDB`)},
}

var mysqlVersion = regexp.MustCompile(`\b(\d+\.\d+\.\d+)`)

// bannerSightings reads versions from a service an earlier step found.
func bannerSightings(svc scans.Service) []sighting {
	banner := svc.Banner
	if banner == "" {
		return nil
	}
	where := fmt.Sprintf("banner of %s on %s:%d: %q", svc.Name, svc.Host, svc.Port, httpprobe.Clean(banner, 120))
	var out []sighting
	add := func(product, version string) {
		if v, err := ParseVersion(version); err == nil {
			out = append(out, sighting{product: product, version: v, host: svc.Host, port: svc.Port, where: where})
		}
	}
	mariadb := false
	for _, p := range bannerPatterns {
		if m := p.re.FindStringSubmatch(banner); m != nil {
			add(p.product, m[1])
			mariadb = mariadb || p.product == "mariadb"
		}
	}
	// A MySQL greeting carries the bare server version ("5.5.62-0ubuntu…").
	if strings.Contains(strings.ToLower(svc.Name), "mysql") && !mariadb {
		if m := mysqlVersion.FindStringSubmatch(banner); m != nil {
			add("mysql", m[1])
		}
	}
	return append(out, headerSightings(banner, svc.Host, svc.Port, fmt.Sprintf("banner of %s on %s:%d", svc.Name, svc.Host, svc.Port))...)
}

// scriptNamePatterns recognise library versions in script URLs: file
// names (jquery-1.12.4.min.js), CDN paths (/jquery/3.4.1/jquery.min.js,
// jquery@3.4.1) and WordPress-style ?ver= parameters.
var scriptNamePatterns = []struct {
	product string
	res     []*regexp.Regexp
}{
	{"jquery_ui", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/jquery[.-]ui[.-]` + ver + `(?:\.custom)?(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/jqueryui/` + ver + `/`),
		regexp.MustCompile(`(?i)/jquery-ui(?:-dist)?@` + ver),
	}},
	{"jquery", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/jquery[.-]` + ver + `(?:\.slim)?(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/jquery/` + ver + `/jquery(?:\.slim)?(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/jquery@` + ver),
		regexp.MustCompile(`(?i)/jquery(?:\.min)?\.js\?ver=` + ver),
	}},
	{"bootstrap", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/bootstrap[.-]` + ver + `(?:\.bundle)?(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/(?:twitter-)?bootstrap/` + ver + `/`),
		regexp.MustCompile(`(?i)/bootstrap@` + ver),
	}},
	{"angularjs", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/angular[.-](1\.\d+\.\d+)(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/angularjs/(1\.\d+\.\d+)/`),
		regexp.MustCompile(`(?i)/angular@(1\.\d+\.\d+)`),
	}},
	{"lodash", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/lodash[.-]` + ver + `(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/lodash(?:\.js)?/` + ver + `/`),
		regexp.MustCompile(`(?i)/lodash@` + ver),
	}},
	{"moment", []*regexp.Regexp{
		regexp.MustCompile(`(?i)/moment[.-]` + ver + `(?:\.min)?\.js`),
		regexp.MustCompile(`(?i)/moment(?:\.js)?/` + ver + `/`),
		regexp.MustCompile(`(?i)/moment@` + ver),
	}},
}

// scriptNameSightings reads library versions from a script's URL; the
// library is the page's, so the sighting is on the page's host and port.
func scriptNameSightings(script, page *url.URL) []sighting {
	host, port := httpprobe.HostPort(page)
	path := script.EscapedPath()
	if script.RawQuery != "" {
		path += "?" + script.RawQuery
	}
	var out []sighting
	for _, p := range scriptNamePatterns {
		for _, re := range p.res {
			m := re.FindStringSubmatch(path)
			if m == nil {
				continue
			}
			if v, err := ParseVersion(m[1]); err == nil {
				out = append(out, sighting{product: p.product, version: v, host: host, port: port,
					where: fmt.Sprintf("script %s referenced by %s (file name)", httpprobe.Clean(script.String(), 200), httpprobe.Clean(page.String(), 200))})
			}
			break
		}
	}
	return out
}

// scriptBannerPatterns recognise the license comments libraries start
// with; requires, when set, must also appear in the body.
var scriptBannerPatterns = []struct {
	product  string
	requires string
	re       *regexp.Regexp
}{
	{"jquery", "", regexp.MustCompile(`/\*!?\s*jQuery v` + ver)},
	{"jquery", "", regexp.MustCompile(`\* jQuery JavaScript Library v` + ver)},
	{"jquery_ui", "", regexp.MustCompile(`/\*!?\s*jQuery UI - v` + ver)},
	{"bootstrap", "", regexp.MustCompile(`\*\s*Bootstrap v` + ver + ` \(https?://getbootstrap\.com`)},
	{"angularjs", "", regexp.MustCompile(`@license AngularJS v(1\.\d+\.\d+)`)},
	{"moment", "", regexp.MustCompile(`//! moment\.js\s*\n//! version : ` + ver)},
	{"lodash", "lodash", regexp.MustCompile(`\bVERSION\s*=\s*['"]` + ver + `['"]`)},
}

// scriptBodySightings reads library versions from the header comments of
// a fetched script.
func scriptBodySightings(body []byte, script, page *url.URL) []sighting {
	host, port := httpprobe.HostPort(page)
	var out []sighting
	seen := map[string]bool{}
	for _, p := range scriptBannerPatterns {
		if seen[p.product] || (p.requires != "" && !strings.Contains(strings.ToLower(string(body)), p.requires)) {
			continue
		}
		m := p.re.FindSubmatch(body)
		if m == nil {
			continue
		}
		v, err := ParseVersion(string(m[1]))
		if err != nil {
			continue
		}
		seen[p.product] = true
		out = append(out, sighting{product: p.product, version: v, host: host, port: port,
			where: fmt.Sprintf("header of script %s: %q", httpprobe.Clean(script.String(), 200), httpprobe.Clean(string(m[0]), 80))})
	}
	return out
}

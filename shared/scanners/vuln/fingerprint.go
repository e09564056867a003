package vuln

import (
	"fmt"
	"net/url"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/distro"
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
	// build is the distribution build the text around the version names
	// (a package revision, or the distribution's name alone); nil for an
	// upstream build.
	build *distro.Build
}

// buildOf is the distribution build text names, or nil.
func buildOf(text string) *distro.Build {
	if b, ok := distro.Detect(text); ok {
		return &b
	}
	return nil
}

// tokenBuild is the build of one product token of a header that may name
// several ("Apache/2.4.57 (Debian) PHP/8.2.7-1+deb12u1"): a revision only
// when the token's own version carries it, else the distribution's name
// the header shows.
func tokenBuild(token, text string) *distro.Build {
	if b, ok := distro.Detect(token); ok && b.HasRevision() {
		return &b
	}
	if b, ok := distro.Detect(text); ok {
		return &distro.Build{Distribution: b.Distribution}
	}
	return nil
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
	// "Apache Tomcat/9.0.30" (X-Powered-By of some Tomcat setups);
	// "Apache-Coyote/1.1" names the connector, not the release, and is
	// deliberately absent.
	"tomcat": "tomcat",
}

// headerPatterns recognise products whose header is not a Name/version
// token: Jetty announces itself as "Jetty(9.4.38.v20210224)". Snapshot
// builds ("Jetty(9.4.z-SNAPSHOT)") carry no usable version and do not
// match.
var headerPatterns = []struct {
	product string
	re      *lazyre.Regexp
}{
	{"jetty", lazyre.New(`\bJetty\((\d+\.\d+\.\d+)(?:\.v\d+)?\)`)},
}

// productToken matches "Name/1.2.3" tokens.
var productToken = lazyre.New(`([A-Za-z][A-Za-z0-9_.\-]{0,40})/(\d[0-9A-Za-z.\-]{0,40})`)

// headerSightings reads Server-style product tokens from text.
func headerSightings(text, host string, port int, where string) []sighting {
	var out []sighting
	add := func(product, version string, build *distro.Build) {
		if v, err := ParseVersion(version); err == nil {
			out = append(out, sighting{product: product, version: v, host: host, port: port,
				where: fmt.Sprintf("%s: %s", where, httpprobe.Clean(text, 120)), build: build})
		}
	}
	for _, m := range productToken.FindAllStringSubmatch(text, 8) {
		if product, ok := headerTokens[strings.ToLower(m[1])]; ok {
			add(product, m[2], tokenBuild(m[0], text))
		}
	}
	for _, p := range headerPatterns {
		if m := p.re.FindStringSubmatch(text); m != nil {
			add(p.product, m[1], tokenBuild(m[0], text))
		}
	}
	return out
}

// bannerPatterns recognise versions in service banners.
var bannerPatterns = []struct {
	product string
	re      *lazyre.Regexp
}{
	{"openssh", lazyre.New(`(?i)OpenSSH[_-](\d+\.\d+(?:\.\d+)?(?:p\d+)?)`)},
	{"vsftpd", lazyre.New(`(?i)\bvsFTPd (\d+\.\d+\.\d+)`)},
	{"exim", lazyre.New(`(?i)\bExim (\d+\.\d+(?:\.\d+)?)`)},
	{"mariadb", lazyre.New(`(?i)(\d+\.\d+\.\d+)-MariaDB`)},
	// "220 ProFTPD 1.3.5 Server (Debian)", "220 ProFTPD 1.3.5e Server";
	// letter releases (1.3.5a …) and release candidates are versions of
	// their own.
	{"proftpd", lazyre.New(`\bProFTPD (\d+\.\d+\.\d+(?:[a-z]|rc\d+)?)\b`)},
	// service_info reads Redis INFO server: "redis_version:6.0.9".
	{"redis", lazyre.New(`\bredis_version:(\d+\.\d+\.\d+)\b`)},
}

// esVersion reads the version the port scan copied into an Elasticsearch
// banner from GET / ("… | version 7.10.2").
var esVersion = lazyre.New(`\| version (\d+\.\d+\.\d+)\b`)

var mysqlVersion = lazyre.New(`\b(\d+\.\d+\.\d+)`)

// bannerSightings reads versions from a service an earlier step found.
func bannerSightings(svc scans.Service) []sighting {
	banner := svc.Banner
	if banner == "" {
		return nil
	}
	where := fmt.Sprintf("banner of %s on %s:%d: %q", svc.Name, svc.Host, svc.Port, httpprobe.Clean(banner, 120))
	var out []sighting
	// A banner is one product's: a revision anywhere in it is that
	// product's ("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10", a MySQL
	// greeting's "5.5.62-0ubuntu0.14.04.1").
	build := buildOf(banner)
	for _, pv := range bannerVersions(svc.Name, banner) {
		if v, err := ParseVersion(pv.version); err == nil {
			out = append(out, sighting{product: pv.product, version: v, host: svc.Host, port: svc.Port, where: where, build: build})
		}
	}
	return append(out, headerSightings(banner, svc.Host, svc.Port, fmt.Sprintf("banner of %s on %s:%d", svc.Name, svc.Host, svc.Port))...)
}

// productVersion is a product id and the version text announced for it.
type productVersion struct{ product, version string }

// bannerVersions are the product versions a banner of the named service
// announces, in bannerPatterns order, then Elasticsearch's and MySQL's.
func bannerVersions(service, banner string) []productVersion {
	var out []productVersion
	mariadb := false
	for _, p := range bannerPatterns {
		if m := p.re.FindStringSubmatch(banner); m != nil {
			out = append(out, productVersion{p.product, m[1]})
			mariadb = mariadb || p.product == "mariadb"
		}
	}
	for _, p := range serviceVersions {
		if !p.applies(service, mariadb) {
			continue
		}
		if m := p.re.FindStringSubmatch(banner); m != nil {
			out = append(out, productVersion{p.product, m[1]})
		}
	}
	return out
}

// serviceVersions read versions whose text is only a version in banners of
// some services: Elasticsearch's copied GET / answer, and a MySQL
// greeting's bare server version ("5.5.62-0ubuntu…") unless it is
// MariaDB's.
var serviceVersions = []struct {
	product string
	re      *lazyre.Regexp
	applies func(service string, mariadb bool) bool
}{
	{"elasticsearch", esVersion, func(service string, _ bool) bool { return service == "elasticsearch" }},
	{"mysql", mysqlVersion, func(service string, mariadb bool) bool {
		return strings.Contains(strings.ToLower(service), "mysql") && !mariadb
	}},
}

// scriptNamePatterns recognise library versions in script URLs: file
// names (jquery-1.12.4.min.js), CDN paths (/jquery/3.4.1/jquery.min.js,
// jquery@3.4.1) and WordPress-style ?ver= parameters.
var scriptNamePatterns = []struct {
	product string
	res     []*lazyre.Regexp
}{
	{"jquery_ui", []*lazyre.Regexp{
		lazyre.New(`(?i)/jquery[.-]ui[.-]` + ver + `(?:\.custom)?(?:\.min)?\.js`),
		lazyre.New(`(?i)/jqueryui/` + ver + `/`),
		lazyre.New(`(?i)/jquery-ui(?:-dist)?@` + ver),
	}},
	{"jquery", []*lazyre.Regexp{
		lazyre.New(`(?i)/jquery[.-]` + ver + `(?:\.slim)?(?:\.min)?\.js`),
		lazyre.New(`(?i)/jquery/` + ver + `/jquery(?:\.slim)?(?:\.min)?\.js`),
		lazyre.New(`(?i)/jquery@` + ver),
		lazyre.New(`(?i)/jquery(?:\.min)?\.js\?ver=` + ver),
	}},
	{"bootstrap", []*lazyre.Regexp{
		lazyre.New(`(?i)/bootstrap[.-]` + ver + `(?:\.bundle)?(?:\.min)?\.js`),
		lazyre.New(`(?i)/(?:twitter-)?bootstrap/` + ver + `/`),
		lazyre.New(`(?i)/bootstrap@` + ver),
	}},
	{"angularjs", []*lazyre.Regexp{
		lazyre.New(`(?i)/angular[.-](1\.\d+\.\d+)(?:\.min)?\.js`),
		lazyre.New(`(?i)/angularjs/(1\.\d+\.\d+)/`),
		lazyre.New(`(?i)/angular@(1\.\d+\.\d+)`),
	}},
	{"lodash", []*lazyre.Regexp{
		lazyre.New(`(?i)/lodash[.-]` + ver + `(?:\.min)?\.js`),
		lazyre.New(`(?i)/lodash(?:\.js)?/` + ver + `/`),
		lazyre.New(`(?i)/lodash@` + ver),
	}},
	{"moment", []*lazyre.Regexp{
		lazyre.New(`(?i)/moment[.-]` + ver + `(?:\.min)?\.js`),
		lazyre.New(`(?i)/moment(?:\.js)?/` + ver + `/`),
		lazyre.New(`(?i)/moment@` + ver),
	}},
	{"handlebars", []*lazyre.Regexp{
		// Release builds are named handlebars-v4.7.7.js,
		// handlebars.min-v4.7.7.js and handlebars.runtime-v4.7.7.js.
		lazyre.New(`(?i)/handlebars(?:\.runtime)?(?:\.min)?[.-]v?` + ver + `(?:\.min)?\.js`),
		lazyre.New(`(?i)/handlebars(?:\.js)?/` + ver + `/`),
		lazyre.New(`(?i)/handlebars@` + ver),
	}},
	{"dompurify", []*lazyre.Regexp{
		lazyre.New(`(?i)/dompurify/` + ver + `/`),
		lazyre.New(`(?i)/dompurify@` + ver),
		lazyre.New(`(?i)/purify[.-]` + ver + `(?:\.min)?\.js`),
	}},
	{"vue", []*lazyre.Regexp{
		lazyre.New(`(?i)/vue/` + ver + `/vue[a-z.]*\.js`),
		lazyre.New(`(?i)/vue@` + ver),
		lazyre.New(`(?i)/vue[.-]` + ver + `(?:\.min)?\.js`),
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
	re       *lazyre.Regexp
}{
	{"jquery", "", lazyre.New(`/\*!?\s*jQuery v` + ver)},
	{"jquery", "", lazyre.New(`\* jQuery JavaScript Library v` + ver)},
	{"jquery_ui", "", lazyre.New(`/\*!?\s*jQuery UI - v` + ver)},
	{"bootstrap", "", lazyre.New(`\*\s*Bootstrap v` + ver + ` \(https?://getbootstrap\.com`)},
	{"angularjs", "", lazyre.New(`@license AngularJS v(1\.\d+\.\d+)`)},
	{"moment", "", lazyre.New(`//! moment\.js\s*\n//! version : ` + ver)},
	{"lodash", "lodash", lazyre.New(`\bVERSION\s*=\s*['"]` + ver + `['"]`)},
	// "/**!\n\n @license\n handlebars v4.7.7\n\nCopyright (C) 2011-2019 by Yehuda Katz"
	{"handlebars", "", lazyre.New(`/\*+![\s*]*(?:@license[\s*]+)?handlebars v` + ver)},
	// "/*! @license DOMPurify 2.3.3 | (c) Cure53 and other contributors | …"
	{"dompurify", "", lazyre.New(`@license DOMPurify ` + ver)},
	// "/*!\n * Vue.js v2.6.14\n * (c) 2014-2021 Evan You"
	{"vue", "", lazyre.New(`/\*!?[\s*]*Vue\.js v` + ver)},
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

// pagePatterns recognise the version footers of default error and welcome
// pages: what a server prints when nobody replaced its pages.
var pagePatterns = []struct {
	product string
	re      *lazyre.Regexp
}{
	// "<h3>Apache Tomcat/9.0.30</h3>", "<title>Apache Tomcat/9.0.30</title>"
	{"tomcat", lazyre.New(`Apache Tomcat/(\d+\.\d+\.\d+)\b`)},
	// "<address>Apache/2.4.41 (Ubuntu) Server at example.com Port 80</address>"
	{"apache_httpd", lazyre.New(`<address>Apache/(\d+\.\d+\.\d+)[^<]{0,120}? Server at `)},
	// "<hr><center>nginx/1.18.0</center>"
	{"nginx", lazyre.New(`<center>nginx/(\d+\.\d+\.\d+)</center>`)},
	// "Powered by Jetty:// 9.4.38.v20210224"
	{"jetty", lazyre.New(`Powered by Jetty:// (\d+\.\d+\.\d+)`)},
}

// maxPageScan bounds how much of a page the footer patterns read.
const maxPageScan = 256 << 10

// PageVersion is a product version a page discloses in its text.
type PageVersion struct {
	// Product is the display name, e.g. "Apache Tomcat".
	Product string
	Version string
	// Text is the matched text, cleaned, for evidence.
	Text string
}

// PageVersions returns the product versions a page body discloses in the
// footers of default error and welcome pages (Tomcat, Apache, nginx,
// Jetty). The web crawl reports them as version disclosure.
func PageVersions(body []byte) []PageVersion {
	d, err := builtinDataset()
	if err != nil {
		return nil
	}
	var out []PageVersion
	for _, m := range pageMatches(body) {
		out = append(out, PageVersion{Product: d.ProductName(m.product), Version: m.version, Text: m.text})
	}
	return out
}

type pageMatch struct{ product, version, text string }

func pageMatches(body []byte) []pageMatch {
	if len(body) > maxPageScan {
		body = body[:maxPageScan]
	}
	var out []pageMatch
	for _, p := range pagePatterns {
		if m := p.re.FindSubmatch(body); m != nil {
			out = append(out, pageMatch{product: p.product, version: string(m[1]), text: httpprobe.Clean(string(m[0]), 120)})
		}
	}
	return out
}

// pageSightings reads versions from the footer of a page (see
// pagePatterns); the sighting is on the page's host and port.
func pageSightings(body []byte, page *url.URL, status int) []sighting {
	host, port := httpprobe.HostPort(page)
	var out []sighting
	for _, m := range pageMatches(body) {
		if v, err := ParseVersion(m.version); err == nil {
			out = append(out, sighting{product: m.product, version: v, host: host, port: port,
				where: fmt.Sprintf("page %s (status %d): %q", httpprobe.Clean(page.String(), 200), status, m.text)})
		}
	}
	return out
}

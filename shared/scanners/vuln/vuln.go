// Package vuln owns the version_check tool: passive fingerprinting of
// software versions — the Server and X-Powered-By headers of one page and
// the footers of default pages (that page and the site's answer for a path
// that does not exist), the JavaScript libraries the page loads (file names
// and license headers of same-host scripts), and the banners earlier steps
// recorded (env.Known) — matched against an embedded, versioned dataset of
// CVEs (with CVSS and affected version ranges) and end-of-life branches.
// It never exploits or confirms anything actively: findings say they rest
// on the announced version. Requests are bounded GETs, in scope, through
// the guarded dialer.
package vuln

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/distro"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name    = "version_check"
	cost    = 5
	timeout = 18 * time.Second
	// pageBody bounds the page read; scriptBody each script (license
	// headers sit at the top).
	pageBody   = 256 << 10
	scriptBody = 64 << 10
	// notFoundBody bounds the error page read; footers are short pages.
	notFoundBody = 32 << 10
	// maxScripts bounds the same-host scripts fetched.
	maxScripts = 6
	// maxKnown bounds the services from earlier steps that are read.
	maxKnown = 200
	// maxWhere bounds the places listed per sighting.
	maxWhere = 3
)

// Option configures the tool.
type Option func(*Tool)

// WithRootCAs verifies certificates with pool instead of the system pool.
func WithRootCAs(pool *x509.CertPool) Option { return func(t *Tool) { t.rootCAs = pool } }

// withClock replaces time.Now for end-of-life decisions (tests).
func withClock(now func() time.Time) Option { return func(t *Tool) { t.now = now } }

// Tool is the version_check tool.
type Tool struct {
	tooldef.Base
	rootCAs *x509.CertPool
	now     func() time.Time
}

// New returns the version_check tool.
func New(opts ...Option) tools.Tool {
	t := &Tool{Base: tooldef.New(Name, cost, timeout), now: time.Now}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	d, _ := builtinDataset()
	edition, count := "", 0
	if d != nil {
		edition, count = d.Version, len(d.Vulnerabilities)
	}
	return fmt.Sprintf("Passively fingerprints software versions (Server/X-Powered-By headers and default-page footers of one "+
		"page and of the site's not-found page, JavaScript libraries the page loads, banners found by earlier steps such "+
		"as the port scan) and matches them against an "+
		"embedded vulnerability dataset (edition %s, %d CVE entries, plus end-of-life branches). No exploitation; "+
		"findings rest on announced versions.", edition, count)
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return httpprobe.PageSchema(" to fingerprint")
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	target, err := httpprobe.PageInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	// It asks for a missing page and the scripts besides the home page: a
	// third party's name is refused.
	access, err := httpprobe.Admit(ctx, env, t, target)
	if err != nil {
		return tools.Result{}, err
	}
	data, err := builtinDataset()
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, httpprobe.CallBudget(timeout))
	defer cancel()

	s := &scan{env: env, data: data, access: access}
	s.readKnown()
	if err := s.readWeb(ctx, t.rootCAs, target); err != nil {
		if s.bannersRead == 0 {
			return tools.Result{}, fmt.Errorf("%s: nothing to examine: %w", Name, err)
		}
		s.notes = append(s.notes, "web page not examined: "+httpprobe.Clean(err.Error(), 300))
	}
	return s.result(t.now()), nil
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	return append([]*checks.Check{checks.KnownCVE, checks.DistributionBuild}, checks.EndOfLifeChecks()...)
}

// scan is the state of one call.
type scan struct {
	env       tools.Env
	access    tools.Access // the third-party rule's grant on the page's host
	data      *Dataset
	sightings []sighting
	services  []scans.Service
	notes     []string
	// bannersRead counts the in-scope known services with a banner.
	bannersRead int
	// headersSeen are the header values already fingerprinted, per service.
	headersSeen map[string]bool
}

// readKnown fingerprints the banners earlier steps recorded; services
// outside the scope are ignored (they cannot be reported on).
func (s *scan) readKnown() {
	skipped := 0
	for i, svc := range s.env.Known {
		if i == maxKnown {
			s.notes = append(s.notes, fmt.Sprintf("only the first %d known services were read", maxKnown))
			break
		}
		if !s.env.InScope(svc.Host) {
			skipped++
			continue
		}
		if svc.Banner != "" {
			s.bannersRead++
		}
		s.sightings = append(s.sightings, bannerSightings(svc)...)
	}
	if skipped > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d known services outside the scope ignored", skipped))
	}
}

// readWeb fetches the page (target, or the domain's home page) and its
// same-host scripts.
func (s *scan) readWeb(ctx context.Context, rootCAs *x509.CertPool, target *url.URL) error {
	client, err := httpprobe.NewClient(s.env, rootCAs)
	if err != nil {
		return err
	}
	defer client.Close()
	client.Admitted(s.access)
	chain, err := client.Open(ctx, target, pageBody)
	if err != nil {
		return err
	}
	for _, hop := range chain {
		s.readHop(hop)
	}
	page := chain[len(chain)-1]
	s.readNotFound(ctx, client, page.URL)
	if page.IsRedirect() || page.Status != http.StatusOK {
		return nil
	}
	s.sightings = append(s.sightings, pageSightings(page.Body, page.URL, page.Status)...)
	s.readScripts(ctx, client, page)
	return nil
}

// readHop reads the headers of one answer of the redirect chain and lists
// its origin as a web service (once).
func (s *scan) readHop(hop *httpprobe.Response) {
	host, port := httpprobe.HostPort(hop.URL)
	s.readHeaders(hop, host, port)
	if !slices.ContainsFunc(s.services, func(svc scans.Service) bool { return svc.Host == host && svc.Port == port }) {
		s.services = append(s.services, scans.Service{Host: host, Port: port, Name: hop.URL.Scheme,
			Banner: httpprobe.Clean(hop.Header.Get("Server"), 120)})
	}
}

// readScripts reads the names of the page's scripts and the bodies of at
// most maxScripts of them on the page's host.
func (s *scan) readScripts(ctx context.Context, client *httpprobe.Client, page *httpprobe.Response) {
	fetched := 0
	for _, script := range httpprobe.ScriptSources(page.Body, page.URL, 50) {
		s.sightings = append(s.sightings, scriptNameSightings(script, page.URL)...)
		if fetched == maxScripts || ctx.Err() != nil || !s.fetchable(script, page.URL) {
			continue
		}
		fetched++
		resp, err := client.Do(ctx, httpprobe.Request{URL: script, MaxBody: scriptBody})
		if err != nil || resp.Status != http.StatusOK {
			continue
		}
		s.sightings = append(s.sightings, scriptBodySightings(resp.Body, script, page.URL)...)
	}
}

// fetchable reports whether a script may be fetched: on the page's host
// and allowed by the scope.
func (s *scan) fetchable(script, page *url.URL) bool {
	return httpprobe.SameHost(script, page) && httpprobe.CheckURL(s.env, script) == nil
}

// readNotFound asks the page's origin for a path that does not exist and
// reads the answer's Server header and footer: default error pages of
// Tomcat, Apache, nginx and Jetty print the exact version even when the
// home page does not. One GET, nothing else is probed.
func (s *scan) readNotFound(ctx context.Context, client *httpprobe.Client, page *url.URL) {
	u := httpprobe.Origin(page)
	u.Path = "/secscan-" + randomToken() + "-not-found"
	resp, err := client.Do(ctx, httpprobe.Request{URL: u, MaxBody: notFoundBody})
	if err != nil {
		return
	}
	host, port := httpprobe.HostPort(u)
	s.readHeaders(resp, host, port)
	s.sightings = append(s.sightings, pageSightings(resp.Body, u, resp.Status)...)
}

// readHeaders fingerprints the Server and X-Powered-By headers of r; a
// value already read on the same service adds no new place to the
// evidence.
func (s *scan) readHeaders(r *httpprobe.Response, host string, port int) {
	if s.headersSeen == nil {
		s.headersSeen = map[string]bool{}
	}
	for _, name := range []string{"Server", "X-Powered-By"} {
		for _, v := range r.Header.Values(name) {
			key := fmt.Sprintf("%s:%d\x00%s\x00%s", host, port, name, v)
			if s.headersSeen[key] {
				continue
			}
			s.headersSeen[key] = true
			s.sightings = append(s.sightings, headerSightings(v, host, port, name+" header of "+httpprobe.Clean(r.URL.String(), 200))...)
		}
	}
}

func randomToken() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// component is one product version on one host and port, with every place
// it was seen.
type component struct {
	product string
	version Version
	host    string
	port    int
	where   []string
	// build is the distribution build it was announced as (one with a
	// revision wins over a name alone); nil for an upstream build.
	build *distro.Build
}

// components merges sightings of the same version on the same service.
func (s *scan) components() []*component {
	var out []*component
	for _, si := range s.sightings {
		i := slices.IndexFunc(out, func(c *component) bool { return c.sameAs(si) })
		if i < 0 {
			out = append(out, &component{product: si.product, version: si.version, host: si.host, port: si.port})
			i = len(out) - 1
		}
		out[i].add(si)
	}
	return out
}

// sameAs reports whether si is a sighting of c: the same product version
// on the same service.
func (c *component) sameAs(si sighting) bool {
	return c.product == si.product && c.version.Compare(si.version) == 0 && c.host == si.host && c.port == si.port
}

// add records a sighting of c: its place (up to maxWhere) and its build
// (one with a revision wins over a name alone).
func (c *component) add(si sighting) {
	if len(c.where) < maxWhere && !slices.Contains(c.where, si.where) {
		c.where = append(c.where, si.where)
	}
	if si.build != nil && (c.build == nil || !c.build.HasRevision() && si.build.HasRevision()) {
		c.build = si.build
	}
}

func (s *scan) result(now time.Time) tools.Result {
	var findings []scans.Finding
	var seen []string
	var n matchCounts
	for _, c := range s.components() {
		name := s.data.ProductName(c.product)
		// The same release on several ports or hosts is one component.
		if label := name + " " + c.version.String(); !slices.Contains(seen, label) {
			seen = append(seen, label)
		}
		findings = append(findings, s.componentFindings(c, name, now, &n)...)
	}
	slices.SortStableFunc(findings, func(a, b scans.Finding) int {
		return cmp.Compare(a.Severity.Rank(), b.Severity.Rank())
	})
	return tools.Result{Outcome: s.outcome(seen, n), Findings: findings, Services: s.services}
}

// outcome sums up the call: the components seen (by label), what they
// matched, the dataset's edition and the notes.
func (s *scan) outcome(seen []string, n matchCounts) string {
	outcome := "no versions fingerprinted"
	if len(seen) > 0 {
		outcome = fmt.Sprintf("fingerprinted %s (%s); %d known vulnerabilities, %d end-of-life",
			countNoun(len(seen), "component"), strings.Join(seen, ", "), n.cves, n.eols)
		if n.dists > 0 {
			outcome += fmt.Sprintf(", %s whose CVE status depends on the package version", countNoun(n.dists, "distribution build"))
		}
	}
	outcome += fmt.Sprintf(" (dataset %s)", s.data.Version)
	for _, note := range s.notes {
		outcome += "; " + note
	}
	return outcome
}

// matchCounts count what the components matched: CVEs, end-of-life
// branches, distribution builds with upstream matches.
type matchCounts struct{ cves, eols, dists int }

// componentFindings are the findings of one component (name is its
// product's): its CVEs (one grouped finding for several), its end of life,
// or for a distribution build one finding listing the upstream matches.
func (s *scan) componentFindings(c *component, name string, now time.Time, n *matchCounts) []scans.Finding {
	m := componentMatch{cves: s.data.Match(c.product, c.version)}
	m.branch, m.eol = s.data.EndOfLifeAt(c.product, c.version, now)
	if c.build != nil && m.eol {
		// The distribution decides the support of the branch it ships.
		s.notes = append(s.notes, fmt.Sprintf("%s %s: upstream branch end of life (%s) not reported for a %s build",
			name, c.version, m.branch.EOL, c.build.Distribution))
	}
	if c.build != nil && c.build.HasRevision() {
		return buildFindings(name, c, m, n)
	}
	return upstreamFindings(name, s.data.ProductKind(c.product), c, m, n)
}

// componentMatch is what the dataset says of a component's version: the
// CVEs whose ranges hold it, and the end-of-life branch it is on (eol:
// one whose end of life has passed).
type componentMatch struct {
	cves   []Matched
	branch EndOfLife
	eol    bool
}

// buildFindings are the findings of a distribution build with a package
// revision: distributions backport fixes without changing the upstream
// version, so one finding lists the upstream ranges for reference only.
func buildFindings(name string, c *component, m componentMatch, n *matchCounts) []scans.Finding {
	if len(m.cves) == 0 && !m.eol {
		return nil
	}
	n.dists++
	return []scans.Finding{distributionFinding(name, c, m.cves, m.branch, m.eol)}
}

// upstreamFindings are the findings of an upstream build (or one that
// names a distribution without a revision): its CVEs, and its end of life
// unless a distribution ships it.
func upstreamFindings(name, kind string, c *component, m componentMatch, n *matchCounts) []scans.Finding {
	n.cves += len(m.cves)
	findings := cveFindings(name, kind, c, m.cves)
	if m.eol && c.build == nil {
		findings = append(findings, eolFinding(name, c, m.branch))
		n.eols++
	}
	return findings
}

// cveFindings are the findings of a component's CVE matches: one grouped
// finding for several, else one per match.
func cveFindings(product, kind string, c *component, matches []Matched) []scans.Finding {
	if len(matches) > 1 {
		return []scans.Finding{groupFinding(product, kind, c, matches)}
	}
	var findings []scans.Finding
	for _, m := range matches {
		findings = append(findings, vulnFinding(product, kind, c, m))
	}
	return findings
}

// orLater names the first release to upgrade to: the range's fix, or "a
// release after" its last affected version.
func orLater(r Range, v Version) string {
	switch {
	case r.Fixed != "":
		return r.Fixed + " or later"
	case r.LastAffected != "":
		return "a release after " + r.LastAffected
	}
	return "a release after " + v.String()
}

// severityOf maps a CVSS base score to the finding's severity (the CVSS
// v3 qualitative scale).
func severityOf(cvss float64) scans.Severity {
	switch {
	case cvss >= 9:
		return scans.Critical
	case cvss >= 7:
		return scans.High
	case cvss >= 4:
		return scans.Medium
	case cvss > 0:
		return scans.Low
	}
	return scans.Info
}

// explainMatch returns the description and remediation of a CVE match on
// a product of kind (a JavaScript library or server software).
func explainMatch(product, kind string, c *component, m Matched) (desc, remediation string) {
	desc = m.Summary
	if m.Condition != "" {
		desc += " Applies only when: " + m.Condition + "."
	}
	fix := orLater(m.Range, c.version)
	if kind == KindJavaScript {
		desc += " Found from the library version the site serves (script file name or license header); whether the page uses the affected function is not checked."
		remediation = fmt.Sprintf("Upgrade %s to %s and redeploy the site's scripts.", product, fix)
	} else {
		desc += " This finding rests on the version the software announces; distributions often backport fixes without changing it, so confirm with the installed package's changelog."
		remediation = fmt.Sprintf("Upgrade %s to %s (or a distribution package that includes the fix for %s).", product, fix, m.CVE)
	}
	return desc, cmp.Or(m.Remediation, remediation)
}

func vulnFinding(product, kind string, c *component, m Matched) scans.Finding {
	desc, remediation := explainMatch(product, kind, c, m)
	cve, cvss, port := m.CVE, m.CVSS, c.port
	f := checks.KnownCVE.Finding(c.host, &port, httpprobe.Clean(fmt.Sprintf("%s %s seen in %s. Affected versions: %s (CVSS %s %.1f).",
		product, c.version, strings.Join(c.where, "; "), m.Range, m.CVSSVersion, m.CVSS), 1500))
	f.Title = fmt.Sprintf("%s: %s (%s)", product, m.Title, m.CVE)
	f.Severity = severityOf(m.CVSS) // the CVE's CVSS, as the catalogue says
	f.Description, f.Remediation = desc, remediation
	f.References = slices.Clone(m.References)
	f.CVE, f.CVSS, f.Confidence = &cve, &cvss, scans.Tentative
	f.CWE = nil
	if m.CWE != "" {
		cwe := m.CWE
		f.CWE = &cwe
	}
	return f
}

// groupFinding is one finding for several CVEs matched by the version of
// one component on one service: a list of version matches is one issue
// (upgrade the component), not one per CVE. The most severe CVE is the
// finding's cve, every CVE is in the evidence and the references.
func groupFinding(product, kind string, c *component, ms []Matched) scans.Finding {
	ms = mostSevereFirst(ms)
	top := vulnFinding(product, kind, c, ms[0])
	var lines []string
	refs := []string{}
	for _, m := range ms {
		lines = append(lines, fmt.Sprintf("%s (CVSS %.1f, %s; affected %s)", m.CVE, m.CVSS, m.Title, m.Range))
		for _, r := range append([]string{"https://nvd.nist.gov/vuln/detail/" + m.CVE}, m.References...) {
			if !slices.Contains(refs, r) {
				refs = append(refs, r)
			}
		}
	}
	top.Title = fmt.Sprintf("%s %s: %d known vulnerabilities (most severe %s)", product, c.version, len(ms), ms[0].CVE)
	top.Evidence = httpprobe.Clean(fmt.Sprintf("%s %s seen in %s. Known vulnerabilities of this version: %s.",
		product, c.version, strings.Join(c.where, "; "), strings.Join(lines, "; ")), 3000)
	top.Description = fmt.Sprintf("The announced version of %s is affected by %d known vulnerabilities, the most severe %s: %s "+
		"This finding rests on the version the software announces; distributions often backport fixes without changing it.",
		product, len(ms), ms[0].CVE, ms[0].Summary)
	top.Remediation = fmt.Sprintf("Upgrade %s to a release that fixes all of them (%s for the most severe).", product, orLater(ms[0].Range, c.version))
	top.References = refs
	return top
}

func eolFinding(product string, c *component, e EndOfLife) scans.Finding {
	branch := e.Branch
	if !strings.Contains(branch, ".") {
		branch += ".x"
	}
	port := c.port
	check, _ := checks.EndOfLifeOf(e.Product) // a test keeps every dataset product in the catalogue
	f := check.Finding(c.host, &port, httpprobe.Clean(fmt.Sprintf("%s %s seen in %s. The %s branch reached end of life on %s.",
		product, c.version, strings.Join(c.where, "; "), branch, e.EOL), 1500))
	f.Title = fmt.Sprintf("%s %s is end of life", product, branch)
	f.Severity = e.Severity
	f.Description = fmt.Sprintf("%s %s stopped receiving security fixes on %s: vulnerabilities found since then stay unpatched, "+
		"and scanners and advisories often no longer track them. This finding rests on the announced version.", product, branch, e.EOL)
	f.Remediation = fmt.Sprintf("Upgrade to a supported %s release (or a vendor that still supports this branch, such as an extended-support distribution).", product)
	f.References = slices.Clone(e.References)
	f.Confidence = scans.Tentative
	return f
}

// distributionFinding is the one finding for a component announced with a
// distribution's package revision: its upstream version is in the range of
// the CVEs matched (listed for reference, most severe first), but the
// package revision decides whether the distribution fixed them.
func distributionFinding(product string, c *component, ms []Matched, e EndOfLife, eol bool) scans.Finding {
	ms = mostSevereFirst(ms)
	port := c.port
	var cveIDs []string
	for _, m := range ms {
		cveIDs = append(cveIDs, m.CVE)
	}
	f := checks.DistributionBuild.Finding(c.host, &port, httpprobe.Clean(distributionEvidence(product, c, ms, e, eol), 3000))
	f.Title = fmt.Sprintf("%s %s, %s build %s: CVE status depends on the package version", product, c.version,
		c.build.Distribution, c.build.Revision)
	if len(cveIDs) > 0 {
		f.Description += fmt.Sprintf(" Upstream CVEs listed: %s.", strings.Join(cveIDs, ", "))
	}
	for _, id := range cveIDs { // the finding's references are its own copy of the check's
		if r := "https://nvd.nist.gov/vuln/detail/" + id; !slices.Contains(f.References, r) {
			f.References = append(f.References, r)
		}
	}
	f.Confidence = scans.Tentative // from the announced version; no fix status is claimed either way
	return f
}

// distributionEvidence says where a distribution build was seen, which
// upstream CVEs (ms) its upstream version is in the range of, and whether
// its upstream branch reached end of life (eol, branch e).
func distributionEvidence(product string, c *component, ms []Matched, e EndOfLife, eol bool) string {
	evidence := fmt.Sprintf("%s %s seen in %s. Distribution build: %s (%s).", product, c.version,
		strings.Join(c.where, "; "), c.build.Revision, c.build.Distribution)
	var lines []string
	for _, m := range ms {
		lines = append(lines, fmt.Sprintf("%s (CVSS %.1f, %s; upstream affected %s)", m.CVE, m.CVSS, m.Title, m.Range))
	}
	if len(lines) > 0 {
		evidence += fmt.Sprintf(" Upstream CVEs whose version range includes %s, for reference only (the package revision decides): %s.",
			c.version, strings.Join(lines, "; "))
	}
	if eol {
		evidence += fmt.Sprintf(" The upstream %s branch reached end of life on %s; %s may still support it.", e.Branch, e.EOL, c.build.Distribution)
	}
	return evidence
}

// mostSevereFirst returns a copy of ms sorted by CVSS, highest first
// (stable: equal scores keep the dataset's order).
func mostSevereFirst(ms []Matched) []Matched {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b Matched) int { return cmp.Compare(b.CVSS, a.CVSS) })
	return ms
}

// countNoun is "1 component" or "n components".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

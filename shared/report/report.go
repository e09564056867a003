// Package report renders a completed scan for people: Markdown, a single
// self-contained HTML file and a CSV of the findings; the PDF (maroto v2) is
// its own package, report/pdf, so only the function serving it links maroto.
// Every format tells the same story from one Report, built once by Build:
// a cover, the executive summary with the risk rating and attack chains, a
// severity breakdown, the issues (table, then one section each: an issue is
// one weakness with all its locations, CONTRACT "Checks and issues"),
// coverage, and as appendices every finding on one line and the agent's
// steps.
//
// Everything that came from a target (titles, evidence, banners, URLs) is
// untrusted text: the renderers escape it for their format, so a finding
// whose evidence is <script>…</script> or a Markdown link shows as text.
package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"secscan/shared/plainerr"
	"secscan/shared/scans"
)

// Watermark marks free-plan Markdown and HTML reports (CONTRACT "Reports").
const Watermark = "DEMO — NOT FOR COMPLIANCE USE"

// Paper is a page size the PDF (report/pdf) is laid out for.
type Paper string

// Page sizes.
const (
	A4     Paper = "a4"
	Letter Paper = "letter"
)

// Input is what a report is made from.
type Input struct {
	Scan     scans.Scan
	Findings []scans.Finding
	Steps    []scans.Step
	// Surface is what the scan discovered (hosts, services, web origins).
	Surface scans.Surface
	// Watermarked is true on the free plan.
	Watermarked bool
	GeneratedAt time.Time
	// Verification is the target's ownership proof; nil when the target
	// record is gone.
	Verification *Verification
	// Issues are the scan record's issues when it carries them; nil: Build
	// groups the findings itself (scans.GroupIssues).
	Issues []scans.Issue
	// NotRetested are the keys of the baseline scan's issues this scan did
	// not test again on their locations (neither fixed nor recurring).
	NotRetested []string
}

// Issue is one weakness of the report with the findings at its locations.
type Issue struct {
	scans.Issue
	// Findings are the issue's findings in report order (one per location).
	Findings []scans.Finding
}

// SeverityCount is one bar of the severity chart.
type SeverityCount struct {
	Severity scans.Severity
	Count    int
}

// Coverage says what the scan looked at and what it did not.
type Coverage struct {
	ToolsRun  []string        // distinct tools, in the order they first ran
	Hosts     []string        // hosts seen in findings and services, sorted
	Services  []scans.Service // services discovered, by host and port
	NotTested []string        // what was not tested, and why, one sentence each
}

// Report is the content every format renders.
type Report struct {
	Scan     scans.Scan
	Summary  scans.Summary
	Findings []scans.Finding // in scans.CompareFindings order
	// Issues group Findings: each finding is in exactly one, and the
	// report lists each issue once, numbered from 1 in this order.
	Issues []Issue
	// IssueOf[i] is the number (1-based) of the issue of Findings[i].
	IssueOf     []int
	Steps       []scans.Step    // in order
	Counts      []SeverityCount // findings of every severity, critical first
	IssueCounts []SeverityCount // issues of every severity, critical first
	Coverage    Coverage
	Surface     scans.Surface
	Watermark   string // Watermark or ""
	GeneratedAt time.Time
	Scope       Scope
	Plan        []Action // the remediation plan, most urgent first
	// Confidential is the marking of every page (Confidentiality).
	Confidential string
}

// Build derives the report of a completed scan.
func Build(in Input) Report {
	r := Report{
		Scan: in.Scan, Findings: slices.Clone(in.Findings), Steps: slices.Clone(in.Steps), Surface: in.Surface,
		GeneratedAt: in.GeneratedAt.UTC(),
		Summary:     scans.Summary{RiskRating: scans.RiskNone, AttackChains: []string{}},
	}
	if in.Scan.Summary != nil {
		r.Summary = *in.Scan.Summary
	}
	if in.Watermarked {
		r.Watermark = Watermark
	}
	scans.SortFindings(r.Findings)
	slices.SortFunc(r.Steps, func(a, b scans.Step) int { return a.Seq - b.Seq })
	// Outcomes recorded before the agent wrote them in plain words may hold
	// Go's error strings; a report shows the plain words.
	for i := range r.Steps {
		r.Steps[i].Outcome = plainerr.Text(r.Steps[i].Outcome)
	}
	r.Issues, r.IssueOf = buildIssues(r.Findings, in.Issues)
	r.Counts = severityCounts(r.Findings, func(f scans.Finding) scans.Severity { return f.Severity })
	r.IssueCounts = severityCounts(r.Issues, func(is Issue) scans.Severity { return is.Severity })
	r.Coverage = coverage(r)
	for _, key := range in.NotRetested {
		r.Coverage.NotTested = append(r.Coverage.NotTested, "Issue "+key+
			" of the previous scan was not tested again on its locations: it is neither fixed nor recurring.")
	}
	r.Scope = buildScope(r, in.Verification)
	r.Plan = buildPlan(r.Findings, r.IssueOf)
	r.Confidential = Confidentiality(r.Scan.Target)
	return r
}

// severityCounts counts items by their severity, one count for every
// severity, critical first.
func severityCounts[T any](items []T, severity func(T) scans.Severity) []SeverityCount {
	n := map[scans.Severity]int{}
	for _, it := range items {
		n[severity(it)]++
	}
	out := make([]SeverityCount, 0, len(scans.Severities))
	for _, s := range scans.Severities {
		out = append(out, SeverityCount{Severity: s, Count: n[s]})
	}
	return out
}

// findingIssueKey is the key of the issue f belongs to: its recorded key,
// or the one its check and CVE make (findings recorded before issues).
func findingIssueKey(f scans.Finding) string {
	if f.Issue != "" {
		return f.Issue
	}
	return scans.IssueKey(f.Check, f.CVE)
}

// buildIssues groups findings (in report order) into issues: the record's
// when given, scans.GroupIssues otherwise. A finding is attached by its issue
// key, so every finding lands in exactly one issue (one the record does not
// list is grouped here and added after the record's), and an issue's count
// and locations are those of the findings the report shows.
func buildIssues(findings []scans.Finding, given []scans.Issue) ([]Issue, []int) {
	out := issueList(findings, given)
	byKey := map[string][]int{}
	for i, f := range findings {
		k := findingIssueKey(f)
		byKey[k] = append(byKey[k], i)
	}
	issueOf := make([]int, len(findings))
	for n := range out {
		is := &out[n]
		idx := byKey[is.Key]
		is.Findings = make([]scans.Finding, 0, len(idx))
		is.Locations = make([]scans.Location, 0, len(idx))
		for _, i := range idx {
			f := findings[i]
			is.Findings = append(is.Findings, f)
			is.Locations = append(is.Locations, scans.Location{FindingID: f.ID, Host: f.Host, Port: f.Port})
			issueOf[i] = n + 1
		}
		is.Count = len(idx)
		if is.References == nil {
			is.References = []string{}
		}
	}
	return out, issueOf
}

// issueList is the report's issues before their findings join them: the
// record's, once each, then those grouped from the findings of no issue the
// record lists.
func issueList(findings []scans.Finding, given []scans.Issue) []Issue {
	var out []Issue
	used := map[string]bool{}
	for _, is := range given {
		if used[is.Key] {
			continue
		}
		used[is.Key] = true
		out = append(out, Issue{Issue: is})
	}
	var rest []scans.Finding
	for _, f := range findings {
		if !used[findingIssueKey(f)] {
			rest = append(rest, f)
		}
	}
	for _, is := range scans.GroupIssues(rest) {
		out = append(out, Issue{Issue: is})
	}
	return out
}

// categoriesOf lists the finding categories a scan type's playbook covers.
var categoriesOf = map[scans.Type][]scans.Category{
	scans.Full:    {scans.CategoryNetwork, scans.CategorySSL, scans.CategoryWeb, scans.CategoryVuln, scans.CategoryCode, scans.CategoryDNS},
	scans.Network: {scans.CategoryNetwork, scans.CategoryDNS},
	scans.Web:     {scans.CategoryWeb, scans.CategoryCode},
	scans.SSL:     {scans.CategorySSL},
	scans.Vuln:    {scans.CategoryVuln, scans.CategoryNetwork},
	scans.Code:    {scans.CategoryCode, scans.CategoryVuln},
}

var categoryNames = map[scans.Category]string{
	scans.CategoryNetwork: "network services and open ports",
	scans.CategorySSL:     "TLS configuration and certificates",
	scans.CategoryWeb:     "web application headers, cookies and exposed files",
	scans.CategoryVuln:    "known vulnerabilities of fingerprinted software",
	scans.CategoryCode:    "exposed code and secrets",
	scans.CategoryDNS:     "DNS and e-mail authentication records",
}

func coverage(r Report) Coverage {
	var c Coverage
	hosts := map[string]bool{}
	seenService := map[string]bool{}
	for _, st := range r.Steps {
		c.addStep(st, hosts, seenService)
	}
	for _, f := range r.Findings {
		hosts[f.Host] = true
	}
	// The surface, when the scan mapped one, says more than the steps:
	// every host with its addresses and where it was found, every service
	// with what it runs, and the hosts left out and why.
	notScanned := c.addHosts(r.Surface.Hosts, hosts)
	for _, v := range r.Surface.Services {
		c.addSurfaceService(v, seenService)
	}
	for _, w := range r.Surface.Web {
		c.Hosts = append(c.Hosts, webLine(w))
	}
	c.NotTested = append(c.NotTested, notScanned...)
	if n := r.Surface.OutOfScope; n > 0 {
		c.NotTested = append(c.NotTested, outOfScopeNames(n))
	}
	slices.SortFunc(c.Services, func(a, b scans.Service) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), a.Port-b.Port)
	})
	c.NotTested = append(c.NotTested, outOfScope(r.Scan)...)
	return c
}

// addHosts lists the surface's hosts, described, and the other hosts the
// steps and findings name, sorted; it returns the sentences for Not tested
// of the surface hosts left out.
func (c *Coverage) addHosts(surface []scans.Host, hosts map[string]bool) (notScanned []string) {
	described := map[string]bool{}
	for _, h := range surface {
		line, left := hostLine(h)
		notScanned = append(notScanned, left...)
		c.Hosts = append(c.Hosts, line)
		described[h.Name] = true
	}
	for h := range hosts {
		if h != "" && !described[h] {
			c.Hosts = append(c.Hosts, h)
		}
	}
	slices.Sort(c.Hosts)
	return notScanned
}

// outOfScopeNames is the sentence for the n names seen outside the scope.
func outOfScopeNames(n int) string {
	names := itoa(n) + " names outside the target's scope were seen"
	if n == 1 {
		names = "1 name outside the target's scope was seen"
	}
	return names + " (CNAME, certificate, link, MX, SPF, …) and never contacted."
}

// addStep records a step's tool, the services it found (once per host and
// port, their hosts in hosts) and, when it did not complete, why.
func (c *Coverage) addStep(st scans.Step, hosts, seenService map[string]bool) {
	if !slices.Contains(c.ToolsRun, st.Tool) {
		c.ToolsRun = append(c.ToolsRun, st.Tool)
	}
	for _, sv := range st.Services {
		key := sv.Host + ":" + itoa(sv.Port)
		hosts[sv.Host] = true
		if !seenService[key] {
			seenService[key] = true
			c.Services = append(c.Services, sv)
		}
	}
	o := st.Outcome
	switch st.Status {
	case scans.StepRefused:
		c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") was not run: "+strings.TrimSpace(strings.TrimPrefix(o, "Refused:")))
	case scans.StepFailed:
		c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") could not complete: "+strings.TrimSpace(strings.TrimPrefix(o, "Tool error:")))
	case scans.StepTimedOut:
		c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") reached its time limit; its results are partial.")
	}
}

// hostLine describes a surface host: its addresses, sources, why it was
// left out or whose alias it is; left are the sentences for Not tested.
func hostLine(h scans.Host) (line string, left []string) {
	line = h.Name
	if len(h.Addresses) > 0 {
		line += " (" + strings.Join(h.Addresses, ", ") + ")"
	}
	if len(h.Sources) > 0 {
		var srcs []string
		for _, s := range h.Sources {
			srcs = append(srcs, string(s))
		}
		line += " — found by " + strings.Join(srcs, ", ")
	}
	if h.NotScanned != "" {
		line += " — not scanned: " + h.NotScanned
		left = append(left, h.Name+" was discovered but not scanned: "+h.NotScanned+".")
	}
	if h.CNAME != "" {
		line += " — alias of " + h.CNAME
		left = append(left, h.Name+" is an alias of "+h.CNAME+", outside the scope; its services were not probed: "+h.NotProbed+".")
	}
	return line, left
}

// addSurfaceService merges a surface service into the services the steps
// found: its product and version replace or fill the banner, or it is
// added.
func (c *Coverage) addSurfaceService(v scans.ServiceInfo, seenService map[string]bool) {
	key := v.Host + ":" + itoa(v.Port)
	what := strings.TrimSpace(v.Product + " " + v.Version)
	i := slices.IndexFunc(c.Services, func(s scans.Service) bool { return s.Host == v.Host && s.Port == v.Port })
	switch {
	case i >= 0 && saysMore(v.Version, what, c.Services[i].Banner):
		c.Services[i].Banner = what
	case i < 0 && !seenService[key]:
		seenService[key] = true
		c.Services = append(c.Services, scans.Service{Host: v.Host, Port: v.Port, Name: v.Protocol, Banner: what})
	}
}

// saysMore reports whether a surface service's product and version (what)
// say more than the banner a step recorded: a version the banner lacks
// (read later, e.g. Redis INFO), or anything when there is no banner.
func saysMore(version, what, banner string) bool {
	return version != "" && !strings.Contains(banner, version) || what != "" && banner == ""
}

// webLine describes a web origin with its title and server.
func webLine(w scans.WebOrigin) string {
	line := "Web origin " + w.Origin
	if w.Title != "" {
		line += " — “" + w.Title + "”"
	}
	if w.Server != "" {
		line += " — " + w.Server
	}
	return line
}

// outOfScope are the sentences for what a scan's type and tier do not
// test: the categories outside its playbook, the uncommon ports.
func outOfScope(s scans.Scan) []string {
	var out []string
	covered := categoriesOf[s.Type]
	for _, cat := range []scans.Category{scans.CategoryNetwork, scans.CategorySSL, scans.CategoryWeb, scans.CategoryVuln, scans.CategoryCode, scans.CategoryDNS} {
		if !slices.Contains(covered, cat) {
			out = append(out, "Not in scope of a "+string(s.Type)+" scan: "+categoryNames[cat]+".")
		}
	}
	if s.Tier != "deep" && slices.Contains(covered, scans.CategoryNetwork) {
		out = append(out, "Ports outside the most common ones: only a deep scan checks all 65,535.")
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

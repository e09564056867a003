// Package report renders a completed scan for people: Markdown, a single
// self-contained HTML file and a CSV of the findings; the PDF (maroto v2) is
// its own package, report/pdf, so only the function serving it links maroto.
// Every format tells the same story from one Report, built once by Build:
// a cover, the executive summary with the risk rating and attack chains, a
// severity breakdown, the findings (table, then one section each), coverage
// and the agent's steps as an appendix.
//
// Everything that came from a target (titles, evidence, banners, URLs) is
// untrusted text: the renderers escape it for their format, so a finding
// whose evidence is <script>…</script> or a Markdown link shows as text.
package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

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
	// Watermarked is true on the free plan.
	Watermarked bool
	GeneratedAt time.Time
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
	Scan        scans.Scan
	Summary     scans.Summary
	Findings    []scans.Finding // most severe first
	Steps       []scans.Step    // in order
	Counts      []SeverityCount // every severity, critical first
	Coverage    Coverage
	Watermark   string // Watermark or ""
	GeneratedAt time.Time
}

// Build derives the report of a completed scan.
func Build(in Input) Report {
	r := Report{
		Scan: in.Scan, Findings: slices.Clone(in.Findings), Steps: slices.Clone(in.Steps),
		GeneratedAt: in.GeneratedAt.UTC(),
		Summary:     scans.Summary{RiskRating: scans.RiskNone, AttackChains: []string{}},
	}
	if in.Scan.Summary != nil {
		r.Summary = *in.Scan.Summary
	}
	if in.Watermarked {
		r.Watermark = Watermark
	}
	slices.SortStableFunc(r.Findings, func(a, b scans.Finding) int { return a.Severity.Rank() - b.Severity.Rank() })
	slices.SortFunc(r.Steps, func(a, b scans.Step) int { return a.Seq - b.Seq })
	counts := map[scans.Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	for _, s := range scans.Severities {
		r.Counts = append(r.Counts, SeverityCount{Severity: s, Count: counts[s]})
	}
	r.Coverage = coverage(r)
	return r
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
		switch o := st.Outcome; {
		case strings.HasPrefix(o, "Refused:"):
			c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") was not run: "+strings.TrimSpace(strings.TrimPrefix(o, "Refused:")))
		case strings.HasPrefix(o, "Tool error:"):
			c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") could not complete: "+strings.TrimSpace(strings.TrimPrefix(o, "Tool error:")))
		case strings.HasPrefix(o, "Stopped at the tool's time limit"):
			c.NotTested = append(c.NotTested, "Step "+itoa(st.Seq)+" ("+st.Tool+") reached its time limit; its results are partial.")
		}
	}
	for _, f := range r.Findings {
		hosts[f.Host] = true
	}
	for h := range hosts {
		if h != "" {
			c.Hosts = append(c.Hosts, h)
		}
	}
	slices.Sort(c.Hosts)
	slices.SortFunc(c.Services, func(a, b scans.Service) int {
		if a.Host != b.Host {
			return strings.Compare(a.Host, b.Host)
		}
		return a.Port - b.Port
	})
	covered := categoriesOf[r.Scan.Type]
	for _, cat := range []scans.Category{scans.CategoryNetwork, scans.CategorySSL, scans.CategoryWeb, scans.CategoryVuln, scans.CategoryCode, scans.CategoryDNS} {
		if !slices.Contains(covered, cat) {
			c.NotTested = append(c.NotTested, "Not in scope of a "+string(r.Scan.Type)+" scan: "+categoryNames[cat]+".")
		}
	}
	if r.Scan.Tier != "deep" && slices.Contains(covered, scans.CategoryNetwork) {
		c.NotTested = append(c.NotTested, "Ports outside the most common ones: only a deep scan checks all 65,535.")
	}
	return c
}

func itoa(n int) string { return strconv.Itoa(n) }

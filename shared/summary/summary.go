// Package summary owns the rule-based executive summary of a completed scan
// (CONTRACT "Scans": risk_rating, summary, attack_chains), the one used when
// no language model is configured. It derives everything from the scan's
// findings and audit trail: the risk rating is the highest severity found,
// attack chains are recognised from combinations of findings on the same
// hosts, and the narrative names the most important issues, what to fix
// first and why, and how much of the target was covered.
//
// Titles, hosts and evidence come from tools that quote what targets
// answered, so all of it is treated as untrusted text: control and format
// characters are stripped and every quoted piece is length-capped. The output
// is deterministic: the same input always gives the same text, whatever
// order the findings arrive in.
package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"secscan/shared/plans"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// Input is a completed scan, as far as its summary needs it.
type Input struct {
	Domain   string
	ScanType scans.Type
	Tier     plans.Tier
	Findings []scans.Finding
	// Steps are the audit trail: tools run, services discovered, refused or
	// failed steps.
	Steps []scans.Step
	// Partial is empty, or why coverage was cut short (e.g. "the credit
	// budget ran out").
	Partial string
	// Changes is what changed since the baseline scan; nil without one.
	// (Findings triaged away — false positives, unexpired accepted risks —
	// are left out of Findings by the caller.)
	Changes *Changes
}

// Changes is what changed since the baseline scan, for the summary's
// sentence "3 new, 1 regressed, 5 fixed since 2 March 2026; 2 new hosts".
type Changes struct {
	New, Regressed, Fixed int
	// NotRetested counts baseline issues this scan did not test again.
	NotRetested int
	Since       time.Time // the baseline's finish
	NewHosts    int
	NewServices int
	// Triaged counts issues left out as false positives or accepted risks.
	Triaged int
}

// sentence is the changes' sentence, "" when there is nothing to say.
func (c *Changes) sentence() string {
	if c == nil {
		return ""
	}
	out := c.sincePrevious()
	var assets []string
	if c.NewHosts > 0 {
		assets = append(assets, countOf(c.NewHosts, "new host"))
	}
	if c.NewServices > 0 {
		assets = append(assets, countOf(c.NewServices, "new service"))
	}
	if len(assets) > 0 {
		out = append(out, "The inventory gained "+strings.Join(assets, " and ")+".")
	}
	if c.Triaged > 0 {
		out = append(out, countOf(c.Triaged, "triaged issue")+" (false positive or accepted risk) left out of the rating.")
	}
	return strings.Join(out, " ")
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Bounds on the audit trail read for tools, failures and services (steps
// beyond them are still counted).
const (
	maxSteps    = 10000
	maxServices = 5000
)

// Write derives the executive summary of a completed scan.
func Write(in Input) scans.Summary {
	domain := strings.TrimSuffix(lower(in.Domain, maxDomain), ".")
	entries := make([]*entry, 0, len(in.Findings))
	for i := range in.Findings {
		entries = append(entries, newEntry(i, &in.Findings[i], domain))
	}
	slices.SortFunc(entries, byImportance)

	cov := readCoverage(in.Steps, entries, domain)
	// Services seen in the audit trail can complete a chain (a listening FTP
	// server, a backdoored banner) but are never counted as findings.
	withServices := append(slices.Clip(entries), cov.synthetic...)
	slices.SortFunc(withServices, byImportance)
	chains := detectChains(newIndex(domain, withServices))

	texts := make([]string, 0, len(chains))
	for _, c := range chains {
		texts = append(texts, c.text)
	}
	n := narrative{
		domain:   domain,
		scanType: in.ScanType,
		tier:     in.Tier,
		entries:  entries,
		chains:   chains,
		cov:      cov,
		partial:  safetext.Line(in.Partial, maxPartial),
	}
	text := n.write()
	if c := in.Changes.sentence(); c != "" {
		// The changes are said whatever the narrative's length.
		text = boundText(text, max(maxSummary-utf8.RuneCountInString(c)-1, 0)) + " " + c
		text = strings.TrimSpace(text)
	}
	return scans.Summary{
		RiskRating:   rating(entries),
		Summary:      text,
		AttackChains: texts,
	}
}

// rating is the highest severity among the findings; none when there are
// none or only informational ones.
func rating(sorted []*entry) scans.RiskRating {
	if len(sorted) == 0 {
		return scans.RiskNone
	}
	switch sorted[0].sev {
	case scans.Critical:
		return scans.RiskCritical
	case scans.High:
		return scans.RiskHigh
	case scans.Medium:
		return scans.RiskMedium
	case scans.Low:
		return scans.RiskLow
	}
	return scans.RiskNone
}

// coverage is what the audit trail says was looked at.
type coverage struct {
	steps      int
	incomplete int      // refused, failed or timed-out steps
	tools      []string // distinct, in first-use order, humanised
	hosts      int
	services   int
	synthetic  []*entry
}

func readCoverage(steps []scans.Step, entries []*entry, domain string) coverage {
	r := coverageReader{domain: domain, entries: len(entries),
		hosts: map[string]bool{}, services: map[string]bool{}, seenTools: map[string]bool{}}
	for i := range steps {
		if steps[i].Tool != scans.EndTurnTool { // a model call, no tool run
			r.c.steps++
		}
	}
	for i := range steps[:min(len(steps), maxSteps)] {
		r.step(&steps[i])
	}
	for _, e := range entries {
		r.hosts[e.host] = true
	}
	r.c.hosts, r.c.services = len(r.hosts), len(r.services)
	return r.c
}

// coverageReader reads the coverage of the audit trail step by step.
type coverageReader struct {
	c       coverage
	domain  string
	entries int // the findings' entries, before the synthetic ones
	// hosts and services seen, as "host" and "host:port"; tools seen.
	hosts, services, seenTools map[string]bool
	readServices               int // services read, at most maxServices
}

// step reads one step: its tool, whether it completed, its services.
func (r *coverageReader) step(s *scans.Step) {
	if s.Tool == scans.EndTurnTool {
		return
	}
	r.tool(lower(s.Tool, maxToolName))
	if s.Status != scans.StepOK && s.Status != "" {
		r.c.incomplete++
	}
	for j := range s.Services {
		if r.readServices == maxServices {
			break
		}
		r.readServices++
		r.service(&s.Services[j])
	}
}

// tool notes a tool the scan ran, in words, the first time it is seen.
func (r *coverageReader) tool(name string) {
	if name != "" && !r.seenTools[name] {
		r.seenTools[name] = true
		r.c.tools = append(r.c.tools, toolWords.Replace(name))
	}
}

// service reads one service a step found: its host, and, the first time
// its host and port are seen, the chain evidence it is (serviceEntry).
func (r *coverageReader) service(svc *scans.Service) {
	host := cleanHost(svc.Host, r.domain)
	if host == "" {
		return
	}
	r.hosts[host] = true
	key := host + ":" + itoaPort(svc.Port)
	if r.services[key] {
		return
	}
	r.services[key] = true
	if e := serviceEntry(r.entries+len(r.c.synthetic), svc, host); e != nil {
		r.c.synthetic = append(r.c.synthetic, e)
	}
}

// sincePrevious are the sentences on the issues since the previous scan,
// none without one.
func (c *Changes) sincePrevious() []string {
	if c.Since.IsZero() {
		return nil
	}
	out := []string{fmt.Sprintf("Since the previous scan (%s): %d new, %d regressed, %d fixed.",
		c.Since.UTC().Format("2 January 2006"), c.New, c.Regressed, c.Fixed)}
	if c.NotRetested > 0 {
		out = append(out, fmt.Sprintf("%s of the previous scan not tested again (neither fixed nor recurring).",
			countOf(c.NotRetested, "issue")))
	}
	return out
}

// toolWords turns tool names into words: "port_scan" → "port scan".
var toolWords = strings.NewReplacer("_", " ", "-", " ")

func itoaPort(p int) string {
	if p <= 0 || p > 65535 {
		return "0"
	}
	return strconv.Itoa(p)
}

// serviceEntry turns a discovered service into chain evidence when it is one
// a chain cares about: FTP/Telnet, a database, or a banner of a backdoored
// release.
func serviceEntry(order int, svc *scans.Service, host string) *entry {
	name := lower(svc.Name, 40)
	banner := safetext.Line(svc.Banner, maxDetail)
	e := &entry{
		order: order, sev: scans.Info, rank: scans.Info.Rank(), cvss: -1,
		category: scans.CategoryNetwork, host: host, synthetic: true, evidence: banner,
		detail: strings.ToLower(banner),
	}
	e.port = validPort(svc.Port)
	e.text = name
	e.kinds, e.db = serviceKinds(name, e.port, e.detail)
	if e.db != "" {
		e.text += " " + strings.ToLower(e.db)
	}
	if e.kinds == 0 {
		return nil
	}
	e.title = strings.ToUpper(name) + " service"
	if v := softwareVersion(banner); v != "" {
		e.title = v
	}
	e.titleKey = strings.ToLower(e.title)
	return e
}

// serviceKinds are what a service named name on port, with the lower-case
// banner detail, is as chain evidence (none: 0), and its database if it is
// one.
func serviceKinds(name string, port int, detail string) (k kind, db string) {
	if hasWord(name, "ftp", "telnet") || port == 21 || port == 23 {
		k |= kindCleartextLogin
	}
	if db = serviceDatabase(name, port); db != "" {
		k |= kindDatabase
	}
	if hasAny(detail, "vsftpd 2.3.4", "proftpd 1.3.3c", "unrealircd 3.2.8.1") {
		k |= kindBackdoor | kindOutdated
	}
	return k, db
}

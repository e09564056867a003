package findings

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"secscan/cmd/secscan/internal/client"
	"secscan/shared/scans"
)

// The SARIF log is written with typed structs for the subset of SARIF 2.1.0
// that GitHub code scanning reads, rather than with a SARIF library: the
// maintained Go one (owenrumney/go-sarif v3) marshals every unset array as
// [] or null, writes -1 sentinels, panics adding a partial fingerprint to a
// fresh result, and would bring an unmaintained JSON-schema package into
// the CLI. Tests validate this output against the official 2.1.0 schema.

// SARIF constants.
const (
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion = "2.1.0"
	// FingerprintKey named one finding's fingerprint among a result's
	// partialFingerprints when a result was a finding (before issues);
	// baselines saved then still read it.
	FingerprintKey = "secscanFingerprint/v1"
	// IssueFingerprintKey names a result's issue among its
	// partialFingerprints: the issue key and a hash of its locations.
	IssueFingerprintKey = "secscanIssue/v1"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	AutomationDetails *sarifAutomation  `json:"automationDetails,omitempty"`
	Results           []sarifResult     `json:"results"`
	Properties        map[string]any    `json:"properties,omitempty"`
	Invocations       []sarifInvocation `json:"invocations,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool           `json:"executionSuccessful"`
	StartTimeUTC        string         `json:"startTimeUtc,omitempty"`
	EndTimeUTC          string         `json:"endTimeUtc,omitempty"`
	Properties          map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	Rules   []sarifRule `json:"rules"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifMessage   `json:"shortDescription"`
	FullDescription      sarifMessage   `json:"fullDescription"`
	Help                 sarifMessage   `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	BaselineState       string            `json:"baselineState,omitempty"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	// GitHub requires a region; a scanned service has no lines, so the
	// region is the first line of the "artifact" (the URL or host:port).
	Region sarifRegion `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// RuleID is a finding's rule before check codes: the CVE for a known
// vulnerability, else the category and the title as a slug. Findings of a
// server that predates check codes are grouped into issues by it.
func RuleID(f client.Finding) string {
	if f.CVE != nil && *f.CVE != "" {
		return strings.ToUpper(*f.CVE)
	}
	return string(f.Category) + "/" + slug(f.Title)
}

var nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = strings.Trim(nonAlnum.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-")
	}
	if s == "" {
		s = "check"
	}
	return s
}

// level maps a severity to a SARIF level.
func level(severity scans.Severity) string {
	switch severity {
	case scans.Critical, scans.High:
		return "error"
	case scans.Medium:
		return "warning"
	default:
		return "note"
	}
}

// severityBuckets are GitHub's security-severity buckets of each severity:
// lowest, highest and middle score.
var severityBuckets = map[scans.Severity][3]float64{
	scans.Critical: {9.0, 10.0, 9.5},
	scans.High:     {7.0, 8.9, 8.0},
	scans.Medium:   {4.0, 6.9, 5.5},
	scans.Low:      {0.1, 3.9, 2.0},
}

// securitySeverity is GitHub's 0–10 score, which it buckets as critical
// (≥ 9.0), high (7.0–8.9), medium (4.0–6.9) and low (0.1–3.9): the finding's
// CVSS when it falls in its severity's bucket, else the bucket's middle, so
// GitHub shows the severity the service assigned.
func securitySeverity(severity scans.Severity, cvss *float64) string {
	b, ok := severityBuckets[severity]
	if !ok {
		return "0.0"
	}
	lo, hi, mid := b[0], b[1], b[2]
	if cvss != nil && *cvss >= lo && *cvss <= hi {
		return fmt.Sprintf("%.1f", *cvss)
	}
	return fmt.Sprintf("%.1f", mid)
}

func precision(confidence scans.Confidence) string {
	switch confidence {
	case scans.Certain:
		return "very-high"
	case scans.Firm:
		return "high"
	default:
		return "medium"
	}
}

// Meta describes the run a SARIF log or JUnit report is about.
type Meta struct {
	Scan       client.Scan
	CLIVersion string
}

// ruleOf is the SARIF rule of an issue: its check code (an issue of a
// server that predates check codes: its key, the old rule).
func ruleOf(is IssueGroup) string {
	if is.Check != "" {
		return string(is.Check)
	}
	return is.Key
}

// IssueFingerprint identifies an issue at its locations: the issue key and
// a hash of its sorted, distinct locations (host:port), so GitHub opens a
// new alert when the weakness spreads to another host.
func IssueFingerprint(is IssueGroup) string {
	var locs []string
	for _, loc := range is.Locations {
		l := strings.ToLower(loc.Host)
		if loc.Port != nil {
			l += fmt.Sprintf(":%d", *loc.Port)
		}
		locs = append(locs, l)
	}
	slices.Sort(locs)
	sum := sha256.Sum256([]byte(strings.Join(slices.Compact(locs), "\x00")))
	return is.Key + "@" + hex.EncodeToString(sum[:12])
}

// invocationOf is the SARIF invocation of a scan: its outcome, times and
// identity.
func invocationOf(sc client.Scan) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: sc.Status == client.Completed,
		Properties: map[string]any{"scanId": sc.ID, "target": sc.Target, "scanType": sc.ScanType,
			"tier": sc.Tier, "status": sc.Status, "creditsUsed": sc.CreditsUsed}}
	if sc.StartedAt != nil {
		inv.StartTimeUTC = sc.StartedAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	if sc.FinishedAt != nil {
		inv.EndTimeUTC = sc.FinishedAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	return inv
}

// rulesOf is one SARIF rule per rule id of the issues (ruleOf), in the
// order of their first issue, and each id's index among them.
func rulesOf(groups []IssueGroup) ([]sarifRule, map[string]int) {
	byRule := map[string][]IssueGroup{}
	var order []string
	for _, is := range groups {
		id := ruleOf(is)
		if _, ok := byRule[id]; !ok {
			order = append(order, id)
		}
		byRule[id] = append(byRule[id], is)
	}
	rules := []sarifRule{}
	index := map[string]int{}
	for i, id := range order {
		index[id] = i
		rules = append(rules, rule(id, byRule[id]))
	}
	return rules, index
}

// sarifBaselineStates are SARIF's baseline states of the marks of
// baselineMark; an issue with some new findings ("N new") is "updated".
var sarifBaselineStates = map[string]string{"known": "unchanged", "new": "new"}

// resultOf is the SARIF result of one issue; with a baseline it says
// whether the issue is new, updated (new locations) or unchanged.
func resultOf(is IssueGroup, index map[string]int, g Gate) sarifResult {
	id := ruleOf(is)
	r := sarifResult{
		RuleID: id, RuleIndex: index[id], Level: level(is.Severity),
		Message:             sarifMessage{Text: issueMessage(is)},
		Locations:           issueLocations(is),
		PartialFingerprints: map[string]string{IssueFingerprintKey: IssueFingerprint(is)},
		Properties: map[string]any{"issue": is.Key, "severity": is.Severity, "confidence": is.Confidence,
			"count": is.count(), "hosts": is.Hosts(), "security-severity": securitySeverity(is.Severity, is.CVSS),
			"fingerprints": fingerprints(is)},
	}
	if is.Check != "" {
		r.Properties["check"] = is.Check
	}
	if cve := ptrString(is.CVE); cve != "" {
		r.Properties["cve"] = cve
	}
	if g.Baseline != nil {
		r.BaselineState = cmp.Or(sarifBaselineStates[g.baselineMark(is)], "updated")
	}
	return r
}

// WriteSARIF writes the scan's issues as a SARIF 2.1.0 log: one rule per
// check code (help text and remediation, security-severity), one result
// per issue with all its locations (the URL a check fetched, or host:port),
// the issue key and its locations as a partial fingerprint and its
// findings' fingerprints as a property (baselines read them); with a
// baseline, each result says whether it is new, updated (new locations) or
// unchanged.
func WriteSARIF(w io.Writer, m Meta, fs []client.Finding, g Gate) error {
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "secscan", Version: m.CLIVersion, Rules: []sarifRule{}}},
		Results: []sarifResult{},
	}
	if m.Scan.Target != "" {
		// GitHub reads the part before the last "/" as the category: one per
		// target and scan type, so the alerts of different targets stay
		// apart and a fixed one closes only when its own target is rescanned.
		run.AutomationDetails = &sarifAutomation{ID: fmt.Sprintf("secscan/%s/%s/%s", m.Scan.Target, m.Scan.ScanType, m.Scan.ID)}
		run.Invocations = []sarifInvocation{invocationOf(m.Scan)}
	}
	groups := Group(m.Scan.Issues, fs)
	var index map[string]int
	run.Tool.Driver.Rules, index = rulesOf(groups)
	for _, is := range groups {
		run.Results = append(run.Results, resultOf(is, index, g))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func fingerprints(is IssueGroup) []string {
	out := []string{}
	for _, f := range is.Findings {
		if f.Fingerprint != "" {
			out = append(out, f.Fingerprint)
		}
	}
	return out
}

// issueLocations are an issue's findings' locations (the URL a check
// fetched, else host:port), each with its evidence; from the issue's own
// locations when the record lacks its findings.
func issueLocations(is IssueGroup) []sarifLocation {
	loc := func(uri, evidence string) sarifLocation {
		l := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}, Region: sarifRegion{StartLine: 1}}}
		if ev := CleanLine(evidence, 500); ev != "" {
			l.Message = &sarifMessage{Text: ev}
		}
		return l
	}
	out := []sarifLocation{}
	for _, f := range is.Findings {
		out = append(out, loc(Location(f), f.Evidence))
	}
	if len(out) == 0 {
		for _, h := range is.Hosts() {
			out = append(out, loc(h, ""))
		}
	}
	return out
}

// rule describes a check from its issues (the most severe first): their
// wording, or for a check whose issues are CVEs (one per CVE), the check
// with each CVE's title and remediation in its help.
func rule(id string, issues []IssueGroup) sarifRule {
	lead := issues[0]
	title, desc, remediation := CleanLine(lead.Title, 200), Clean(lead.Description), Clean(lead.Remediation)
	if desc == "" {
		desc = Clean(lead.Title)
	}
	var help, md strings.Builder
	cves := slices.ContainsFunc(issues, func(is IssueGroup) bool { return ptrString(is.CVE) != "" })
	if cves {
		title = fmt.Sprintf("Known vulnerabilities (%s)", CleanLine(id, 100))
		desc = "A detected component has known vulnerabilities; each result names its CVE."
		writeCVEHelp(&help, &md, desc, issues)
	} else {
		fmt.Fprintf(&help, "%s\n\nRemediation: %s", desc, remediation)
		fmt.Fprintf(&md, "%s\n\n**Remediation:** %s", escapeMarkdown(desc), escapeMarkdown(remediation))
	}
	writeReferences(&help, &md, lead.References)
	tags := []string{"security", string(lead.Category)}
	if lead.CWE != nil && *lead.CWE != "" {
		tags = append(tags, "external/cwe/"+strings.ToLower(*lead.CWE))
	}
	r := sarifRule{
		ID: id, Name: ruleName(id),
		ShortDescription:     sarifMessage{Text: title},
		FullDescription:      sarifMessage{Text: desc},
		Help:                 sarifMessage{Text: help.String(), Markdown: md.String()},
		DefaultConfiguration: sarifConfig{Level: level(lead.Severity)},
		Properties: map[string]any{"tags": tags, "precision": precision(lead.Confidence),
			"security-severity": securitySeverity(lead.Severity, lead.CVSS)},
	}
	if len(lead.References) > 0 && !cves {
		r.HelpURI = lead.References[0]
	}
	return r
}

// writeCVEHelp writes the help of a check whose issues are CVEs: the
// description, then each CVE's title and remediation (the first 20).
func writeCVEHelp(help, md *strings.Builder, desc string, issues []IssueGroup) {
	fmt.Fprintf(help, "%s\n\nRemediation:", desc)
	fmt.Fprintf(md, "%s\n\n**Remediation:**\n", escapeMarkdown(desc))
	for i, is := range issues {
		if i == 20 {
			fmt.Fprintf(help, "\n- and %d more", len(issues)-20)
			fmt.Fprintf(md, "\n- and %d more", len(issues)-20)
			break
		}
		fmt.Fprintf(help, "\n- %s: %s", CleanLine(is.Title, 200), CleanLine(is.Remediation, 500))
		fmt.Fprintf(md, "\n- **%s:** %s", escapeMarkdown(CleanLine(is.Title, 200)), escapeMarkdown(CleanLine(is.Remediation, 500)))
	}
}

// writeReferences ends a rule's help with its references, if any.
func writeReferences(help, md *strings.Builder, refs []string) {
	if len(refs) == 0 {
		return
	}
	help.WriteString("\n\nReferences:")
	md.WriteString("\n\n**References:**\n")
	for _, ref := range refs {
		fmt.Fprintf(help, "\n- %s", Clean(ref))
		fmt.Fprintf(md, "\n- %s", escapeMarkdown(CleanLine(ref, 500)))
	}
}

// ruleName is the check code in UpperCamelCase, as SARIF suggests for names.
func ruleName(code string) string {
	var b strings.Builder
	for _, w := range strings.Fields(nonAlnum.ReplaceAllString(strings.ToLower(code), " ")) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 {
		return "Check"
	}
	return b.String()
}

// issueMessage is the issue's title, how many findings where, its severity
// and confidence, and the first finding's evidence.
func issueMessage(is IssueGroup) string {
	hosts := is.Hosts()
	where := strings.Join(hosts[:min(len(hosts), 5)], ", ")
	if len(hosts) > 5 {
		where += fmt.Sprintf(" and %d more", len(hosts)-5)
	}
	n := is.count()
	msg := fmt.Sprintf("%s: %d finding%s on %s (%s, %s confidence)", CleanLine(is.Title, 200), n,
		map[bool]string{true: "", false: "s"}[n == 1], where, is.Severity, is.Confidence)
	if len(is.Findings) > 0 {
		if ev := CleanLine(is.Findings[0].Evidence, 1000); ev != "" {
			msg += ". Evidence: " + ev
		}
	}
	return msg
}

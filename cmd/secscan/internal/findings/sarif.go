package findings

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"secscan/cmd/secscan/internal/client"
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
	// FingerprintKey names the finding fingerprint among a result's
	// partialFingerprints; versioned, as SARIF recommends.
	FingerprintKey = "secscanFingerprint/v1"
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

// RuleID is the SARIF rule of a finding's check: the CVE for a known
// vulnerability, else the category and the check's title as a slug — the
// same parts the finding's fingerprint is made of, so it is stable too.
func RuleID(f client.Finding) string {
	if f.CVE != nil && *f.CVE != "" {
		return strings.ToUpper(*f.CVE)
	}
	return f.Category + "/" + slug(f.Title)
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
func level(severity string) string {
	switch severity {
	case "critical", "high":
		return "error"
	case "medium":
		return "warning"
	default:
		return "note"
	}
}

// securitySeverity is GitHub's 0–10 score, which it buckets as critical
// (≥ 9.0), high (7.0–8.9), medium (4.0–6.9) and low (0.1–3.9): the finding's
// CVSS when it falls in its severity's bucket, else the bucket's middle, so
// GitHub shows the severity the service assigned.
func securitySeverity(f client.Finding) string {
	lo, hi, mid := 0.0, 0.0, 0.0
	switch f.Severity {
	case "critical":
		lo, hi, mid = 9.0, 10.0, 9.5
	case "high":
		lo, hi, mid = 7.0, 8.9, 8.0
	case "medium":
		lo, hi, mid = 4.0, 6.9, 5.5
	case "low":
		lo, hi, mid = 0.1, 3.9, 2.0
	default:
		return "0.0"
	}
	if f.CVSS != nil && *f.CVSS >= lo && *f.CVSS <= hi {
		return fmt.Sprintf("%.1f", *f.CVSS)
	}
	return fmt.Sprintf("%.1f", mid)
}

func precision(confidence string) string {
	switch confidence {
	case "certain":
		return "very-high"
	case "firm":
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

// WriteSARIF writes the findings as a SARIF 2.1.0 log: one rule per check
// (help text and remediation, security-severity), one result per finding
// with its location and its fingerprint as a partial fingerprint; with a
// baseline, each result says whether it is new or unchanged.
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
		inv := sarifInvocation{ExecutionSuccessful: m.Scan.Status == client.Completed,
			Properties: map[string]any{"scanId": m.Scan.ID, "target": m.Scan.Target, "scanType": m.Scan.ScanType,
				"tier": m.Scan.Tier, "status": m.Scan.Status, "creditsUsed": m.Scan.CreditsUsed}}
		if m.Scan.StartedAt != nil {
			inv.StartTimeUTC = m.Scan.StartedAt.UTC().Format("2006-01-02T15:04:05Z")
		}
		if m.Scan.FinishedAt != nil {
			inv.EndTimeUTC = m.Scan.FinishedAt.UTC().Format("2006-01-02T15:04:05Z")
		}
		run.Invocations = []sarifInvocation{inv}
	}
	index := map[string]int{}
	for _, f := range fs {
		id := RuleID(f)
		i, ok := index[id]
		if !ok {
			i = len(run.Tool.Driver.Rules)
			index[id] = i
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule(id, f))
		}
		r := sarifResult{
			RuleID: id, RuleIndex: i, Level: level(f.Severity),
			Message:             sarifMessage{Text: resultMessage(f)},
			Locations:           []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: Location(f)}, Region: sarifRegion{StartLine: 1}}}},
			PartialFingerprints: map[string]string{FingerprintKey: f.Fingerprint},
			Properties: map[string]any{"severity": f.Severity, "confidence": f.Confidence, "host": f.Host,
				"security-severity": securitySeverity(f)},
		}
		if f.Port != nil {
			r.Properties["port"] = *f.Port
		}
		if g.Baseline != nil {
			r.BaselineState = "unchanged"
			if g.IsNew(f) {
				r.BaselineState = "new"
			}
		}
		run.Results = append(run.Results, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func rule(id string, f client.Finding) sarifRule {
	desc := Clean(f.Description)
	if desc == "" {
		desc = Clean(f.Title)
	}
	var help, md strings.Builder
	fmt.Fprintf(&help, "%s\n\nRemediation: %s", desc, Clean(f.Remediation))
	fmt.Fprintf(&md, "%s\n\n**Remediation:** %s", escapeMarkdown(desc), escapeMarkdown(Clean(f.Remediation)))
	if len(f.References) > 0 {
		help.WriteString("\n\nReferences:")
		md.WriteString("\n\n**References:**\n")
		for _, ref := range f.References {
			fmt.Fprintf(&help, "\n- %s", Clean(ref))
			fmt.Fprintf(&md, "\n- %s", escapeMarkdown(CleanLine(ref, 500)))
		}
	}
	tags := []string{"security", f.Category}
	if f.CWE != nil && *f.CWE != "" {
		tags = append(tags, "external/cwe/"+strings.ToLower(*f.CWE))
	}
	r := sarifRule{
		ID: id, Name: ruleName(f.Title),
		ShortDescription:     sarifMessage{Text: CleanLine(f.Title, 200)},
		FullDescription:      sarifMessage{Text: desc},
		Help:                 sarifMessage{Text: help.String(), Markdown: md.String()},
		DefaultConfiguration: sarifConfig{Level: level(f.Severity)},
		Properties: map[string]any{"tags": tags, "precision": precision(f.Confidence),
			"security-severity": securitySeverity(f)},
	}
	if len(f.References) > 0 {
		r.HelpURI = f.References[0]
	}
	return r
}

// ruleName is the title in UpperCamelCase, as SARIF suggests for names.
func ruleName(title string) string {
	var b strings.Builder
	for _, w := range strings.Fields(nonAlnum.ReplaceAllString(strings.ToLower(title), " ")) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 {
		return "Check"
	}
	return b.String()
}

func resultMessage(f client.Finding) string {
	msg := fmt.Sprintf("%s on %s (%s, %s confidence)", CleanLine(f.Title, 200), Location(f), f.Severity, f.Confidence)
	if ev := CleanLine(f.Evidence, 1000); ev != "" {
		msg += ". Evidence: " + ev
	}
	return msg
}

package findings

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"secscan/cmd/secscan/internal/client"
)

// IssueGroup is an issue with its findings (in the issue's location order):
// what the table, SARIF, JUnit and Markdown show, one per weakness.
type IssueGroup struct {
	client.Issue
	Findings []client.Finding
}

// Group returns a scan's issues with their findings. A server that knows
// issues sends them (issues non-nil) and its order and wording are kept;
// an older server sends none, and the findings are grouped here as the
// server would (CONTRACT "Checks and issues"): by check and CVE, severity
// and confidence the highest of the issue's findings, its wording from the
// most severe, ordered by severity, confidence, CVSS, count and title.
// Findings without a check (a server that predates check codes) are
// grouped by their old rule: the CVE, else category and title.
func Group(issues []client.Issue, fs []client.Finding) []IssueGroup {
	if issues == nil {
		return groupFindings(fs)
	}
	byID := make(map[string]int, len(fs))
	for i, f := range fs {
		if f.ID != "" {
			byID[f.ID] = i
		}
	}
	used := make([]bool, len(fs))
	out := make([]IssueGroup, 0, len(issues))
	for _, is := range issues {
		g := IssueGroup{Issue: is}
		for _, loc := range is.Locations {
			if i, ok := byID[loc.FindingID]; ok && !used[i] {
				used[i] = true
				g.Findings = append(g.Findings, fs[i])
			}
		}
		out = append(out, g)
	}
	// A finding no location names joins the issue of its key; the rest
	// (none, from a consistent server) still show, grouped here.
	byKey := make(map[string]int, len(out))
	for i, g := range out {
		byKey[g.Key] = i
	}
	for i, f := range fs {
		if j, ok := byKey[issueKey(f)]; ok && !used[i] {
			used[i] = true
			out[j].Findings = append(out[j].Findings, f)
		}
	}
	var rest []client.Finding
	for i, f := range fs {
		if !used[i] {
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		out = append(out, groupFindings(rest)...)
	}
	return out
}

// issueKey is the key of the issue f belongs to: the server's, else
// scans.IssueKey of its check and CVE, else (no check) its old rule.
func issueKey(f client.Finding) string {
	if f.Issue != "" {
		return f.Issue
	}
	if f.Check == "" {
		return RuleID(f)
	}
	key := f.Check
	if cve := cveOf(f); cve != "" {
		key += ":" + cve
	}
	return key
}

func groupFindings(fs []client.Finding) []IssueGroup {
	index := map[string]int{}
	var out []IssueGroup
	var lead []client.Finding
	for _, f := range fs {
		key := issueKey(f)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, IssueGroup{Issue: client.Issue{Key: key, Check: f.Check, CVE: f.CVE, Severity: f.Severity,
				Confidence: defaultConfidence(f), Locations: []client.Location{}}})
			lead = append(lead, f)
		}
		g := &out[i]
		g.Count++
		g.Locations = append(g.Locations, client.Location{FindingID: f.ID, Host: f.Host, Port: f.Port})
		g.Findings = append(g.Findings, f)
		if SeverityRank(f.Severity) < SeverityRank(g.Severity) {
			g.Severity = f.Severity
			lead[i] = f
		}
		if c := defaultConfidence(f); confidenceRank(c) < confidenceRank(g.Confidence) {
			g.Confidence = c
		}
		if f.CVSS != nil && (g.CVSS == nil || *f.CVSS > *g.CVSS) {
			g.CVSS = f.CVSS
		}
	}
	for i := range out {
		f := lead[i]
		out[i].Title, out[i].Category, out[i].CWE = f.Title, f.Category, f.CWE
		out[i].Description, out[i].Remediation = f.Description, f.Remediation
		out[i].References = slices.Clone(f.References)
		if out[i].References == nil {
			out[i].References = []string{}
		}
	}
	slices.SortStableFunc(out, compareIssues)
	return out
}

func compareIssues(a, b IssueGroup) int {
	cvss := func(v *float64) float64 {
		if v == nil {
			return -1
		}
		return *v
	}
	return cmp.Or(
		cmp.Compare(SeverityRank(a.Severity), SeverityRank(b.Severity)),
		cmp.Compare(confidenceRank(a.Confidence), confidenceRank(b.Confidence)),
		cmp.Compare(cvss(b.CVSS), cvss(a.CVSS)),
		cmp.Compare(b.Count, a.Count),
		cmp.Compare(a.Title, b.Title),
	)
}

// defaultConfidence is scans.Finding.DefaultConfidence: a finding whose
// tool said none is certain, but a CVE's is tentative.
func defaultConfidence(f client.Finding) string {
	switch {
	case f.Confidence != "":
		return f.Confidence
	case f.CVE != nil && *f.CVE != "":
		return "tentative"
	}
	return "certain"
}

func cveOf(f client.Finding) string {
	if f.CVE == nil {
		return ""
	}
	return strings.ToUpper(strings.TrimSpace(*f.CVE))
}

// LegacyFingerprint is the fingerprint the service gave a finding before
// check codes (this release), from its host, title, port, CVE and
// confidence: a copy of scans.Finding.LegacyFingerprint (a test keeps the
// two equal), so a baseline saved before the upgrade still matches.
func LegacyFingerprint(f client.Finding) string {
	parts := []string{strings.ToLower(f.Host)}
	if cve := cveOf(f); cve != "" {
		parts = append(parts, "cve", cve)
		if f.Confidence == "certain" {
			parts = append(parts, "confirmed")
		}
	} else {
		port := ""
		if f.Port != nil {
			port = fmt.Sprint(*f.Port)
		}
		parts = append(parts, "check", f.Title, port)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:12])
}

// Hosts are an issue's distinct locations (host:port, or the host), in
// order.
func (g IssueGroup) Hosts() []string {
	var out []string
	seen := map[string]bool{}
	for _, loc := range g.Locations {
		h := CleanLine(loc.Host, 0)
		if loc.Port != nil {
			h = fmt.Sprintf("%s:%d", h, *loc.Port)
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// count is the issue's number of findings (the server's count, else its
// locations).
func (g IssueGroup) count() int {
	if g.Count > 0 {
		return g.Count
	}
	return max(len(g.Locations), len(g.Findings))
}

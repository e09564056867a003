package findings

import (
	"fmt"

	"secscan/cmd/secscan/internal/client"
	"secscan/shared/scans"
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
	used := make([]bool, len(fs))
	out := findingsByLocation(issues, fs, used)
	// A finding no location names joins the issue of its key; the rest
	// (none, from a consistent server) still show, grouped here.
	byKey := make(map[string]int, len(out))
	for i, g := range out {
		byKey[g.Key] = i
	}
	var rest []client.Finding
	for i, f := range fs {
		j, ok := byKey[issueKey(f)]
		switch {
		case used[i]:
		case ok:
			out[j].Findings = append(out[j].Findings, f)
		default:
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		out = append(out, groupFindings(rest)...)
	}
	return out
}

// findingsByLocation gives each issue the findings its locations name (by
// id, each finding once), marking them used.
func findingsByLocation(issues []client.Issue, fs []client.Finding, used []bool) []IssueGroup {
	byID := make(map[string]int, len(fs))
	for i, f := range fs {
		if f.ID != "" {
			byID[f.ID] = i
		}
	}
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
	return out
}

// issueKey is the key of the issue f belongs to: the server's, else
// scans.IssueKey of its check and CVE, else (no check) its old rule.
func issueKey(f client.Finding) string {
	switch {
	case f.Issue != "":
		return f.Issue
	case f.Check == "":
		return RuleID(f)
	}
	return scans.IssueKey(f.Check, f.CVE)
}

// groupFindings groups findings the server sent without issues as the
// server would (scans.GroupIssues), each issue with its findings in order.
func groupFindings(fs []client.Finding) []IssueGroup {
	keyed := make([]client.Finding, len(fs))
	byKey := map[string][]client.Finding{}
	for i, f := range fs {
		key := issueKey(f)
		byKey[key] = append(byKey[key], f)
		keyed[i] = f
		keyed[i].Issue = key
	}
	var out []IssueGroup
	for _, is := range scans.GroupIssues(keyed) {
		out = append(out, IssueGroup{Issue: is, Findings: byKey[is.Key]})
	}
	return out
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

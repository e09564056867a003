package scans

import (
	"cmp"
	"slices"
	"strings"
)

// CheckCode is the stable, lowercase, dotted code of one kind of weakness in
// the check catalogue (package checks), e.g. "web.header.csp".
type CheckCode string

// IssueKey is the key of the issue a finding of check (and cve) belongs to:
// stable for a target across scans because it depends on nothing else
// (CONTRACT "Checks and issues"). It is readable: the check code, or the
// check code and the CVE ("vuln.known-cve:CVE-2021-41773").
func IssueKey(check CheckCode, cve *string) string {
	key := string(check)
	if key == "" {
		key = "unclassified" // recorded before check codes existed
	}
	if cve != nil && strings.TrimSpace(*cve) != "" {
		key += ":" + strings.ToUpper(strings.TrimSpace(*cve))
	}
	return key
}

// IssueChange says how an issue compares with the baseline scan.
type IssueChange string

// Issue changes (CONTRACT "Checks and issues").
const (
	ChangeNew       IssueChange = "new"
	ChangeRecurring IssueChange = "recurring"
	ChangeRegressed IssueChange = "regressed"
)

// Location is one place an issue was found: a finding's host and port.
type Location struct {
	FindingID string `json:"finding_id"`
	Host      string `json:"host"`
	Port      *int   `json:"port"`
}

// Issue is one weakness wherever it occurs in a scan: the findings with the
// same check and CVE (CONTRACT "Checks and issues").
type Issue struct {
	Key         string       `json:"key"`
	Check       CheckCode    `json:"check"`
	CVE         *string      `json:"cve"`
	Title       string       `json:"title"`
	Severity    Severity     `json:"severity"`
	Confidence  Confidence   `json:"confidence"`
	Category    Category     `json:"category"`
	CWE         *string      `json:"cwe"`
	CVSS        *float64     `json:"cvss"`
	Count       int          `json:"count"`
	Locations   []Location   `json:"locations"`
	Description string       `json:"description"`
	Remediation string       `json:"remediation"`
	References  []string     `json:"references"`
	Change      *IssueChange `json:"change"`
	// Triage is the target's triage decision on the issue; nil when open.
	Triage *Triage `json:"triage"`
}

// Triage is a decision on an issue that applies to later scans of the target.
type Triage struct {
	State     string  `json:"state"`
	Reason    string  `json:"reason"`
	ExpiresAt *string `json:"expires_at"`
	UpdatedAt string  `json:"updated_at"`
	UpdatedBy string  `json:"updated_by"`
}

// GroupIssues groups findings into issues: one per issue key (check and CVE),
// its locations in the findings' order, its severity and confidence the
// highest of its findings, its wording from the most severe finding. The
// result is ordered by severity, confidence, CVSS, count and title. A finding
// without an Issue key is grouped by IssueKey of its check and CVE.
func GroupIssues(findings []Finding) []Issue {
	index := map[string]int{}
	out := []Issue{}
	var lead []Finding // the finding each issue's wording comes from
	for _, f := range findings {
		key := f.Issue
		if key == "" {
			key = IssueKey(f.Check, f.CVE)
		}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, Issue{Key: key, Check: f.Check, CVE: f.CVE, Severity: f.Severity,
				Confidence: f.DefaultConfidence(), Locations: []Location{}})
			lead = append(lead, f)
		}
		if out[i].add(f) {
			lead[i] = f
		}
	}
	for i := range out {
		out[i].wordFrom(lead[i])
	}
	slices.SortStableFunc(out, compareIssues)
	return out
}

func compareIssues(a, b Issue) int {
	return cmp.Or(
		cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
		cmp.Compare(a.Confidence.Rank(), b.Confidence.Rank()),
		cmp.Compare(cvssKey(b.CVSS), cvssKey(a.CVSS)),
		cmp.Compare(b.Count, a.Count),
		cmp.Compare(a.Title, b.Title),
	)
}

// add counts f in the issue: one more location, the highest severity,
// confidence and CVSS. It reports whether f is more severe than every
// finding before it (the issue's wording then comes from f).
func (is *Issue) add(f Finding) (mostSevere bool) {
	is.Count++
	is.Locations = append(is.Locations, Location{FindingID: f.ID, Host: f.Host, Port: f.Port})
	if c := f.DefaultConfidence(); c.Rank() < is.Confidence.Rank() {
		is.Confidence = c
	}
	if f.CVSS != nil && (is.CVSS == nil || *f.CVSS > *is.CVSS) {
		is.CVSS = f.CVSS
	}
	if f.Severity.Rank() < is.Severity.Rank() {
		is.Severity = f.Severity
		return true
	}
	return false
}

// wordFrom takes the issue's wording (title, category, CWE, description,
// remediation, references) from its lead finding.
func (is *Issue) wordFrom(f Finding) {
	is.Title, is.Category, is.CWE = f.Title, f.Category, f.CWE
	is.Description, is.Remediation = f.Description, f.Remediation
	is.References = slices.Clone(f.References)
	if is.References == nil {
		is.References = []string{}
	}
}

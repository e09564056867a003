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
		is := &out[i]
		is.Count++
		is.Locations = append(is.Locations, Location{FindingID: f.ID, Host: f.Host, Port: f.Port})
		if f.Severity.Rank() < is.Severity.Rank() {
			is.Severity = f.Severity
			lead[i] = f
		}
		if c := f.DefaultConfidence(); confidenceRank(c) < confidenceRank(is.Confidence) {
			is.Confidence = c
		}
		if f.CVSS != nil && (is.CVSS == nil || *f.CVSS > *is.CVSS) {
			is.CVSS = f.CVSS
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

func confidenceRank(c Confidence) int {
	if i := slices.Index(Confidences, c); i >= 0 {
		return i
	}
	return len(Confidences)
}

func compareIssues(a, b Issue) int {
	if c := cmp.Compare(a.Severity.Rank(), b.Severity.Rank()); c != 0 {
		return c
	}
	if c := cmp.Compare(confidenceRank(a.Confidence), confidenceRank(b.Confidence)); c != 0 {
		return c
	}
	ca, cb := -1.0, -1.0
	if a.CVSS != nil {
		ca = *a.CVSS
	}
	if b.CVSS != nil {
		cb = *b.CVSS
	}
	if c := cmp.Compare(cb, ca); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	return cmp.Compare(a.Title, b.Title)
}

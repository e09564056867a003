package scans

// FixedIssue is an issue of the baseline scan that this scan tested again
// and did not find (CONTRACT "Checks and issues", `fixed_issues`).
type FixedIssue struct {
	Key            string    `json:"key"`
	Check          CheckCode `json:"check"`
	CVE            *string   `json:"cve"`
	Title          string    `json:"title"`
	Severity       Severity  `json:"severity"`
	LastSeenScanID string    `json:"last_seen_scan_id"`
}

// CountIssues is the number of distinct issues among findings: what
// GroupIssues would return, without building them.
func CountIssues(findings []Finding) int {
	keys := make(map[string]struct{}, len(findings))
	for _, f := range findings {
		keys[f.IssueKeyOf()] = struct{}{}
	}
	return len(keys)
}

// IssueKeyOf is the finding's issue key: Issue when it was recorded with
// one, else IssueKey of its check and CVE (findings recorded before issues).
func (f Finding) IssueKeyOf() string {
	if f.Issue != "" {
		return f.Issue
	}
	return IssueKey(f.Check, f.CVE)
}

// RiskRatingOf is the scan's risk rating: its summary's once it completed,
// nil before (CONTRACT "Scans": null until completed).
func (s Scan) RiskRatingOf() *RiskRating {
	if s.Status != Completed || s.Summary == nil || s.Summary.RiskRating == "" {
		return nil
	}
	r := s.Summary.RiskRating
	return &r
}

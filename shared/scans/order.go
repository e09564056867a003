package scans

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// CompareFindings is the one order in which people read findings: the
// report's narrative, tables and sections, the PDF, the CSV, the dashboard
// and the CLI all use it, so "the first finding" means the same thing
// everywhere. Most severe first, then the surest (certain, firm, tentative),
// then the highest CVSS (unknown last), then host and port (no port first),
// then title; the id keeps equal findings in a stable order.
func CompareFindings(a, b *Finding) int {
	return cmp.Or(
		cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
		cmp.Compare(a.DefaultConfidence().Rank(), b.DefaultConfidence().Rank()),
		cmp.Compare(cvssKey(b.CVSS), cvssKey(a.CVSS)),
		strings.Compare(strings.ToLower(a.Host), strings.ToLower(b.Host)),
		cmp.Compare(portKey(a.Port), portKey(b.Port)),
		strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)),
		strings.Compare(a.Title, b.Title),
		strings.Compare(a.ID, b.ID),
	)
}

// SortFindings sorts fs in place by CompareFindings.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return CompareFindings(&a, &b) })
}

// Rank is the position of c among Confidences (strongest first); an
// unknown confidence ranks last.
func (c Confidence) Rank() int {
	if i := slices.Index(Confidences, c); i >= 0 {
		return i
	}
	return len(Confidences)
}

func cvssKey(v *float64) float64 {
	if v == nil {
		return -1
	}
	return *v
}

func portKey(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// WithRecordedCount completes a step's outcome when the findings recorded
// differ from those its tool reported (the same issue found again, or twice
// in one step, is recorded once): the tool's own count stays, and the
// outcome says how many were new, so the audit trail agrees with the
// findings list.
func WithRecordedCount(outcome string, reported, recorded int) string {
	if reported == recorded || reported < recorded {
		return outcome
	}
	dup := reported - recorded
	note := plural(recorded, "new finding", "new findings") + " recorded; " +
		plural(dup, "duplicate", "duplicates") + " of " + plural2(dup, "a finding", "findings") + " already recorded"
	if outcome == "" {
		return note
	}
	return outcome + " (" + note + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprint(n) + " " + many
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

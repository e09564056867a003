package findings

import (
	"time"

	"secscan/cmd/secscan/internal/client"
	"secscan/shared/scans"
)

// Suppressed says whether a triage decision takes its issue out of the
// gate at now: a false positive, or an accepted risk that has not expired
// (an expired acceptance reopens the issue). A decision whose expiry
// cannot be read does not suppress: the gate errs on the side of failing
// (where scans.Triage.Suppresses, the server's rule for its counts, keeps
// it), and so does a state this CLI does not know.
func Suppressed(t *client.Triage, now time.Time) bool {
	if t == nil {
		return false
	}
	switch t.State {
	case scans.TriageFalsePositive:
		return true
	case scans.TriageAcceptedRisk:
		if t.ExpiresAt == nil || *t.ExpiresAt == "" {
			return true
		}
		exp, err := time.Parse(time.RFC3339, *t.ExpiresAt)
		return err == nil && now.Before(exp)
	}
	return false
}

// WithTriage returns the gate with the scan's triaged issues (those whose
// triage the scan record carries and that are Suppressed at now) set
// aside, unless IncludeTriaged.
func (g Gate) WithTriage(issues []client.Issue, now time.Time) Gate {
	g.Triaged = nil
	for _, is := range issues {
		if Suppressed(is.Triage, now) {
			if g.Triaged == nil {
				g.Triaged = map[string]bool{}
			}
			g.Triaged[is.Key] = true
		}
	}
	return g
}

// IsTriaged says whether the gate sets f aside because its issue is
// triaged (never with IncludeTriaged).
func (g Gate) IsTriaged(f client.Finding) bool {
	return !g.IncludeTriaged && g.Triaged[issueKey(f)]
}

// TriagedFailures are the findings that would fail the gate but for
// their issue's triage.
func (g Gate) TriagedFailures(fs []client.Finding) []client.Finding {
	if g.IncludeTriaged || len(g.Triaged) == 0 {
		return nil
	}
	all := g
	all.IncludeTriaged = true
	var out []client.Finding
	for _, f := range fs {
		if g.IsTriaged(f) && all.Fails(f) {
			out = append(out, f)
		}
	}
	return out
}

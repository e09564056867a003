package scans

import "time"

// Triage states (CONTRACT "Monitoring: schedules, triage, assets").
const (
	TriageOpen          = "open"
	TriageAcceptedRisk  = "accepted_risk"
	TriageFalsePositive = "false_positive"
)

// MaxTriageReason bounds a triage reason, in characters.
const MaxTriageReason = 500

// Effective is the triage as it applies at now: nil when there is none, it
// says open, or it is an acceptance whose expires_at has passed (an expired
// acceptance reopens the issue).
func (t *Triage) Effective(now time.Time) *Triage {
	if t == nil || t.State == "" || t.State == TriageOpen {
		return nil
	}
	if t.State == TriageAcceptedRisk && t.ExpiresAt != nil {
		if exp, err := time.Parse(time.RFC3339, *t.ExpiresAt); err == nil && !now.Before(exp) {
			return nil
		}
	}
	return t
}

// Suppresses reports whether the triage takes its issue out of the risk
// rating, the summary and the counts at now: a false positive, or an
// acceptance that has not expired.
func (t *Triage) Suppresses(now time.Time) bool { return t.Effective(now) != nil }

// Issue statuses in a target's ledger.
const (
	IssueOpen  = "open"
	IssueFixed = "fixed"
)

// LedgerEntry is one issue of a target's ledger: every scan of the target
// that saw it, or found it fixed, updates it; triage is set by people.
type LedgerEntry struct {
	Key         string     `json:"key"`
	Check       CheckCode  `json:"check"`
	CVE         *string    `json:"cve"`
	Title       string     `json:"title"`
	Severity    Severity   `json:"severity"`
	Status      string     `json:"status"`
	FirstSeenAt time.Time  `json:"first_seen_at"`
	LastSeenAt  time.Time  `json:"last_seen_at"`
	LastScanID  string     `json:"last_scan_id"`
	FixedAt     *time.Time `json:"fixed_at"`
	Triage      *Triage    `json:"triage"`
}

// AssetHost is a host of a target's asset inventory.
type AssetHost struct {
	Name        string    `json:"name"`
	Addresses   []string  `json:"addresses"`
	Sources     []string  `json:"sources"`
	FirstSeenAt time.Time `json:"first_seen_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
}

// AssetService is a service of a target's asset inventory.
type AssetService struct {
	Host        string    `json:"host"`
	Port        int       `json:"port"`
	Protocol    string    `json:"protocol"`
	Product     string    `json:"product"`
	Version     string    `json:"version"`
	FirstSeenAt time.Time `json:"first_seen_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
}

// Assets is a target's asset inventory.
type Assets struct {
	Hosts    []AssetHost    `json:"hosts"`
	Services []AssetService `json:"services"`
}

// Comparison is what a completed scan's comparison with its baseline and
// the target's ledger found (kept with the scan, so its record and reports
// show it as it was at completion).
type Comparison struct {
	BaselineScanID     string
	BaselineFinishedAt time.Time
	// Changes and Triage are by issue key.
	Changes map[string]IssueChange
	Triage  map[string]Triage
	Fixed   []FixedIssue
	// NotRetested are baseline issues whose locations this scan did not
	// test again: neither fixed nor recurring.
	NotRetested []string
	NewHosts    []string
	NewServices []string // "host:port"
}

// CompletionCounts are the counts a completed scan's record keeps for lists
// and the webhook: issues not triaged away, new (or regressed) ones among
// them, and fixed ones.
type CompletionCounts struct {
	ActiveIssues int
	NewIssues    int
	FixedIssues  int
	// BySeverity counts the issues not triaged away by severity.
	BySeverity map[Severity]int
}

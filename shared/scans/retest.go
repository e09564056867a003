package scans

import "time"

// RetestStatus is where a retest is in its life: queued → running →
// completed | failed.
type RetestStatus string

// Retest statuses (CONTRACT "Proof and retest").
const (
	RetestQueued    RetestStatus = "queued"
	RetestRunning   RetestStatus = "running"
	RetestCompleted RetestStatus = "completed"
	RetestFailed    RetestStatus = "failed"
)

// RetestOutcome is what a retest found at one location.
type RetestOutcome string

// Retest outcomes. An unreachable host is an error, never not_reproduced:
// a host that does not answer has not been fixed.
const (
	Reproduced    RetestOutcome = "reproduced"
	NotReproduced RetestOutcome = "not_reproduced"
	RetestError   RetestOutcome = "error"
)

// MaxRetestLocations bounds the locations one retest re-tests; the rest of
// a larger issue's locations are reported as errors saying so.
const MaxRetestLocations = 20

// Retest is one re-run of the checks behind an issue of a completed scan,
// on the issue's locations.
type Retest struct {
	ID          string
	UserID      string
	ScanID      string
	TargetID    string
	IssueKey    string
	Status      RetestStatus
	Results     []RetestResult
	CreditsUsed int
	// Reserved is what creation reserved in the month's allowance (the
	// tools' costs), settled when the retest ends.
	Reserved    int
	CreditMonth string
	Error       string
	CreatedAt   time.Time
	FinishedAt  *time.Time
	// CancelRequested is set by DELETE /api/retests/{id} on a running
	// retest; its runner ends it failed with RetestCancelled.
	CancelRequested bool
	// LedgerNote says why a retest that reproduced the issue nowhere left
	// the target's issue ledger alone (the target has a newer scan of the
	// type); "" otherwise.
	LedgerNote string
}

// RetestCancelled is the error of a retest its user cancelled: CONTRACT's
// retest statuses have no "cancelled", so a cancelled retest ends failed.
const RetestCancelled = "Cancelled by the user"

// RetestResult is one location's outcome, with a fresh proof when the
// weakness was reproduced (or when the tool recorded one).
type RetestResult struct {
	FindingID string        `json:"finding_id"`
	Host      string        `json:"host"`
	Port      *int          `json:"port"`
	Outcome   RetestOutcome `json:"outcome"`
	Detail    string        `json:"detail"`
	Proof     *Proof        `json:"proof"`
}

// AllNotReproduced reports whether every location was tested and none
// reproduced: the one case that marks the issue fixed.
func AllNotReproduced(rs []RetestResult) bool {
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if r.Outcome != NotReproduced {
			return false
		}
	}
	return true
}

// EndTurnTool is the tool name of the step that records a model's end of
// turn when no playbook call remained to charge its tokens on: a model
// call, no tool run, so summaries do not count it as a tool or a step.
const EndTurnTool = "end_turn"

package client

import (
	"encoding/json"
	"time"

	"secscan/shared/scans"
)

// User is GET /api/auth/me.
type User struct {
	ID      string `json:"id"`
	Email   string `json:"email"`
	Plan    string `json:"plan"`
	IsAdmin bool   `json:"is_admin"`
}

// Target is a registered domain and its ownership challenge.
type Target struct {
	ID                string     `json:"id"`
	Target            string     `json:"target"`
	Method            string     `json:"method"`
	VerificationToken string     `json:"verification_token"`
	Instructions      string     `json:"instructions"`
	Verified          bool       `json:"verified"`
	VerifiedAt        *time.Time `json:"verified_at"`
	CreatedAt         time.Time  `json:"created_at"`
}

// ScanRequest is the body of POST /api/scans.
type ScanRequest struct {
	Target      string `json:"target"`
	ScanType    string `json:"scan_type"`
	Tier        string `json:"tier"`
	CallbackURL string `json:"callback_url,omitempty"`
	MaxCredits  int    `json:"max_credits,omitempty"`
}

// Scan statuses.
const (
	Queued    = "queued"
	Running   = "running"
	Completed = "completed"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Scan is a scan record; Findings, Steps and Summary are filled only by
// GET /api/scans/<id>.
type Scan struct {
	ID              string     `json:"id"`
	Target          string     `json:"target"`
	TargetID        string     `json:"target_id"`
	ScanType        string     `json:"scan_type"`
	Tier            string     `json:"tier"`
	Status          string     `json:"status"`
	CancelRequested bool       `json:"cancel_requested"`
	CreditsUsed     int        `json:"credits_used"`
	MaxCredits      int        `json:"max_credits"`
	CallbackURL     *string    `json:"callback_url"`
	FindingsCount   int        `json:"findings_count"`
	IssuesCount     int        `json:"issues_count"`
	RiskRating      *string    `json:"risk_rating"`
	Error           *string    `json:"error"`
	CreatedAt       time.Time  `json:"created_at"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
	// CurrentStep is the agent step running now (nil between steps, when
	// the scan is not running, or from a server that predates it).
	CurrentStep *CurrentStep `json:"current_step,omitempty"`
	Findings    []Finding    `json:"findings,omitempty"`
	// Issues is nil when the server predates issues (the CLI then groups
	// the findings itself: findings.Group).
	Issues  []Issue  `json:"issues,omitempty"`
	Steps   []Step   `json:"agent_steps,omitempty"`
	Summary *Summary `json:"summary,omitempty"`
	// Raw is the record exactly as GET /api/scans/<id> sent it (nil from
	// other calls), for --json, which must not drop fields this client
	// does not model.
	Raw json.RawMessage `json:"-"`
}

// Terminal says whether the status never changes again.
func (s Scan) Terminal() bool {
	return s.Status == Completed || s.Status == Failed || s.Status == Cancelled
}

// Finding is one weakness a tool observed at one place (CONTRACT "Scans"):
// the server renders scans.Finding as it is. Check and Issue are empty from
// a server that predates check codes.
type Finding = scans.Finding

// CurrentStep is the step a running scan is executing now.
type CurrentStep struct {
	Seq       int       `json:"seq"`
	Tool      string    `json:"tool"`
	StartedAt time.Time `json:"started_at"`
}

// Step is one entry of the agent's audit trail.
type Step struct {
	Seq           int       `json:"seq"`
	Tool          string    `json:"tool"`
	Status        string    `json:"status"`
	Outcome       string    `json:"outcome"`
	FindingsAdded int       `json:"findings_added"`
	Credits       int       `json:"credits"`
	StartedAt     time.Time `json:"started_at"`
	DurationMS    int64     `json:"duration_ms"`
}

// Summary is the executive summary of a completed scan.
type Summary struct {
	RiskRating   string   `json:"risk_rating"`
	Summary      string   `json:"summary"`
	AttackChains []string `json:"attack_chains"`
}

// Issue is one weakness wherever it occurs in a scan: the findings with the
// same check and CVE (CONTRACT "Checks and issues"), as the server renders
// scans.Issue.
type Issue = scans.Issue

// Location is one place an issue was found.
type Location = scans.Location

// Triage is the target's decision on an issue (nil when open).
type Triage = scans.Triage

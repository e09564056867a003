// Package scans owns the scan as the customer sees it (CONTRACT "Scans"):
// scan types, statuses and their transitions, findings, agent steps and the
// executive summary, and the rules that decide how a scan is created (tier
// on plan, credit ceilings, callback URLs). It has no I/O: the store keeps
// these types, the agent produces them and the API renders them.
package scans

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"secscan/shared/plans"
)

// Type is what a scan looks at.
type Type string

// The scan types of SPEC.md section 2.
const (
	Full    Type = "full"
	Network Type = "network"
	Web     Type = "web"
	Vuln    Type = "vuln"
	SSL     Type = "ssl"
	Code    Type = "code"
)

// Types lists every scan type in the spec's order.
var Types = []Type{Full, Network, Web, Vuln, SSL, Code}

// ValidType reports whether t names a scan type.
func ValidType(t string) bool { return slices.Contains(Types, Type(t)) }

// Status is where a scan is in its life.
type Status string

// Statuses: queued → running → completed | failed | cancelled; queued → cancelled.
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{Queued, Running, Completed, Failed, Cancelled}

// ValidStatus reports whether s names a status.
func ValidStatus(s string) bool { return slices.Contains(Statuses, Status(s)) }

// Terminal reports whether s never changes again.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Severity ranks a finding.
type Severity string

// Severities, most severe first.
const (
	Critical Severity = "critical"
	High     Severity = "high"
	Medium   Severity = "medium"
	Low      Severity = "low"
	Info     Severity = "info"
)

// Severities lists the severities, most severe first.
var Severities = []Severity{Critical, High, Medium, Low, Info}

// CountBySeverity counts findings by severity, most severe first, as a
// tool's outcome says it: "1 high, 3 low" ("" for none).
func CountBySeverity(fs []Finding) string {
	counts := map[Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, sev := range Severities {
		if counts[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[sev], sev))
		}
	}
	return strings.Join(parts, ", ")
}

// Rank orders severities: critical 0 … info 4; unknown values sort last.
func (s Severity) Rank() int {
	if i := slices.Index(Severities, s); i >= 0 {
		return i
	}
	return len(Severities)
}

// Category is the kind of check that produced a finding.
type Category string

// Finding categories (CONTRACT "Scans").
const (
	CategoryNetwork Category = "network"
	CategorySSL     Category = "ssl"
	CategoryWeb     Category = "web"
	CategoryVuln    Category = "vuln"
	CategoryCode    Category = "code"
	CategoryDNS     Category = "dns"
)

// Finding is one issue a tool observed, with the evidence it collected.
type Finding struct {
	ID string `json:"id"`
	// Check is the catalogue code of the weakness (package checks): the
	// finding's identity. Tools set it; the title is only its wording.
	Check CheckCode `json:"check"`
	// Issue is the key of the issue the finding belongs to (IssueKey), set
	// when the finding is recorded.
	Issue       string     `json:"issue"`
	Title       string     `json:"title"`
	Severity    Severity   `json:"severity"`
	Category    Category   `json:"category"`
	Host        string     `json:"host"`
	Port        *int       `json:"port"`
	Evidence    string     `json:"evidence"`
	Description string     `json:"description"`
	Remediation string     `json:"remediation"`
	References  []string   `json:"references"`
	CWE         *string    `json:"cwe"`
	CVE         *string    `json:"cve"`
	CVSS        *float64   `json:"cvss"`
	Confidence  Confidence `json:"confidence"`
	// Fingerprint is StableFingerprint, set when the finding is recorded.
	Fingerprint string `json:"fingerprint"`
	// Proof is the exchange that proved the finding (CONTRACT "Proof and
	// retest"), nil when the tool has none. Build it with package proof.
	Proof *Proof `json:"proof"`
}

// Confidence says how directly a tool observed a finding (CONTRACT "Scans").
type Confidence string

// Confidences, strongest first.
const (
	// Certain: the tool observed the weakness itself (the header is
	// missing, the file was served, the handshake succeeded).
	Certain Confidence = "certain"
	// Firm: strong indirect evidence (a dangling CNAME whose target does not
	// resolve, a service that names itself in its banner).
	Firm Confidence = "firm"
	// Tentative: inferred from an announced version alone.
	Tentative Confidence = "tentative"
)

// DefaultConfidence is the confidence of a finding whose tool said none:
// tools report what they observed unless they say otherwise (version
// matches say tentative), so certain — except for a CVE, which without a
// confirmation rests on a version. Findings recorded before confidence
// existed read the same way.
func (f Finding) DefaultConfidence() Confidence {
	switch {
	case f.Confidence != "":
		return f.Confidence
	case f.CVE != nil && *f.CVE != "":
		return Tentative
	}
	return Certain
}

// Confidences lists the confidences, strongest first.
var Confidences = []Confidence{Certain, Firm, Tentative}

// StableFingerprint identifies one weakness at one place: the check, host,
// port and CVE (CONTRACT "Scans"), never the title or the evidence, so it
// stays the same across scans of a target and CI can gate on new ones.
// (Before check codes, it hashed the title: LegacyFingerprint.)
func (f Finding) StableFingerprint() string {
	if f.Check == "" {
		return f.LegacyFingerprint() // recorded before check codes existed
	}
	port := ""
	if f.Port != nil {
		port = fmt.Sprint(*f.Port)
	}
	parts := []string{"v2", string(f.Check), strings.ToLower(f.Host), port, cveOf(f)}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:12])
}

// LegacyFingerprint is the fingerprint as it was computed before check codes
// existed (from the title), so that a CI baseline saved then still matches.
func (f Finding) LegacyFingerprint() string {
	parts := []string{strings.ToLower(f.Host)}
	if cve := cveOf(f); cve != "" {
		parts = append(parts, "cve", cve)
		if f.Confidence == Certain {
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

func cveOf(f Finding) string {
	if f.CVE == nil {
		return ""
	}
	return strings.ToUpper(strings.TrimSpace(*f.CVE))
}

// Step is one entry of the agent's audit trail.
type Step struct {
	Seq           int             `json:"seq"`
	Tool          string          `json:"tool"`
	Input         json.RawMessage `json:"input"`
	Status        StepStatus      `json:"status"`
	Outcome       string          `json:"outcome"`
	FindingsAdded int             `json:"findings_added"`
	Credits       int             `json:"credits"`
	StartedAt     time.Time       `json:"started_at"`
	DurationMS    int64           `json:"duration_ms"`
	Reasoning     string          `json:"reasoning,omitempty"`
	// Model is the model call that led to the step (its tokens are in
	// Credits); nil when no model was asked.
	Model *ModelUsage `json:"model,omitempty"`
	// Services are what the step discovered (host, port, service), kept for
	// the report's coverage section and for later steps of the playbook.
	Services []Service `json:"services,omitempty"`
}

// ModelUsage is one model call: which model and the tokens it used.
type ModelUsage struct {
	ID           string `json:"id"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
}

// StepStatus is how a step ended, typed so that nobody parses outcome text
// (a DNS answer quoting "REFUSED" is not a refused step).
type StepStatus string

// Step statuses (CONTRACT "Scans", agent step).
const (
	StepOK       StepStatus = "ok"        // the tool did its job (findings or not)
	StepRefused  StepStatus = "refused"   // the input was refused; nothing was contacted
	StepFailed   StepStatus = "failed"    // the tool could not do its job
	StepTimedOut StepStatus = "timed_out" // stopped at its time bound; partial results kept
)

// Service is a network service a tool found listening.
type Service struct {
	Host   string `json:"host"`
	Port   int    `json:"port"`
	Name   string `json:"name"`             // e.g. "http", "mysql", "unknown"
	Banner string `json:"banner,omitempty"` // what it said first, sanitised and truncated
}

// RiskRating is the summary's overall verdict.
type RiskRating string

// Risk ratings: the highest severity found, or none.
const (
	RiskCritical RiskRating = "critical"
	RiskHigh     RiskRating = "high"
	RiskMedium   RiskRating = "medium"
	RiskLow      RiskRating = "low"
	RiskNone     RiskRating = "none"
)

// Summary is the executive summary of a completed scan.
type Summary struct {
	RiskRating   RiskRating `json:"risk_rating"`
	Summary      string     `json:"summary"`
	AttackChains []string   `json:"attack_chains"`
}

// Scan is the scan record.
type Scan struct {
	ID       string
	UserID   string
	TargetID string
	Target   string // the verified domain
	Type     Type
	Tier     plans.Tier
	// Plan is the owner's plan when the scan was created: the agent plans
	// with a model only for plans that have one (plans.Plan.UsesModel).
	Plan            plans.Plan
	Status          Status
	CancelRequested bool
	CreditsUsed     int
	MaxCredits      int
	// CreditMonth is the month (UTC, "2006-01") whose allowance reserved
	// MaxCredits at creation; the end of the scan releases what it did not
	// use against that month. Empty for scans created before allowances.
	CreditMonth   string
	CallbackURL   string // empty: none
	FindingsCount int
	StepsCount    int // steps recorded
	ChargedSeq    int // the last step charged (a step is charged before it runs)
	// CurrentTool and CurrentStartedAt are the tool of the step charged
	// last and when it started (empty for a step charged without them).
	CurrentTool      string
	CurrentStartedAt time.Time
	Error            string
	Summary          *Summary
	CreatedAt        time.Time
	StartedAt        time.Time // zero until running
	FinishedAt       time.Time // zero until terminal

	// WebhookDelivery is the id of the scan's one delivery sequence, empty
	// until the webhook function claims it; WebhookAttempts are its attempts.
	WebhookDelivery string
	WebhookAttempts []WebhookAttempt

	// IssuesCount is the number of distinct issues (IssueKey) among the
	// findings, kept beside FindingsCount so lists need no extra reads.
	IssuesCount int
	// ScheduleID is the schedule that started the scan; empty when none.
	ScheduleID string
	// BaselineScanID is the scan this one is compared with (CONTRACT
	// "Checks and issues"); empty when none.
	BaselineScanID string
	// NewIssuesCount, FixedIssuesCount and ActiveIssuesCount are set at
	// completion from the comparison with the baseline and the ledger
	// (CompletionCounts): new or regressed issues not triaged away, fixed
	// issues, and issues not triaged away.
	NewIssuesCount    int
	FixedIssuesCount  int
	ActiveIssuesCount *int // nil: recorded before triage (then IssuesCount)
	// IssuesBySeverity counts the issues not triaged away by severity, set
	// at completion; nil before (or for a scan completed before it existed).
	IssuesBySeverity map[Severity]int
}

// WebhookAttempt is one delivery attempt of the scan's webhook.
type WebhookAttempt struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode *int      `json:"status_code"` // nil when no HTTP answer came
	Error      *string   `json:"error"`       // nil when the receiver accepted (2xx)
}

// BudgetExceeded is the error of a scan whose next step would pass its cap
// (CONTRACT "Tiers and credits").
func BudgetExceeded(used, max int) string {
	return fmt.Sprintf("Credit budget exceeded: %d of %d credits used", used, max)
}

// RunningStep is the step a running scan is executing now: charged, not yet
// recorded.
type RunningStep struct {
	Seq       int
	Tool      string
	StartedAt time.Time
}

// Running is the step the scan is executing now; false when it is not
// running, between steps, or the step was charged without a tool.
func (s Scan) Running() (RunningStep, bool) {
	if s.Status != Running || s.ChargedSeq <= s.StepsCount || s.CurrentTool == "" {
		return RunningStep{}, false
	}
	return RunningStep{Seq: s.ChargedSeq, Tool: s.CurrentTool, StartedAt: s.CurrentStartedAt}, true
}

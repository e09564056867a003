// The JSON of scans: a scan in lists and answers, and the full record of
// GET /api/scans/{id} (CONTRACT "Scans").

package api

import (
	"bytes"
	"encoding/json"

	"secscan/shared/scans"
	"secscan/shared/store"
)

type scanJSON struct {
	ID              string  `json:"id"`
	Target          string  `json:"target"`
	TargetID        string  `json:"target_id"`
	ScanType        string  `json:"scan_type"`
	Tier            string  `json:"tier"`
	Status          string  `json:"status"`
	CancelRequested bool    `json:"cancel_requested"`
	CreditsUsed     int     `json:"credits_used"`
	MaxCredits      int     `json:"max_credits"`
	CallbackURL     *string `json:"callback_url"`
	FindingsCount   int     `json:"findings_count"`
	Error           *string `json:"error"`
	CreatedAt       string  `json:"created_at"`
	StartedAt       *string `json:"started_at"`
	FinishedAt      *string `json:"finished_at"`

	IssuesCount int `json:"issues_count"`
	// RiskRating is the summary's, null until the scan completes.
	RiskRating     *scans.RiskRating `json:"risk_rating"`
	ScheduleID     *string           `json:"schedule_id"`
	BaselineScanID *string           `json:"baseline_scan_id"`
	// CurrentStep is the step running now (null when none is).
	CurrentStep *currentStepJSON `json:"current_step"`
	// Set at completion, null before: issues not triaged away by
	// severity, new (or regressed) ones among them, and fixed ones.
	IssuesBySeverity *severityCounts `json:"issues_by_severity"`
	NewIssuesCount   *int            `json:"new_issues_count"`
	FixedIssuesCount *int            `json:"fixed_issues_count"`
}

// currentStepJSON is the step a running scan is executing now.
type currentStepJSON struct {
	Seq       int    `json:"seq"`
	Tool      string `json:"tool"`
	StartedAt string `json:"started_at"`
}

// severityCounts are issue counts with every severity present.
type severityCounts struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
	Info     int `json:"info"`
}

// completionCounts fills the counts a completed scan recorded; a scan
// completed before they were kept shows null, as an unfinished one does.
func (out *scanJSON) completionCounts(s scans.Scan) {
	if s.Status != scans.Completed || s.IssuesBySeverity == nil {
		return
	}
	c := s.IssuesBySeverity
	out.IssuesBySeverity = &severityCounts{Critical: c[scans.Critical], High: c[scans.High], Medium: c[scans.Medium],
		Low: c[scans.Low], Info: c[scans.Info]}
	newCount, fixed := s.NewIssuesCount, s.FixedIssuesCount
	out.NewIssuesCount, out.FixedIssuesCount = &newCount, &fixed
}

type scanDetailJSON struct {
	scanJSON
	Findings          []findingJSON    `json:"findings"`
	AgentSteps        []stepJSON       `json:"agent_steps"`
	Summary           *scans.Summary   `json:"summary"`
	WebhookDeliveries []webhookAttempt `json:"webhook_deliveries"`
	Surface           surfaceJSON      `json:"surface"`

	// Issues are the findings grouped (scans.GroupIssues); FixedIssues the
	// baseline's issues this scan did not find again.
	Issues      []scans.Issue      `json:"issues"`
	FixedIssues []scans.FixedIssue `json:"fixed_issues"`
}

// surfaceJSON is the scan's attack surface with empty lists as [].
type surfaceJSON struct {
	Hosts      []scans.Host        `json:"hosts"`
	Services   []scans.ServiceInfo `json:"services"`
	Web        []scans.WebOrigin   `json:"web"`
	Addresses  []scans.Address     `json:"addresses"`
	OutOfScope int                 `json:"out_of_scope_names"`
}

func renderSurface(sf scans.Surface) surfaceJSON {
	out := surfaceJSON{Hosts: sf.Hosts, Services: sf.Services, Web: sf.Web, Addresses: sf.Addresses, OutOfScope: sf.OutOfScope}
	if out.Addresses == nil {
		out.Addresses = []scans.Address{}
	}
	if out.Hosts == nil {
		out.Hosts = []scans.Host{}
	}
	for i := range out.Hosts {
		if out.Hosts[i].Addresses == nil {
			out.Hosts[i].Addresses = []string{}
		}
		if out.Hosts[i].Sources == nil {
			out.Hosts[i].Sources = []scans.HostSource{}
		}
	}
	if out.Services == nil {
		out.Services = []scans.ServiceInfo{}
	}
	if out.Web == nil {
		out.Web = []scans.WebOrigin{}
	}
	for i := range out.Web {
		if out.Web[i].Technologies == nil {
			out.Web[i].Technologies = []string{}
		}
	}
	return out
}

// webhookAttempt is one delivery attempt (recorded by the webhook function).
type webhookAttempt struct {
	Attempt    int     `json:"attempt"`
	At         string  `json:"at"`
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
}

type findingJSON struct {
	scans.Finding
}

// MarshalJSON renders absent references as [] rather than null.
func (f findingJSON) MarshalJSON() ([]byte, error) {
	if f.References == nil {
		f.References = []string{}
	}
	return json.Marshal(f.Finding)
}

type stepJSON struct {
	Seq           int               `json:"seq"`
	Tool          string            `json:"tool"`
	Input         json.RawMessage   `json:"input"`
	Status        string            `json:"status"`
	Outcome       string            `json:"outcome"`
	FindingsAdded int               `json:"findings_added"`
	Credits       int               `json:"credits"`
	StartedAt     string            `json:"started_at"`
	DurationMS    int64             `json:"duration_ms"`
	Reasoning     string            `json:"reasoning,omitempty"`
	Model         *scans.ModelUsage `json:"model,omitempty"`
	Services      []scans.Service   `json:"services,omitempty"`
}

func renderScan(s scans.Scan) scanJSON {
	out := scanJSON{
		ID: s.ID, Target: s.Target, TargetID: s.TargetID, ScanType: string(s.Type), Tier: string(s.Tier),
		Status: string(s.Status), CancelRequested: s.CancelRequested, CreditsUsed: s.CreditsUsed,
		MaxCredits: s.MaxCredits, FindingsCount: s.FindingsCount, CreatedAt: timestamp(s.CreatedAt),
		StartedAt: optionalTimestamp(&s.StartedAt), FinishedAt: optionalTimestamp(&s.FinishedAt),
		IssuesCount: s.IssuesCount, RiskRating: s.RiskRatingOf(),
		ScheduleID: optional(s.ScheduleID), BaselineScanID: optional(s.BaselineScanID),
	}
	if s.CallbackURL != "" {
		out.CallbackURL = &s.CallbackURL
	}
	if s.Error != "" {
		out.Error = &s.Error
	}
	if run, ok := s.Running(); ok {
		out.CurrentStep = &currentStepJSON{Seq: run.Seq, Tool: run.Tool, StartedAt: timestamp(run.StartedAt)}
	}
	out.completionCounts(s)
	return out
}

func renderScanDetail(d store.ScanDetail) scanDetailJSON {
	out := scanDetailJSON{
		scanJSON: renderScan(d.Scan), Summary: d.Scan.Summary,
		Findings: make([]findingJSON, len(d.Findings)), AgentSteps: make([]stepJSON, len(d.Steps)),
		WebhookDeliveries: make([]webhookAttempt, len(d.Scan.WebhookAttempts)),
		Surface:           renderSurface(d.Surface),
		Issues:            renderIssues(d.Issues, d.Findings), FixedIssues: d.FixedIssues,
	}
	if out.FixedIssues == nil {
		out.FixedIssues = []scans.FixedIssue{}
	}
	for i, a := range d.Scan.WebhookAttempts {
		out.WebhookDeliveries[i] = webhookAttempt{Attempt: a.Attempt, At: timestamp(a.At), StatusCode: a.StatusCode, Error: a.Error}
	}
	for i, f := range d.Findings {
		out.Findings[i] = findingJSON{f}
	}
	for i, s := range d.Steps {
		out.AgentSteps[i] = renderStep(s)
	}
	return out
}

// renderIssues is a scan's issues as stored, or grouped from its findings
// (a scan recorded before issues existed); arrays are empty, never null.
func renderIssues(issues []scans.Issue, findings []scans.Finding) []scans.Issue {
	if issues == nil {
		issues = scans.GroupIssues(findings)
	}
	if issues == nil { // no findings (yet)
		return []scans.Issue{}
	}
	for i := range issues {
		if issues[i].References == nil {
			issues[i].References = []string{}
		}
		if issues[i].Locations == nil {
			issues[i].Locations = []scans.Location{}
		}
	}
	return issues
}

// renderStep is one step of the audit trail; an input that is not a JSON
// object is shown as {}.
func renderStep(s scans.Step) stepJSON {
	input := s.Input
	if !json.Valid(input) || len(bytes.TrimSpace(input)) == 0 || bytes.TrimSpace(input)[0] != '{' {
		input = json.RawMessage("{}")
	}
	return stepJSON{
		Seq: s.Seq, Tool: s.Tool, Input: input, Status: string(s.Status), Outcome: s.Outcome, FindingsAdded: s.FindingsAdded,
		Credits: s.Credits, StartedAt: timestamp(s.StartedAt), DurationMS: s.DurationMS,
		Reasoning: s.Reasoning, Model: s.Model, Services: s.Services,
	}
}

package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/domainname"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/netguard"
	"secscan/shared/plans"
	"secscan/shared/ratelimit"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// ScanStarter starts the state machine execution of a scan (stepfn.Starter).
type ScanStarter interface {
	StartScan(ctx context.Context, scanID, userID string) error
}

// CallbackPolicy is what callback URLs may point at (CONTRACT "Webhooks").
type CallbackPolicy struct {
	AllowInsecure bool // ALLOW_INSECURE_CALLBACKS: http:// accepted
	AllowPrivate  bool // ALLOW_PRIVATE_NETWORKS: localhost and private IP literals accepted
}

const (
	maxCallbackURL       = 2048
	maxIdempotencyKey    = 255
	idempotencyRetention = 24 * time.Hour
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
	OutOfScope int                 `json:"out_of_scope_names"`
}

func renderSurface(sf scans.Surface) surfaceJSON {
	out := surfaceJSON{Hosts: sf.Hosts, Services: sf.Services, Web: sf.Web, OutOfScope: sf.OutOfScope}
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
		Issues:            d.Issues, FixedIssues: d.FixedIssues,
	}
	if out.Issues == nil {
		out.Issues = scans.GroupIssues(d.Findings)
	}
	if out.Issues == nil { // no findings (yet): an empty array, never null
		out.Issues = []scans.Issue{}
	}
	for i := range out.Issues {
		if out.Issues[i].References == nil {
			out.Issues[i].References = []string{}
		}
		if out.Issues[i].Locations == nil {
			out.Issues[i].Locations = []scans.Location{}
		}
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
		input := s.Input
		if !json.Valid(input) || len(bytes.TrimSpace(input)) == 0 || bytes.TrimSpace(input)[0] != '{' {
			input = json.RawMessage("{}")
		}
		out.AgentSteps[i] = stepJSON{
			Seq: s.Seq, Tool: s.Tool, Input: input, Status: string(s.Status), Outcome: s.Outcome, FindingsAdded: s.FindingsAdded,
			Credits: s.Credits, StartedAt: timestamp(s.StartedAt), DurationMS: s.DurationMS,
			Reasoning: s.Reasoning, Model: s.Model, Services: s.Services,
		}
	}
	return out
}

type scanCreate struct {
	Target      *string         `json:"target"`
	ScanType    *string         `json:"scan_type"`
	Tier        *string         `json:"tier"`
	CallbackURL *string         `json:"callback_url"`
	MaxCredits  *int            `json:"max_credits"`
	Options     json.RawMessage `json:"options"`
}

// createScan queues a scan (CONTRACT "Scans"): body checks (422), the plan
// (403), then startScan (the target, the hourly limit, the allowance).
func (a *API) createScan(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	var in scanCreate
	if err := httpapi.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	idem, err := idempotencyOf(r, a.Now())
	if err != nil {
		return err
	}
	req, err := a.checkScanRequest(in, plans.Plan(p.User.Plan))
	if err != nil {
		return err
	}
	sc, created, err := a.startScan(r.Context(), scanStart{
		userID: p.User.ID, plan: plans.Plan(p.User.Plan), target: *in.Target, req: req,
		idem: idem, slot: httpapi.RequestID(r.Context()),
	})
	if err != nil {
		return err
	}
	if created {
		httpapi.Logger(r.Context()).InfoContext(r.Context(), "scan queued", "scan_id", sc.ID, "type", sc.Type, "tier", sc.Tier)
	}
	w.Header().Set("Location", "/api/scans/"+sc.ID)
	httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
	return nil
}

// scanStart is a checked creation: POST /api/scans and every run of a
// schedule start scans through startScan alone.
type scanStart struct {
	userID     string
	plan       plans.Plan
	target     string // a domain or a tgt_ id
	req        scanRequest
	idem       *store.Idempotency
	slot       string // the rate limiter's slot: unique per creation attempt
	scheduleID string
}

// startScan starts a checked scan request: the target (422), the hourly
// creation limit (429, a rejected creation never counts toward it), the
// scan record with its reservation in the month's allowance (403 when the
// month cannot hold it; the creation slot is given back), then the state
// machine's execution (503 when it cannot start; the scan is failed and
// its slot and key freed). Ownership is re-verified by the agent when the
// execution starts. created is false for an Idempotency-Key replay.
func (a *API) startScan(ctx context.Context, st scanStart) (scans.Scan, bool, error) {
	req := st.req
	target, err := a.scannableTarget(ctx, st.userID, st.target)
	if err != nil {
		return scans.Scan{}, false, err
	}
	now := a.Now().UTC()
	limitKey := ratelimit.Target{Key: store.UserKey(st.userID), MustExist: true}
	d, err := a.Auth.Limiter.Take(ctx, limitKey, ratelimit.ScanCreation, st.slot, now)
	if err != nil {
		return scans.Scan{}, false, err
	}
	if !d.Allowed {
		e := apierr.New(apierr.RateLimited, "Rate limit exceeded: %d scans per hour", ratelimit.ScanCreation.Limit)
		e.RetryAfter = ratelimit.Seconds(d.RetryAfter)
		return scans.Scan{}, false, e
	}
	release := func() {
		// Best effort: a lost release only makes the limit stricter.
		if err := a.Auth.Limiter.Release(context.WithoutCancel(ctx), limitKey, ratelimit.ScanCreation, st.slot); err != nil {
			httpapi.Logger(ctx).WarnContext(ctx, "release scan slot", "error", err.Error())
		}
	}

	sc := scans.Scan{
		ID: ids.New(ids.Scan, now), UserID: st.userID, TargetID: target.ID, Target: target.Domain,
		Type: req.scanType, Tier: req.tier, Plan: st.plan, Status: scans.Queued, MaxCredits: req.maxCredits,
		CreditMonth: store.CreditMonth(now), CallbackURL: req.callbackURL, CreatedAt: now, ScheduleID: st.scheduleID,
	}
	sc, created, err := a.Store.CreateScan(ctx, sc, st.idem, now)
	if err != nil { // an *AllowanceError is the 403 of an exhausted allowance
		release()
		return scans.Scan{}, false, err
	}
	if !created {
		release() // a replay is not a creation
	}
	if sc.Status == scans.Queued {
		// Also on a replay: the execution is named after the scan, so a
		// second start of a started scan is a no-op, and a start that failed
		// before is made good.
		if err := a.Scans.StartScan(ctx, sc.ID, sc.UserID); err != nil {
			return scans.Scan{}, false, a.abandonScan(ctx, sc, st.idem, err, release)
		}
	}
	return sc, created, nil
}

// allowanceExhausted is the 403 of a creation the month's allowance cannot
// hold (CONTRACT "Plans"): the store's error answers for itself.
func allowanceExhausted(e *store.AllowanceError) error { return e }

// abandonScan records a scan whose execution could not be started as failed
// (so nothing stays queued forever), frees its key and slot, and answers 503.
func (a *API) abandonScan(reqCtx context.Context, sc scans.Scan, idem *store.Idempotency, cause error, release func()) error {
	ctx := context.WithoutCancel(reqCtx)
	if _, err := a.Store.EndScan(ctx, sc.UserID, sc.ID, scans.Failed, "The scan could not be started; no credits were used. Please retry.", nil, a.Now()); err != nil {
		httpapi.Logger(ctx).ErrorContext(ctx, "abandon scan", "scan_id", sc.ID, "error", err.Error())
	}
	if idem != nil {
		if err := a.Store.ReleaseIdempotency(ctx, sc.UserID, idem.KeyHash, sc.ID); err != nil {
			httpapi.Logger(ctx).ErrorContext(ctx, "release idempotency key", "scan_id", sc.ID, "error", err.Error())
		}
	}
	release()
	return dependency.Unavailable(dependency.Scans, cause)
}

type scanRequest struct {
	scanType    scans.Type
	tier        plans.Tier
	maxCredits  int
	callbackURL string
}

// checkScanRequest validates the body against the rules of CONTRACT "Scans".
func (a *API) checkScanRequest(in scanCreate, plan plans.Plan) (scanRequest, error) {
	var req scanRequest
	switch {
	case in.Target == nil || strings.TrimSpace(*in.Target) == "":
		return req, apierr.Field("target", "is required")
	case in.ScanType == nil:
		return req, apierr.Field("scan_type", "is required (one of full, network, web, vuln, ssl, code)")
	case !scans.ValidType(*in.ScanType):
		return req, apierr.Field("scan_type", "must be one of full, network, web, vuln, ssl, code")
	case in.Tier == nil:
		return req, apierr.Field("tier", "is required (quick, standard or deep)")
	}
	req.scanType, req.tier = scans.Type(*in.ScanType), plans.Tier(*in.Tier)
	ceiling, ok := plans.CreditCeiling[req.tier]
	switch {
	case !ok:
		return req, apierr.Field("tier", "must be one of quick, standard, deep")
	case req.scanType == scans.Full && req.tier == plans.Quick:
		return req, apierr.Field("tier", "a full scan needs tier standard or deep")
	case in.MaxCredits != nil && *in.MaxCredits < 1:
		return req, apierr.Field("max_credits", "must be a positive integer")
	case len(in.Options) > 0 && !isJSONObject(in.Options):
		return req, apierr.Field("options", "must be a JSON object")
	}
	req.maxCredits = ceiling
	if in.MaxCredits != nil {
		req.maxCredits = min(*in.MaxCredits, ceiling)
	}
	// Webhooks are not on the free plan: its callback_url is ignored without
	// any error (SPEC 6), so it is not even checked.
	if in.CallbackURL != nil && plan.HasWebhooks() {
		u, err := a.checkCallbackURL(*in.CallbackURL)
		if err != nil {
			return req, err
		}
		req.callbackURL = u
	}
	if !plan.AllowsTier(req.tier) {
		return req, apierr.New(apierr.Forbidden, "Tier %s is not available on the %s plan; it needs the %s plan or higher",
			req.tier, plan, plans.CheapestAllowing(req.tier))
	}
	return req, nil
}

func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '{' || string(t) == "null")
}

// checkCallbackURL accepts an absolute https URL of at most 2048 characters
// whose host is a name or a public IP literal. Names are checked again, after
// resolution, by the guarded dialer at delivery time.
func (a *API) checkCallbackURL(raw string) (string, error) {
	if len(raw) > maxCallbackURL {
		return "", apierr.Field("callback_url", "must be at most %d characters", maxCallbackURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", apierr.Field("callback_url", "must be an absolute https URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && a.Callbacks.AllowInsecure:
	default:
		return "", apierr.Field("callback_url", "must use https")
	}
	if u.User != nil {
		return "", apierr.Field("callback_url", "must not carry credentials")
	}
	if u.Fragment != "" {
		return "", apierr.Field("callback_url", "must not have a fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", apierr.Field("callback_url", "port must be between 1 and 65535")
		}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if a.Callbacks.AllowPrivate {
		return u.String(), nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "", apierr.Field("callback_url", "must not point at localhost")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		var refused *netguard.AddressError
		if err := (netguard.Policy{}).Check(ip); errors.As(err, &refused) {
			return "", apierr.Field("callback_url", "must point at a public address: %s", refused.Summary())
		}
	} else if net.ParseIP(host) == nil {
		if _, err := domainname.Normalize(host); err != nil {
			return "", apierr.Field("callback_url", "host %s", err.Error())
		}
	}
	return u.String(), nil
}

// idempotencyOf reads the Idempotency-Key header: 1 to 255 visible ASCII
// characters. Only its hash is stored.
func idempotencyOf(r *http.Request, now time.Time) (*store.Idempotency, error) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return nil, nil
	}
	k := values[0]
	if len(values) > 1 || k == "" || len(k) > maxIdempotencyKey || strings.IndexFunc(k, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
		return nil, apierr.Field("Idempotency-Key", "must be one header of 1 to %d visible ASCII characters", maxIdempotencyKey)
	}
	sum := sha256.Sum256([]byte(k))
	return &store.Idempotency{KeyHash: hex.EncodeToString(sum[:]), Until: now.Add(idempotencyRetention)}, nil
}

// scannableTarget finds the user's verified target by domain (or by id).
func (a *API) scannableTarget(ctx context.Context, userID, ref string) (store.Target, error) {
	ref = strings.TrimSpace(ref)
	var (
		t   store.Target
		err error
	)
	if ids.Valid(ids.Target, ref) {
		t, err = a.Store.GetTarget(ctx, userID, ref)
	} else {
		domain, nerr := domainname.Normalize(ref)
		if nerr != nil {
			return t, apierr.Field("target", "%s", nerr.Error())
		}
		ref = domain
		t, err = a.Store.TargetByDomain(ctx, userID, domain)
	}
	if store.IsNotFound(err) {
		return t, apierr.New(apierr.Unprocessable, "Target %s is not registered", ref)
	}
	if err != nil {
		return t, err
	}
	if !t.Verified {
		return t, apierr.New(apierr.Unprocessable, "Target %s is not verified; complete its %s challenge and call POST /api/targets/%s/verify",
			t.Domain, t.Method, t.ID)
	}
	return t, nil
}

func (a *API) listScans(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	page, err := PageOf(r)
	if err != nil {
		return err
	}
	var f store.ScanFilter
	q := r.URL.Query()
	if v := q.Get("status"); v != "" {
		if !scans.ValidStatus(v) {
			return apierr.Field("status", "must be one of queued, running, completed, failed, cancelled")
		}
		f.Status = scans.Status(v)
	}
	if v := q.Get("target"); v != "" {
		domain, err := domainname.Normalize(v)
		if err != nil {
			return apierr.Field("target", "%s", err.Error())
		}
		f.Target = domain
	}
	list, next, err := a.Store.ListScans(r.Context(), p.User.ID, page, f)
	if err != nil {
		return err
	}
	out := make([]scanJSON, len(list))
	for i, s := range list {
		out[i] = renderScan(s)
	}
	SetNextLink(w, r, page, next)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func scanID(r *http.Request) (string, error) {
	return httpapi.PathID(r, ids.Scan, ids.Valid, "Scan")
}

func (a *API) getScan(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	id, err := scanID(r)
	if err != nil {
		return err
	}
	d, err := a.Store.GetScanDetail(r.Context(), p.User.ID, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, renderScanDetail(d))
	return nil
}

func (a *API) cancelScan(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	id, err := scanID(r)
	if err != nil {
		return err
	}
	sc, err := a.Store.RequestCancel(r.Context(), p.User.ID, id, a.Now())
	if err != nil { // not found, or an *ErrTerminal (409)
		return err
	}
	httpapi.Logger(r.Context()).InfoContext(r.Context(), "scan cancellation requested", "scan_id", id, "status", sc.Status)
	httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
	return nil
}

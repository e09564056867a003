// Creating a scan: POST /api/scans and every run of a schedule check the
// request and start the scan through startScan alone.

package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/domainname"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/ratelimit"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// ScanStarter starts the state machine execution of a scan (stepfn.Starter).
type ScanStarter interface {
	StartScan(ctx context.Context, scanID, userID string) error
}

const (
	maxIdempotencyKey    = 255
	idempotencyRetention = 24 * time.Hour
)

type scanCreate struct {
	Target      *string         `json:"target"`
	ScanType    *string         `json:"scan_type"`
	Tier        *string         `json:"tier"`
	CallbackURL *string         `json:"callback_url"`
	MaxCredits  *int            `json:"max_credits"`
	Options     json.RawMessage `json:"options"`
}

// scanCreationStore is what starting a scan reads and writes (*store.Store).
type scanCreationStore interface {
	targetFinder
	CreateScan(ctx context.Context, sc scans.Scan, idem *store.Idempotency, now time.Time) (scans.Scan, bool, error)
	EndScan(ctx context.Context, userID, id string, status scans.Status, reason string, summary *scans.Summary, now time.Time) (scans.Scan, error)
	ReleaseIdempotency(ctx context.Context, userID, keyHash, scanID string) error
}

// creationLimiter counts creations (of scans, of retests) per hour
// (*ratelimit.Limiter).
type creationLimiter interface {
	Take(ctx context.Context, t ratelimit.Target, rule ratelimit.Rule, id string, now time.Time) (ratelimit.Decision, error)
	Release(ctx context.Context, t ratelimit.Target, rule ratelimit.Rule, id string) error
}

// scanCreation is what checking and starting a scan needs: POST /api/scans
// and the runs of schedules share it.
type scanCreation struct {
	store     scanCreationStore
	limiter   creationLimiter
	starter   ScanStarter
	callbacks CallbackPolicy
	now       func() time.Time
}

// creation is the scanCreation of a's dependencies.
func (a *API) creation() scanCreation {
	return scanCreation{store: a.Store, limiter: a.Auth.Limiter, starter: a.Scans, callbacks: a.Callbacks, now: a.Now}
}

// createScan queues a scan (CONTRACT "Scans"): body checks (422), the plan
// (403), then startScan (the target, the hourly limit, the allowance).
func createScan(c scanCreation) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		var in scanCreate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		idem, err := idempotencyOf(r, c.now())
		if err != nil {
			return err
		}
		req, err := checkScanRequest(in, plans.Plan(p.User.Plan), c.callbacks)
		if err != nil {
			return err
		}
		sc, created, err := c.startScan(r.Context(), scanStart{
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
func (c scanCreation) startScan(ctx context.Context, st scanStart) (scans.Scan, bool, error) {
	req := st.req
	target, err := scannableTarget(ctx, c.store, st.userID, st.target)
	if err != nil {
		return scans.Scan{}, false, err
	}
	now := c.now().UTC()
	release, err := hourlySlot(ctx, c.limiter, st.userID, ratelimit.ScanCreation, st.slot, now)
	if err != nil {
		return scans.Scan{}, false, err
	}
	sc := scans.Scan{
		ID: ids.New(ids.Scan, now), UserID: st.userID, TargetID: target.ID, Target: target.Domain,
		Type: req.scanType, Tier: req.tier, Plan: st.plan, Status: scans.Queued, MaxCredits: req.maxCredits,
		CreditMonth: store.CreditMonth(now), CallbackURL: req.callbackURL, CreatedAt: now, ScheduleID: st.scheduleID,
	}
	sc, created, err := c.store.CreateScan(ctx, sc, st.idem, now)
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
		if err := c.starter.StartScan(ctx, sc.ID, sc.UserID); err != nil {
			return scans.Scan{}, false, c.abandonScan(ctx, sc, st.idem, err, release)
		}
	}
	return sc, created, nil
}

// hourlySlot takes userID's slot of the hourly rule at now: the 429 with
// Retry-After when the hour is full. release gives it back, best effort: a
// rejected creation does not count, and a lost release only makes the
// limit stricter.
func hourlySlot(ctx context.Context, limiter creationLimiter, userID string, rule ratelimit.Rule, slot string, now time.Time) (release func(), err error) {
	key := ratelimit.Target{Key: store.UserKey(userID), MustExist: true}
	d, err := limiter.Take(ctx, key, rule, slot, now)
	if err != nil {
		return nil, err
	}
	if !d.Allowed {
		e := apierr.New(apierr.RateLimited, "Rate limit exceeded: %d %s per hour", rule.Limit, rule.Name)
		e.RetryAfter = ratelimit.Seconds(d.RetryAfter)
		return nil, e
	}
	return func() {
		if err := limiter.Release(context.WithoutCancel(ctx), key, rule, slot); err != nil {
			httpapi.Logger(ctx).WarnContext(ctx, "release "+rule.Name+" slot", "error", err.Error())
		}
	}, nil
}

// allowanceExhausted is the 403 of a creation the month's allowance cannot
// hold (CONTRACT "Plans"): the store's error answers for itself.
func allowanceExhausted(e *store.AllowanceError) error { return e }

// abandonScan records a scan whose execution could not be started as failed
// (so nothing stays queued forever), frees its key and slot, and answers 503.
func (c scanCreation) abandonScan(reqCtx context.Context, sc scans.Scan, idem *store.Idempotency, cause error, release func()) error {
	ctx := context.WithoutCancel(reqCtx)
	if _, err := c.store.EndScan(ctx, sc.UserID, sc.ID, scans.Failed, "The scan could not be started; no credits were used. Please retry.", nil, c.now()); err != nil {
		httpapi.Logger(ctx).ErrorContext(ctx, "abandon scan", "scan_id", sc.ID, "error", err.Error())
	}
	if idem != nil {
		if err := c.store.ReleaseIdempotency(ctx, sc.UserID, idem.KeyHash, sc.ID); err != nil {
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

// checkScanRequest validates the body against the rules of CONTRACT "Scans",
// callback URLs against callbacks.
func checkScanRequest(in scanCreate, plan plans.Plan, callbacks CallbackPolicy) (scanRequest, error) {
	req, err := checkScanFields(in)
	if err != nil {
		return req, err
	}
	// Webhooks are not on the free plan: its callback_url is ignored without
	// any error (SPEC 6), so it is not even checked.
	if in.CallbackURL != nil && plan.HasWebhooks() {
		u, err := callbacks.check(*in.CallbackURL)
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

// checkScanFields checks the body's fields but the callback URL (422), the
// plan's rules aside.
func checkScanFields(in scanCreate) (scanRequest, error) {
	req, ceiling, err := checkScanKind(in)
	if err != nil {
		return req, err
	}
	switch {
	case in.MaxCredits != nil && *in.MaxCredits < 1:
		return req, apierr.Field("max_credits", "must be a positive integer")
	case len(in.Options) > 0 && !isJSONObject(in.Options):
		return req, apierr.Field("options", "must be a JSON object")
	}
	req.maxCredits = ceiling
	if in.MaxCredits != nil {
		req.maxCredits = min(*in.MaxCredits, ceiling)
	}
	return req, nil
}

// checkScanKind checks what is to be scanned and how deeply: the target,
// the scan type and the tier, whose credit ceiling it returns.
func checkScanKind(in scanCreate) (req scanRequest, ceiling int, err error) {
	switch {
	case in.Target == nil || strings.TrimSpace(*in.Target) == "":
		return req, 0, apierr.Field("target", "is required")
	case in.ScanType == nil:
		return req, 0, apierr.Field("scan_type", "is required (one of full, network, web, vuln, ssl, code)")
	case !scans.ValidType(*in.ScanType):
		return req, 0, apierr.Field("scan_type", "must be one of full, network, web, vuln, ssl, code")
	case in.Tier == nil:
		return req, 0, apierr.Field("tier", "is required (quick, standard or deep)")
	}
	req.scanType, req.tier = scans.Type(*in.ScanType), plans.Tier(*in.Tier)
	ceiling, ok := plans.CreditCeiling[req.tier]
	switch {
	case !ok:
		return req, 0, apierr.Field("tier", "must be one of quick, standard, deep")
	case req.scanType == scans.Full && req.tier == plans.Quick:
		return req, 0, apierr.Field("tier", "a full scan needs tier standard or deep")
	}
	return req, ceiling, nil
}

func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '{' || string(t) == "null")
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

// targetFinder finds a user's target by id or by domain (*store.Store).
type targetFinder interface {
	targetGetter
	TargetByDomain(ctx context.Context, userID, domain string) (store.Target, error)
}

// scannableTarget finds the user's verified target by domain (or by id).
func scannableTarget(ctx context.Context, st targetFinder, userID, ref string) (store.Target, error) {
	ref = strings.TrimSpace(ref)
	var (
		t   store.Target
		err error
	)
	if ids.Valid(ids.Target, ref) {
		t, err = st.GetTarget(ctx, userID, ref)
	} else {
		domain, nerr := domainname.Normalize(ref)
		if nerr != nil {
			return t, apierr.Field("target", "%s", nerr.Error())
		}
		ref = domain
		t, err = st.TargetByDomain(ctx, userID, domain)
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

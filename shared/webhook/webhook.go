// Package webhook delivers the one signed callback of a scan that has ended
// (SPEC section 6, CONTRACT "Webhooks"): the payload of its status, signed
// with the account's current secret (HMAC-SHA256 over "<timestamp>.<body>"),
// POSTed through the guarded dialer, retried after 1 s, 2 s and 4 s on a
// non-2xx answer, a timeout or a connection error, each attempt signed anew,
// then dropped.
//
// The schedule lives here, in one Lambda invocation, rather than in the
// state machine's Retry: the gaps are then exactly 1, 2 and 4 s between
// attempts (no invocation start-up in between), every attempt is recorded on
// the scan as it happens, and the worst case (4 × 10 s + 7 s) fits the
// function's 60 s timeout. A claim written on the scan before the first
// attempt makes the sequence happen at most once, whatever re-runs the state.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"secscan/shared/ids"
	"secscan/shared/netguard"
	"secscan/shared/plans"
	"secscan/shared/randtoken"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// The delivery's fixed headers and values (SPEC 6, CONTRACT "Webhooks").
const (
	HeaderTimestamp = "X-Service-Webhook-Timestamp"
	HeaderSignature = "X-Service-Signature"
	HeaderDelivery  = "X-Service-Delivery"
	UserAgent       = "Service/1.0"

	// SecretPrefix starts every signing secret.
	SecretPrefix = "whsec_"

	// DefaultAttemptTimeout bounds one attempt, connection to last byte.
	DefaultAttemptTimeout = 10 * time.Second
	// maxResponseBody is read from an answer, then ignored.
	maxResponseBody = 64 << 10
)

// Backoff is the pause before each retry.
var Backoff = []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second}

// NewSecret mints a signing secret: "whsec_" and 32 random bytes in base62.
func NewSecret(now time.Time) (store.WebhookSecret, error) {
	body, err := randtoken.Base62(32)
	if err != nil {
		return store.WebhookSecret{}, err
	}
	return store.WebhookSecret{Secret: SecretPrefix + body, CreatedAt: now.UTC()}, nil
}

// Sign returns the X-Service-Signature value for body sent at timestamp:
// "t=<timestamp>,v1=<lowercase hex HMAC-SHA256 of "<timestamp>.<body>">".
func Sign(secret string, timestamp int64, body []byte) string {
	ts := strconv.FormatInt(timestamp, 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Payload is the body of a scan's webhook: the completion payload, the
// reduced failure payload or the cancellation payload.
func Payload(sc scans.Scan) ([]byte, error) {
	switch sc.Status {
	case scans.Completed:
		return json.Marshal(completedPayload(sc))
	case scans.Failed:
		return json.Marshal(struct {
			ScanID string       `json:"scan_id"`
			Status scans.Status `json:"status"`
			Error  string       `json:"error"`
		}{sc.ID, sc.Status, sc.Error})
	case scans.Cancelled:
		return json.Marshal(endedOf(sc))
	}
	return nil, fmt.Errorf("webhook payload: scan %s has not ended (%s)", sc.ID, sc.Status)
}

// ended are the fields the completion and cancellation payloads share,
// first and in this order.
type ended struct {
	ScanID        string       `json:"scan_id"`
	Status        scans.Status `json:"status"`
	Target        string       `json:"target"`
	Tier          plans.Tier   `json:"tier"`
	CreditsUsed   int          `json:"credits_used"`
	FindingsCount int          `json:"findings_count"`
}

// endedOf are the shared fields of an ended scan's payload.
func endedOf(sc scans.Scan) ended {
	return ended{sc.ID, sc.Status, sc.Target, sc.Tier, sc.CreditsUsed, sc.FindingsCount}
}

// completed is the completion payload.
type completed struct {
	ended
	IssuesCount      int           `json:"issues_count"`
	NewIssuesCount   int           `json:"new_issues_count"`
	FixedIssuesCount int           `json:"fixed_issues_count"`
	ScheduleID       *string       `json:"schedule_id"`
	Summary          scans.Summary `json:"summary"`
}

// completedPayload fills the completion payload: the summary with its
// attack chains never null, the counts without issues triaged away, the
// schedule null when none started the scan.
func completedPayload(sc scans.Scan) completed {
	summary := scans.Summary{RiskRating: scans.RiskNone, AttackChains: []string{}}
	if sc.Summary != nil {
		summary = *sc.Summary
	}
	if summary.AttackChains == nil {
		summary.AttackChains = []string{}
	}
	// The counts leave out issues triaged away (false positives,
	// unexpired accepted risks) when the scan was completed.
	issues := sc.IssuesCount
	if sc.ActiveIssuesCount != nil {
		issues = *sc.ActiveIssuesCount
	}
	var schedule *string
	if sc.ScheduleID != "" {
		schedule = &sc.ScheduleID
	}
	return completed{endedOf(sc), issues, sc.NewIssuesCount, sc.FixedIssuesCount, schedule, summary}
}

// Deliverer sends scans' webhooks.
type Deliverer struct {
	Store  *store.Store
	Dialer *netguard.Dialer
	// AllowInsecure accepts http:// callback URLs (ALLOW_INSECURE_CALLBACKS).
	AllowInsecure bool
	// AttemptTimeout bounds each attempt; zero means DefaultAttemptTimeout.
	AttemptTimeout time.Duration
	// TLS verifies receivers; nil means the system roots (tests add theirs).
	TLS    *tls.Config
	Now    func() time.Time
	Logger *slog.Logger
}

// Outcome says what Deliver did, for the state machine's history.
type Outcome struct {
	Delivered bool   `json:"delivered"`
	Attempts  int    `json:"attempts"`
	Skipped   string `json:"skipped,omitempty"` // why nothing was sent
}

// Deliver sends the webhook of scan id, if it has one to send and nobody
// sent it before. Receiver failures are the outcome, not an error: an error
// means the store could not be read or written.
func (d *Deliverer) Deliver(ctx context.Context, userID, scanID string) (Outcome, error) {
	sc, err := d.Store.GetScan(ctx, userID, scanID)
	if err != nil {
		return Outcome{}, fmt.Errorf("webhook for %s: %w", scanID, err)
	}
	if why := notToSend(sc); why != "" {
		return Outcome{Skipped: why}, nil
	}
	user, err := d.Store.GetUser(ctx, userID)
	if err != nil {
		return Outcome{}, fmt.Errorf("webhook for %s: %w", scanID, err)
	}
	if !plans.Plan(user.Plan).HasWebhooks() {
		return Outcome{Skipped: "plan " + user.Plan + " has no webhooks"}, nil
	}
	body, err := Payload(sc)
	if err != nil {
		return Outcome{}, err
	}
	deliveryID := ids.New("dlv_", d.Now())
	sc, claimed, err := d.Store.ClaimWebhook(ctx, userID, scanID, deliveryID)
	if err != nil {
		return Outcome{}, fmt.Errorf("webhook for %s: %w", scanID, err)
	}
	if !claimed {
		return Outcome{Skipped: deliveredBefore(sc)}, nil
	}
	return d.send(ctx, userID, scanID, deliveryID, sc.CallbackURL, body)
}

// notToSend says why a scan has no webhook to send now, or "".
func notToSend(sc scans.Scan) string {
	switch {
	case sc.CallbackURL == "":
		return "no callback_url"
	case !sc.Status.Terminal():
		return "scan has not ended"
	case sc.WebhookDelivery != "":
		return deliveredBefore(sc)
	}
	return ""
}

// deliveredBefore is why a scan whose webhook was claimed is skipped.
func deliveredBefore(sc scans.Scan) string { return "delivered before (" + sc.WebhookDelivery + ")" }

// send posts the claimed delivery to callback, retrying after each
// Backoff, recording every attempt; it stops at the first success.
func (d *Deliverer) send(ctx context.Context, userID, scanID, deliveryID, callback string, body []byte) (Outcome, error) {
	log := d.Logger.With("scan_id", scanID, "delivery", deliveryID)
	client := d.client()
	out := Outcome{}
	for attempt := 1; attempt <= len(Backoff)+1; attempt++ {
		if attempt > 1 {
			if err := sleep(ctx, Backoff[attempt-2]); err != nil {
				return out, err
			}
		}
		// The secret is read for every attempt: a rotation takes effect at once.
		secret, err := d.secret(ctx, userID)
		if err != nil {
			return out, err
		}
		rec := d.attempt(ctx, client, callback, deliveryID, secret, body)
		rec.Attempt = attempt
		out.Attempts = attempt
		if err := d.Store.RecordWebhookAttempt(ctx, userID, scanID, rec); err != nil {
			return out, fmt.Errorf("webhook for %s: %w", scanID, err)
		}
		log.InfoContext(ctx, "webhook attempt", "attempt", attempt, "status_code", rec.StatusCode, "error", rec.Error)
		if rec.Error == nil {
			out.Delivered = true
			return out, nil
		}
	}
	log.WarnContext(ctx, "webhook dropped after retries", "attempts", out.Attempts)
	return out, nil
}

func (d *Deliverer) secret(ctx context.Context, userID string) (string, error) {
	candidate, err := NewSecret(d.Now())
	if err != nil {
		return "", err
	}
	s, err := d.Store.WebhookSecret(ctx, userID, candidate)
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return s.Secret, nil
}

// attempt makes one signed POST and says how it went.
func (d *Deliverer) attempt(ctx context.Context, client *http.Client, callback, deliveryID, secret string, body []byte) scans.WebhookAttempt {
	now := d.Now()
	rec := scans.WebhookAttempt{At: now.UTC()}
	fail := func(format string, args ...any) scans.WebhookAttempt {
		msg := fmt.Sprintf(format, args...)
		rec.Error = &msg
		return rec
	}
	if err := checkURL(callback, d.AllowInsecure); err != nil {
		return fail("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cmpOr(d.AttemptTimeout, DefaultAttemptTimeout))
	defer cancel()
	req, err := signedRequest(ctx, callback, deliveryID, secret, body, now.Unix())
	if err != nil {
		return fail("invalid callback_url")
	}
	res, err := client.Do(req)
	if err != nil {
		return fail("%s", describe(err, ctx))
	}
	_, readErr := io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseBody))
	res.Body.Close()
	code := res.StatusCode
	rec.StatusCode = &code
	switch {
	case code < 200 || code > 299:
		return fail("receiver answered %d", code)
	case readErr != nil && ctx.Err() != nil:
		return fail("timed out after %s reading the answer", cmpOr(d.AttemptTimeout, DefaultAttemptTimeout))
	}
	return rec
}

// signedRequest is the POST of body to callback, signed at ts.
func signedRequest(ctx context.Context, callback, deliveryID, secret string, body []byte, ts int64) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, callback, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header = http.Header{
		"Content-Type":  {"application/json"},
		"User-Agent":    {UserAgent},
		HeaderTimestamp: {strconv.FormatInt(ts, 10)},
		HeaderSignature: {Sign(secret, ts, body)},
		HeaderDelivery:  {deliveryID},
	}
	return req, nil
}

// client posts through the guarded dialer and never follows redirects: a
// 3xx is an answer like any other non-2xx.
func (d *Deliverer) client() *http.Client {
	c := d.Dialer.HTTPClient(0, d.TLS) // each attempt has its own deadline
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// checkURL re-checks the stored callback URL at delivery time.
func checkURL(raw string, allowInsecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("callback_url is not an absolute URL")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !allowInsecure) {
		return fmt.Errorf("callback_url must use https, not %s", u.Scheme)
	}
	return nil
}

// describe turns a transport error into a short reason for the record,
// without internal detail.
func describe(err error, ctx context.Context) string {
	var refused *netguard.AddressError
	switch {
	case errors.As(err, &refused):
		return "refused: " + refused.Summary()
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return "refused: the callback host resolves to a non-public address"
	case ctx.Err() != nil:
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "connection failed: " + err.Error()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

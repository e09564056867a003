// Package webhookverify is the receiver kit: it checks that a scan webhook
// came from the service and is fresh, exactly as SPEC section 6 describes —
// HMAC-SHA256 with your signing secret over "<t>.<raw body>", compared in
// constant time, t within 300 seconds of your clock. It depends on nothing
// but the standard library, so it can be copied into any Go service.
//
//	http.Handle("/hooks/scans", webhookverify.Handler(os.Getenv("WEBHOOK_SECRET"),
//		func(d webhookverify.Delivery) { log.Printf("scan %s %s", d.ScanID, d.Status) }))
package webhookverify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of a delivery.
const (
	HeaderSignature = "X-Service-Signature"
	HeaderTimestamp = "X-Service-Webhook-Timestamp"
	HeaderDelivery  = "X-Service-Delivery"
)

// Tolerance is how far a delivery's timestamp may be from the receiver's clock.
const Tolerance = 300 * time.Second

// MaxBody is the largest body Handler reads.
const MaxBody = 1 << 20

// Why a delivery is refused. Missing and stale signatures are the sender's
// or the network's problem (400); a mismatch means a wrong secret or a
// forgery (401).
var (
	ErrMissing  = errors.New("missing or malformed signature header")
	ErrStale    = errors.New("timestamp outside the tolerance")
	ErrMismatch = errors.New("signature does not match")
)

// Verify checks the signature header of a delivery against its raw body
// (the bytes received, not re-serialised JSON) at time now.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	ts, t, sigs, err := signature(header)
	if err != nil {
		return err
	}
	if d := now.Sub(t); d > Tolerance || d < -Tolerance {
		return ErrStale
	}
	if !signed(secret, ts, body, sigs) {
		return ErrMismatch
	}
	return nil
}

// signature reads a delivery's signature header: the signed timestamp as
// sent and as a time, and the v1 signatures. The timestamp header, when
// present, must be the signed one.
func signature(header http.Header) (ts string, t time.Time, sigs []string, err error) {
	ts, sigs, ok := parse(header.Get(HeaderSignature))
	if !ok {
		return "", time.Time{}, nil, ErrMissing
	}
	if h := header.Get(HeaderTimestamp); h != "" && h != ts {
		return "", time.Time{}, nil, ErrMismatch
	}
	sec, perr := strconv.ParseInt(ts, 10, 64)
	if perr != nil {
		return "", time.Time{}, nil, ErrMissing
	}
	return ts, time.Unix(sec, 0), sigs, nil
}

// signed reports whether one of the hex signatures sigs is the HMAC-SHA256,
// keyed with secret, of "<ts>." and the body.
func signed(secret, ts string, body []byte, sigs []string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range sigs {
		got, err := hex.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// parse reads "t=<ts>,v1=<hex>[,v1=<hex>…]"; unknown schemes are ignored.
func parse(h string) (ts string, v1 []string, ok bool) {
	if h == "" || len(h) > 1024 {
		return "", nil, false
	}
	for _, part := range strings.Split(h, ",") {
		k, v, found := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !found:
			return "", nil, false
		case k == "t":
			ts = v
		case k == "v1":
			v1 = append(v1, v)
		}
	}
	return ts, v1, ts != "" && len(v1) > 0
}

// Delivery is a verified webhook: the fields of every payload, plus the
// body as received.
type Delivery struct {
	ID            string `json:"-"` // X-Service-Delivery, the same across retries
	ScanID        string `json:"scan_id"`
	Status        string `json:"status"` // completed, failed or cancelled
	Target        string `json:"target,omitempty"`
	Tier          string `json:"tier,omitempty"`
	CreditsUsed   int    `json:"credits_used,omitempty"`
	FindingsCount int    `json:"findings_count,omitempty"`
	// Completed payloads: issues not triaged away, new (or regressed) and
	// fixed issues since the baseline scan, and the schedule that started
	// the scan (empty when none).
	IssuesCount      int             `json:"issues_count,omitempty"`
	NewIssuesCount   int             `json:"new_issues_count,omitempty"`
	FixedIssuesCount int             `json:"fixed_issues_count,omitempty"`
	ScheduleID       string          `json:"schedule_id,omitempty"`
	Error            string          `json:"error,omitempty"`
	Summary          json.RawMessage `json:"summary,omitempty"`
	Raw              []byte          `json:"-"`
}

// Handler answers deliveries like the reference receivers: 204 after
// handle ran, 400 for a missing or stale signature, 401 for a mismatch.
// Retries of one delivery carry the same ID; make handle idempotent on it.
func Handler(secret string, handle func(Delivery)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		d, status, msg := receive(secret, w, r)
		if status != 0 {
			http.Error(w, msg, status)
			return
		}
		handle(d)
		w.WriteHeader(http.StatusNoContent)
	})
}

// receive reads and verifies a POSTed delivery; on refusal it returns the
// status and message to answer with instead.
func receive(secret string, w http.ResponseWriter, r *http.Request) (Delivery, int, string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		return Delivery{}, http.StatusRequestEntityTooLarge, "body too large"
	}
	if err := Verify(secret, r.Header, body, time.Now()); err != nil {
		return Delivery{}, refusalStatus(err), err.Error()
	}
	var d Delivery
	if err := json.Unmarshal(body, &d); err != nil {
		return Delivery{}, http.StatusBadRequest, "body is not a scan webhook"
	}
	d.ID, d.Raw = r.Header.Get(HeaderDelivery), body
	return d, 0, ""
}

// refusalStatus is the status a verification error is answered with: 401
// for a mismatch, 400 otherwise.
func refusalStatus(err error) int {
	if errors.Is(err, ErrMismatch) {
		return http.StatusUnauthorized
	}
	return http.StatusBadRequest
}

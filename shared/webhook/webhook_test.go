package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/infra/local/dynamotest"
	"secscan/shared/apispec"
	"secscan/shared/ids"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/webhook"
)

// delivery is what a test receiver saw.
type delivery struct {
	at     time.Time
	header http.Header
	body   []byte
}

// receiver is a real HTTPS server on 127.0.0.1 that answers with answer(n)
// for the n-th delivery (1-based).
type receiver struct {
	mu   sync.Mutex
	seen []delivery
	srv  *httptest.Server
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.seen = append(rc.seen, delivery{at: time.Now(), header: r.Header.Clone(), body: body})
		n := len(rc.seen)
		rc.mu.Unlock()
		answer(n, w, r)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.seen...)
}

func (rc *receiver) url() string { return rc.srv.URL + "/hooks/scans?team=7" }

func answerWith(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

type fixture struct {
	t     *testing.T
	st    *store.Store
	d     *webhook.Deliverer
	dns   *resolvertest.Server
	user  store.User
	roots *x509.CertPool
}

func newFixture(t *testing.T, plan string, allowPrivate bool) *fixture {
	t.Helper()
	db, table := dynamotest.NewTable(t)
	st := store.New(db, table)
	dns := resolvertest.Start(t)
	res, err := resolver.New(dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	u := store.User{ID: ids.New(ids.User, now), Email: ids.New("", now) + "@example.com", Plan: plan, CreatedAt: now}
	if err := st.CreateUser(context.Background(), store.NewUser{User: u}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, st: st, dns: dns, user: u, roots: x509.NewCertPool()}
	f.d = &webhook.Deliverer{Store: st, Dialer: netguard.New(res, netguard.Policy{AllowPrivate: allowPrivate}),
		TLS: &tls.Config{RootCAs: f.roots}, Now: time.Now, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	return f
}

func (f *fixture) trust(rc *receiver) { f.roots.AddCert(rc.srv.Certificate()) }

// endedScan writes a scan that ended with status and callback.
func (f *fixture) endedScan(status scans.Status, callback string) scans.Scan {
	f.t.Helper()
	ctx, now := context.Background(), time.Now().UTC()
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: f.user.ID, Target: "example.com", TargetID: ids.New(ids.Target, now),
		Type: scans.Web, Tier: "standard", Status: scans.Queued, MaxCredits: 200, CallbackURL: callback, CreatedAt: now}
	if _, _, err := f.st.CreateScan(ctx, sc, nil, now); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.st.StartScan(ctx, f.user.ID, sc.ID, now); err != nil {
		f.t.Fatal(err)
	}
	var sum *scans.Summary
	reason := ""
	switch status {
	case scans.Completed:
		sum = &scans.Summary{RiskRating: scans.RiskMedium, Summary: "Two medium issues.", AttackChains: []string{"a then b"}}
	case scans.Failed:
		reason = scans.BudgetExceeded(48, 50)
	}
	sc, err := f.st.EndScan(ctx, f.user.ID, sc.ID, status, reason, sum, now)
	if err != nil {
		f.t.Fatal(err)
	}
	return sc
}

func (f *fixture) secret() string {
	f.t.Helper()
	s, err := f.st.WebhookSecret(context.Background(), f.user.ID, store.WebhookSecret{Secret: "whsec_test_" + f.user.ID, CreatedAt: time.Now()})
	if err != nil {
		f.t.Fatal(err)
	}
	return s.Secret
}

// verify checks a delivery the way SPEC 6 tells a receiver to, with its own
// HMAC computation (not the code under test), and its headers and payload
// against openapi.yaml's scanFinished webhook.
func verify(t *testing.T, secret string, d delivery) (timestamp string) {
	t.Helper()
	spec, err := apispec.LoadRepoSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ValidateWebhook(d.header, d.body); err != nil {
		t.Fatalf("delivery does not match openapi.yaml: %v\n%s", err, d.body)
	}
	ts := d.header.Get("X-Service-Webhook-Timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(d.body)))
	want := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
	if got := d.header.Get("X-Service-Signature"); got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || d.at.Sub(time.Unix(sec, 0)).Abs() > 2*time.Second {
		t.Fatalf("timestamp %q is not the time the attempt was sent (%v)", ts, d.at)
	}
	return ts
}

func (f *fixture) deliver(sc scans.Scan) webhook.Outcome {
	f.t.Helper()
	out, err := f.d.Deliver(context.Background(), f.user.ID, sc.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// A receiver that fails three times, then accepts: four attempts, 1, 2 and
// 4 s apart, each signed anew, with exactly SPEC's headers and payload.
func TestRetryScheduleAndSignatures(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "starter", true)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	f.trust(rc)
	sc := f.endedScan(scans.Completed, rc.url())
	secret := f.secret()
	out := f.deliver(sc)
	if !out.Delivered || out.Attempts != 4 {
		t.Fatalf("outcome %+v, want delivered at the 4th attempt", out)
	}
	got := rc.deliveries()
	if len(got) != 4 {
		t.Fatalf("%d attempts, want 4", len(got))
	}
	stamps := map[string]bool{}
	for i, d := range got {
		stamps[verify(t, secret, d)] = true
		for name, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Service/1.0"} {
			if d.header.Get(name) != want {
				t.Errorf("attempt %d: %s %q", i+1, name, d.header.Get(name))
			}
		}
		if d.header.Get("X-Service-Delivery") != got[0].header.Get("X-Service-Delivery") || d.header.Get("X-Service-Delivery") == "" {
			t.Errorf("attempt %d: X-Service-Delivery %q changed across retries", i+1, d.header.Get("X-Service-Delivery"))
		}
		if string(d.body) != string(got[0].body) {
			t.Errorf("attempt %d: body changed", i+1)
		}
		if i > 0 {
			gap, want := d.at.Sub(got[i-1].at), webhook.Backoff[i-1]
			t.Logf("gap before attempt %d: %v", i+1, gap.Round(time.Millisecond))
			if gap < want || gap > want+700*time.Millisecond {
				t.Errorf("gap before attempt %d is %v, want %v (no jitter)", i+1, gap, want)
			}
		}
	}
	if len(stamps) != 4 {
		t.Errorf("%d distinct timestamps over 4 attempts: each attempt is signed anew", len(stamps))
	}
	var payload map[string]any
	if err := json.Unmarshal(got[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	want := `{"credits_used":0,"findings_count":0,"fixed_issues_count":0,"issues_count":0,"new_issues_count":0,"scan_id":"` + sc.ID + `","schedule_id":null,"status":"completed","summary":{"attack_chains":["a then b"],"risk_rating":"medium","summary":"Two medium issues."},"target":"example.com","tier":"standard"}`
	if norm, _ := json.Marshal(payload); string(norm) != want {
		t.Errorf("completion payload\n%s\nwant\n%s", norm, want)
	}
	rec, _ := f.st.GetScan(context.Background(), f.user.ID, sc.ID)
	if len(rec.WebhookAttempts) != 4 || *rec.WebhookAttempts[0].StatusCode != 500 || rec.WebhookAttempts[3].Error != nil {
		t.Fatalf("recorded attempts %+v", rec.WebhookAttempts)
	}
	// A re-run of the final state sends nothing more.
	if again := f.deliver(sc); again.Attempts != 0 || len(rc.deliveries()) != 4 {
		t.Fatalf("second Deliver: %+v, %d requests", again, len(rc.deliveries()))
	}
}

// An always-failing receiver sees exactly four attempts; the scan keeps its
// status. Redirects are answers, not followed.
func TestAlwaysFailingReceiver(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "pro", true)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
	})
	f.trust(rc)
	sc := f.endedScan(scans.Failed, rc.url())
	out := f.deliver(sc)
	if out.Delivered || out.Attempts != 4 || len(rc.deliveries()) != 4 {
		t.Fatalf("outcome %+v with %d requests, want 4 failed attempts", out, len(rc.deliveries()))
	}
	verify(t, f.secret(), rc.deliveries()[0])
	want := `{"scan_id":"` + sc.ID + `","status":"failed","error":"Credit budget exceeded: 48 of 50 credits used"}`
	if body := string(rc.deliveries()[0].body); body != want {
		t.Fatalf("failure payload %s, want %s", body, want)
	}
	rec, _ := f.st.GetScan(context.Background(), f.user.ID, sc.ID)
	if rec.Status != scans.Failed || rec.Error != scans.BudgetExceeded(48, 50) || len(rec.WebhookAttempts) != 4 {
		t.Fatalf("scan after failed deliveries: %s %q, %d attempts", rec.Status, rec.Error, len(rec.WebhookAttempts))
	}
	for _, a := range rec.WebhookAttempts {
		if a.StatusCode == nil || *a.StatusCode != http.StatusFound || a.Error == nil {
			t.Fatalf("attempt %+v: want the 302 recorded as a failure", a)
		}
	}
}

// A receiver that hangs is cut at 10 s; the retry then succeeds. The
// cancelled payload is the contract's.
func TestHangingReceiverIsCutAtTenSeconds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "enterprise", true)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			// Never a success: if the cut and this answer cross on the wire,
			// the attempt still counts as failed.
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	f.trust(rc)
	sc := f.endedScan(scans.Cancelled, rc.url())
	start := time.Now()
	out := f.deliver(sc)
	got := rc.deliveries()
	if !out.Delivered || len(got) != 2 {
		t.Fatalf("outcome %+v, %d requests", out, len(got))
	}
	cut := got[1].at.Sub(got[0].at) - webhook.Backoff[0]
	t.Logf("first attempt cut after %v; total %v", cut.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	// The deadline starts before the connection is made, and the receiver sees the request
	// only after the TLS handshake: allow for that on the low side.
	if cut < webhook.DefaultAttemptTimeout-500*time.Millisecond || cut > webhook.DefaultAttemptTimeout+time.Second {
		t.Fatalf("hanging attempt cut after %v, want %v", cut, webhook.DefaultAttemptTimeout)
	}
	verify(t, f.secret(), got[1])
	want := `{"scan_id":"` + sc.ID + `","status":"cancelled","target":"example.com","tier":"standard","credits_used":0,"findings_count":0}`
	if string(got[1].body) != want {
		t.Fatalf("cancelled payload %s, want %s", got[1].body, want)
	}
	rec, _ := f.st.GetScan(context.Background(), f.user.ID, sc.ID)
	if rec.WebhookAttempts[0].Error == nil || !strings.Contains(*rec.WebhookAttempts[0].Error, "timed out") || rec.WebhookAttempts[0].StatusCode != nil {
		t.Fatalf("first attempt recorded as %+v", rec.WebhookAttempts[0])
	}
}

// No delivery without a plan that has webhooks, without a callback, or
// before the scan ended.
func TestNothingToDeliver(t *testing.T) {
	t.Parallel()
	rcFree := newFixture(t, "free", true)
	rc := newReceiver(t, answerWith(http.StatusNoContent))
	rcFree.trust(rc)
	if out := rcFree.deliver(rcFree.endedScan(scans.Completed, rc.url())); out.Attempts != 0 || !strings.Contains(out.Skipped, "free") {
		t.Fatalf("free plan: %+v", out)
	}
	paid := newFixture(t, "starter", true)
	if out := paid.deliver(paid.endedScan(scans.Completed, "")); out.Attempts != 0 {
		t.Fatalf("no callback: %+v", out)
	}
	now := time.Now().UTC()
	running := scans.Scan{ID: ids.New(ids.Scan, now), UserID: paid.user.ID, Target: "example.com", Type: scans.Web, Tier: "quick",
		Status: scans.Queued, MaxCredits: 50, CallbackURL: rc.url(), CreatedAt: now}
	if _, _, err := paid.st.CreateScan(context.Background(), running, nil, now); err != nil {
		t.Fatal(err)
	}
	if out := paid.deliver(running); out.Attempts != 0 {
		t.Fatalf("queued scan: %+v", out)
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Fatalf("%d requests reached the receiver", n)
	}
}

// After a rotation, deliveries are signed with the new secret: the old one
// no longer verifies.
func TestRotatedSecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "starter", true)
	rc := newReceiver(t, answerWith(http.StatusNoContent))
	f.trust(rc)
	old := f.secret()
	next, err := webhook.NewSecret(time.Now())
	if err != nil || !strings.HasPrefix(next.Secret, "whsec_") || len(next.Secret) < 40 {
		t.Fatalf("new secret %q %v", next.Secret, err)
	}
	if _, err := f.st.RotateWebhookSecret(context.Background(), f.user.ID, next); err != nil {
		t.Fatal(err)
	}
	f.deliver(f.endedScan(scans.Completed, rc.url()))
	d := rc.deliveries()[0]
	verify(t, next.Secret, d)
	mac := hmac.New(sha256.New, []byte(old))
	mac.Write([]byte(d.header.Get("X-Service-Webhook-Timestamp") + "." + string(d.body)))
	if strings.Contains(d.header.Get("X-Service-Signature"), hex.EncodeToString(mac.Sum(nil))) {
		t.Fatal("the old secret still verifies after the rotation")
	}
}

// A callback host that resolves to a private address is refused at delivery
// time (the guard decides before any connection), and http:// is refused
// unless insecure callbacks are allowed.
func TestUnsafeCallbacksAreRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "starter", false)
	f.dns.Add(t, "hooks.example.com. 60 IN A 10.1.2.3")
	sc := f.endedScan(scans.Completed, "https://hooks.example.com/scan")
	out := f.deliver(sc)
	rec, _ := f.st.GetScan(context.Background(), f.user.ID, sc.ID)
	if out.Delivered || len(rec.WebhookAttempts) != 4 {
		t.Fatalf("outcome %+v, %d attempts", out, len(rec.WebhookAttempts))
	}
	// The record says the host is not public, never what it resolves to.
	if e := rec.WebhookAttempts[0].Error; e == nil || !strings.Contains(*e, "refused: hooks.example.com resolves to a non-public address") || strings.Contains(*e, "10.1.2.3") {
		t.Fatalf("attempt error %v", e)
	}

	insecure := f.endedScan(scans.Completed, "http://hooks.example.com/scan")
	f.deliver(insecure)
	rec, _ = f.st.GetScan(context.Background(), f.user.ID, insecure.ID)
	if e := rec.WebhookAttempts[0].Error; e == nil || !strings.Contains(*e, "must use https") {
		t.Fatalf("http callback attempt error %v", e)
	}
}

// Sign is the documented scheme: t=<ts>,v1=<hex HMAC of "<ts>.<body>">.
func TestSign(t *testing.T) {
	t.Parallel()
	// HMAC-SHA256("whsec_x", "1700000000.{}"), computed independently.
	mac := hmac.New(sha256.New, []byte("whsec_x"))
	mac.Write([]byte("1700000000.{}"))
	want := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil))
	if got := webhook.Sign("whsec_x", 1700000000, []byte("{}")); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	if _, err := webhook.Payload(scans.Scan{Status: scans.Running}); err == nil {
		t.Fatal("a payload for a running scan")
	}
}

// Receivers that accept the connection and never answer (not even the TLS
// handshake), or answer 200 and then send their body byte by byte without
// end, cost each attempt its time bound and no more. The silent one fails
// all four attempts as timed out; for the trickling one, the body is cut at
// the bound (whether the 200 then counts as accepted depends on which side
// of the cut the transport reports first; either way nothing waits longer).
func TestSilentAndTricklingReceiversAreBounded(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); silent.Close(); held.Wait() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held.Go(func() { <-stop; c.Close() })
		}
	}()
	trickle := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})

	// The trickling receiver must answer its headers within the attempt's
	// time: 300 ms was once too short for a TLS handshake under -race on
	// a loaded machine (no status recorded); the silent one fails at the
	// deadline whatever it is.
	for _, tt := range []struct {
		name, url string
		timeout   time.Duration
	}{
		{"silent", "https://" + silent.Addr().String() + "/hooks", 300 * time.Millisecond},
		{"trickling", trickle.url(), 2 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "pro", true)
			f.trust(trickle)
			f.d.AttemptTimeout = tt.timeout
			sc := f.endedScan(scans.Completed, tt.url)
			out := f.deliver(sc)
			rec, _ := f.st.GetScan(context.Background(), f.user.ID, sc.ID)
			if tt.name == "silent" && (out.Delivered || len(rec.WebhookAttempts) != 4) {
				t.Fatalf("outcome %+v, attempts recorded %s; want 4 failed", out, attemptsOf(rec))
			}
			if len(rec.WebhookAttempts) == 0 {
				t.Fatal("no attempt recorded")
			}
			for _, a := range rec.WebhookAttempts {
				if tt.name == "trickling" && (a.StatusCode == nil || *a.StatusCode != http.StatusOK) {
					t.Errorf("attempt %s, want the 200 recorded", attemptsOf(rec))
				}
				if (a.Error != nil || tt.name == "silent") && (a.Error == nil || !strings.Contains(*a.Error, "timed out")) {
					t.Errorf("attempts %s, want every failure recorded as timed out", attemptsOf(rec))
				}
			}
		})
	}
}

func attemptsOf(sc scans.Scan) string {
	var b strings.Builder
	for _, a := range sc.WebhookAttempts {
		fmt.Fprintf(&b, "[%d status %v error %q] ", a.Attempt, deref(a.StatusCode), derefS(a.Error))
	}
	return b.String()
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/ratelimit"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/verification"
)

// memStore is an in-memory stand-in for *store.Store behind the handlers'
// small interfaces. It keeps the store's contract that matters to a
// handler: records are the owner's only (another user's id reads as a
// missing one), and failures are the store's typed errors. The end-to-end
// tests (infra/local/localstack) run the same handlers on DynamoDB Local.
type memStore struct {
	mu        sync.Mutex
	scans     map[string]scans.Scan
	targets   map[string]store.Target
	schedules map[string]store.Schedule
	tokens    map[string]store.Token
	secrets   map[string]store.WebhookSecret
	// ledgers are the targets' issue ledgers, by target id and issue key.
	ledgers map[string]map[string]scans.LedgerEntry
	users   map[string]store.User
	// idem maps an Idempotency-Key hash to its scan; exhausted refuses
	// every creation; released lists the keys given back.
	idem      map[string]string
	exhausted *store.AllowanceError
	released  []string
	credits   store.Credits
	// rotated makes the next rotation lose to a concurrent one.
	rotated bool
	// lastFilter is the filter ListScans was last given.
	lastFilter store.ScanFilter
	// retests and findings (by scan id and issue key) serve the retest
	// endpoints; runs lists the outcomes RecordScheduleRun was given.
	retests  map[string]scans.Retest
	findings map[string][]store.SourcedFinding
	runs     []store.Schedule
	// meanwhile are writes made between a PATCH's read and its write, one
	// per UpdateSchedule call.
	meanwhile []func()
	// down makes the named methods fail as the store does when DynamoDB
	// does not answer (dbDown).
	down map[string]error
}

func newMemStore() *memStore {
	return &memStore{scans: map[string]scans.Scan{}, targets: map[string]store.Target{},
		schedules: map[string]store.Schedule{}, tokens: map[string]store.Token{}, secrets: map[string]store.WebhookSecret{},
		ledgers: map[string]map[string]scans.LedgerEntry{}, users: map[string]store.User{}, idem: map[string]string{},
		retests: map[string]scans.Retest{}, findings: map[string][]store.SourcedFinding{}, down: map[string]error{}}
}

// The fake is every interface of the converted handlers.
var (
	_ scanLister           = (*memStore)(nil)
	_ scanDetailReader     = (*memStore)(nil)
	_ scanCanceller        = (*memStore)(nil)
	_ targetCreator        = (*memStore)(nil)
	_ targetLister         = (*memStore)(nil)
	_ targetVerifier       = (*memStore)(nil)
	_ targetRemover        = (*memStore)(nil)
	_ tokenCreator         = (*memStore)(nil)
	_ tokenLister          = (*memStore)(nil)
	_ tokenDeleter         = (*memStore)(nil)
	_ webhookSecretReader  = (*memStore)(nil)
	_ webhookSecretRotator = (*memStore)(nil)
	_ issueLister          = (*memStore)(nil)
	_ issueTriager         = (*memStore)(nil)
	_ assetLister          = (*memStore)(nil)
	_ creditReader         = (*memStore)(nil)
	_ userCreator          = (*memStore)(nil)
	_ userUpdater          = (*memStore)(nil)
	_ scanCreationStore    = (*memStore)(nil)
	_ scheduleCreator      = (*memStore)(nil)
	_ scheduleLister       = (*memStore)(nil)
	_ scheduleUpdater      = (*memStore)(nil)
	_ scheduleRemover      = (*memStore)(nil)
	_ scheduleFireStore    = (*memStore)(nil)
	_ retestCreator        = (*memStore)(nil)
	_ retestCanceller      = (*memStore)(nil)
	// And so is the real store: the interfaces ask nothing it lacks.
	_ targetRemover     = (*store.Store)(nil)
	_ scheduleFireStore = (*store.Store)(nil)
	_ retestCreator     = (*store.Store)(nil)
)

func (m *memStore) ListScans(_ context.Context, userID string, _ store.Page, f store.ScanFilter) ([]scans.Scan, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastFilter = f
	var out []scans.Scan
	for _, s := range m.scans {
		if s.UserID == userID && (f.Status == "" || s.Status == f.Status) && (f.Target == "" || s.Target == f.Target) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b scans.Scan) int { return strings.Compare(b.ID, a.ID) })
	return out, "", nil
}

func (m *memStore) GetScanDetail(_ context.Context, userID, id string) (store.ScanDetail, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.scans[id]
	if !ok || s.UserID != userID {
		return store.ScanDetail{}, &store.NotFoundError{Kind: "scan", ID: id}
	}
	return store.ScanDetail{Scan: s}, nil
}

func (m *memStore) RequestCancel(_ context.Context, userID, id string, _ time.Time) (scans.Scan, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.scans[id]
	switch {
	case !ok || s.UserID != userID:
		return scans.Scan{}, &store.NotFoundError{Kind: "scan", ID: id}
	case s.Status.Terminal():
		return s, &store.ErrTerminal{ID: id, Status: s.Status}
	}
	s.CancelRequested = true
	if s.Status == scans.Queued {
		s.Status = scans.Cancelled
	}
	m.scans[id] = s
	return s, nil
}

func (m *memStore) CreateTarget(_ context.Context, t store.Target) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.targets {
		if o.UserID == t.UserID && o.Domain == t.Domain {
			return &store.DuplicateTargetError{Domain: t.Domain, ExistingID: o.ID}
		}
	}
	m.targets[t.ID] = t
	return nil
}

func (m *memStore) ListTargets(_ context.Context, userID string, _ store.Page) ([]store.Target, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Target
	for _, t := range m.targets {
		if t.UserID == userID {
			out = append(out, t)
		}
	}
	return out, "", nil
}

func (m *memStore) GetTarget(_ context.Context, userID, id string) (store.Target, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.targets[id]
	if !ok || t.UserID != userID {
		return store.Target{}, &store.NotFoundError{Kind: "target", ID: id}
	}
	return t, nil
}

func (m *memStore) MarkTargetVerified(ctx context.Context, userID, id string, at time.Time) (store.Target, error) {
	t, err := m.GetTarget(ctx, userID, id)
	if err != nil {
		return t, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !t.Verified {
		t.Verified, t.VerifiedAt = true, &at
		m.targets[id] = t
	}
	return t, nil
}

func (m *memStore) SchedulesOfTarget(_ context.Context, userID, targetID string) ([]store.Schedule, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Schedule
	for _, s := range m.schedules {
		if s.UserID == userID && s.TargetID == targetID {
			out = append(out, s)
		}
	}
	return out, nil
}

func (m *memStore) DeleteSchedule(_ context.Context, userID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.schedules[id]; !ok || s.UserID != userID {
		return &store.NotFoundError{Kind: "schedule", ID: id}
	}
	delete(m.schedules, id)
	return nil
}

func (m *memStore) DeleteTarget(ctx context.Context, userID, id string) error {
	if _, err := m.GetTarget(ctx, userID, id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.targets, id)
	return nil
}

func (m *memStore) CreateToken(_ context.Context, t store.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens[t.ID] = t
	return nil
}

func (m *memStore) ListTokens(_ context.Context, userID string, _ store.Page) ([]store.Token, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Token
	for _, t := range m.tokens {
		if t.UserID == userID {
			out = append(out, t)
		}
	}
	return out, "", nil
}

func (m *memStore) DeleteToken(_ context.Context, userID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tokens[id]; !ok || t.UserID != userID {
		return &store.NotFoundError{Kind: "token", ID: id}
	}
	delete(m.tokens, id)
	return nil
}

func (m *memStore) MigrateWebhookSecret(context.Context, string) error { return nil }

func (m *memStore) WebhookSecret(_ context.Context, userID string, candidate store.WebhookSecret) (store.WebhookSecret, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.secrets[userID]; ok {
		return s, nil
	}
	m.secrets[userID] = candidate
	return candidate, nil
}

func (m *memStore) RotateWebhookSecret(_ context.Context, userID string, next store.WebhookSecret) (store.WebhookSecret, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rotated {
		return store.WebhookSecret{}, &store.ConflictError{Kind: "webhook secret", ID: userID,
			Detail: "The webhook secret was rotated by a concurrent request; read it with GET /api/webhook-secret"}
	}
	m.secrets[userID] = next
	return next, nil
}

func (m *memStore) IssueLedger(_ context.Context, targetID string) ([]scans.LedgerEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []scans.LedgerEntry
	for _, e := range m.ledgers[targetID] {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b scans.LedgerEntry) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (m *memStore) SetTriage(_ context.Context, targetID, issueKey string, t scans.Triage) (scans.LedgerEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.ledgers[targetID][issueKey]
	if !ok {
		return e, &store.NotFoundError{Kind: "issue", ID: issueKey, Text: true}
	}
	e.Triage = &t
	m.ledgers[targetID][issueKey] = e
	return e, nil
}

func (m *memStore) Assets(context.Context, string) (scans.Assets, error) { return scans.Assets{}, nil }

func (m *memStore) Credits(context.Context, string, string) (store.Credits, error) {
	return m.credits, nil
}

func (m *memStore) CreateUser(_ context.Context, n store.NewUser) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range m.users {
		if u.Email == n.User.Email {
			return store.ErrConflict
		}
	}
	m.users[n.User.ID] = n.User
	if n.FirstToken != nil {
		m.tokens[n.FirstToken.ID] = *n.FirstToken
	}
	return nil
}

func (m *memStore) UserIDByEmail(_ context.Context, email string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range m.users {
		if u.Email == email {
			return u.ID, nil
		}
	}
	return "", store.ErrNotFound
}

func (m *memStore) UpdateUser(_ context.Context, id string, plan *string, isAdmin *bool) (store.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[id]
	if !ok {
		return u, &store.NotFoundError{Kind: "user", ID: id}
	}
	if plan != nil {
		u.Plan = *plan
	}
	if isAdmin != nil {
		u.IsAdmin = *isAdmin
	}
	m.users[id] = u
	return u, nil
}

func (m *memStore) TargetByDomain(_ context.Context, userID, domain string) (store.Target, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.targets {
		if t.UserID == userID && t.Domain == domain {
			return t, nil
		}
	}
	return store.Target{}, &store.NotFoundError{Kind: "target", ID: domain}
}

func (m *memStore) CreateScan(_ context.Context, sc scans.Scan, idem *store.Idempotency, _ time.Time) (scans.Scan, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if idem != nil {
		if id, ok := m.idem[idem.KeyHash]; ok {
			return m.scans[id], false, nil
		}
	}
	if m.exhausted != nil {
		return scans.Scan{}, false, m.exhausted
	}
	m.scans[sc.ID] = sc
	if idem != nil {
		m.idem[idem.KeyHash] = sc.ID
	}
	return sc, true, nil
}

func (m *memStore) EndScan(_ context.Context, userID, id string, status scans.Status, reason string, _ *scans.Summary, _ time.Time) (scans.Scan, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sc, ok := m.scans[id]
	if !ok || sc.UserID != userID {
		return sc, &store.NotFoundError{Kind: "scan", ID: id}
	}
	sc.Status, sc.Error = status, reason
	m.scans[id] = sc
	return sc, nil
}

func (m *memStore) ReleaseIdempotency(_ context.Context, _, keyHash, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.idem, keyHash)
	m.released = append(m.released, keyHash)
	return nil
}

// window is a creation limiter allowing limit takes; a release gives one back.
type window struct {
	mu          sync.Mutex
	limit, used int
}

func (l *window) Take(context.Context, ratelimit.Target, ratelimit.Rule, string, time.Time) (ratelimit.Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.used >= l.limit {
		return ratelimit.Decision{Allowed: false, RetryAfter: 90 * time.Second}, nil
	}
	l.used++
	return ratelimit.Decision{Allowed: true}, nil
}

func (l *window) Release(context.Context, ratelimit.Target, ratelimit.Rule, string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used--
	return nil
}

// machine is a ScanStarter; fail makes every start fail.
type machine struct {
	mu      sync.Mutex
	started []string
	fail    error
}

func (s *machine) StartScan(_ context.Context, scanID, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.started = append(s.started, scanID)
	return nil
}

// challenges is a Verifier whose challenges pass for the domains in pass.
type challenges struct{ pass map[string]bool }

func (c challenges) Verify(_ context.Context, _, domain, _ string) error {
	if c.pass[domain] {
		return nil
	}
	return &verification.Failure{Detail: "TXT record not found"}
}

// deployed is a ScheduleService that records the deployed schedules put
// and deleted; fail makes every call fail.
type deployed struct {
	put     []store.Schedule
	deleted []string
	fail    error
}

func (d *deployed) PutSchedule(_ context.Context, sch store.Schedule, _ bool) error {
	if d.fail != nil {
		return d.fail
	}
	d.put = append(d.put, sch)
	return nil
}

func (d *deployed) DeleteSchedule(_ context.Context, id string) error {
	if d.fail != nil {
		return d.fail
	}
	d.deleted = append(d.deleted, id)
	return nil
}

var clockNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return clockNow }

// user is a principal signed in with a browser session on plan.
func user(plan string) auth.Principal {
	return auth.Principal{User: store.User{ID: ids.New(ids.User, clockNow), Plan: plan}, Via: auth.ViaSession}
}

// request is what the local stack and a Lambda give a handler.
type request struct {
	method, target, body string
	path                 map[string]string
}

// serve runs h for p as Authenticated would, and answers errors through
// the HTTP layer's one mapping.
func serve(h AuthedHandler, p auth.Principal, in request) *httptest.ResponseRecorder {
	r := httptest.NewRequest(cmpOr(in.method, http.MethodGet), cmpOr(in.target, "/"), strings.NewReader(in.body))
	r = r.WithContext(httpapi.WithLogger(r.Context(), slog.New(slog.DiscardHandler)))
	for k, v := range in.path {
		r.SetPathValue(k, v)
	}
	w := httptest.NewRecorder()
	if err := h(w, r, p); err != nil {
		httpapi.WriteError(w, r, err)
	}
	return w
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// want checks an answer's status and, when detail is set, its detail.
func want(t *testing.T, w *httptest.ResponseRecorder, status int, detail string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	if detail == "" {
		return
	}
	var e struct{ Detail string }
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Detail != detail {
		t.Fatalf("detail %q, want %q (body %s)", e.Detail, detail, w.Body)
	}
}

// decode reads a JSON answer as generic values, for checking its shape.
func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("body %s: %v", w.Body, err)
	}
	return v
}

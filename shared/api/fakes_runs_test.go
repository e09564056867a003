package api

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/dependency"
	"secscan/shared/ids"
	"secscan/shared/retest"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// The memStore's schedules and retests, and the fakes of the services the
// schedule and retest endpoints call.

// dbDown is the store's error when DynamoDB does not answer in time: the
// 503 of dependency.Database in its chain, as dbError makes it.
var dbDown = &store.UnavailableError{Op: "GetItem", Err: dependency.Unavailable(dependency.Database, errors.New("timeout"))}

// failure is the error set for op in m.down (nil: op works).
func (m *memStore) failure(op string) error { return m.down[op] }

// schedule adds a weekly schedule of owner on tgt to m.
func schedule(m *memStore, owner string, tgt store.Target) store.Schedule {
	sch := store.Schedule{ID: ids.New(ids.Schedule, clockNow), UserID: owner, TargetID: tgt.ID, Target: tgt.Domain, ScanType: "web",
		Tier: "quick", Cadence: "weekly", Enabled: true, Anchor: clockNow, NextRunAt: clockNow.Add(7 * 24 * time.Hour).Unix(),
		CreatedAt: clockNow, UpdatedAt: clockNow}
	m.schedules[sch.ID] = sch
	return sch
}

func (m *memStore) CountSchedules(_ context.Context, userID string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.schedules {
		if s.UserID == userID {
			n++
		}
	}
	return n, m.failure("CountSchedules")
}

func (m *memStore) CreateSchedule(ctx context.Context, sch store.Schedule, limit int) error {
	n, _ := m.CountSchedules(ctx, sch.UserID)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("CreateSchedule"); err != nil {
		return err
	}
	if n >= limit {
		return store.ErrScheduleLimit
	}
	m.schedules[sch.ID] = sch
	return nil
}

func (m *memStore) GetSchedule(_ context.Context, userID, id string) (store.Schedule, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("GetSchedule"); err != nil {
		return store.Schedule{}, err
	}
	s, ok := m.schedules[id]
	if !ok || s.UserID != userID {
		return store.Schedule{}, &store.NotFoundError{Kind: "schedule", ID: id}
	}
	return s, nil
}

func (m *memStore) ListSchedules(_ context.Context, userID string, _ store.Page) ([]store.Schedule, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Schedule
	for _, s := range m.schedules {
		if s.UserID == userID {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b store.Schedule) int { return strings.Compare(b.ID, a.ID) })
	return out, "", m.failure("ListSchedules")
}

// UpdateSchedule writes sch on the version of old, as the store does: a
// *store.ConflictError when the record moved since. Each call first runs
// the next of m.meanwhile (a run writing between the PATCH's read and write).
func (m *memStore) UpdateSchedule(ctx context.Context, old, sch store.Schedule) (store.Schedule, error) {
	m.mu.Lock()
	var meanwhile func()
	if len(m.meanwhile) > 0 {
		meanwhile, m.meanwhile = m.meanwhile[0], m.meanwhile[1:]
	}
	m.mu.Unlock()
	if meanwhile != nil {
		meanwhile()
	}
	cur, err := m.GetSchedule(ctx, sch.UserID, sch.ID)
	if err != nil {
		return cur, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("UpdateSchedule"); err != nil {
		return cur, err
	}
	if cur.Version != old.Version {
		return cur, &store.ConflictError{Kind: "schedule", ID: sch.ID, Detail: store.ScheduleChanged}
	}
	// Only what the PATCH changed is written.
	if sch.NextRunAt == old.NextRunAt {
		sch.NextRunAt = cur.NextRunAt
	}
	sch.LastScanID, sch.LastError, sch.LastRunAt = cur.LastScanID, cur.LastError, cur.LastRunAt
	sch.Version = cur.Version + 1
	m.schedules[sch.ID] = sch
	return sch, nil
}

// ScheduleRank is sch's place among its user's enabled schedules, oldest first.
func (m *memStore) ScheduleRank(_ context.Context, sch store.Schedule) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rank := 1
	for _, s := range m.schedules {
		if s.UserID == sch.UserID && s.Enabled && s.ID != sch.ID &&
			(s.CreatedAt.Before(sch.CreatedAt) || (s.CreatedAt.Equal(sch.CreatedAt) && s.ID < sch.ID)) {
			rank++
		}
	}
	return rank, m.failure("ScheduleRank")
}

func (m *memStore) GetScan(_ context.Context, userID, id string) (scans.Scan, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("GetScan"); err != nil {
		return scans.Scan{}, err
	}
	s, ok := m.scans[id]
	if !ok || s.UserID != userID {
		return scans.Scan{}, &store.NotFoundError{Kind: "scan", ID: id}
	}
	return s, nil
}

func (m *memStore) RecordScheduleRun(ctx context.Context, userID, id, scanID, lastError string, at time.Time) (store.Schedule, error) {
	sch, err := m.GetSchedule(ctx, userID, id)
	if err != nil {
		return sch, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if scanID != "" {
		sch.LastScanID = scanID
	}
	sch.LastError, sch.LastRunAt = lastError, &at
	sch.Version++
	m.schedules[id] = sch
	m.runs = append(m.runs, sch)
	return sch, nil
}

func (m *memStore) ScheduleOwner(_ context.Context, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("ScheduleOwner"); err != nil {
		return "", err
	}
	s, ok := m.schedules[id]
	if !ok {
		return "", &store.NotFoundError{Kind: "schedule", ID: id}
	}
	return s.UserID, nil
}

func (m *memStore) ClaimScheduledRun(_ context.Context, userID, id string, due, next time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.schedules[id]
	if !ok || s.UserID != userID || !s.Enabled || s.NextRunAt > due.Unix() {
		return false, nil
	}
	s.NextRunAt = next.Unix()
	m.schedules[id] = s
	return true, nil
}

func (m *memStore) GetUser(_ context.Context, id string) (store.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[id]
	if !ok {
		return u, &store.NotFoundError{Kind: "user", ID: id}
	}
	return u, nil
}

func (m *memStore) SourcedFindings(_ context.Context, scanID, issueKey string) ([]store.SourcedFinding, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.findings[scanID+"/"+issueKey], m.failure("SourcedFindings")
}

func (m *memStore) CreateRetest(_ context.Context, r scans.Retest, _ int, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.exhausted != nil {
		return m.exhausted
	}
	m.retests[r.ID] = r
	return nil
}

func (m *memStore) GetRetest(_ context.Context, userID, id string) (scans.Retest, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failure("GetRetest"); err != nil {
		return scans.Retest{}, err
	}
	r, ok := m.retests[id]
	if !ok || r.UserID != userID {
		return scans.Retest{}, &store.NotFoundError{Kind: "retest", ID: id}
	}
	return r, nil
}

// moveRetest changes m's retest id from one of the statuses from by change;
// ErrConflict when it is in none of them.
func (m *memStore) moveRetest(id string, change func(*scans.Retest), from ...scans.RetestStatus) (scans.Retest, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.retests[id]
	if !ok || !slices.Contains(from, r.Status) {
		return r, &store.ConflictError{Kind: "retest", ID: id, Detail: "moved on"}
	}
	change(&r)
	m.retests[id] = r
	return r, nil
}

func (m *memStore) StartRetest(_ context.Context, _, id string) (scans.Retest, error) {
	return m.moveRetest(id, func(r *scans.Retest) { r.Status = scans.RetestRunning }, scans.RetestQueued)
}

func (m *memStore) FinishRetest(_ context.Context, r scans.Retest) error {
	_, err := m.moveRetest(r.ID, func(old *scans.Retest) { *old = r }, scans.RetestRunning)
	return err
}

func (m *memStore) EndRetest(_ context.Context, r scans.Retest, from ...scans.RetestStatus) error {
	_, err := m.moveRetest(r.ID, func(old *scans.Retest) { *old = r }, from...)
	return err
}

func (m *memStore) RequestRetestCancel(_ context.Context, _, id string) error {
	_, err := m.moveRetest(id, func(r *scans.Retest) { r.CancelRequested = true }, scans.RetestRunning)
	return err
}

// launcher is a RetestLauncher; fail makes every launch fail.
type launcher struct {
	mu       sync.Mutex
	launched []retest.Request
	fail     error
}

func (l *launcher) LaunchRetest(_ context.Context, req retest.Request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return l.fail
	}
	l.launched = append(l.launched, req)
	return nil
}

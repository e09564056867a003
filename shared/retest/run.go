package retest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/plainerr"
	"secscan/shared/resolver"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

const (
	// concurrency bounds the calls of one retest in flight.
	concurrency = 4
	// reachTimeout bounds one reachability check of a location.
	reachTimeout = 5 * time.Second
	// maxDetail bounds a result's detail, in bytes.
	maxDetail = 600
)

// Runner runs queued retests.
type Runner struct {
	Store    *store.Store
	Tools    *tools.Registry
	Dialer   *netguard.Dialer
	Resolver *resolver.Resolver
	Ports    tools.Ports // the local stack maps the web ports to its demo target
	Now      func() time.Time
	Logger   *slog.Logger
}

// Request launches a run: ids only, everything else is in DynamoDB.
type Request struct {
	RetestID string `json:"retest_id"`
	UserID   string `json:"user_id"`
}

// Handle runs the retest of req once: a retest that is not queued (a
// repeated launch) is left alone.
func (r *Runner) Handle(ctx context.Context, req Request) error {
	rt, err := r.Store.StartRetest(ctx, req.UserID, req.RetestID)
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	started := r.Now()
	rt.Results, rt.CreditsUsed, err = r.results(ctx, rt)
	now := r.Now().UTC()
	rt.FinishedAt = &now
	rt.Status = scans.RetestCompleted
	if err != nil {
		rt.Status, rt.Error, rt.Results = scans.RetestFailed, "The retest could not run: "+plainerr.Describe(err), []scans.RetestResult{}
		r.Logger.ErrorContext(ctx, "retest failed", "retest_id", rt.ID, "error", err.Error())
	}
	if err := r.Store.FinishRetest(context.WithoutCancel(ctx), rt); err != nil {
		return err
	}
	r.Logger.InfoContext(ctx, "retest finished", "retest_id", rt.ID, "scan_id", rt.ScanID, "issue", rt.IssueKey,
		"credits", rt.CreditsUsed, "duration_ms", now.Sub(started).Milliseconds())
	if rt.Status == scans.RetestCompleted && scans.AllNotReproduced(rt.Results) {
		return r.Store.MarkIssueFixedByRetest(context.WithoutCancel(ctx), rt.TargetID, rt.IssueKey, rt.ID, now)
	}
	return nil
}

// results re-tests every location of the retest's issue, in the issue's
// order, and returns the credits the calls cost (never more than reserved).
func (r *Runner) results(ctx context.Context, rt scans.Retest) ([]scans.RetestResult, int, error) {
	sc, err := r.Store.GetScan(ctx, rt.UserID, rt.ScanID)
	if err != nil {
		return nil, 0, err
	}
	found, err := r.Store.SourcedFindings(ctx, sc.ID, rt.IssueKey)
	if err != nil {
		return nil, 0, err
	}
	surface, err := r.Store.Surface(ctx, sc.ID)
	if err != nil {
		return nil, 0, err
	}
	steps, err := r.Store.Steps(ctx, sc.ID)
	if err != nil {
		return nil, 0, err
	}
	var known []scans.Service
	for _, st := range steps {
		known = append(known, st.Services...)
	}
	calls, cost, skipped := Plan(found, func(name string) (int, bool) {
		t, ok := r.Tools.Get(name)
		if !ok {
			return 0, false
		}
		return t.Cost(), true
	})
	if cost > rt.Reserved {
		return nil, 0, fmt.Errorf("the calls cost %d credits, %d were reserved", cost, rt.Reserved)
	}
	env := tools.Env{Domain: sc.Target, Dialer: r.Dialer, Resolver: r.Resolver, Ports: r.Ports, Known: known, Surface: surface}
	byID := map[string]scans.RetestResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, concurrency)
	for _, c := range calls {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			for _, res := range r.call(ctx, env, c) {
				mu.Lock()
				byID[res.FindingID] = res
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, s := range skipped {
		byID[s.FindingID] = s
	}
	out := make([]scans.RetestResult, 0, len(found))
	for _, sf := range found {
		out = append(out, byID[sf.Finding.ID])
	}
	return out, cost, nil
}

// call makes one tool call and judges each of its locations.
func (r *Runner) call(ctx context.Context, env tools.Env, c Call) []scans.RetestResult {
	tool, _ := r.Tools.Get(c.Tool) // Plan kept only the registry's tools
	res, err := runBounded(ctx, tool, env, c.Input)
	out := make([]scans.RetestResult, 0, len(c.Locations))
	for _, f := range c.Locations {
		out = append(out, r.judge(ctx, env, f, res, err))
	}
	return out
}

// judge is one location's outcome of a call.
func (r *Runner) judge(ctx context.Context, env tools.Env, f scans.Finding, res tools.Result, err error) scans.RetestResult {
	out := scans.RetestResult{FindingID: f.ID, Host: f.Host, Port: f.Port}
	if err != nil {
		out.Outcome, out.Detail = scans.RetestError, clip(fmt.Sprintf("%s could not run: %s", c(f), plainerr.Describe(err)))
		return out
	}
	want := f.StableFingerprint()
	for _, g := range res.Findings {
		if g.StableFingerprint() == want {
			out.Outcome, out.Proof = scans.Reproduced, g.Proof
			out.Detail = clip("Still present: " + g.Evidence)
			return out
		}
	}
	if why := r.unreachable(ctx, env, f); why != "" {
		out.Outcome, out.Detail = scans.RetestError, clip(why)
		return out
	}
	out.Outcome = scans.NotReproduced
	out.Detail = clip("Not found again: the same check ran on " + c(f) + " and did not observe the weakness (" + plainerr.Text(res.Outcome) + ")")
	return out
}

// unreachable says why a location cannot be judged fixed: its port (when
// it has one) refuses and no other port the scan saw open on its host
// answers either; "" when the host answers. A closed port on a host that
// still answers elsewhere is a fix (the exposure is gone).
func (r *Runner) unreachable(ctx context.Context, env tools.Env, f scans.Finding) string {
	if f.Port == nil {
		return ""
	}
	ports := []int{*f.Port}
	for _, s := range env.Surface.Services {
		if s.Host == f.Host && s.Port != *f.Port && len(ports) < 8 {
			ports = append(ports, s.Port)
		}
	}
	var first error
	for _, p := range ports {
		err := r.reach(ctx, f.Host, p)
		if err == nil {
			return ""
		}
		if first == nil {
			first = err
		}
	}
	return fmt.Sprintf("%s did not answer, so whether the weakness is fixed is unknown: %s", c(f), plainerr.Describe(first))
}

func (r *Runner) reach(ctx context.Context, host string, port int) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	conn, err := r.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return conn.Close()
}

// c names a location for people: host or host:port.
func c(f scans.Finding) string {
	if f.Port == nil {
		return f.Host
	}
	return net.JoinHostPort(f.Host, strconv.Itoa(*f.Port))
}

func clip(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// runBounded runs tool within its own bound (at most tools.MaxCallDuration,
// so a retest honours the 30-second rule like a scan step) and turns a
// panicking tool into an error.
func runBounded(ctx context.Context, tool tools.Tool, env tools.Env, input json.RawMessage) (res tools.Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, min(tool.Timeout(), tools.MaxCallDuration))
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			res, err = tools.Result{}, fmt.Errorf("tool %s crashed: %v", tool.Name(), p)
		}
	}()
	return tool.Run(ctx, env, input)
}

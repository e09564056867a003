package retest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/ownership"
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
	// judgeBudget bounds the reachability checks that judge one call's
	// locations, so a call and its judging end within the 30-second rule
	// (a call is bounded by tools.MaxCallDuration, 20 s).
	judgeBudget = 8 * time.Second
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
	// Ownership re-checks the target's challenge before the calls when its
	// last successful check is older than ownership.ReverifyAfter.
	Ownership ownership.Verifier
	Now       func() time.Time
	Logger    *slog.Logger
}

// Request launches a run: ids only, everything else is in DynamoDB.
type Request struct {
	RetestID string `json:"retest_id"`
	UserID   string `json:"user_id"`
}

// Handle runs the retest of req once: a retest that is not queued (a
// repeated launch, or one cancelled or reaped while queued) is left alone.
func (r *Runner) Handle(ctx context.Context, req Request) error {
	rt, err := r.Store.StartRetest(ctx, req.UserID, req.RetestID)
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	if Stale(rt, r.Now()) { // launched too late: its reader reaps it, so may we
		_, err := Reap(ctx, r.Store, rt, r.Now())
		return err
	}
	started := r.Now()
	typ := r.execute(ctx, &rt)
	return r.finish(ctx, rt, typ, started)
}

// finish records the end of rt, a retest of a scan of type typ, which
// started at started, and marks its issue fixed when the retest reproduced
// it nowhere and its scan is the target's latest completed scan of the
// type. A retest of an older scan reports its outcomes and leaves the
// ledger alone: the newer scan may have found the issue where the older one
// did not, so its record says why (LedgerNote). A retest reaped meanwhile
// keeps the end it was given.
func (r *Runner) finish(ctx context.Context, rt scans.Retest, typ scans.Type, started time.Time) error {
	now := r.Now().UTC()
	rt.FinishedAt = &now
	fixes := rt.Status == scans.RetestCompleted && scans.AllNotReproduced(rt.Results)
	if fixes {
		rt.LedgerNote = r.newerScan(ctx, rt, typ)
		fixes = rt.LedgerNote == ""
	}
	err := r.Store.FinishRetest(context.WithoutCancel(ctx), rt)
	if errors.Is(err, store.ErrConflict) {
		r.Logger.WarnContext(ctx, "retest ended meanwhile (reaped); its result is dropped", "retest_id", rt.ID)
		return nil
	}
	if err != nil {
		return err
	}
	r.Logger.InfoContext(ctx, "retest finished", "retest_id", rt.ID, "scan_id", rt.ScanID, "issue", rt.IssueKey, "status", rt.Status,
		"credits", rt.CreditsUsed, "duration_ms", now.Sub(started).Milliseconds())
	if !fixes {
		return nil
	}
	fixed, err := r.Store.MarkIssueFixedByRetest(context.WithoutCancel(ctx), rt.TargetID, rt.IssueKey, rt.ScanID, rt.ID, now)
	if err == nil && !fixed {
		r.Logger.InfoContext(ctx, "retest left the ledger alone: the issue is fixed already, unknown, or seen by a newer scan",
			"retest_id", rt.ID, "issue", rt.IssueKey)
	}
	return err
}

// newerScan is why rt, a retest of a scan of type typ, may not mark its
// issue fixed: the target has a newer completed scan of the type, or that
// could not be read ("" when rt's scan is the latest).
func (r *Runner) newerScan(ctx context.Context, rt scans.Retest, typ scans.Type) string {
	latest, ok, err := r.Store.LatestScan(ctx, rt.TargetID, typ)
	if err != nil {
		r.Logger.ErrorContext(ctx, "read the target's latest scan", "retest_id", rt.ID, "error", err.Error())
		return "Not marked fixed in the target's issue ledger: whether the target has a newer scan could not be read; retest the issue again to mark it fixed"
	}
	if !ok || latest.ID <= rt.ScanID {
		return ""
	}
	return fmt.Sprintf("Not marked fixed in the target's issue ledger: the target has a newer %s scan, %s (completed %s), "+
		"which this retest did not check; retest the issue on that scan to mark it fixed",
		typ, latest.ID, latest.FinishedAt.UTC().Format(time.RFC3339))
}

// execute runs rt and sets its end: completed with its results; failed
// when it could not run, when its target's ownership could not be
// re-verified, or when its user cancelled it (with the results of the calls
// that ran, which alone are charged). It returns the type of rt's scan
// ("" when the scan could not be read).
func (r *Runner) execute(ctx context.Context, rt *scans.Retest) scans.Type {
	out, err := r.results(ctx, *rt)
	rt.Status, rt.Results, rt.CreditsUsed = scans.RetestCompleted, out.results, out.credits
	switch {
	case err != nil:
		rt.Status, rt.Error, rt.Results, rt.CreditsUsed = scans.RetestFailed, "The retest could not run: "+plainerr.Describe(err), []scans.RetestResult{}, 0
		r.Logger.ErrorContext(ctx, "retest failed", "retest_id", rt.ID, "error", err.Error())
	case out.unverified != "":
		rt.Status, rt.Error = scans.RetestFailed, "Target ownership could not be re-verified: "+out.unverified
	case out.cancelled:
		rt.Status, rt.Error = scans.RetestFailed, scans.RetestCancelled
	}
	return out.scanType
}

// outcome is what a run of a retest's calls came to.
type outcome struct {
	results []scans.RetestResult
	credits int // the published costs of the calls that ran
	// unverified is why the target's ownership could not be re-verified
	// ("" when it was, or did not need to be): no call ran.
	unverified string
	cancelled  bool // the user cancelled: the calls not started did not run
	scanType   scans.Type
}

// results re-tests every location of the retest's issue, in the issue's
// order, after re-checking the target's ownership when its last check is
// older than ownership.ReverifyAfter; the credits are those of the calls
// that ran (never more than reserved).
func (r *Runner) results(ctx context.Context, rt scans.Retest) (outcome, error) {
	sc, err := r.Store.GetScan(ctx, rt.UserID, rt.ScanID)
	if err != nil {
		return outcome{}, err
	}
	why, err := ownership.Recheck(ctx, r.Store, r.Ownership, r.Logger,
		ownership.Work{UserID: rt.UserID, TargetID: sc.TargetID, Domain: sc.Target, Kind: "retest_id", ID: rt.ID}, r.Now())
	if err != nil || why != "" {
		return outcome{results: []scans.RetestResult{}, unverified: why, scanType: sc.Type}, err
	}
	env, found, err := r.env(ctx, sc, rt.IssueKey)
	if err != nil {
		return outcome{}, err
	}
	calls, cost, skipped := Plan(found, r.price)
	if cost > rt.Reserved {
		return outcome{}, fmt.Errorf("the calls cost %d credits, %d were reserved", cost, rt.Reserved)
	}
	byID, out := r.runCalls(ctx, rt, env, calls)
	out.results, out.scanType = inIssueOrder(found, byID, skipped), sc.Type
	return out, nil
}

// inIssueOrder are the results of the calls that ran (byID) and of the
// locations skipped, one per finding of the issue, in its order.
func inIssueOrder(found []store.SourcedFinding, byID map[string]scans.RetestResult, skipped []scans.RetestResult) []scans.RetestResult {
	for _, s := range skipped {
		byID[s.FindingID] = s
	}
	out := make([]scans.RetestResult, 0, len(found))
	for _, sf := range found {
		out = append(out, byID[sf.Finding.ID])
	}
	return out
}

// price is a registry tool's cost; false for a tool it does not hold.
func (r *Runner) price(name string) (int, bool) {
	t, ok := r.Tools.Get(name)
	if !ok {
		return 0, false
	}
	return t.Cost(), true
}

// env reads what the issue's calls run with: the scan's surface and known
// services, and the issue's findings with their calls.
func (r *Runner) env(ctx context.Context, sc scans.Scan, issueKey string) (tools.Env, []store.SourcedFinding, error) {
	found, err := r.Store.SourcedFindings(ctx, sc.ID, issueKey)
	if err != nil {
		return tools.Env{}, nil, err
	}
	surface, err := r.Store.Surface(ctx, sc.ID)
	if err != nil {
		return tools.Env{}, nil, err
	}
	steps, err := r.Store.Steps(ctx, sc.ID)
	if err != nil {
		return tools.Env{}, nil, err
	}
	var known []scans.Service
	for _, st := range steps {
		known = append(known, st.Services...)
	}
	return tools.Env{Domain: sc.Target, Dialer: r.Dialer, Resolver: r.Resolver, Ports: r.Ports, Known: known, Surface: surface}, found, nil
}

// runCalls makes the calls, concurrency at a time, each only while the
// retest is not cancelled (its flag is read before every call), and returns
// each location's result by finding id with the credits of the calls made.
func (r *Runner) runCalls(ctx context.Context, rt scans.Retest, env tools.Env, calls []Call) (map[string]scans.RetestResult, outcome) {
	byID := map[string]scans.RetestResult{}
	var out outcome
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := cancelWatch{runner: r, rt: rt}
	slots := make(chan struct{}, concurrency)
	for _, c := range calls {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			var res []scans.RetestResult
			ran := !stop.requested(ctx)
			if ran {
				res = r.call(ctx, env, c)
			} else {
				res = notRun(c, "Not retested: the retest was cancelled before this call.")
			}
			mu.Lock()
			defer mu.Unlock()
			if ran {
				cost, _ := r.price(c.Tool)
				out.credits += cost
			}
			for _, x := range res {
				byID[x.FindingID] = x
			}
		})
	}
	wg.Wait()
	out.cancelled = stop.seen.Load()
	return byID, out
}

// notRun is the error result of each location of a call that did not run.
func notRun(c Call, why string) []scans.RetestResult {
	out := make([]scans.RetestResult, 0, len(c.Locations))
	for _, f := range c.Locations {
		out = append(out, errorResult(f, why))
	}
	return out
}

// cancelWatch reads a retest's cancellation flag; once seen, it is not
// read again.
type cancelWatch struct {
	runner *Runner
	rt     scans.Retest
	seen   atomic.Bool
}

// requested reports whether the retest was cancelled. A flag that cannot be
// read is taken as not set: the run is bounded anyway.
func (w *cancelWatch) requested(ctx context.Context) bool {
	if w.seen.Load() {
		return true
	}
	on, err := w.runner.Store.RetestCancelRequested(ctx, w.rt.UserID, w.rt.ID)
	if err != nil {
		w.runner.Logger.WarnContext(ctx, "read retest cancellation flag", "retest_id", w.rt.ID, "error", err.Error())
		return false
	}
	if on {
		w.seen.Store(true)
	}
	return on
}

// call makes one tool call and judges each of its locations.
func (r *Runner) call(ctx context.Context, env tools.Env, c Call) []scans.RetestResult {
	tool, _ := r.Tools.Get(c.Tool) // Plan kept only the registry's tools
	res, err := tools.RunBounded(ctx, tool, env, c.Input)
	jctx, cancel := context.WithTimeout(ctx, judgeBudget)
	defer cancel()
	out := make([]scans.RetestResult, 0, len(c.Locations))
	for _, f := range c.Locations {
		out = append(out, r.judge(jctx, env, f, res, err))
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
	var first error
	for _, p := range portsToTry(env, f.Host, *f.Port) {
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

// portsToTry are port and up to 7 other ports the scan saw open on host.
func portsToTry(env tools.Env, host string, port int) []int {
	ports := []int{port}
	for _, s := range env.Surface.Services {
		if s.Host == host && s.Port != port && len(ports) < 8 {
			ports = append(ports, s.Port)
		}
	}
	return ports
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

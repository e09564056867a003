package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"secscan/shared/monitor"
	"secscan/shared/planner"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/summary"
)

// complete ends a scan that ran all its steps: the hosts left unscanned,
// the comparison with its baseline, its summary, and its status.
func (a *Agent) complete(ctx context.Context, t Task) (Result, error) {
	sc, err := a.Store.GetScan(ctx, t.UserID, t.ScanID)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	detail, err := a.Store.GetScanDetail(ctx, t.UserID, sc.ID)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	partial, err := a.recordNotScanned(ctx, sc, detail)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	cmp, state, err := a.compare(ctx, sc, detail)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	sum, err := a.writeSummary(ctx, t, sc, detail, cmp, partial)
	if err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	if err := a.Store.ApplyCompletion(ctx, store.Completion{Scan: sc, Issues: detail.Issues, Comparison: cmp,
		Surface: detail.Surface, State: state, Now: a.Now()}); err != nil {
		return Result{}, fmt.Errorf("complete %s: %w", t.ScanID, err)
	}
	return a.completed(ctx, t, detail, cmp, sum)
}

// recordNotScanned adds to the surface the hosts the planner left unscanned
// (when it tells its coverage) and returns its sentence on a partial scan.
func (a *Agent) recordNotScanned(ctx context.Context, sc scans.Scan, detail store.ScanDetail) (string, error) {
	cov, ok := a.Planner.(planner.Coverer)
	if !ok {
		return "", nil
	}
	notScanned, partial := cov.Coverage(planner.State{Scan: sc, Steps: detail.Steps, Findings: detail.Findings, Surface: detail.Surface})
	return partial, a.Store.MergeSurface(ctx, sc.ID, scans.Surface{Hosts: notScanned})
}

// writeSummary writes the scan's summary: by rule, then by the planner's
// model when it writes one. Issues triaged away (false positives, unexpired
// accepted risks) count neither in the risk rating nor in the summary.
func (a *Agent) writeSummary(ctx context.Context, t Task, sc scans.Scan, detail store.ScanDetail, cmp scans.Comparison, partial string) (scans.Summary, error) {
	active := monitor.Active(detail.Findings, cmp)
	sum := summary.Write(summary.Input{Domain: sc.Target, ScanType: sc.Type, Tier: sc.Tier, Findings: active, Steps: detail.Steps,
		Partial: partial, Changes: changesOf(detail.Issues, cmp)})
	sz, ok := a.Planner.(planner.Summarizer)
	if !ok {
		return sum, nil
	}
	return a.modelSummary(ctx, t, sz, planner.State{Scan: sc, Steps: detail.Steps, Findings: active, Surface: detail.Surface}, sum)
}

// completed ends the scan completed, with its summary and its comparison
// with the baseline; an ended scan keeps the status it has.
func (a *Agent) completed(ctx context.Context, t Task, detail store.ScanDetail, cmp scans.Comparison, sum scans.Summary) (Result, error) {
	ended, err := a.Store.CompleteScan(ctx, t.UserID, t.ScanID, &sum, cmp.BaselineScanID, monitor.Counts(detail.Issues, cmp), a.Now())
	if cur, refused := store.IsRefused(err); refused {
		return Result{Status: string(cur.Status)}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("end scan %s as completed: %w", t.ScanID, err)
	}
	a.Logger.InfoContext(ctx, "scan ended", "scan_id", ended.ID, "status", ended.Status, "credits_used", ended.CreditsUsed,
		"findings", ended.FindingsCount, "baseline", cmp.BaselineScanID, "new_issues", ended.NewIssuesCount,
		"fixed_issues", ended.FixedIssuesCount)
	return Result{Status: string(ended.Status)}, nil
}

// modelSummary asks the planner's model for the summary and records the call
// as the scan's last step (tool write_summary), charged like any step; when
// the budget no longer pays for it, the rule-based summary stands.
func (a *Agent) modelSummary(ctx context.Context, t Task, sz planner.Summarizer, s planner.State, rules scans.Summary) (scans.Summary, error) {
	r := sz.Summarize(ctx, s, rules)
	if !r.Asked {
		return r.Summary, nil
	}
	seq := s.Scan.StepsCount + 1
	sc, err := a.Store.ChargeStep(ctx, t.UserID, t.ScanID, seq, r.Credits)
	switch {
	case errors.Is(err, store.ErrScanNotRunning), errors.Is(err, store.ErrBudget):
		return rules, nil
	case err != nil:
		return rules, err
	case sc.StepsCount >= seq:
		return r.Summary, nil // recorded by an earlier delivery
	}
	now := a.Now()
	step := scans.Step{Seq: seq, Tool: "write_summary", Input: json.RawMessage("{}"), Status: scans.StepOK, Outcome: r.Outcome,
		Credits: r.Credits, StartedAt: now.UTC(), Reasoning: "The executive summary, by the model that planned the scan", Model: r.Model}
	if _, err := a.Store.RecordStep(ctx, t.UserID, t.ScanID, step, nil, now); err != nil {
		return rules, err
	}
	return r.Summary, nil
}

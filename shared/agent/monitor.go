package agent

import (
	"context"
	"fmt"

	"secscan/shared/checks"
	"secscan/shared/monitor"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/summary"
)

// compare compares a completing scan with its baseline (the latest earlier
// completed scan of the same target and type) and the target's ledger and
// inventory (package monitor), and keeps the result with the scan before
// anything else is written: a re-delivered completion finds it and reuses
// it, so the ledger it already updated does not change the answer.
func (a *Agent) compare(ctx context.Context, sc scans.Scan, d store.ScanDetail) (scans.Comparison, store.TargetState, error) {
	state, err := a.Store.TargetState(ctx, sc.TargetID)
	if err != nil {
		return scans.Comparison{}, store.TargetState{}, err
	}
	if d.Comparison != nil {
		return *d.Comparison, state, nil
	}
	in := monitor.Input{Now: a.Now(), Issues: d.Issues, Ledger: state.Ledger, Surface: d.Surface,
		Coverage: monitor.NewCoverage(sc.Target, d.Steps, a.toolChecks())}
	in.KnownHosts, in.KnownServices = knownAssets(state)
	if ref, ok := state.Baseline(sc.Type, sc.ID); ok {
		fs, err := a.Store.Findings(ctx, ref.ID)
		if err != nil {
			return scans.Comparison{}, store.TargetState{}, fmt.Errorf("baseline %s: %w", ref.ID, err)
		}
		in.Baseline = &monitor.Baseline{ScanID: ref.ID, FinishedAt: ref.FinishedAt, Issues: scans.GroupIssues(fs)}
	}
	cmp := monitor.Compare(in)
	if err := a.Store.SaveComparison(ctx, sc.ID, cmp); err != nil {
		return scans.Comparison{}, store.TargetState{}, err
	}
	return cmp, state, nil
}

// toolChecks maps each registered tool to the checks it declares.
// knownAssets are the target's hosts and services (monitor.ServiceKey) on
// record before this scan.
func knownAssets(state store.TargetState) (hosts, services map[string]bool) {
	hosts, services = map[string]bool{}, map[string]bool{}
	for _, h := range state.Assets.Hosts {
		hosts[h.Name] = true
	}
	for _, v := range state.Assets.Services {
		services[monitor.ServiceKey(v.Host, v.Port)] = true
	}
	return hosts, services
}

func (a *Agent) toolChecks() map[string][]scans.CheckCode {
	out := map[string][]scans.CheckCode{}
	if a.Tools == nil {
		return out
	}
	for _, name := range a.Tools.Names() {
		tool, _ := a.Tools.Get(name)
		if em, ok := tool.(checks.Emitter); ok {
			out[name] = checks.Codes(em.Checks()...)
		}
	}
	return out
}

// changesOf is the summary's account of the comparison.
func changesOf(issues []scans.Issue, c scans.Comparison) *summary.Changes {
	ch := &summary.Changes{Since: c.BaselineFinishedAt, Fixed: len(c.Fixed), NotRetested: len(c.NotRetested),
		NewHosts: len(c.NewHosts), NewServices: len(c.NewServices), Triaged: len(c.Triage)}
	for _, is := range issues {
		if _, triaged := c.Triage[is.Key]; triaged {
			continue
		}
		switch c.Changes[is.Key] {
		case scans.ChangeNew:
			ch.New++
		case scans.ChangeRegressed:
			ch.Regressed++
		}
	}
	return ch
}

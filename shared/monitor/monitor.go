// Package monitor compares a completed scan with its baseline and the
// target's issue ledger (CONTRACT "Checks and issues": change, fixed_issues;
// "Monitoring: schedules, triage, assets"). It has no I/O: the agent reads
// the baseline, the ledger and the inventory, calls Compare, and the store
// keeps the result with the scan and applies it to the ledger.
//
// Coverage decides what "fixed" means: a baseline issue is fixed only when
// this scan ran a tool that declares the issue's check (checks.Emitter) on
// every host (and port, when the step named ports) where the baseline saw
// it, the step ended ok, and the issue was not seen. Otherwise the issue is
// neither fixed nor recurring: it is listed as not retested.
package monitor

import (
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"secscan/shared/scans"
)

// Coverage is what a scan tested: for each check, the hosts a tool that
// declares it ran on, and on each host all ports or the ports named.
type Coverage struct {
	byCheck map[scans.CheckCode]map[string]*ports
}

type ports struct {
	all bool
	set map[int]bool
}

// NewCoverage derives coverage from the scan's audit trail. toolChecks maps
// a tool's name to the checks it declares; steps of other tools (the model's
// write_summary) and steps that did not end ok cover nothing. A step's
// locations come from its input: host, url, base_url, origin or domain
// (none: the scan's domain), and port or ports (none, or a range: every
// port of the host).
func NewCoverage(domain string, steps []scans.Step, toolChecks map[string][]scans.CheckCode) Coverage {
	c := Coverage{byCheck: map[scans.CheckCode]map[string]*ports{}}
	for _, st := range steps {
		if st.Status != scans.StepOK && st.Status != "" {
			continue
		}
		codes := toolChecks[st.Tool]
		if len(codes) == 0 {
			continue
		}
		host, portList := locationOf(st.Input, domain)
		if host == "" {
			continue
		}
		for _, code := range codes {
			c.add(code, host, portList)
		}
	}
	return c
}

// add records that check was tested at host on portList (nil: every port).
func (c Coverage) add(check scans.CheckCode, host string, portList []int) {
	hosts := c.byCheck[check]
	if hosts == nil {
		hosts = map[string]*ports{}
		c.byCheck[check] = hosts
	}
	p := hosts[host]
	if p == nil {
		p = &ports{set: map[int]bool{}}
		hosts[host] = p
	}
	if portList == nil {
		p.all = true
	}
	for _, n := range portList {
		p.set[n] = true
	}
}

// Covers reports whether check was tested at host (and port).
func (c Coverage) Covers(check scans.CheckCode, host string, port *int) bool {
	p := c.byCheck[check][normHost(host)]
	switch {
	case p == nil:
		return false
	case p.all || port == nil:
		return true
	}
	return p.set[*port]
}

func normHost(h string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".") }

// locationOf reads the host and ports a step's input names. nil ports
// means every port.
func locationOf(raw json.RawMessage, domain string) (string, []int) {
	var in map[string]json.RawMessage
	_ = json.Unmarshal(raw, &in) // not an object (a refused input): the domain
	host := hostOf(in)
	if host == "" {
		host = domain
	}
	host = normHost(host)
	if _, ranged := in["range"]; ranged {
		return host, nil
	}
	return host, portsOf(in)
}

// hostOf is the host named by the first of an input's location fields
// that holds a string: a URL's host, a "host:port"'s host, or the string
// itself; "" when none does.
func hostOf(in map[string]json.RawMessage) string {
	for _, k := range []string{"host", "url", "base_url", "origin", "domain", "target"} {
		var s string
		if json.Unmarshal(in[k], &s) != nil || s == "" {
			continue
		}
		if strings.Contains(s, "://") {
			if u, err := url.Parse(s); err == nil {
				return u.Hostname()
			}
		} else if h, _, err := net.SplitHostPort(s); err == nil {
			return h
		}
		return s
	}
	return ""
}

// portsOf are the ports an input names in port and ports; nil (every
// port) when it names none.
func portsOf(in map[string]json.RawMessage) []int {
	var list []int
	var one int
	if json.Unmarshal(in["port"], &one) == nil && one > 0 {
		list = append(list, one)
	}
	var many []int
	if json.Unmarshal(in["ports"], &many) == nil {
		list = append(list, many...)
	}
	if len(list) == 0 {
		return nil
	}
	return list
}

// Baseline is the scan a completed scan is compared with.
type Baseline struct {
	ScanID     string
	FinishedAt time.Time
	Issues     []scans.Issue
}

// Input is what Compare needs.
type Input struct {
	Now    time.Time
	Issues []scans.Issue // this scan's
	// Baseline is nil for a scan without one: changes are then null.
	Baseline *Baseline
	// Ledger is the target's issue ledger by key, before this scan.
	Ledger   map[string]scans.LedgerEntry
	Coverage Coverage
	// Surface is what this scan discovered; KnownHosts and KnownServices
	// ("host:port") the target's inventory before it. With no inventory
	// before (the target's first scan), nothing is new.
	Surface       scans.Surface
	KnownHosts    map[string]bool
	KnownServices map[string]bool
}

// Compare computes the scan's changes, the triage its issues carry, the
// baseline issues it found fixed or did not retest, and the new assets.
func Compare(in Input) scans.Comparison {
	out := scans.Comparison{Changes: map[string]scans.IssueChange{}, Triage: map[string]scans.Triage{},
		Fixed: []scans.FixedIssue{}, NotRetested: []string{}, NewHosts: []string{}, NewServices: []string{}}
	seen := map[string]bool{}
	for _, is := range in.Issues {
		seen[is.Key] = true
		if t := triageOf(in, is.Key); t != nil {
			out.Triage[is.Key] = *t
		}
	}
	if in.Baseline != nil {
		out.BaselineScanID, out.BaselineFinishedAt = in.Baseline.ScanID, in.Baseline.FinishedAt
		changes(in, out.Changes)
		out.Fixed, out.NotRetested = fixedSince(in, seen)
	}
	if len(in.KnownHosts) > 0 || len(in.KnownServices) > 0 {
		out.NewHosts, out.NewServices = newAssets(in)
	}
	return out
}

// triageOf is the ledger's triage of an issue in effect now, if any.
func triageOf(in Input, key string) *scans.Triage {
	le, ok := in.Ledger[key]
	if !ok {
		return nil
	}
	return le.Triage.Effective(in.Now)
}

// changes sets how each issue of the scan compares with the baseline and
// the ledger: regressed (fixed before), recurring or new.
func changes(in Input, out map[string]scans.IssueChange) {
	inBaseline := map[string]bool{}
	for _, is := range in.Baseline.Issues {
		inBaseline[is.Key] = true
	}
	for _, is := range in.Issues {
		le, known := in.Ledger[is.Key]
		switch {
		case known && le.Status == scans.IssueFixed:
			out[is.Key] = scans.ChangeRegressed
		case known || inBaseline[is.Key]:
			out[is.Key] = scans.ChangeRecurring
		default:
			out[is.Key] = scans.ChangeNew
		}
	}
}

// fixedSince are the baseline issues the scan did not see (seen: its
// issues' keys): fixed where it tested them again, by severity then key;
// not retested where it did not.
func fixedSince(in Input, seen map[string]bool) (fixed []scans.FixedIssue, notRetested []string) {
	fixed, notRetested = []scans.FixedIssue{}, []string{}
	for _, is := range in.Baseline.Issues {
		if seen[is.Key] {
			continue
		}
		if !covered(in.Coverage, is) {
			notRetested = append(notRetested, is.Key)
			continue
		}
		fixed = append(fixed, scans.FixedIssue{Key: is.Key, Check: is.Check, CVE: is.CVE, Title: is.Title,
			Severity: is.Severity, LastSeenScanID: lastSeen(in, is.Key)})
	}
	slices.SortStableFunc(fixed, bySeverityThenKey)
	return fixed, notRetested
}

// lastSeen is the scan that last saw a baseline issue: the ledger's, else
// the baseline.
func lastSeen(in Input, key string) string {
	if le, ok := in.Ledger[key]; ok && le.LastScanID != "" {
		return le.LastScanID
	}
	return in.Baseline.ScanID
}

// bySeverityThenKey orders fixed issues most severe first, then by key.
func bySeverityThenKey(a, b scans.FixedIssue) int {
	if a.Severity.Rank() != b.Severity.Rank() {
		return a.Severity.Rank() - b.Severity.Rank()
	}
	return strings.Compare(a.Key, b.Key)
}

// newAssets are the hosts and services ("host:port") of the surface not in
// the inventory before, each once, sorted.
func newAssets(in Input) (hosts, services []string) {
	hostKeys := make([]string, 0, len(in.Surface.Hosts))
	for _, h := range in.Surface.Hosts {
		hostKeys = append(hostKeys, normHost(h.Name))
	}
	serviceKeys := make([]string, 0, len(in.Surface.Services))
	for _, v := range in.Surface.Services {
		serviceKeys = append(serviceKeys, ServiceKey(v.Host, v.Port))
	}
	return unknown(hostKeys, in.KnownHosts), unknown(serviceKeys, in.KnownServices)
}

// unknown are the keys not in known, each once, sorted (never nil).
func unknown(keys []string, known map[string]bool) []string {
	out := []string{}
	for _, k := range keys {
		if !known[k] && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ServiceKey names a service of the inventory: "host:port".
func ServiceKey(host string, port int) string { return normHost(host) + ":" + strconv.Itoa(port) }

// covered reports whether every location of a baseline issue was tested
// again for its check. An issue without a check code (recorded before
// checks existed) cannot be told apart: never covered.
func covered(c Coverage, is scans.Issue) bool {
	if is.Check == "" || len(is.Locations) == 0 {
		return false
	}
	for _, loc := range is.Locations {
		if !c.Covers(is.Check, loc.Host, loc.Port) {
			return false
		}
	}
	return true
}

// Apply sets change and triage on issues from a stored comparison.
func Apply(issues []scans.Issue, cmp *scans.Comparison) {
	if cmp == nil {
		return
	}
	for i := range issues {
		if ch, ok := cmp.Changes[issues[i].Key]; ok && cmp.BaselineScanID != "" {
			ch := ch
			issues[i].Change = &ch
		}
		if t, ok := cmp.Triage[issues[i].Key]; ok {
			t := t
			issues[i].Triage = &t
		}
	}
}

// Counts are the record's and the webhook's counts: issues not triaged
// away, new or regressed ones among them, fixed ones.
func Counts(issues []scans.Issue, cmp scans.Comparison) scans.CompletionCounts {
	c := scans.CompletionCounts{BySeverity: map[scans.Severity]int{}}
	for _, is := range issues {
		if _, triaged := cmp.Triage[is.Key]; triaged {
			continue
		}
		c.ActiveIssues++
		c.BySeverity[is.Severity]++
		if ch := cmp.Changes[is.Key]; ch == scans.ChangeNew || ch == scans.ChangeRegressed {
			c.NewIssues++
		}
	}
	c.FixedIssues = len(cmp.Fixed)
	return c
}

// Active returns the findings whose issue is not triaged away: what the
// risk rating and the summary are computed from.
func Active(findings []scans.Finding, cmp scans.Comparison) []scans.Finding {
	if len(cmp.Triage) == 0 {
		return findings
	}
	out := make([]scans.Finding, 0, len(findings))
	for _, f := range findings {
		if _, triaged := cmp.Triage[f.IssueKeyOf()]; !triaged {
			out = append(out, f)
		}
	}
	return out
}

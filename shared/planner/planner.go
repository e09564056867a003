// Package planner decides the scan agent's next step. Planner is the seam
// between the agent loop and whatever chooses tools: Playbook, the
// deterministic, evidence-driven planner used when no language model is
// configured, or a model-driven planner. Whatever a planner proposes is
// untrusted: the agent checks the tool exists, charges its cost and the tool
// validates its own input.
//
// Playbook plans from what the scan has found so far (State: the surface,
// the findings and the steps recorded): it derives the full ordered list of
// calls the evidence calls for (Calls) and runs the first one not yet run
// that the remaining budget pays for. The same state always gives the same
// plan, and a call is never planned twice.
package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// State is what a planner sees: the scan, the steps recorded so far, the
// findings and the attack surface they produced.
type State struct {
	Scan     scans.Scan
	Steps    []scans.Step
	Findings []scans.Finding
	Surface  scans.Surface
}

// Decision is the next step, or Done when the scan has covered what it should.
type Decision struct {
	Done      bool
	Tool      string
	Input     json.RawMessage
	Reasoning string // why, when a model chose the step
	// Note is appended to the step's outcome: which other host names a
	// call covers (names sharing its address, certificate and home page).
	Note string
	// Model is the model call behind the decision, and ModelCredits what its
	// tokens cost: charged on the step with the tool's cost.
	Model        *scans.ModelUsage
	ModelCredits int
	// Refused, when set, says why the model's proposal (Tool with Input)
	// is not run: out of scope, invalid input, an unknown tool. The agent
	// records it as a refused step, charging the model's tokens only
	// (CONTRACT "Scans"), and never runs the tool.
	Refused string
	// EndTurn, when set, records a model call that chose no tool while the
	// playbook had nothing left to run: a step of tool EndTurnTool, status
	// ok, with EndTurn as its outcome, charged ModelCredits only, so that
	// every model call is charged (CONTRACT "Tiers and credits").
	EndTurn string
}

// EndTurnTool is the tool name of the step that records a model's end of
// turn when no playbook call remained to charge its tokens on.
const EndTurnTool = scans.EndTurnTool

// Summarizer is a planner that can write the executive summary itself (a
// model); rules is the rule-based summary, its fallback.
type Summarizer interface {
	Summarize(ctx context.Context, s State, rules scans.Summary) SummaryResult
}

// SummaryResult is the summary to publish and, when a model was asked, the
// step that records the call (its outcome, tokens and credits).
type SummaryResult struct {
	Summary scans.Summary
	Asked   bool
	Outcome string
	Model   *scans.ModelUsage
	Credits int
}

// ConfigError is a planner failure only the operator can fix (an unknown
// model id, access denied): the agent fails the scan with Reason rather than
// retrying.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return e.Reason }

// Planner chooses the next step of a scan.
type Planner interface {
	Next(ctx context.Context, s State) (Decision, error)
}

// Coverer is a planner that can say, once a scan is done, which discovered
// hosts it did not scan and why (the surface's not_scanned), and in one
// sentence for the summary what the budget or the tier left out ("" when
// nothing).
type Coverer interface {
	Coverage(s State) (notScanned []scans.Host, partial string)
}

// Call is one planned tool call; Host is the host it is about ("" for the
// whole domain), so coverage can tell which hosts were looked at.
type Call struct {
	Tool  string
	Input json.RawMessage
	Host  string
	Why   string
	// Covers are the other host names the call stands for (aliases of Host:
	// the same addresses, certificate and home page), recorded in the
	// step's outcome.
	Covers []string
}

// note is what the step's outcome records about the names c covers.
func (c Call) note() string {
	if len(c.Covers) == 0 {
		return ""
	}
	return "also covers " + strings.Join(c.Covers, ", ") + " (same address, certificate and home page as " + c.Host + ")"
}

// Playbook is the deterministic, evidence-driven planner.
type Playbook struct {
	Tools *tools.Registry
}

// Tool names the planner uses.
const (
	DiscoverHosts = "discover_hosts"
	PortScan      = "port_scan"
	TLSCheck      = "tls_check"
	DNSCheck      = "dns_check"
	HTTPCheck     = "http_check"
	ExposedFiles  = "exposed_files"
	VersionCheck  = "version_check"
	CodeScan      = "code_scan"
	WebCrawl      = "web_crawl"
	ServiceInfo   = "service_info"
	FileSecrets   = "file_secrets"
	ListingFiles  = "listing_files"
	ConfirmCVE    = "confirm_cve"
	SSHAudit      = "ssh_audit"
	// HTTPFingerprint identifies the product of every HTTP(S) service.
	HTTPFingerprint = "http_fingerprint"
)

// HostLimit is how many discovered hosts a tier scans: quick the apex and
// www, standard up to 16, deep up to 64.
func HostLimit(tier plans.Tier) int { return tier.Limits().Hosts }

// AddressLimit is how many distinct addresses a tier's port scans probe
// in one scan: standard 16, deep 64 (hosts on further addresses are left
// out with scans.NotProbedAddressCap).
func AddressLimit(tier plans.Tier) int { return tier.Limits().Addresses }

// Next returns the next call of the plan not yet run, or Done.
//
// The budget decides how far the plan goes, within CONTRACT "Tiers and
// credits": the domain's own checks (calls about the target domain itself
// or the whole domain, except follow-ups) are the scan's floor. They run in
// order, and when the next of them costs more than the credits left, Next
// proposes it anyway and the agent ends the scan failed with the budget
// error. Everything else (other hosts, follow-ups) runs only while the
// floor's remaining calls stay affordable, and is otherwise left out and
// reported by Coverage: a large surface narrows the scan instead of failing
// it, and a budget too small for the domain itself fails as the contract
// says.
func (p Playbook) Next(_ context.Context, s State) (Decision, error) {
	pending, floorLeft, _, err := p.Baseline(s)
	if err != nil {
		return Decision{}, err
	}
	left := s.Scan.MaxCredits - s.Scan.CreditsUsed
	for _, c := range pending {
		// A floor call, affordable or not: an unaffordable one is the
		// budget failure the agent reports.
		if floor(c, s.Scan.Target) || p.cost(c) <= left-floorLeft {
			return Decision{Tool: c.Tool, Input: c.Input, Reasoning: c.Why, Note: c.note()}, nil
		}
	}
	return Decision{Done: true}, nil
}

// Baseline is what the playbook still plans for s: the calls not yet run
// (of tools the registry has), the credits of those among them that are the
// domain's own checks (the floor, see Next), and of all of them.
func (p Playbook) Baseline(s State) (pending []Call, floorCost, totalCost int, err error) {
	calls, err := Calls(s)
	if err != nil {
		return nil, 0, 0, err
	}
	done := doneCalls(s.Steps)
	for _, c := range calls {
		if done[callKey(c.Tool, c.Input)] {
			continue
		}
		if !p.has(c.Tool) {
			continue // a tool this deployment does not have
		}
		pending = append(pending, c)
		totalCost += p.cost(c)
		if floor(c, s.Scan.Target) {
			floorCost += p.cost(c)
		}
	}
	return pending, floorCost, totalCost, nil
}

// has reports whether the registry has tool (any tool without one).
func (p Playbook) has(tool string) bool {
	if p.Tools == nil {
		return true
	}
	_, ok := p.Tools.Get(tool)
	return ok
}

// IsFloor reports whether c is one of the domain's own checks.
func IsFloor(c Call, domain string) bool { return floor(c, domain) }

// CallKey identifies a call by its tool and canonical input: two calls with
// the same key do the same thing.
func CallKey(tool string, input json.RawMessage) string { return callKey(tool, input) }

// floor reports whether c is one of the domain's own checks (see Next).
func floor(c Call, domain string) bool {
	if c.Host != "" && c.Host != domain {
		return false
	}
	switch c.Tool {
	case ListingFiles, FileSecrets, ServiceInfo, ConfirmCVE, FTPAudit, HTTPFingerprint:
		return false
	}
	return true
}

func (p Playbook) cost(c Call) int {
	if p.Tools == nil {
		return 1
	}
	if tool, ok := p.Tools.Get(c.Tool); ok {
		return tool.Cost()
	}
	return 0
}

// Coverage implements Coverer: the hosts not scanned or not probed, and a
// sentence naming them, the addresses not swept and the planned checks the
// budget left out.
func (p Playbook) Coverage(s State) ([]scans.Host, string) {
	hosts := p.NotScanned(s)
	var parts []string
	if sentence := NotScannedSentence(hosts, len(s.Surface.Hosts)); sentence != "" {
		parts = append(parts, sentence)
	}
	if sentence := notProbedSentence(hosts); sentence != "" {
		parts = append(parts, sentence)
	}
	if sentence := notSweptSentence(s); sentence != "" {
		parts = append(parts, sentence)
	}
	if skipped, _, _, err := p.Baseline(s); err == nil && len(skipped) > 0 {
		parts = append(parts, fmt.Sprintf("%d planned checks were not run: credit budget", len(skipped)))
	}
	return hosts, strings.Join(parts, "; ")
}

// NotScanned lists the discovered hosts no step looked at, with the reason
// (the tier's host limit or the credit budget), and the hosts whose address
// is beyond the tier's address cap, with scans.NotProbedAddressCap.
func (p Playbook) NotScanned(s State) []scans.Host {
	touched := touchedHosts(s)
	selected, capped := selection(s)
	var out []scans.Host
	for _, h := range s.Surface.Hosts {
		var x scans.Host
		if !touched[h.Name] && h.NotScanned == "" {
			x.NotScanned = "credit budget"
			if !slices.ContainsFunc(selected, func(o scans.Host) bool { return o.Name == h.Name }) {
				x.NotScanned = tierLimit(s.Scan.Tier)
			}
		}
		if capped[h.Name] && h.NotProbed == "" {
			x.NotProbed = scans.NotProbedAddressCap
		}
		if x.NotScanned != "" || x.NotProbed != "" {
			x.Name = h.Name
			out = append(out, x)
		}
	}
	return out
}

// notProbedSentence is the summary's line about the hosts the address cap
// left out, "" when none.
func notProbedSentence(hosts []scans.Host) string {
	n := 0
	for _, h := range hosts {
		if h.NotProbed == scans.NotProbedAddressCap {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d discovered hosts were not probed: their addresses are beyond the distinct addresses this tier probes", n)
}

// TierHosts are the host names the scan's tier lets it test now: those a
// step already looked at and those the playbook selects (at most the
// tier's host limit between them, unless the steps went beyond it).
func TierHosts(s State) map[string]bool {
	hosts := touchedHosts(s)
	for _, h := range selectHosts(s) {
		hosts[h.Name] = true
	}
	return hosts
}

// touchedHosts are the hosts a step looked at: the host its input names,
// or the domain for a step that completed without one.
func touchedHosts(s State) map[string]bool {
	touched := map[string]bool{}
	for _, st := range s.Steps {
		if h := inputHost(st.Input); h != "" {
			touched[h] = true
		} else if st.Status == scans.StepOK || st.Status == "" {
			touched[s.Scan.Target] = true
		}
	}
	return touched
}

// tierLimit is why a host the tier's host limit left out was not scanned.
func tierLimit(tier plans.Tier) string {
	if tier == plans.Quick {
		return "tier limit (quick scans only the domain and www)"
	}
	return fmt.Sprintf("tier limit (%s scans at most %d hosts)", tier, HostLimit(tier))
}

// NotScannedSentence is the summary's line about hosts left out, e.g. "3 of
// 11 discovered hosts were not scanned: credit budget"; empty when none.
func NotScannedSentence(hosts []scans.Host, discovered int) string {
	hosts = slices.DeleteFunc(slices.Clone(hosts), func(h scans.Host) bool { return h.NotScanned == "" })
	if len(hosts) == 0 {
		return ""
	}
	var reasons []string
	for _, h := range hosts {
		r, _, _ := strings.Cut(h.NotScanned, " (")
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	verb := "were"
	if len(hosts) == 1 {
		verb = "was"
	}
	return fmt.Sprintf("%d of %d discovered hosts %s not scanned: %s", len(hosts), max(discovered, len(hosts)), verb, strings.Join(reasons, ", "))
}

// doneCalls are the calls the recorded steps ran (whatever their outcome:
// a call that failed is not retried).
func doneCalls(steps []scans.Step) map[string]bool {
	done := map[string]bool{}
	for _, st := range steps {
		done[callKey(st.Tool, st.Input)] = true
	}
	return done
}

// callKey identifies a call by its tool and its input in canonical JSON.
func callKey(tool string, input json.RawMessage) string {
	var v any
	if len(input) == 0 || json.Unmarshal(input, &v) != nil {
		return tool + " " + string(input)
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return tool + " {}"
	}
	canon, _ := json.Marshal(v)
	return tool + " " + string(canon)
}

// InputHost is the host a tool input names (host, url or base_url), "" when
// none.
func InputHost(input json.RawMessage) string { return inputHost(input) }

// inputHost is the host a step's input names (host, url or base_url).
func inputHost(input json.RawMessage) string {
	var in struct {
		Host    string `json:"host"`
		URL     string `json:"url"`
		BaseURL string `json:"base_url"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.Host != "" {
		return strings.ToLower(in.Host)
	}
	for _, raw := range []string{in.URL, in.BaseURL} {
		if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
			return strings.ToLower(u.Hostname())
		}
	}
	return ""
}

func encode(input map[string]any) json.RawMessage {
	if input == nil {
		return json.RawMessage("{}")
	}
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err) // maps of strings and numbers above
	}
	return raw
}

// Package planner decides the scan agent's next step. Planner is the seam
// between the agent loop and whatever chooses tools: Playbook, a fixed,
// deterministic order per scan type and tier used when no language model is
// configured, or a model-driven planner. Whatever a planner proposes is
// untrusted: the agent checks the tool exists, charges its cost and the tool
// validates its own input.
package planner

import (
	"context"
	"encoding/json"
	"fmt"

	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// State is what a planner sees: the scan and the steps recorded so far.
type State struct {
	Scan  scans.Scan
	Steps []scans.Step
}

// Decision is the next step, or Done when the scan has covered what it should.
type Decision struct {
	Done      bool
	Tool      string
	Input     json.RawMessage
	Reasoning string // why, when a model chose the step
}

// Planner chooses the next step of a scan.
type Planner interface {
	Next(ctx context.Context, s State) (Decision, error)
}

// Call is one planned tool call.
type Call struct {
	Tool  string
	Input json.RawMessage
}

// Playbook plans from a fixed list per scan type and tier: step n of a scan
// is the n-th call of its list. It never looks at what the steps found, so
// the same scan always runs the same calls, and a re-run plan is the same
// plan. Every list fits its tier's credit ceiling (checked by a test).
type Playbook struct {
	Tools *tools.Registry
}

// Next returns the call after the recorded steps.
func (p Playbook) Next(_ context.Context, s State) (Decision, error) {
	calls, err := Calls(s.Scan.Type, s.Scan.Tier)
	if err != nil {
		return Decision{}, err
	}
	n := len(s.Steps)
	if n >= len(calls) {
		return Decision{Done: true}, nil
	}
	return Decision{Tool: calls[n].Tool, Input: calls[n].Input}, nil
}

// Tool names of the playbooks.
const (
	PortScan     = "port_scan"
	TLSCheck     = "tls_check"
	DNSCheck     = "dns_check"
	HTTPCheck    = "http_check"
	ExposedFiles = "exposed_files"
	VersionCheck = "version_check"
	CodeScan     = "code_scan"
	WebCrawl     = "web_crawl"
)

// Calls returns the playbook of a scan type and tier.
func Calls(t scans.Type, tier plans.Tier) ([]Call, error) {
	ports := portCalls(tier)
	var calls []Call
	switch t {
	case scans.Network:
		calls = append([]Call{call(DNSCheck, nil)}, ports...)
	case scans.Web:
		calls = []Call{call(HTTPCheck, nil), call(ExposedFiles, nil)}
		if tier != plans.Quick {
			calls = append(calls, call(TLSCheck, nil), call(CodeScan, nil))
		}
		if tier == plans.Deep {
			calls = append(calls, call(WebCrawl, nil))
		}
	case scans.SSL:
		calls = []Call{call(TLSCheck, nil)}
		if tier != plans.Quick {
			calls = append(calls, call(HTTPCheck, nil))
		}
	case scans.Vuln:
		// Versions are read from the banners the port scan collects.
		calls = append(ports, call(VersionCheck, nil))
	case scans.Code:
		calls = []Call{call(ExposedFiles, nil), call(CodeScan, nil), call(VersionCheck, nil)}
	case scans.Full:
		calls = append([]Call{call(DNSCheck, nil)}, ports...)
		calls = append(calls, call(TLSCheck, nil), call(HTTPCheck, nil))
		if tier == plans.Deep {
			calls = append(calls, call(WebCrawl, nil))
		}
		calls = append(calls, call(ExposedFiles, nil), call(CodeScan, nil), call(VersionCheck, nil))
	default:
		return nil, fmt.Errorf("no playbook for scan type %q", t)
	}
	return calls, nil
}

// portCalls covers the tier's ports: the 100 most common (quick), the 1,000
// most common (standard), or every port in calls of 1,000 (deep), so each
// call stays within the tool's time bound. Quick and standard add the
// default ports of databases, caches and remote administration, which the
// most-common lists miss (Redis, memcached, MongoDB).
func portCalls(tier plans.Tier) []Call {
	exposures := call(PortScan, map[string]any{"preset": "exposures"})
	switch tier {
	case plans.Quick:
		return []Call{call(PortScan, map[string]any{"preset": "top100"}), exposures}
	case plans.Deep:
		var calls []Call
		for from := 1; from <= 65535; from += 1000 {
			calls = append(calls, call(PortScan, map[string]any{"range": map[string]int{"from": from, "to": min(from+999, 65535)}}))
		}
		return calls
	default:
		return []Call{call(PortScan, map[string]any{"preset": "top1000"}), exposures}
	}
}

func call(tool string, input map[string]any) Call {
	if input == nil {
		return Call{Tool: tool, Input: json.RawMessage("{}")}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err) // literal maps above
	}
	return Call{Tool: tool, Input: raw}
}

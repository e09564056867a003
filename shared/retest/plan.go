// Package retest re-runs the checks behind one issue of a completed scan
// (CONTRACT "Proof and retest"): each location's finding is re-tested by
// the very tool call that found it (same tool, same input, stored with the
// finding), through the same guarded tools, bounds and scope as the scan.
// A location is reproduced when the call finds the same weakness at the
// same place again (the same fingerprint: check, host, port, CVE), not
// reproduced when the call ran, the place still answers and the weakness
// is gone, and an error otherwise: a host that does not answer has not
// been fixed.
package retest

import (
	"encoding/json"
	"fmt"
	"slices"

	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

// Call is one tool call of a retest and the locations it re-tests.
type Call struct {
	Tool      string
	Input     json.RawMessage
	Locations []scans.Finding
}

// PublishedCost prices a tool from the published cost table.
func PublishedCost(tool string) (int, bool) {
	c, ok := tools.PublishedCosts[tool]
	return c, ok
}

// Plan groups an issue's findings by the call that found them (one call
// re-tests every location it found) and returns the calls, their cost in
// credits, and the results of the locations no call can re-test (found
// before retests existed, by a tool that no longer exists, or past
// scans.MaxRetestLocations).
func Plan(found []store.SourcedFinding, price func(tool string) (int, bool)) (calls []Call, cost int, skipped []scans.RetestResult) {
	index := map[string]int{}
	for i, sf := range found {
		f := sf.Finding
		if i >= scans.MaxRetestLocations {
			skipped = append(skipped, errorResult(f, fmt.Sprintf("Not retested: a retest covers at most %d locations; run a new scan for the rest.", scans.MaxRetestLocations)))
			continue
		}
		toolCost, ok := price(sf.Tool)
		if sf.Tool == "" || !ok {
			skipped = append(skipped, errorResult(f, "Not retested: this finding was recorded before retests existed; run a new scan to test it again."))
			continue
		}
		k := sf.Tool + "\x00" + string(sf.Input)
		j, ok := index[k]
		if !ok {
			j = len(calls)
			index[k] = j
			calls = append(calls, Call{Tool: sf.Tool, Input: slices.Clone(sf.Input)})
			cost += toolCost
		}
		calls[j].Locations = append(calls[j].Locations, f)
	}
	return calls, cost, skipped
}

func errorResult(f scans.Finding, detail string) scans.RetestResult {
	return scans.RetestResult{FindingID: f.ID, Host: f.Host, Port: f.Port, Outcome: scans.RetestError, Detail: detail}
}

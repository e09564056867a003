package modelplanner

import (
	"errors"
	"fmt"
	"strings"

	"secscan/shared/domainname"
	"secscan/shared/planner"
	"secscan/shared/tools"
)

// tierRefusal says why the scan's tier does not allow use ("" when it
// does): an input only the deep tier may give (the tool's own
// tools.TierBound check: a range of more than 1000 ports, the deep
// wordlist, a crawl beyond 10 pages or depth 2), or a host beyond the
// tier's host limit (planner.HostLimit: the names the steps looked at and
// those the playbook selects). The credit budget is not the only bound on
// a model's proposals.
func tierRefusal(tool tools.Tool, s planner.State, use ToolUse) string {
	if tb, ok := tool.(tools.TierBound); ok {
		var ie *tools.InputError
		if err := tb.CheckTier(s.Scan.Tier, use.Input); errors.As(err, &ie) {
			return ie.Reason
		}
	}
	host := planner.InputHost(use.Input)
	if host == "" {
		return ""
	}
	name, err := domainname.Normalize(strings.Trim(host, "[]"))
	if err != nil {
		return "" // outOfScope says why
	}
	allowed, limit := planner.TierHosts(s), planner.HostLimit(s.Scan.Tier)
	if allowed[name] || len(allowed) < limit {
		return ""
	}
	return fmt.Sprintf("a %s scan tests at most %d hosts, and %s is not one of them", s.Scan.Tier, limit, name)
}

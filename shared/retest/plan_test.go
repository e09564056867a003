package retest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"secscan/shared/scans"
	"secscan/shared/store"
)

// One call per distinct (tool, input); findings without a call, with an
// unknown tool or past the limit are errors that say why; the cost is the
// published price of each distinct call.
func TestPlanGroupsByCall(t *testing.T) {
	t.Parallel()
	sf := func(id, tool, input string) store.SourcedFinding {
		return store.SourcedFinding{Finding: scans.Finding{ID: id, Host: id + ".example"}, Tool: tool, Input: json.RawMessage(input)}
	}
	found := []store.SourcedFinding{
		sf("a", "http_check", `{}`), sf("b", "http_check", `{}`), sf("c", "http_check", `{"url":"https://c.example/"}`),
		sf("d", "port_scan", `{"ports":[6379]}`), sf("e", "", ""), sf("f", "retired_tool", `{}`),
	}
	calls, cost, skipped := Plan(found, PublishedCost)
	if len(calls) != 3 || len(calls[0].Locations) != 2 || calls[2].Tool != "port_scan" || cost != 5+5+5 {
		t.Errorf("calls %+v, cost %d; want 3 calls (2 locations on the first) costing 15", calls, cost)
	}
	if len(skipped) != 2 || skipped[0].FindingID != "e" || skipped[0].Outcome != scans.RetestError ||
		!strings.Contains(skipped[0].Detail, "before retests existed") || skipped[1].FindingID != "f" {
		t.Errorf("skipped %+v", skipped)
	}

	var many []store.SourcedFinding
	for i := range scans.MaxRetestLocations + 3 {
		many = append(many, sf(fmt.Sprint(i), "tls_check", fmt.Sprintf(`{"host":"h%d.example"}`, i)))
	}
	calls, cost, skipped = Plan(many, PublishedCost)
	if len(calls) != scans.MaxRetestLocations || cost != 5*scans.MaxRetestLocations || len(skipped) != 3 || !strings.Contains(skipped[0].Detail, "at most 20 locations") {
		t.Errorf("%d calls, cost %d, %d skipped (%+v)", len(calls), cost, len(skipped), skipped)
	}
}

func TestAllNotReproduced(t *testing.T) {
	t.Parallel()
	nr, e := scans.RetestResult{Outcome: scans.NotReproduced}, scans.RetestResult{Outcome: scans.RetestError}
	if !scans.AllNotReproduced([]scans.RetestResult{nr, nr}) || scans.AllNotReproduced([]scans.RetestResult{nr, e}) || scans.AllNotReproduced(nil) {
		t.Error("only a retest whose every location was tested and not reproduced marks the issue fixed")
	}
}

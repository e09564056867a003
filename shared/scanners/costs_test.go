package scanners_test

import (
	"testing"

	"secscan/shared/scanners"
	"secscan/shared/tools"
)

// The published cost table is every tool's own price, and nothing more.
func TestPublishedCostsAreTheTools(t *testing.T) {
	t.Parallel()
	r := scanners.Registry()
	for _, name := range r.Names() {
		tool, _ := r.Get(name)
		if got, ok := tools.PublishedCosts[name]; !ok || got != tool.Cost() {
			t.Errorf("%s: published cost %d (listed %v), the tool costs %d", name, got, ok, tool.Cost())
		}
	}
	if len(tools.PublishedCosts) != len(r.Names()) {
		t.Errorf("the table lists %d tools, the registry has %d", len(tools.PublishedCosts), len(r.Names()))
	}
}

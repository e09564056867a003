package scanners

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestReadmeCostTable: the README's published cost table lists every
// registered tool with its cost.
func TestReadmeCostTable(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := Registry()
	for _, name := range r.Names() {
		tool, _ := r.Get(name)
		if row := fmt.Sprintf("| `%s` | %d |", name, tool.Cost()); !strings.Contains(string(raw), row) {
			t.Errorf("README.md's tool table has no row %q", row)
		}
	}
}

package scanners

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// TestReadmeCostTable: docs/design.md's published cost table lists every
// registered tool with its cost.
func TestReadmeCostTable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	r := Registry()
	for _, name := range r.Names() {
		tool, _ := r.Get(name)
		if row := fmt.Sprintf("| `%s` | %d |", name, tool.Cost()); !strings.Contains(string(raw), row) {
			t.Errorf("docs/design.md's tool table has no row %q", row)
		}
	}
}

// TestReadmeAddingACheckOrATool: docs/design.md's guide "Adding a check or a
// tool" stays true. Every registered tool is documented (named in the guide
// or in the cost table), declares the checks it can emit, and each of them
// is in the catalogue; every file the guide names exists, and the codes of
// its worked example are the catalogue's.
func TestReadmeAddingACheckOrATool(t *testing.T) {
	raw, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	guide := section(t, readme, "### Adding a check or a tool")
	costs := section(t, readme, "### Tools and their credit costs")
	r := Registry()
	for _, name := range r.Names() {
		tool, _ := r.Get(name)
		if ticked := "`" + name + "`"; !strings.Contains(guide, ticked) && !strings.Contains(costs, ticked) {
			t.Errorf("tool %s is registered but documented neither in the guide nor in the cost table", name)
		}
		em, ok := tool.(checks.Emitter)
		if !ok { // a tool that reports no weakness (service_info) declares none
			t.Errorf("tool %s does not declare the checks it emits (Checks())", name)
			continue
		}
		for _, c := range em.Checks() {
			if _, ok := checks.Lookup(c.Code); !ok {
				t.Errorf("tool %s emits %s, which is not in the catalogue", name, c.Code)
			}
		}
	}
	for _, path := range backticked(guide) {
		if strings.HasPrefix(path, "shared/") && !strings.ContainsAny(path, "<>") {
			if _, err := os.Stat("../../" + path); err != nil {
				t.Errorf("the guide names %s, which does not exist", path)
			}
		}
		if strings.HasPrefix(path, "ftp.") {
			if _, ok := checks.Lookup(scans.CheckCode(path)); !ok {
				t.Errorf("the worked example names check %s, which is not in the catalogue", path)
			}
		}
	}
}

// section is the text of the docs/design.md section headed by heading, up to the
// next heading of any level.
func section(t *testing.T, readme, heading string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/design.md has no section %q", heading)
	}
	rest := readme[i+len(heading)+2:]
	if j := strings.Index(rest, "\n#"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// backticked lists the `code spans` of s.
func backticked(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

package checks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"secscan/shared/scans"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/catalogue.golden.json from the catalogue")

// goldenCheck is a check with every field, the rationale included (Check
// leaves it out of its JSON).
type goldenCheck struct {
	Code        scans.CheckCode `json:"check"`
	Title       string          `json:"title"`
	Category    scans.Category  `json:"category"`
	Severity    scans.Severity  `json:"severity"`
	Rationale   string          `json:"rationale"`
	CWE         string          `json:"cwe"`
	Description string          `json:"description"`
	Remediation string          `json:"remediation"`
	References  []string        `json:"references"`
	Traits      Trait           `json:"traits"`
	Database    string          `json:"database,omitempty"`
}

// TestCatalogueGolden: the catalogue, every field of every check with its
// traits, is the one in testdata/catalogue.golden.json, so a change to it
// is a deliberate one (-update-golden rewrites the file; review its diff).
func TestCatalogueGolden(t *testing.T) {
	const path = "testdata/catalogue.golden.json"
	var dump []goldenCheck
	for _, c := range All() {
		dump = append(dump, goldenCheck{Code: c.Code, Title: c.Title, Category: c.Category, Severity: c.Severity,
			Rationale: c.Rationale, CWE: c.CWE, Description: c.Description, Remediation: c.Remediation,
			References: c.References, Traits: traits[c.Code], Database: Database(c.Code)})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(dump); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the catalogue differs from %s; run go test ./shared/checks -run TestCatalogueGolden -update-golden and review the diff", path)
	}
}

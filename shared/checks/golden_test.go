package checks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/catalogue.golden.json from the catalogue")

// goldenCheck is a check with its rationale (which Check leaves out of its
// JSON), traits and database.
type goldenCheck struct {
	*Check
	Rationale string `json:"rationale"`
	Traits    Trait  `json:"traits"`
	Database  string `json:"database,omitempty"`
}

// TestCatalogueGolden: the catalogue, every field of every check with its
// traits, is the one in testdata/catalogue.golden.json, so a change to it
// is a deliberate one (-update-golden rewrites the file; review its diff).
func TestCatalogueGolden(t *testing.T) {
	const path = "testdata/catalogue.golden.json"
	var dump []goldenCheck
	for _, c := range All() {
		dump = append(dump, goldenCheck{Check: c, Rationale: c.Rationale, Traits: traits[c.Code], Database: Database(c.Code)})
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

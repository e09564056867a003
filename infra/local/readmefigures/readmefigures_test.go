package readmefigures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The figures check tolerates a report's few bytes of drift, never a
// changed count or a size off by more than 3 %.
func TestSame(t *testing.T) {
	readme := "165 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KB"
	for run, want := range map[string]bool{
		readme: true,
		"165 findings; SARIF 311 KB (34 KB gzipped), JUnit 91 KB":  true,
		"165 findings; SARIF 318 KB (34 KB gzipped), JUnit 90 KB":  true,
		"165 findings; SARIF 330 KB (34 KB gzipped), JUnit 90 KB":  false,
		"166 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KB":  false,
		"165 findings; SARIF 311 KB (34 KB gzipped), JUnit 90 KiB": false,
	} {
		if got := Same(readme, run); got != want {
			t.Errorf("Same(%q) = %v, want %v", run, got, want)
		}
	}
}

// Sync reports a compared block that differs, never a measured one, writes
// both with update, and refuses a README without the markers.
func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	readme := "intro\n<!-- a -->\n3 findings\n<!-- /a -->\nmiddle\n<!-- m -->\n2.0 s\n<!-- /m -->\nend\n"
	if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := []Block{{"a", "4 findings\n", true}, {"m", "9.9 s\n", false}}
	differ, err := Sync(path, false, blocks)
	if err != nil || len(differ) != 1 || !strings.HasPrefix(differ[0], "a:") {
		t.Fatalf("differ %q, %v: want block a only", differ, err)
	}
	if _, err := Sync(path, true, blocks); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "intro\n<!-- a -->\n4 findings\n<!-- /a -->\nmiddle\n<!-- m -->\n9.9 s\n<!-- /m -->\nend\n"; string(got) != want {
		t.Fatalf("written %q, want %q", got, want)
	}
	if differ, err := Sync(path, false, blocks); err != nil || len(differ) != 0 {
		t.Fatalf("after the update: %q %v", differ, err)
	}
	if _, err := Sync(path, false, []Block{{"missing", "x", true}}); err == nil {
		t.Fatal("a block without markers was accepted")
	}
}

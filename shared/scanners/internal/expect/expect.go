// Package expect holds the assertions the scanners' table tests share.
package expect

import (
	"testing"

	"secscan/shared/scans"
)

// Severities fails for each finding title of want that got lacks or has
// with another severity, and for each title of got that want lacks.
func Severities(t testing.TB, got, want map[string]scans.Severity) {
	t.Helper()
	for title, sev := range want {
		if g, ok := got[title]; !ok {
			t.Errorf("missing finding %q", title)
		} else if g != sev {
			t.Errorf("finding %q: severity %s, want %s", title, g, sev)
		}
	}
	for title := range got {
		if _, ok := want[title]; !ok {
			t.Errorf("unexpected finding %q", title)
		}
	}
}

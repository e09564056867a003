package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without -o a report is saved as the service names it,
// <domain>-<YYYY-MM-DD>-<scan id>.<ext>, in the current directory; a name
// that is not a plain file name falls back to <scan id>.<ext>. (Not
// parallel: it changes the working directory.)
func TestReportDefaultFileName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	disposition := map[string]string{
		"md":  `attachment; filename="demo.test-2026-11-26-` + fakeID + `.md"`,
		"csv": `attachment; filename="../escaped-` + fakeID + `.csv"`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ext := strings.TrimPrefix(filepath.Ext(r.URL.Path), ".")
		if r.URL.Path != "/api/scans/"+fakeID+"/report.md" && r.URL.Path != "/api/scans/"+fakeID+"/findings.csv" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Disposition", disposition[ext])
		fmt.Fprintf(w, "the %s report", ext)
	}))
	t.Cleanup(srv.Close)
	c := (&stack{base: srv.URL}).cli("pt_x")

	r := c.run(t, "report", fakeID, "--format", "md")
	expectCode(t, r, 0)
	want := "demo.test-2026-11-26-" + fakeID + ".md"
	if raw, err := os.ReadFile(filepath.Join(dir, want)); err != nil || string(raw) != "the md report" {
		t.Errorf("%s: %v %q", want, err, raw)
	}
	if !strings.Contains(r.stdout, "Saved "+want) {
		t.Errorf("stdout: %s", r.stdout)
	}
	r = c.run(t, "report", fakeID, "--format", "csv")
	expectCode(t, r, 0)
	if _, err := os.Stat(filepath.Join(dir, fakeID+".csv")); err != nil {
		t.Errorf("fallback name: %v\n%s", err, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escaped-"+fakeID+".csv")); err == nil {
		t.Error("the report was written outside the working directory")
	}
}

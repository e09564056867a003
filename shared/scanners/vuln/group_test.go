package vuln

import (
	"regexp"
	"strings"
	"testing"

	"secscan/shared/scans"
)

var cveID = regexp.MustCompile(`CVE-\d{4}-\d{4,}`)

// expandGroups turns each grouped version match back into one finding per
// CVE it lists (same evidence; the severity only on the most severe one,
// the others have none), so tests can name the CVEs they expect, and checks
// the group's shape on the way: one finding per component and service,
// titled with the component, version and count, the most severe CVE as
// its cve, every CVE in the evidence and the references, tentative.
func expandGroups(t *testing.T, fs []scans.Finding) []scans.Finding {
	t.Helper()
	var out []scans.Finding
	for _, f := range fs {
		if f.Confidence != scans.Tentative {
			t.Errorf("%s: confidence %q, want tentative (version match)", f.Title, f.Confidence)
		}
		if !strings.Contains(f.Title, " known vulnerabilities (most severe ") {
			out = append(out, f)
			continue
		}
		ids := []string{}
		for _, id := range cveID.FindAllString(f.Evidence, -1) {
			if !contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) < 2 || f.CVE == nil || ids[0] != *f.CVE {
			t.Errorf("group %q: CVEs %v, cve %v", f.Title, ids, f.CVE)
			continue
		}
		for i, id := range ids {
			if !contains(f.References, "https://nvd.nist.gov/vuln/detail/"+id) {
				t.Errorf("group %q: %s not in the references", f.Title, id)
			}
			g := f
			g.CVE = &ids[i]
			if i > 0 {
				g.Severity, g.Title = "", f.Title+" (also "+id+")"
			}
			out = append(out, g)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

package findings_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/shared/scans"
)

// triagedScan has four high issues: a false positive, an accepted risk
// that has not expired, one that has, and one without triage.
func triagedScan(now time.Time) client.Scan {
	future, past := now.Add(time.Hour).Format(time.RFC3339), now.Add(-time.Hour).Format(time.RFC3339)
	tri := func(state string, exp *string) *client.Triage {
		return &client.Triage{State: state, Reason: "because", ExpiresAt: exp}
	}
	s := client.Scan{ID: "scn_1", Target: "demo.test", Status: client.Completed}
	for _, is := range []struct {
		key    string
		triage *client.Triage
	}{{"fp", tri("false_positive", nil)}, {"accepted", tri("accepted_risk", &future)},
		{"expired", tri("accepted_risk", &past)}, {"plain", nil}} {
		f := client.Finding{ID: "fnd_" + is.key, Issue: is.key, Check: scans.CheckCode(is.key), Title: "Issue " + is.key, Severity: "high",
			Confidence: "certain", Host: "demo.test", Fingerprint: "fp" + is.key}
		s.Findings = append(s.Findings, f)
		s.Issues = append(s.Issues, client.Issue{Key: is.key, Check: f.Check, Title: f.Title, Severity: "high", Confidence: "certain",
			Count: 1, Locations: []client.Location{{FindingID: f.ID, Host: f.Host}}, Triage: is.triage})
	}
	return s
}

// The gate sets aside false positives and unexpired accepted risks, counts
// an expired acceptance, and counts everything with IncludeTriaged; the
// table, JUnit and Markdown say which findings the triage kept out.
func TestGateHonoursTriage(t *testing.T) {
	now := time.Now()
	s := triagedScan(now)
	gate := findings.Gate{FailOn: "high"}.WithTriage(s.Issues, now)
	keys := func(fs []client.Finding) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Issue)
		}
		return strings.Join(out, ",")
	}
	if got := keys(gate.Failures(s.Findings)); got != "expired,plain" {
		t.Errorf("failures %s, want expired,plain", got)
	}
	if got := keys(gate.TriagedFailures(s.Findings)); got != "fp,accepted" {
		t.Errorf("triaged failures %s, want fp,accepted", got)
	}
	all := gate
	all.IncludeTriaged = true
	if got := keys(all.Failures(s.Findings)); got != "fp,accepted,expired,plain" || len(all.TriagedFailures(s.Findings)) != 0 {
		t.Errorf("--include-triaged failures %s", got)
	}

	var buf bytes.Buffer
	if err := findings.WriteTable(&buf, s.Issues, s.Findings, gate, findings.Table{Width: 100}); err != nil {
		t.Fatal(err)
	}
	for key, mark := range map[string]string{"fp": "triaged", "accepted": "triaged", "expired": "FAIL", "plain": "FAIL"} {
		if line := lineWith(strings.Split(buf.String(), "\n"), "Issue "+key); !strings.HasSuffix(line, mark) {
			t.Errorf("%s: %q, want it to end in %s", key, line, mark)
		}
	}
	buf.Reset()
	if err := findings.WriteJUnit(&buf, findings.Meta{Scan: s}, s.Findings, gate); err != nil {
		t.Fatal(err)
	}
	if strings.Count(buf.String(), "<failure") != 2 || !strings.Contains(buf.String(), "triaged false_positive: because") {
		t.Errorf("JUnit:\n%s", buf.String())
	}
	buf.Reset()
	if err := findings.WriteMarkdown(&buf, findings.Meta{Scan: s}, s.Findings, gate); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "**failed**: 2 finding(s) (2 triaged finding(s) not counted") {
		t.Errorf("Markdown:\n%s", buf.String())
	}
}

// An acceptance whose expiry cannot be read does not suppress: the gate
// errs on the side of failing.
func TestSuppressed(t *testing.T) {
	now := time.Now()
	bad := "next week"
	for _, c := range []struct {
		t    *client.Triage
		want bool
	}{
		{nil, false},
		{&client.Triage{State: "open"}, false},
		{&client.Triage{State: "false_positive"}, true},
		{&client.Triage{State: "accepted_risk"}, true},
		{&client.Triage{State: "accepted_risk", ExpiresAt: &bad}, false},
		{&client.Triage{State: "something_new"}, false},
	} {
		if got := findings.Suppressed(c.t, now); got != c.want {
			t.Errorf("Suppressed(%+v) = %v, want %v", c.t, got, c.want)
		}
	}
}

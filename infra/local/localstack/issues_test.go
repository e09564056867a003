package localstack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/ids"
	"secscan/shared/scans"
)

// The record's issues over HTTP: GET /api/scans/<id> groups the findings
// (one server under three names is one issue with three locations), every
// finding carries its check and issue key and is a location of exactly one
// issue; the list shows issues_count and risk_rating without the issues.
// (Every response is also checked against openapi.yaml by call.)
func TestScanRecordIssues(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	ctx, now := context.Background(), time.Now().UTC()
	st := s.api.Store
	sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: a.user.ID, Target: "issues.test", TargetID: ids.New(ids.Target, now),
		Type: scans.Full, Tier: "standard", Status: scans.Queued, MaxCredits: 200, CreatedAt: now}
	s.runningScan(sc)
	p443, p22 := 443, 22
	mk := func(check scans.CheckCode, host string, port *int, sev scans.Severity) scans.Finding {
		return scans.Finding{Check: check, Title: "Title of " + string(check), Severity: sev, Category: scans.CategoryWeb,
			Host: host, Port: port, Evidence: "observed", Description: "d", Remediation: "r"}
	}
	fs := []scans.Finding{
		mk("web.header.csp", "issues.test", &p443, scans.Low),
		mk("web.header.csp", "www.issues.test", &p443, scans.Low),
		mk("web.header.csp", "ns1.issues.test", &p443, scans.Low),
		mk("ssh.kex.weak", "issues.test", &p22, scans.Medium),
		mk("dns.zone-transfer", "ns1.issues.test", nil, scans.High),
	}
	step := scans.Step{Seq: 1, Tool: "http_probe", Input: json.RawMessage(`{}`), Status: scans.StepOK, Outcome: "ok", Credits: 1, StartedAt: now}
	if _, err := st.RecordStep(ctx, a.user.ID, sc.ID, step, fs, now); err != nil {
		t.Fatal(err)
	}
	sum := &scans.Summary{RiskRating: scans.RiskHigh, Summary: "A zone transfer.", AttackChains: []string{}}
	if _, err := st.EndScan(ctx, a.user.ID, sc.ID, scans.Completed, "", sum, now); err != nil {
		t.Fatal(err)
	}

	r := s.call(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil)
	expect(t, r, http.StatusOK)
	var rec struct {
		FindingsCount  int             `json:"findings_count"`
		IssuesCount    int             `json:"issues_count"`
		RiskRating     *string         `json:"risk_rating"`
		ScheduleID     *string         `json:"schedule_id"`
		BaselineScanID *string         `json:"baseline_scan_id"`
		FixedIssues    json.RawMessage `json:"fixed_issues"`
		Findings       []struct {
			ID, Check, Issue, Host string
		} `json:"findings"`
		Issues []struct {
			Key, Check, Severity string
			Count                int
			Change, Triage       json.RawMessage
			Locations            []struct {
				FindingID string `json:"finding_id"`
				Host      string `json:"host"`
				Port      *int   `json:"port"`
			}
		} `json:"issues"`
	}
	r.json(t, &rec)
	if rec.FindingsCount != 5 || len(rec.Findings) != 5 || rec.IssuesCount != 3 || len(rec.Issues) != 3 {
		t.Fatalf("findings_count %d (%d findings), issues_count %d (%d issues); want 5 and 3",
			rec.FindingsCount, len(rec.Findings), rec.IssuesCount, len(rec.Issues))
	}
	if rec.RiskRating == nil || *rec.RiskRating != "high" || rec.ScheduleID != nil || rec.BaselineScanID != nil || string(rec.FixedIssues) != "[]" {
		t.Errorf("risk_rating %v schedule_id %v baseline_scan_id %v fixed_issues %s", rec.RiskRating, rec.ScheduleID, rec.BaselineScanID, rec.FixedIssues)
	}
	issueOf := map[string]string{}
	for _, f := range rec.Findings {
		if f.Check == "" || f.Issue != f.Check { // no CVE: the key is the check
			t.Errorf("finding %s: check %q issue %q", f.ID, f.Check, f.Issue)
		}
		issueOf[f.ID] = f.Issue
	}
	located := map[string]int{}
	for _, is := range rec.Issues {
		if is.Count != len(is.Locations) || string(is.Change) != "null" || string(is.Triage) != "null" {
			t.Errorf("issue %s: count %d, %d locations, change %s, triage %s", is.Key, is.Count, len(is.Locations), is.Change, is.Triage)
		}
		for _, l := range is.Locations {
			located[l.FindingID]++
			if issueOf[l.FindingID] != is.Key {
				t.Errorf("location %s of %s belongs to %q", l.FindingID, is.Key, issueOf[l.FindingID])
			}
		}
	}
	for id := range issueOf {
		if located[id] != 1 {
			t.Errorf("finding %s is a location of %d issues, want exactly 1", id, located[id])
		}
	}
	if first, last := rec.Issues[0], rec.Issues[2]; first.Key != "dns.zone-transfer" || first.Locations[0].Port != nil ||
		last.Key != "web.header.csp" || last.Count != 3 {
		t.Errorf("issues %s, …, %s (count %d): want the high zone transfer first and CSP on 3 names last", first.Key, last.Key, last.Count)
	}

	r = s.call(http.MethodGet, "/api/scans", a.token, nil)
	list := decoded[[]map[string]json.RawMessage](t, r, http.StatusOK)
	if len(list) != 1 || string(list[0]["issues_count"]) != "3" || string(list[0]["risk_rating"]) != `"high"` {
		t.Fatalf("list = %s", r.body)
	}
	for _, absent := range []string{"findings", "issues", "fixed_issues", "agent_steps", "surface"} {
		if _, ok := list[0][absent]; ok {
			t.Errorf("list item has %s", absent)
		}
	}
}

// GET /api/checks serves the catalogue, ordered by code, to an API token or
// a session; without a valid token it is 401.
func TestListChecks(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("free", false)
	for _, bearer := range []string{a.token, a.session} {
		r := s.call(http.MethodGet, "/api/checks", bearer, nil)
		got := decoded[[]map[string]json.RawMessage](t, r, http.StatusOK)
		all := checks.All()
		if len(got) != len(all) {
			t.Fatalf("%d checks, want the catalogue's %d", len(got), len(all))
		}
		for i, c := range got {
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := []string{"category", "check", "cwe", "description", "references", "remediation", "severity", "title"}; !slices.Equal(keys, want) {
				t.Errorf("check %d has fields %v, want %v", i, keys, want)
			}
			var code string
			_ = json.Unmarshal(c["check"], &code)
			if code != string(all[i].Code) {
				t.Errorf("check %d is %q, want %q (ordered by code)", i, code, all[i].Code)
			}
			if all[i].CWE == "" && string(c["cwe"]) != "null" {
				t.Errorf("check %s: cwe %s, want null", code, c["cwe"])
			}
			if len(c["references"]) == 0 || c["references"][0] != '[' {
				t.Errorf("check %s: references %s, want an array", code, c["references"])
			}
		}
	}
	for _, bearer := range []string{"", "pt_not-a-token"} {
		r := s.call(http.MethodGet, "/api/checks", bearer, nil)
		expect(t, r, http.StatusUnauthorized)
		if r.detail(t) != "Invalid or expired token" || r.header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("401 detail %q, WWW-Authenticate %q", r.detail(t), r.header.Get("WWW-Authenticate"))
		}
	}
}

package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/dynamotest"
	"secscan/shared/scans"
	"secscan/shared/store"
)

func finding(check scans.CheckCode, host string, p *int, sev scans.Severity, cve string) scans.Finding {
	f := scans.Finding{Check: check, Title: "Title of " + string(check), Severity: sev, Category: scans.CategoryWeb,
		Host: host, Port: p, Evidence: "seen", Description: "d", Remediation: "r", References: []string{"https://example.com/ref"}}
	if cve != "" {
		f.CVE = &cve
	}
	return f
}

// One server answering under several names is one issue with several
// locations; every finding belongs to exactly one issue, and the counts on
// the record (kept by RecordStep), on the list and in the detail agree.
func TestRecordedFindingsFormIssues(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "issues@example.com")
	sc := queuedScan(t, st, u.ID, now)
	if _, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil {
		t.Fatal(err)
	}
	names := []string{"example.com", "www.example.com", "ns1.example.com"}
	var first []scans.Finding
	for _, h := range names {
		first = append(first, finding("web.header.csp", h, port(443), scans.Low, ""))
	}
	first = append(first,
		finding("vuln.known-cve", "example.com", port(443), scans.High, "CVE-2021-41773"),
		finding("vuln.known-cve", "www.example.com", port(443), scans.Critical, "cve-2021-41773"),
		finding("vuln.known-cve", "example.com", port(443), scans.Medium, "CVE-2023-25690"),
	)
	step := func(seq int) scans.Step {
		return scans.Step{Seq: seq, Tool: "http_probe", Input: json.RawMessage(`{}`), Status: scans.StepOK, Outcome: "ok", StartedAt: now}
	}
	added, err := st.RecordStep(ctx, u.ID, sc.ID, step(1), first, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != len(first) {
		t.Fatalf("added %d findings, want %d", len(added), len(first))
	}
	for _, f := range added {
		if want := scans.IssueKey(f.Check, f.CVE); f.Issue != want {
			t.Errorf("recorded finding %s on %s has issue %q, want %q", f.Check, f.Host, f.Issue, want)
		}
	}
	// A second step: the same server under a fourth name, a finding seen
	// before (the same fingerprint: not a second finding), a new check.
	second := []scans.Finding{
		finding("web.header.csp", "mail.example.com", port(443), scans.Low, ""),
		finding("web.header.csp", "example.com", port(443), scans.Low, ""),
		finding("dns.zone-transfer", "ns1.example.com", nil, scans.Medium, ""),
	}
	if _, err := st.RecordStep(ctx, u.ID, sc.ID, step(2), second, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	const wantFindings, wantIssues = 8, 4 // csp (4 names), CVE-2021-41773 (2), CVE-2023-25690, zone transfer

	rec, err := st.GetScan(ctx, u.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.FindingsCount != wantFindings || rec.IssuesCount != wantIssues {
		t.Errorf("record: findings_count %d issues_count %d, want %d and %d", rec.FindingsCount, rec.IssuesCount, wantFindings, wantIssues)
	}
	list, _, err := st.ListScans(ctx, u.ID, store.Page{Limit: 10}, store.ScanFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	if list[0].IssuesCount != wantIssues || list[0].FindingsCount != wantFindings {
		t.Errorf("list: findings_count %d issues_count %d", list[0].FindingsCount, list[0].IssuesCount)
	}

	d, err := st.GetScanDetail(ctx, u.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Findings) != wantFindings || len(d.Issues) != wantIssues || d.Scan.IssuesCount != wantIssues {
		t.Fatalf("detail: %d findings, %d issues (issues_count %d)", len(d.Findings), len(d.Issues), d.Scan.IssuesCount)
	}
	if d.FixedIssues == nil || len(d.FixedIssues) != 0 {
		t.Errorf("fixed issues = %#v, want an empty list", d.FixedIssues)
	}
	checkEveryFindingInOneIssue(t, d.Findings, d.Issues)

	// Ordered by severity: the critical CVE first, its CVE upper-cased in
	// the key, two locations.
	cve := d.Issues[0]
	if cve.Key != "vuln.known-cve:CVE-2021-41773" || cve.Severity != scans.Critical || cve.Count != 2 || len(cve.Locations) != 2 {
		t.Errorf("first issue = %+v, want the critical CVE with 2 locations", cve)
	}
	csp := d.Issues[len(d.Issues)-1]
	var hosts []string
	for _, l := range csp.Locations {
		hosts = append(hosts, l.Host)
		if l.Port == nil || *l.Port != 443 {
			t.Errorf("csp location %+v, want port 443", l)
		}
	}
	slices.Sort(hosts)
	if csp.Key != "web.header.csp" || csp.Count != 4 ||
		strings.Join(hosts, " ") != "example.com mail.example.com ns1.example.com www.example.com" {
		t.Errorf("csp issue = %s count %d on %v, want one issue on the 4 names", csp.Key, csp.Count, hosts)
	}
	if csp.Change != nil || csp.Triage != nil {
		t.Errorf("csp change %v triage %v, want null (no baseline, no triage)", csp.Change, csp.Triage)
	}
}

// checkEveryFindingInOneIssue: each finding is a location of exactly one
// issue, the one its issue key names, and the counts add up.
func checkEveryFindingInOneIssue(t *testing.T, fs []scans.Finding, issues []scans.Issue) {
	t.Helper()
	byID := map[string]scans.Finding{}
	for _, f := range fs {
		byID[f.ID] = f
	}
	seen := map[string]string{}
	total := 0
	for _, is := range issues {
		if is.Count != len(is.Locations) {
			t.Errorf("issue %s: count %d, %d locations", is.Key, is.Count, len(is.Locations))
		}
		total += is.Count
		for _, l := range is.Locations {
			f, ok := byID[l.FindingID]
			switch {
			case !ok:
				t.Errorf("issue %s lists unknown finding %s", is.Key, l.FindingID)
			case seen[l.FindingID] != "":
				t.Errorf("finding %s is in issues %s and %s", l.FindingID, seen[l.FindingID], is.Key)
			case f.Issue != is.Key:
				t.Errorf("finding %s has issue %q but is listed in %q", l.FindingID, f.Issue, is.Key)
			case f.Host != l.Host:
				t.Errorf("location %+v, finding on %s", l, f.Host)
			}
			seen[l.FindingID] = is.Key
		}
	}
	if total != len(fs) || len(seen) != len(fs) {
		t.Errorf("issues hold %d locations of %d distinct findings, want %d", total, len(seen), len(fs))
	}
}

// Scans recorded before issues existed: their finding items have no issue
// (nor, for the oldest, a check) and their records no issues_count. Reading
// them computes both; listing stores the count once; findings without a
// check are told apart by title, not lumped into one issue.
func TestLegacyScansGetIssues(t *testing.T) {
	t.Parallel()
	db, table := dynamotest.NewTable(t)
	st := store.New(db, table)
	ctx, now := context.Background(), time.Now()
	u := newUser(t, st, "legacy@example.com")
	sc := queuedScan(t, st, u.ID, now)
	if _, err := st.StartScan(ctx, u.ID, sc.ID, now); err != nil {
		t.Fatal(err)
	}
	legacy := []map[string]any{
		{"id": "fnd_a", "title": "Missing CSP header", "severity": "low", "category": "web", "host": "a.example.com", "port": 443},
		{"id": "fnd_b", "title": "Missing CSP header", "severity": "low", "category": "web", "host": "b.example.com", "port": 443},
		{"id": "fnd_c", "title": "TLS 1.0 enabled", "severity": "medium", "category": "ssl", "host": "a.example.com", "port": 443},
		{"id": "fnd_d", "check": "web.exposed-git", "title": ".git exposed", "severity": "high", "category": "web", "host": "a.example.com", "port": 443},
	}
	for i, body := range legacy {
		raw, _ := json.Marshal(body)
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk":   &types.AttributeValueMemberS{Value: "SCAN#" + sc.ID},
			"sk":   &types.AttributeValueMemberS{Value: "FINDING#legacy" + string(rune('0'+i))},
			"body": &types.AttributeValueMemberS{Value: string(raw)},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "USER#" + u.ID}, "sk": &types.AttributeValueMemberS{Value: "SCAN#" + sc.ID},
		},
		UpdateExpression:          aws.String("SET findings_count = :n REMOVE issues_count"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "4"}},
	})
	if err != nil {
		t.Fatal(err)
	}

	d, err := st.GetScanDetail(ctx, u.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Issues) != 3 || d.Scan.IssuesCount != 3 {
		t.Fatalf("legacy detail: %d issues, issues_count %d, want 3 (two CSP findings, TLS, .git)", len(d.Issues), d.Scan.IssuesCount)
	}
	checkEveryFindingInOneIssue(t, d.Findings, d.Issues)
	for _, f := range d.Findings {
		if f.Issue == "" {
			t.Errorf("legacy finding %s read back without an issue key", f.ID)
		}
	}

	list, _, err := st.ListScans(ctx, u.ID, store.Page{Limit: 10}, store.ScanFilter{})
	if err != nil || len(list) != 1 || list[0].IssuesCount != 3 {
		t.Fatalf("legacy list: %+v %v, want issues_count 3", list, err)
	}
	if rec, err := st.GetScan(ctx, u.ID, sc.ID); err != nil || rec.IssuesCount != 3 {
		t.Fatalf("after listing, the record has issues_count %d (%v), want 3 stored", rec.IssuesCount, err)
	}

	// A step recorded now counts the legacy findings with the new ones.
	f := finding("web.exposed-git", "b.example.com", port(443), scans.High, "")
	step := scans.Step{Seq: 1, Tool: "http_probe", Input: json.RawMessage(`{}`), Status: scans.StepOK, Outcome: "ok", StartedAt: now}
	if _, err := st.RecordStep(ctx, u.ID, sc.ID, step, []scans.Finding{f}, now); err != nil {
		t.Fatal(err)
	}
	if rec, err := st.GetScan(ctx, u.ID, sc.ID); err != nil || rec.FindingsCount != 5 || rec.IssuesCount != 3 {
		t.Fatalf("after a step: findings_count %d issues_count %d (%v), want 5 and 3", rec.FindingsCount, rec.IssuesCount, err)
	}
}

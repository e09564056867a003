package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"secscan/infra/local/dynamotest"
	"secscan/shared/ids"
	"secscan/shared/monitor"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// countingDB counts the store's DynamoDB calls by operation.
type countingDB struct {
	store.DB
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingDB) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[op]++
}

func (c *countingDB) reset() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

func (c *countingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.count("GetItem")
	return c.DB.GetItem(ctx, in, o...)
}

func (c *countingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.count("PutItem")
	return c.DB.PutItem(ctx, in, o...)
}

func (c *countingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.count("UpdateItem")
	return c.DB.UpdateItem(ctx, in, o...)
}

func (c *countingDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.count("Query")
	return c.DB.Query(ctx, in, o...)
}

func (c *countingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.count("TransactWriteItems")
	return c.DB.TransactWriteItems(ctx, in, o...)
}

type ledgerRig struct {
	t      *testing.T
	st     *store.Store
	db     *countingDB
	user   string
	target string
	now    time.Time
}

func newLedgerRig(t *testing.T) *ledgerRig {
	db, table := dynamotest.NewTable(t)
	cdb := &countingDB{DB: db, calls: map[string]int{}}
	st := store.New(cdb, table)
	u := newUser(t, st, "ledger@example.com")
	now := time.Now().UTC().Add(-time.Hour)
	tg := store.Target{ID: ids.New(ids.Target, now), UserID: u.ID, Domain: "example.com", Method: "dns_txt",
		VerificationToken: "tok", Verified: true, CreatedAt: now}
	if err := st.CreateTarget(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	return &ledgerRig{t: t, st: st, db: cdb, user: u.ID, target: tg.ID, now: now}
}

// checksOf is the test's tool catalogue: the tool "probe" declares every
// check the tests use.
var checksOf = map[string][]scans.CheckCode{"probe": {"web.header.csp", "web.header.hsts", "tls.protocol.tls10", "dns.zone-transfer"}}

// scan runs one scan of the rig's target to completion the way the agent
// does: record the findings in one step of the "probe" tool on hosts, then
// compare, save, apply, complete. It returns the completed detail.
func (r *ledgerRig) scan(hosts []string, findings []scans.Finding) store.ScanDetail {
	r.t.Helper()
	ctx := context.Background()
	r.now = r.now.Add(time.Minute)
	sc := scans.Scan{ID: ids.New(ids.Scan, r.now), UserID: r.user, TargetID: r.target, Target: "example.com",
		Type: scans.Web, Tier: plans.Quick, Status: scans.Queued, MaxCredits: 50, CreatedAt: r.now}
	if _, _, err := r.st.CreateScan(ctx, sc, nil, r.now); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.st.StartScan(ctx, r.user, sc.ID, r.now); err != nil {
		r.t.Fatal(err)
	}
	for i, h := range hosts {
		var mine []scans.Finding
		for _, f := range findings {
			if f.Host == h {
				mine = append(mine, f)
			}
		}
		step := scans.Step{Seq: i + 1, Tool: "probe", Input: json.RawMessage(fmt.Sprintf(`{"host":%q}`, h)),
			Status: scans.StepOK, Outcome: "ok", StartedAt: r.now}
		if _, err := r.st.RecordStep(ctx, r.user, sc.ID, step, mine, r.now); err != nil {
			r.t.Fatal(err)
		}
	}
	var surface scans.Surface
	for _, h := range hosts {
		surface.Hosts = append(surface.Hosts, scans.Host{Name: h, Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceApex}})
		surface.Services = append(surface.Services, scans.ServiceInfo{Host: h, Address: "192.0.2.1", Port: 443, Transport: "tcp", Protocol: "https"},
			scans.ServiceInfo{Host: h, Address: "192.0.2.1", Port: 22, Transport: "tcp", Protocol: "ssh", Product: "OpenSSH", Version: "9.6"})
	}
	if err := r.st.MergeSurface(ctx, sc.ID, surface); err != nil {
		r.t.Fatal(err)
	}
	r.db.reset()
	d, cmp := r.complete(sc)
	_ = cmp
	return d
}

// complete is the agent's completion against the store (agent.complete
// without the summary).
func (r *ledgerRig) complete(sc scans.Scan) (store.ScanDetail, scans.Comparison) {
	r.t.Helper()
	ctx := context.Background()
	d, err := r.st.GetScanDetail(ctx, r.user, sc.ID)
	if err != nil {
		r.t.Fatal(err)
	}
	state, err := r.st.TargetState(ctx, r.target)
	if err != nil {
		r.t.Fatal(err)
	}
	in := monitor.Input{Now: r.now, Issues: d.Issues, Ledger: state.Ledger, Surface: d.Surface,
		KnownHosts: map[string]bool{}, KnownServices: map[string]bool{}, Coverage: monitor.NewCoverage(sc.Target, d.Steps, checksOf)}
	if ref, ok := state.Baseline(sc.Type, sc.ID); ok {
		fs, err := r.st.Findings(ctx, ref.ID)
		if err != nil {
			r.t.Fatal(err)
		}
		in.Baseline = &monitor.Baseline{ScanID: ref.ID, FinishedAt: ref.FinishedAt, Issues: scans.GroupIssues(fs)}
	}
	for _, h := range state.Assets.Hosts {
		in.KnownHosts[h.Name] = true
	}
	for _, v := range state.Assets.Services {
		in.KnownServices[monitor.ServiceKey(v.Host, v.Port)] = true
	}
	cmp := monitor.Compare(in)
	if err := r.st.SaveComparison(ctx, sc.ID, cmp); err != nil {
		r.t.Fatal(err)
	}
	if err := r.st.ApplyCompletion(ctx, store.Completion{Scan: sc, Issues: d.Issues, Comparison: cmp, Surface: d.Surface,
		State: state, Now: r.now}); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.st.CompleteScan(ctx, r.user, sc.ID, &scans.Summary{RiskRating: scans.RiskLow}, cmp.BaselineScanID,
		monitor.Counts(d.Issues, cmp), r.now); err != nil {
		r.t.Fatal(err)
	}
	d, err = r.st.GetScanDetail(ctx, r.user, sc.ID)
	if err != nil {
		r.t.Fatal(err)
	}
	return d, cmp
}

func (r *ledgerRig) ledger() map[string]scans.LedgerEntry {
	r.t.Helper()
	l, err := r.st.IssueLedger(context.Background(), r.target)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]scans.LedgerEntry{}
	for _, e := range l {
		out[e.Key] = e
	}
	return out
}

func changeOf(d store.ScanDetail, key string) string {
	for _, is := range d.Issues {
		if is.Key == key {
			if is.Change == nil {
				return "null"
			}
			return string(*is.Change)
		}
	}
	return "absent"
}

// Three scans of a target: a weakness switched off between the first two
// is fixed in the second (and the ledger), back in the third it is
// regressed; a weakness on a host the second scan did not test again is
// neither fixed nor recurring; a false positive marked after the first
// scan is carried by the later scans' issues and left out of their counts.
func TestLedgerAcrossScans(t *testing.T) {
	t.Parallel()
	r := newLedgerRig(t)
	ctx := context.Background()
	const (
		csp  = "web.header.csp"
		hsts = "web.header.hsts"
		tls  = "tls.protocol.tls10"
	)
	all := []scans.Finding{
		finding(csp, "example.com", port(443), scans.Low, ""),
		finding(hsts, "example.com", port(443), scans.Medium, ""),
		finding(tls, "legacy.example.com", port(443), scans.Medium, ""),
	}
	d1 := r.scan([]string{"example.com", "legacy.example.com"}, all)
	if d1.Scan.BaselineScanID != "" || changeOf(d1, csp) != "null" || len(d1.FixedIssues) != 0 {
		t.Fatalf("first scan: baseline %q, change %s, fixed %v; want none, null, none", d1.Scan.BaselineScanID, changeOf(d1, csp), d1.FixedIssues)
	}
	l := r.ledger()
	if len(l) != 3 || l[csp].Status != scans.IssueOpen || l[csp].LastScanID != d1.Scan.ID || l[csp].FirstSeenAt.IsZero() {
		t.Fatalf("ledger after scan 1: %+v", l)
	}
	// A false positive, and triage validation of unknown keys.
	fp := scans.Triage{State: scans.TriageFalsePositive, Reason: "CSP is set by the CDN", UpdatedAt: r.now.Format(time.RFC3339), UpdatedBy: r.user}
	if e, err := r.st.SetTriage(ctx, r.target, csp, fp); err != nil || e.Triage == nil || e.Triage.State != scans.TriageFalsePositive {
		t.Fatalf("triage: %+v %v", e, err)
	}
	if _, err := r.st.SetTriage(ctx, r.target, "web.header.nope", fp); !store.IsNotFound(err) {
		t.Fatalf("triage of an unknown key: %v, want not found", err)
	}

	// Scan 2: HSTS switched off; legacy.example.com not tested again.
	d2 := r.scan([]string{"example.com"}, all[:1])
	if d2.Scan.BaselineScanID != d1.Scan.ID {
		t.Fatalf("scan 2 baseline %q, want %q", d2.Scan.BaselineScanID, d1.Scan.ID)
	}
	if got := changeOf(d2, csp); got != "recurring" {
		t.Errorf("scan 2 csp change %s, want recurring", got)
	}
	if len(d2.FixedIssues) != 1 || d2.FixedIssues[0].Key != hsts || d2.FixedIssues[0].LastSeenScanID != d1.Scan.ID {
		t.Errorf("scan 2 fixed %+v, want hsts last seen in scan 1", d2.FixedIssues)
	}
	if d2.Comparison == nil || len(d2.Comparison.NotRetested) != 1 || d2.Comparison.NotRetested[0] != tls {
		t.Errorf("scan 2 not retested %+v, want the TLS issue of the host it did not test", d2.Comparison)
	}
	for _, is := range d2.Issues {
		if is.Key == csp && (is.Triage == nil || is.Triage.State != scans.TriageFalsePositive) {
			t.Errorf("scan 2 csp issue triage %+v, want the false positive", is.Triage)
		}
	}
	if d2.Scan.ActiveIssuesCount == nil || *d2.Scan.ActiveIssuesCount != 0 || d2.Scan.FixedIssuesCount != 1 || d2.Scan.NewIssuesCount != 0 {
		t.Errorf("scan 2 counts: active %v, new %d, fixed %d; want 0 (the false positive left out), 0, 1",
			d2.Scan.ActiveIssuesCount, d2.Scan.NewIssuesCount, d2.Scan.FixedIssuesCount)
	}
	l = r.ledger()
	if l[hsts].Status != scans.IssueFixed || l[hsts].FixedAt == nil || l[tls].Status != scans.IssueOpen {
		t.Errorf("ledger after scan 2: hsts %+v, tls %+v; want fixed, open", l[hsts], l[tls])
	}
	if l[csp].Triage == nil || l[csp].Triage.State != scans.TriageFalsePositive {
		t.Errorf("completion overwrote the triage: %+v", l[csp].Triage)
	}

	// Scan 3: HSTS back, on a new host too.
	d3 := r.scan([]string{"example.com", "new.example.com"}, []scans.Finding{all[0], all[1],
		finding(csp, "new.example.com", port(443), scans.Low, "")})
	if d3.Scan.BaselineScanID != d2.Scan.ID {
		t.Fatalf("scan 3 baseline %q, want %q", d3.Scan.BaselineScanID, d2.Scan.ID)
	}
	if got := changeOf(d3, hsts); got != "regressed" {
		t.Errorf("scan 3 hsts change %s, want regressed", got)
	}
	if d3.Scan.NewIssuesCount != 1 {
		t.Errorf("scan 3 new issues %d, want 1 (the regression)", d3.Scan.NewIssuesCount)
	}
	if d3.Comparison == nil || len(d3.Comparison.NewHosts) != 1 || d3.Comparison.NewHosts[0] != "new.example.com" {
		t.Errorf("scan 3 new hosts %+v, want new.example.com", d3.Comparison)
	}
	if l = r.ledger(); l[hsts].Status != scans.IssueOpen || l[hsts].FixedAt != nil {
		t.Errorf("ledger after scan 3: hsts %+v, want open again", l[hsts])
	}
	as, err := r.st.Assets(ctx, r.target)
	if err != nil {
		t.Fatal(err)
	}
	if len(as.Hosts) != 3 || len(as.Services) != 6 {
		t.Fatalf("assets %+v, want 3 hosts and 6 services", as)
	}
	for _, v := range as.Services {
		if v.Port == 22 && (v.Product != "OpenSSH" || v.Version != "9.6") {
			t.Errorf("service %+v: want OpenSSH 9.6", v)
		}
	}
	for _, h := range as.Hosts {
		switch h.Name {
		case "example.com":
			if !h.FirstSeenAt.Before(h.LastSeenAt) || len(h.Addresses) != 1 || h.Sources[0] != "apex" {
				t.Errorf("example.com asset %+v: first seen in scan 1, last in scan 3", h)
			}
		case "legacy.example.com":
			if !h.LastSeenAt.Equal(h.FirstSeenAt) {
				t.Errorf("legacy asset %+v: seen in scan 1 only", h)
			}
		}
	}
}

// The figures of the report: the DynamoDB round trips and the latency a
// completion with 200 issues adds (baseline of 200 issues, 20 of them fixed),
// measured against DynamoDB Local.
func TestLedgerCompletionRoundTrips(t *testing.T) {
	t.Parallel()
	r := newLedgerRig(t)
	const n = 200
	var fs []scans.Finding
	for i := range n {
		cve := fmt.Sprintf("CVE-2024-%05d", i)
		fs = append(fs, finding("web.header.csp", "example.com", port(443), scans.Medium, cve))
	}
	r.scan([]string{"example.com"}, fs)
	first := r.db.reset()
	_ = first
	// The second scan: the same 200 minus 20, plus 20 new.
	second := append([]scans.Finding{}, fs[20:]...)
	for i := range 20 {
		second = append(second, finding("web.header.csp", "example.com", port(443), scans.Medium, fmt.Sprintf("CVE-2025-%05d", i)))
	}
	ctx := context.Background()
	r.now = r.now.Add(time.Minute)
	sc := scans.Scan{ID: ids.New(ids.Scan, r.now), UserID: r.user, TargetID: r.target, Target: "example.com",
		Type: scans.Web, Tier: plans.Quick, Status: scans.Queued, MaxCredits: 50, CreatedAt: r.now}
	if _, _, err := r.st.CreateScan(ctx, sc, nil, r.now); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.StartScan(ctx, r.user, sc.ID, r.now); err != nil {
		t.Fatal(err)
	}
	step := scans.Step{Seq: 1, Tool: "probe", Input: json.RawMessage(`{"host":"example.com"}`), Status: scans.StepOK, StartedAt: r.now}
	if _, err := r.st.RecordStep(ctx, r.user, sc.ID, step, second, r.now); err != nil {
		t.Fatal(err)
	}
	d, err := r.st.GetScanDetail(ctx, r.user, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Only what monitoring adds to the completion: the target's state, the
	// baseline's findings, the comparison, the ledger and inventory updates
	// and the latest-scan pointer (the summary and the end were there before).
	r.db.reset()
	start := time.Now()
	state, err := r.st.TargetState(ctx, r.target)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := state.Baseline(sc.Type, sc.ID)
	base, err := r.st.Findings(ctx, ref.ID)
	if err != nil {
		t.Fatal(err)
	}
	cmp := monitor.Compare(monitor.Input{Now: r.now, Issues: d.Issues, Ledger: state.Ledger, Coverage: monitor.NewCoverage("example.com", d.Steps, checksOf),
		Baseline: &monitor.Baseline{ScanID: ref.ID, FinishedAt: ref.FinishedAt, Issues: scans.GroupIssues(base)}})
	if err := r.st.SaveComparison(ctx, sc.ID, cmp); err != nil {
		t.Fatal(err)
	}
	if err := r.st.ApplyCompletion(ctx, store.Completion{Scan: sc, Issues: d.Issues, Comparison: cmp, State: state, Now: r.now}); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	calls := r.db.reset()
	total := 0
	for _, c := range calls {
		total += c
	}
	t.Logf("completion with %d issues (20 fixed, 20 new): %d extra DynamoDB calls %v in %v (DynamoDB Local)", len(d.Issues), total, calls, elapsed)
	if len(cmp.Fixed) != 20 || len(d.Issues) != n {
		t.Fatalf("fixed %d of %d issues, want 20 of %d", len(cmp.Fixed), len(d.Issues), n)
	}
	// 1 Query (state) + 1 Query (baseline findings) + 1 PutItem (comparison)
	// + 3 transactions (220 updates) + 1 PutItem (latest).
	if total > 8 {
		t.Errorf("completion made %d DynamoDB calls, want at most 8", total)
	}
}

// The target's latest completed scan of a type is what a retest reads
// before it may fix an issue; the fix itself refuses when a scan newer than
// the retested one saw the issue (a completion between the two).
func TestRetestFixOnlyFromTheLatestScan(t *testing.T) {
	t.Parallel()
	r := newLedgerRig(t)
	ctx := context.Background()
	const csp = "web.header.csp"
	weak := []scans.Finding{finding(csp, "example.com", port(443), scans.Low, "")}
	if _, ok, err := r.st.LatestScan(ctx, r.target, scans.Web); err != nil || ok {
		t.Fatalf("latest scan before any: %v, %v", ok, err)
	}
	older := r.scan([]string{"example.com"}, weak)
	latest := r.scan([]string{"example.com"}, weak)
	ref, ok, err := r.st.LatestScan(ctx, r.target, scans.Web)
	if err != nil || !ok || ref.ID != latest.Scan.ID || ref.FinishedAt.IsZero() {
		t.Fatalf("latest web scan = %+v, %v, %v; want %s", ref, ok, err, latest.Scan.ID)
	}
	if _, ok, _ := r.st.LatestScan(ctx, r.target, scans.Full); ok {
		t.Error("a full scan found where there is none")
	}
	if fixed, err := r.st.MarkIssueFixedByRetest(ctx, r.target, csp, older.Scan.ID, "rt_OLD", r.now); err != nil || fixed {
		t.Fatalf("fix from the older scan: %v, %v; want refused", fixed, err)
	}
	if e := r.ledger()[csp]; e.Status != scans.IssueOpen {
		t.Fatalf("ledger after the older scan's fix: %+v", e)
	}
	if fixed, err := r.st.MarkIssueFixedByRetest(ctx, r.target, csp, latest.Scan.ID, "rt_NEW", r.now); err != nil || !fixed {
		t.Fatalf("fix from the latest scan: %v, %v", fixed, err)
	}
	if e := r.ledger()[csp]; e.Status != scans.IssueFixed || e.FixedAt == nil {
		t.Fatalf("ledger after the latest scan's fix: %+v", e)
	}
}

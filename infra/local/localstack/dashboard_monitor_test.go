package localstack_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// monitoredTargets sets up what the monitoring pages show: toggle.test
// scanned twice (its CSP weakness fixed in between) and pending.test
// registered but unverified, for a Starter account.
func monitoredTargets(t *testing.T) (*stack, account, string, monitorView) {
	t.Helper()
	site := newToggleSite(t)
	s := startStack(t, withWebPorts(site.port, closedPort(t)))
	s.dns.Add(t, "toggle.test. 60 IN A 127.0.0.1")
	a := s.newAccount("starter", false)
	target := dnsTarget(s, a, "toggle.test")
	expect(t, s.call(http.MethodPost, "/api/targets", a.token, map[string]string{"target": "pending.test", "method": "dns_txt"}), http.StatusCreated)
	site.weak.Store(true)
	politeScan(t, s, a, "toggle.test")
	site.weak.Store(false)
	second := politeScan(t, s, a, "toggle.test")
	awaitBudget(t, s, a, 45)
	return s, a, target, second
}

// politeScan runs a quick web scan, polling it once a second: the browser
// that follows shares the user's 60 requests a minute.
func politeScan(t *testing.T, s *stack, a account, domain string) monitorView {
	t.Helper()
	sc := s.createScan(a, map[string]any{"target": domain, "scan_type": "web", "tier": "quick"})
	var v monitorView
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		r := s.patient(http.MethodGet, "/api/scans/"+sc.ID, a.token, nil)
		expect(t, r, http.StatusOK)
		r.json(t, &v)
		if v.Status != "queued" && v.Status != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still %s after 2 minutes", sc.ID, v.Status)
		}
	}
	if v.Status != "completed" {
		t.Fatalf("scan %s ended %s (%v), want completed", v.ID, v.Status, v.Error)
	}
	return v
}

// awaitBudget waits (up to 90 s) until the user has n requests of the
// minute left, so the browser's pages are not refused by the rate limit.
func awaitBudget(t *testing.T, s *stack, a account, n int) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Second) {
		r := s.call(http.MethodGet, "/api/auth/me", a.token, nil)
		if left, err := strconv.Atoi(r.header.Get("X-RateLimit-Remaining")); err == nil && left >= n {
			return
		}
	}
	t.Fatalf("the user never had %d requests of the minute left", n)
}

// listed is the scans list record of id.
func listed(t *testing.T, s *stack, a account, id string) listView {
	t.Helper()
	r := s.patient(http.MethodGet, "/api/scans?status=completed", a.token, nil)
	list := decoded[[]listView](t, r, http.StatusOK)
	for _, v := range list {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("scan %s is not listed: %s", id, r.body)
	return listView{}
}

// sevLine is how the dashboard writes issues by severity: one badge per
// severity present, most severe first ("1 medium, 3 low").
func sevLine(counts map[string]int) string {
	var parts []string
	for _, s := range []string{"critical", "high", "medium", "low", "info"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) == 0 {
		return "none open"
	}
	return strings.Join(parts, ", ")
}

// sevs reads the severity badges inside sel as sevLine writes them.
func (b *browserTest) sevs(sel string) string {
	b.t.Helper()
	var s string
	b.run("severities of "+sel, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Evaluate(fmt.Sprintf(
		`(() => { const el = document.querySelector(%q); const b = [...el.querySelectorAll('.badge[data-sev]')].map(e => e.textContent); return b.length ? b.join(', ') : el.textContent; })()`, sel), &s))
	return s
}

// The home after sign-in is the overview of the user's targets: with two
// targets, the scanned one shows its latest scan's risk rating, open issues
// by severity and what changed since the previous scan, as the API records
// them; the unverified one says what to do. A user without targets gets a
// first step instead.
func TestDashboardOverview(t *testing.T) {
	t.Parallel()
	s, a, _, second := monitoredTargets(t)
	rec := listed(t, s, a, second.ID)
	s.createSchedule(a, map[string]any{"target": "toggle.test", "scan_type": "web", "tier": "quick", "cadence": "weekly"})
	b := newBrowser(t, s.base)
	t.Logf("screenshots in %s", b.shots)
	start := time.Now()
	b.signIn(a.user.Email)
	b.run("overview", chromedp.WaitVisible(`#overview li[data-target="pending.test"]`, chromedp.ByQuery))
	t.Logf("sign-in to overview: %v", time.Since(start).Round(time.Millisecond))
	var hash string
	b.run("home", chromedp.Evaluate(`location.hash`, &hash))
	if hash != "#/overview" {
		t.Errorf("the home after sign-in is %s, want #/overview", hash)
	}
	card := `#overview li[data-target="toggle.test"] `
	if got, want := b.sevs(card+".open-issues"), sevLine(rec.IssuesBySeverity); got != want {
		t.Errorf("toggle.test open issues %q, want %q (the latest scan's record %v)", got, want, rec.IssuesBySeverity)
	}
	if got := b.text(card + ".badge.sev-" + *rec.RiskRating); got != *rec.RiskRating {
		t.Errorf("toggle.test risk %q, want %s", got, *rec.RiskRating)
	}
	if got, want := b.text(card+".changes"), fmt.Sprintf("%d new · %d fixed", *rec.NewIssuesCount, *rec.FixedIssuesCount); got != want || *rec.FixedIssuesCount != 1 {
		t.Errorf("toggle.test changes %q, want %q with the CSP issue fixed", got, want)
	}
	var order []string
	b.run("order", chromedp.Evaluate(`[...document.querySelectorAll('#overview li[data-target]')].map(li => li.dataset.target)`, &order))
	if strings.Join(order, " ") != "toggle.test pending.test" {
		t.Errorf("overview order %v, want the scanned (exposed) target before the unscanned one", order)
	}
	pending := b.text(`#overview li[data-target="pending.test"]`)
	for _, want := range []string{"unverified", "not scanned yet", "not scheduled", "press Verify"} {
		if !strings.Contains(pending, want) {
			t.Errorf("pending.test card %q lacks %q", pending, want)
		}
	}
	if next := b.text(card + ".next-run"); next == "not scheduled" || next == "" {
		t.Errorf("toggle.test, scheduled weekly, shows its next run as %q", next)
	}
	if got := b.sevs("#exposure"); got != sevLine(rec.IssuesBySeverity) {
		t.Errorf("exposure across targets %q, want %q", got, sevLine(rec.IssuesBySeverity))
	}
	b.page("overview")
	var icons struct {
		All    int `json:"all"`
		Hidden int `json:"hidden"`
	}
	b.run("icons", chromedp.Evaluate(`({all: document.querySelectorAll('svg.icon').length, hidden: document.querySelectorAll('svg.icon[aria-hidden="true"]').length})`, &icons))
	if icons.All < 3 || icons.All != icons.Hidden {
		t.Errorf("%d icons, %d hidden from screen readers; want the brand's and the badges', all decorative", icons.All, icons.Hidden)
	}

	checkScansList(t, b, second.ID, rec)
	checkChanges(t, b, second)
	b.signOut()

	empty := s.newAccount("free", false)
	b.signIn(empty.user.Email)
	if got := b.text("#first-step a.button"); got != "Add your first domain" {
		t.Errorf("an account without targets sees %q", got)
	}
	b.page("overview-empty")
}

// A target's page: its schedule is created, paused and resumed (the plan's
// limits shown where they bite), its trend lists the completed scans, its
// assets list the host, and an issue of its ledger is marked a false
// positive with a reason and a confirmation step: the ledger shows it, the
// API has it, and it is still there after a reload.
func TestDashboardTargetPageTriage(t *testing.T) {
	t.Parallel()
	s, a, target, second := monitoredTargets(t)
	ledger := s.ledger(a, target, "?status=open")
	key := ""
	for _, is := range second.Issues { // the most severe open issue
		if _, open := ledger[is.Key]; open {
			key = is.Key
			break
		}
	}
	if key == "" {
		t.Fatalf("no open issue in the ledger %v", ledger)
	}
	b := newBrowser(t, s.base)
	t.Logf("screenshots in %s", b.shots)
	b.signIn(a.user.Email)
	b.click(`#overview li[data-target="toggle.test"] h2 a`)
	row := fmt.Sprintf(`#ledger-table tr[data-issue=%q] `, key)
	b.run("target page", chromedp.WaitVisible(row+"button.triage-button", chromedp.ByQuery), chromedp.WaitVisible("#asset-hosts", chromedp.ByQuery))

	checkTrendAndAssets(t, b, listed(t, s, a, second.ID), second.ID)

	checkSchedule(t, b, s, a)

	// Triage: a reason, then a confirmation naming it.
	const reason = "Served by the CDN in production <b>not here</b>"
	b.click(row + "button.triage-button")
	b.run("triage dialog", chromedp.WaitVisible("#triage-dialog[open] textarea", chromedp.ByQuery))
	b.capture("triage-dialog", "")
	b.click(`#triage-dialog button[value=next]`) // no reason: refused in place
	b.run("still asking", chromedp.WaitVisible("#triage-dialog[open]", chromedp.ByQuery))
	b.run("reason", chromedp.SendKeys("#triage-dialog textarea", reason, chromedp.ByQuery))
	b.click(`#triage-dialog button[value=next]`)
	if msg := b.text("dialog[open] p"); !strings.Contains(msg, reason) {
		t.Errorf("the confirmation says %q, want the reason", msg)
	}
	b.confirm()
	b.run("ledger updated", chromedp.WaitVisible(row+".badge.triage", chromedp.ByQuery))
	if cell := b.text(row + ".triage-cell"); !strings.Contains(cell, "false positive") || !strings.Contains(cell, reason) {
		t.Errorf("the ledger row shows %q", cell)
	}
	e := s.ledger(a, target, "")[key]
	if e.Triage == nil || e.Triage.State != "false_positive" || e.Triage.Reason != reason || e.Triage.UpdatedBy != a.user.ID {
		t.Fatalf("the API's ledger entry after triage: %+v", e)
	}
	b.page("target")
	noSideways(t, b, "the target page")

	// A reload signs in again (silently) and comes back to the page, the
	// decision kept.
	b.run("reload", chromedp.Reload(), chromedp.WaitVisible(row+".badge.triage", chromedp.ByQuery))
	var hash string
	b.run("where", chromedp.Evaluate(`location.hash`, &hash))
	if hash != "#/targets/"+target {
		t.Errorf("after the reload the page is %s", hash)
	}

	acceptAndReopen(t, b, s, a, target, key)
	runNow(t, b, s, a)
	if b.dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", b.dialogs.Load())
	}
}

// checkScansList reads the scans list: risk, open issues by severity,
// new/fixed and duration of each scan, its filters kept in the address.
func checkScansList(t *testing.T, b *browserTest, id string, rec listView) {
	t.Helper()
	b.goTo("#/scans?status=completed&target=toggle.test", fmt.Sprintf(`#scans tr[data-scan=%q]`, id))
	var filters []string
	b.run("filters from the address", chromedp.Evaluate(`[document.querySelector('main select[name=status]').value, document.querySelector('main input[name=target]').value,
		String(document.querySelectorAll('#scans tbody tr[data-scan]').length)]`, &filters))
	if strings.Join(filters, " ") != "completed toggle.test 2" {
		t.Errorf("filters and rows from the address: %v, want completed, toggle.test and the 2 scans", filters)
	}
	row := fmt.Sprintf(`#scans tr[data-scan=%q] `, id)
	if got := b.sevs(row + ".open-issues"); got != sevLine(rec.IssuesBySeverity) {
		t.Errorf("scans list open issues %q, want %q", got, sevLine(rec.IssuesBySeverity))
	}
	if got := b.text(row + ".changes"); got != "0 new · 1 fixed" {
		t.Errorf("scans list changes %q", got)
	}
	if got := b.text(row + ".risk"); got != *rec.RiskRating {
		t.Errorf("scans list risk %q, want %s", got, *rec.RiskRating)
	}
	if got := b.text(row + ".duration"); !regexp.MustCompile(`^\d+ s$`).MatchString(got) {
		t.Errorf("scans list duration %q", got)
	}
	b.page("scans-list")
	b.run("filter failed", chromedp.SetValue("main select[name=status]", "failed", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('main select[name=status]').dispatchEvent(new Event('change'))`, nil),
		chromedp.WaitNotPresent("#scans tbody tr[data-scan]", chromedp.ByQuery))
	var hash string
	b.run("address", chromedp.Evaluate(`location.hash`, &hash))
	if hash != "#/scans?status=failed&target=toggle.test" {
		t.Errorf("after filtering the address is %s", hash)
	}
}

// checkTrendAndAssets reads the target page's trend (one row per completed
// scan, the latest with its record's counts, bars drawn) and its hosts.
func checkTrendAndAssets(t *testing.T, b *browserTest, rec listView, id string) {
	t.Helper()
	var trend []string
	b.run("trend", chromedp.Evaluate(`[...document.querySelectorAll('#trend tbody tr')].map(r => r.dataset.scan + ' ' + [...r.querySelectorAll('td')].map(td => td.textContent).join(' '))`, &trend))
	c := rec.IssuesBySeverity
	total := c["critical"] + c["high"] + c["medium"] + c["low"] + c["info"]
	if want := fmt.Sprintf("%s %d %d %d %d %d %d", id, c["critical"], c["high"], c["medium"], c["low"], c["info"], total); len(trend) != 2 || trend[1] != want {
		t.Errorf("trend rows %q, want 2 with the latest %q", trend, want)
	}
	var bars int
	b.run("bars", chromedp.Evaluate(`document.querySelectorAll('#trend svg rect.bar').length`, &bars))
	if bars == 0 {
		t.Error("the trend chart draws no bars")
	}
	if hosts := b.text("#asset-hosts tbody"); !strings.Contains(hosts, "toggle.test") {
		t.Errorf("asset hosts %q", hosts)
	}

}

// checkSchedule creates a weekly schedule from the target page (daily is
// disabled on Starter, naming Pro), pauses and resumes it.
func checkSchedule(t *testing.T, b *browserTest, s *stack, a account) {
	t.Helper()
	var daily struct {
		Disabled bool   `json:"disabled"`
		Text     string `json:"text"`
	}
	b.run("daily", chromedp.Evaluate(`(() => { const o = document.querySelector('#schedule form select[name=cadence] option[value=daily]'); return {disabled: o.disabled, text: o.textContent}; })()`, &daily))
	if !daily.Disabled || !strings.Contains(daily.Text, "Pro") {
		t.Errorf("daily on Starter: %+v, want disabled, naming Pro", daily)
	}
	b.click("#schedule form button[type=submit]")
	b.run("created", chromedp.WaitVisible(`#schedule .schedule[data-schedule] button[data-action=pause]`, chromedp.ByQuery))
	if next := b.text("#schedule .next-run"); next == "paused" || next == "" {
		t.Errorf("a new schedule's next run shows %q", next)
	}
	b.click(`#schedule button[data-action=pause]`)
	b.run("paused", chromedp.WaitVisible(`#schedule button[data-action=resume]`, chromedp.ByQuery))
	if next := b.text("#schedule .next-run"); next != "paused" {
		t.Errorf("a paused schedule's next run shows %q", next)
	}
	b.click(`#schedule button[data-action=resume]`)
	b.run("resumed", chromedp.WaitVisible(`#schedule button[data-action=pause]`, chromedp.ByQuery))
	// Edit: monthly instead of weekly.
	b.click(`#schedule button[data-action=edit]`)
	b.run("edit form", chromedp.WaitVisible(`#schedule .schedule form select[name=cadence]`, chromedp.ByQuery),
		chromedp.SetValue(`#schedule .schedule form select[name=cadence]`, "monthly", chromedp.ByQuery))
	b.click(`#schedule .schedule form button[type=submit]`)
	b.run("saved", chromedp.WaitNotPresent(`#schedule .schedule form`, chromedp.ByQuery))
	var sch []scheduleView
	r := s.patient(http.MethodGet, "/api/schedules", a.token, nil)
	r.json(t, &sch)
	if len(sch) != 1 || !sch[0].Enabled || sch[0].Cadence != "monthly" {
		t.Errorf("schedules after create, pause, resume, edit to monthly: %s", r.body)
	}
	if got := b.text("#schedule .schedule strong"); !strings.HasPrefix(got, "monthly") {
		t.Errorf("the edited schedule reads %q", got)
	}
}

// seedFleet writes n targets with perTarget completed scans each straight to
// the store (setup, not under test), with counts as a completion keeps them.
func seedFleet(t *testing.T, s *stack, a account, n, perTarget int) {
	t.Helper()
	ctx, st := context.Background(), s.api.Store
	base := time.Now().UTC().Add(-time.Duration(n*perTarget) * time.Minute)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- seedTarget(ctx, st, a.user.ID, fmt.Sprintf("fleet-%02d.test", i), perTarget, base.Add(time.Duration(i)*time.Second))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func seedTarget(ctx context.Context, st *store.Store, user, domain string, scanCount int, at time.Time) error {
	tgt := store.Target{ID: ids.New(ids.Target, at), UserID: user, Domain: domain, Method: "dns_txt",
		VerificationToken: "service-verify-0123456789abcdefghijkl", Verified: true, VerifiedAt: &at, CreatedAt: at}
	if err := st.CreateTarget(ctx, tgt); err != nil {
		return err
	}
	prev := ""
	for j := range scanCount {
		now := at.Add(time.Duration(j) * time.Minute)
		sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: user, Target: domain, TargetID: tgt.ID, Type: scans.Web, Tier: "quick",
			Status: scans.Queued, MaxCredits: 50, CreatedAt: now}
		if _, _, err := st.CreateScan(ctx, sc, nil, now); err != nil {
			return err
		}
		if _, err := st.StartScan(ctx, user, sc.ID, now); err != nil {
			return err
		}
		counts := scans.CompletionCounts{ActiveIssues: 3 + j%4, NewIssues: j % 2, FixedIssues: j % 3,
			BySeverity: map[scans.Severity]int{scans.High: j % 2, scans.Medium: 1, scans.Low: 2 + j%4 - j%2}}
		if _, err := st.CompleteScan(ctx, user, sc.ID, &scans.Summary{RiskRating: scans.RiskMedium}, prev, counts, now.Add(30*time.Second)); err != nil {
			return err
		}
		prev = sc.ID
	}
	return nil
}

// The figure of issue 24: from signing in to the overview drawn, for a user
// with 20 targets and 200 completed scans; every target's card shows its
// latest scan's counts.
func TestDashboardOverviewAtScale(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("pro", false)
	seedFleet(t, s, a, 20, 10)
	b := newBrowser(t, s.base)
	start := time.Now()
	b.signIn(a.user.Email)
	b.run("overview", chromedp.WaitVisible(`#overview li[data-target="fleet-19.test"] .changes`, chromedp.ByQuery))
	t.Logf("sign-in to the overview with 20 targets and 200 scans: %v", time.Since(start).Round(time.Millisecond))
	// The overview alone, signed in: from the address to the last card drawn.
	b.goTo("#/account", "#new-token")
	var ms float64
	b.run("overview again", chromedp.Evaluate(`new Promise((done) => {
		const t0 = performance.now();
		location.hash = '#/overview';
		const poll = () => document.querySelector('#overview li[data-target="fleet-19.test"] .changes') ? done(performance.now() - t0) : setTimeout(poll, 5);
		poll();
	})`, &ms, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	t.Logf("overview with 20 targets and 200 scans drawn in %.0f ms", ms)
	var cards []string
	b.run("cards", chromedp.Evaluate(`[...document.querySelectorAll('#overview li[data-target]')].map(li => li.querySelector('.changes').textContent)`, &cards))
	// The latest scan of each target is its 10th (j = 9): 1 new, 0 fixed.
	same := 0
	for _, c := range cards {
		if c == "1 new · 0 fixed" {
			same++
		}
	}
	if len(cards) != 20 || same != 20 {
		t.Errorf("overview cards %q; want 20, each 1 new · 0 fixed", cards)
	}
}

// runNow starts the schedule's scan from the target page: the page shows
// the scan, and the schedule's last scan is that one.
func runNow(t *testing.T, b *browserTest, s *stack, a account) {
	t.Helper()
	var hash string
	b.click(`#schedule button[data-action=run]`)
	b.run("the scan", chromedp.WaitVisible("#steps", chromedp.ByQuery), chromedp.Evaluate(`location.hash`, &hash))
	var sch []scheduleView
	s.patient(http.MethodGet, "/api/schedules", a.token, nil).json(t, &sch)
	if len(sch) != 1 || sch[0].LastScanID == nil || hash != "#/scans/"+*sch[0].LastScanID {
		t.Errorf("run now went to %s; the schedule's last scan is %v", hash, sch)
	}
}

// checkChanges reads a completed scan's changes since its baseline: the
// counts and the fixed issue (the CSP header set again).
func checkChanges(t *testing.T, b *browserTest, sc monitorView) {
	t.Helper()
	b.goTo("#/scans/"+sc.ID, "#changes")
	if got := b.text("#changes p"); !strings.HasPrefix(got, "0 new · 1 fixed since the previous scan") {
		t.Errorf("the scan's changes say %q", got)
	}
	var fixed []string
	b.run("fixed", chromedp.Evaluate(`[...document.querySelectorAll('#changes li[data-issue]')].map(e => e.dataset.issue)`, &fixed))
	if len(fixed) != 1 || len(sc.FixedIssues) != 1 || fixed[0] != sc.FixedIssues[0].Key {
		t.Errorf("the scan lists fixed %v, the record %+v", fixed, sc.FixedIssues)
	}
}

// noSideways checks that the page never scrolls sideways at 390, 768 and
// 1280 px (wide tables scroll in their own box), naming what sticks out.
func noSideways(t *testing.T, b *browserTest, what string) {
	t.Helper()
	for _, width := range []int64{390, 768, 1280} {
		var out []string
		b.run(fmt.Sprint("layout at ", width), emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
			chromedp.Sleep(150*time.Millisecond),
			chromedp.Evaluate(`document.documentElement.scrollWidth > innerWidth ? [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('.table-wrap'))
				.slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)) : []`, &out))
		if len(out) > 0 {
			t.Errorf("at %d px %s scrolls sideways: %v", width, what, out)
		}
		// A customer's header is two rows on a phone (brand and account, then
		// the links): about 92 px, where four rows took about 170.
		var header float64
		b.run("header height", chromedp.Evaluate(`document.querySelector('header.top').getBoundingClientRect().height`, &header))
		if width == 390 && header > 120 {
			t.Errorf("at 390 px the header of %s is %.0f px tall, want two rows (at most 120 px)", what, header)
		}
	}
	b.run("reset width", emulation.ClearDeviceMetricsOverride())
}

// acceptAndReopen accepts the risk of another open issue until a day in the
// future, then reopens the false positive fp; the API has both decisions.
func acceptAndReopen(t *testing.T, b *browserTest, s *stack, a account, target, fp string) {
	t.Helper()
	other := ""
	for k, e := range s.ledger(a, target, "?status=open") {
		if k != fp && e.Triage == nil {
			other = k
			break
		}
	}
	row := fmt.Sprintf(`#ledger-table tr[data-issue=%q] `, other)
	until := time.Now().UTC().AddDate(0, 0, 30).Format("2006-01-02")
	b.click(row + "button.triage-button")
	b.run("accept risk", chromedp.WaitVisible("#triage-dialog[open] textarea", chromedp.ByQuery),
		chromedp.SetValue("#triage-dialog select[name=state]", "accepted_risk", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#triage-dialog select[name=state]').dispatchEvent(new Event('change'))`, nil),
		chromedp.WaitVisible("#triage-dialog input[name=expires_at]", chromedp.ByQuery),
		chromedp.SetValue("#triage-dialog input[name=expires_at]", until, chromedp.ByQuery),
		chromedp.SendKeys("#triage-dialog textarea", "Compensating control until the migration", chromedp.ByQuery))
	b.click(`#triage-dialog button[value=next]`)
	b.confirm()
	b.run("accepted", chromedp.WaitVisible(row+".badge.triage", chromedp.ByQuery))
	e := s.ledger(a, target, "")[other]
	if e.Triage == nil || e.Triage.State != "accepted_risk" || e.Triage.ExpiresAt == nil || !strings.HasPrefix(*e.Triage.ExpiresAt, until) {
		t.Errorf("accepted risk of %s until %s: the API has %+v", other, until, e.Triage)
	}
	fpRow := fmt.Sprintf(`#ledger-table tr[data-issue=%q] `, fp)
	b.click(fpRow + "button.triage-button")
	b.run("reopen", chromedp.WaitVisible("#triage-dialog[open] select", chromedp.ByQuery),
		chromedp.SetValue("#triage-dialog select[name=state]", "open", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#triage-dialog select[name=state]').dispatchEvent(new Event('change'))`, nil))
	b.click(`#triage-dialog button[value=next]`)
	if msg := b.text("dialog[open] p"); !strings.Contains(msg, "counts again") {
		t.Errorf("the reopen confirmation says %q", msg)
	}
	b.confirm()
	b.run("reopened", chromedp.WaitNotPresent(fpRow+".badge.triage", chromedp.ByQuery))
	if e := s.ledger(a, target, "")[fp]; e.Triage != nil {
		t.Errorf("after reopening %s the API has %+v", fp, e.Triage)
	}
}

package localstack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"secscan/infra/local/dynamotest"
	"secscan/infra/local/slowsite"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// hostile is target-supplied text that would run script if any page put it
// into HTML instead of text.
const hostile = `<img src=x onerror=alert(1)>`

// browserTest drives headless Chromium (Debian's chromium, never a
// downloaded browser) against one local stack.
type browserTest struct {
	t        *testing.T
	ctx      context.Context
	base     string
	shots    string // screenshot directory
	download string // where the browser saves downloads
	axe      string // axe-core's source
	dialogs  atomic.Int32
	failures []string
}

// uniqueEmail is a new user's email address, prefix and the time in
// nanoseconds (the tests share one DynamoDB Local).
func uniqueEmail(prefix string) string {
	return prefix + fmt.Sprint(time.Now().UnixNano()) + "@example.com"
}

func newBrowser(t *testing.T, base string) *browserTest {
	t.Helper()
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		var err error
		if exe, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("the dashboard tests need Debian's chromium (apt-get install chromium; .ci/run installs it) or CHROMIUM=<path>")
		}
	}
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	axe, err := os.ReadFile(filepath.Join(root, "infra", "local", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core: %v (run make deps)", err)
	}
	// make test saves the screenshots in ci-artifacts/screenshots (see the
	// Makefile); a plain go test keeps them only for the test's duration.
	shots := os.Getenv("DASHBOARD_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	download := t.TempDir()
	// A fresh profile per browser. Not t.TempDir: Chromium's helper
	// processes may still write into it for a moment after the browser
	// closes, so it is removed with a few retries.
	profile, err := os.MkdirTemp("", "secscan-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true),
		// Every name resolves nowhere: the browser reaches only the stack on 127.0.0.1.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// cdproto of this chromedp predates some events of Debian's newer
	// Chromium; chromedp reports them as errors that change nothing.
	quiet := func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "unhandled") {
			t.Log(msg)
		}
	}
	ctx, cancelCtx := chromedp.NewContext(allocCtx, chromedp.WithErrorf(quiet))
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { _ = chromedp.Cancel(ctx); cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browserTest{t: t, ctx: ctx, base: base, shots: shots, download: download, axe: string(axe)}
	chromedp.ListenTarget(ctx, func(ev any) {
		if ex, ok := ev.(*runtime.EventExceptionThrown); ok {
			t.Errorf("JavaScript exception: %s", ex.ExceptionDetails.Error())
		}
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			b.dialogs.Add(1)
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
		}
	})
	// The first Run starts the browser, bound to the context it gets: the
	// test's, not one step's timeout.
	if err := chromedp.Run(ctx, browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(download).WithEventsEnabled(true)); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return b
}

// run performs actions or fails the test naming the step.
func (b *browserTest) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 40*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		var loc string
		_ = chromedp.Run(b.ctx, chromedp.Location(&loc))
		b.shot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "_"))
		b.t.Fatalf("%s: %v (at %s)", step, err, loc)
	}
}

func (b *browserTest) text(sel string) string {
	b.t.Helper()
	var s string
	b.run("read "+sel, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Text(sel, &s, chromedp.ByQuery))
	return s
}

func (b *browserTest) click(sel string) {
	b.t.Helper()
	b.run("click "+sel, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Click(sel, chromedp.ByQuery))
}

// confirm answers the page's confirmation dialog with its action button.
func (b *browserTest) confirm() { b.click("dialog[open] button[value=ok]") }

// shot saves full-page screenshots at 390, 768 and 1280 px.
func (b *browserTest) shot(name string) {
	for _, width := range []int64{390, 768, 1280} {
		var png []byte
		err := chromedp.Run(b.ctx,
			emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
			chromedp.Sleep(100*time.Millisecond), // one layout after the resize
			chromedp.FullScreenshot(&png, 100))
		if err == nil {
			err = os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644)
		}
		if err != nil {
			b.t.Errorf("screenshot %s at %d px: %v", name, width, err)
		}
	}
	_ = chromedp.Run(b.ctx, emulation.ClearDeviceMetricsOverride())
}

// capture saves a screenshot at 390, 768 and 1280 px of the element sel, or of
// the viewport when sel is empty (an open dialog, fixed to the viewport).
func (b *browserTest) capture(name, sel string) {
	b.t.Helper()
	for _, width := range []int64{390, 768, 1280} {
		var png []byte
		shoot := chromedp.CaptureScreenshot(&png)
		if sel != "" {
			shoot = chromedp.Screenshot(sel, &png, chromedp.ByQuery)
		}
		b.run(fmt.Sprint("capture ", name, " at ", width), emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
			chromedp.Sleep(150*time.Millisecond), shoot)
		if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			b.t.Error(err)
		}
	}
	b.run("reset width", emulation.ClearDeviceMetricsOverride())
}

// page screenshots the page at both widths and fails on any serious or
// critical axe-core violation.
func (b *browserTest) page(name string) {
	b.t.Helper()
	b.shot(name)
	var violations []struct {
		ID     string   `json:"id"`
		Impact string   `json:"impact"`
		Help   string   `json:"help"`
		Nodes  []string `json:"nodes"`
	}
	script := `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))`
	b.run("axe on "+name,
		chromedp.Evaluate(b.axe, nil),
		chromedp.Evaluate(script, &violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	var counts []string
	for _, v := range violations {
		counts = append(counts, v.Impact+" "+v.ID)
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("axe on %s: %s %s (%s) at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
	b.t.Logf("axe %s: %d violations %v", name, len(violations), counts)
}

// signInAsNew signs in as a new user (uniqueEmail(prefix)) and returns
// the email.
func (b *browserTest) signInAsNew(prefix string) string {
	b.t.Helper()
	email := uniqueEmail(prefix)
	b.signIn(email)
	return email
}

// signIn goes through the development identity provider's authorize page.
func (b *browserTest) signIn(email string) {
	b.t.Helper()
	b.run("open the dashboard", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
	b.click("#sign-in")
	b.run("authorize page", chromedp.WaitVisible("#email", chromedp.ByQuery),
		chromedp.SendKeys("#email", email, chromedp.ByQuery))
	b.click("button[type=submit]")
	b.run("back signed in", chromedp.WaitVisible(`nav a[href="#/account"]`, chromedp.ByQuery))
	if who := b.text("#who"); !strings.Contains(who, email) {
		b.t.Fatalf("signed in as %q, want %s", who, email)
	}
}

func (b *browserTest) signOut() {
	b.t.Helper()
	b.click("#who button")
	b.run("signed out", chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
}

func (b *browserTest) goTo(hash, ready string) {
	b.t.Helper()
	b.run("go to "+hash, chromedp.Evaluate(fmt.Sprintf("location.hash = %q", hash), nil), chromedp.WaitVisible(ready, chromedp.ByQuery))
}

// The dashboard end to end in a real browser, on the stack and demo target
// of make run: sign in through the development identity provider, add and
// verify the demo target, launch a scan and watch it complete live, open a
// issue (a hostile finding renders as text), download a report, meet a plan
// limit (403), have an admin upgrade the plan, mint and revoke a token,
// rotate the webhook secret, download the PDF the new plan allows, see when
// that it retries after a 429, sign out. Every page is screenshot at 390 and
// 1280 px and checked with axe-core.
func TestDashboardInTheBrowser(t *testing.T) {
	t.Parallel()
	s, demo := demoStack(t)
	admin := s.newAccount("enterprise", true)
	email := uniqueEmail("dash-")

	// The page and its assets: strict CSP, no inline code, hashed and cached.
	res, err := http.Get(s.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	index, _ := io.ReadAll(res.Body)
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-") || res.Header.Get("Cache-Control") != "no-cache" || strings.Contains(string(index), "<script>") {
		t.Errorf("index: CSP %q, Cache-Control %q", csp, res.Header.Get("Cache-Control"))
	}

	b := newBrowser(t, s.base)
	b.run("open", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
	b.page("sign-in")
	// Keyboard: the first Tab reaches the skip link, with a visible focus ring.
	var focus struct {
		Class   string `json:"cls"`
		Outline string `json:"outline"`
	}
	b.run("tab", chromedp.KeyEvent("\t"), chromedp.Evaluate(`({cls: document.activeElement.className, outline: getComputedStyle(document.activeElement).outlineStyle})`, &focus))
	if focus.Class != "skip" || focus.Outline == "none" {
		t.Errorf("first Tab focuses %+v, want the skip link with an outline", focus)
	}
	b.click("#sign-in")
	b.run("authorize page", chromedp.WaitVisible("#email", chromedp.ByQuery))
	b.page("idp-authorize")
	b.run("type email", chromedp.SendKeys("#email", email, chromedp.ByQuery))
	b.click("button[type=submit]")
	b.run("signed in", chromedp.WaitVisible(`nav a[href="#/account"]`, chromedp.ByQuery))
	signedIn := time.Now()

	// Targets: add, a failing verification explains itself, then verify.
	b.goTo("#/targets", "#add-target")
	b.run("add target", chromedp.SendKeys("#add-target input[name=target]", demo.Domain(), chromedp.ByQuery))
	b.click("#add-target button[type=submit]")
	instructions := b.text(`li[data-target="demo.test"] pre.instructions`)
	token := regexp.MustCompile(`service-verify-[0-9A-Za-z]+`).FindString(instructions)
	if token == "" {
		t.Fatalf("no verification token in the instructions %q", instructions)
	}
	b.page("targets")
	b.click(`li[data-target="demo.test"] button.verify`)
	reason, summary := b.text(`li[data-target="demo.test"] .alert`), b.text(`li[data-target="demo.test"] details summary`)
	if !strings.Contains(reason, "_service-challenge.demo.test") || !strings.Contains(reason+summary, "We did not find the TXT record yet") {
		t.Errorf("verification failure shows %q, want plain words and what was looked up", reason)
	}
	if summary != "Publish this TXT record, then press Verify" {
		t.Errorf("the unverified target says %q", summary)
	}
	if err := demo.PublishChallenge(token); err != nil {
		t.Fatal(err)
	}
	b.click(`li[data-target="demo.test"] button.verify`)
	b.run("verified", chromedp.WaitVisible(`li[data-target="demo.test"] .state-verified`, chromedp.ByQuery))
	freePlanRules(t, b)

	// Delete asks first; cancelling keeps the target, confirming removes it.
	b.run("add another", chromedp.SendKeys("#add-target input[name=target]", "other.test", chromedp.ByQuery))
	b.click("#add-target button[type=submit]")
	b.click(`li[data-target="other.test"] button.danger`)
	b.click("dialog[open] button[value=cancel]")
	b.run("kept", chromedp.WaitNotPresent("dialog", chromedp.ByQuery), chromedp.WaitVisible(`li[data-target="other.test"]`, chromedp.ByQuery))
	b.click(`li[data-target="other.test"] button.danger`)
	b.confirm()
	b.run("deleted", chromedp.WaitNotPresent(`li[data-target="other.test"]`, chromedp.ByQuery))

	freeAccountRules(t, b, s, email)

	// A scan, live: steps appear while it runs, then the results.
	b.goTo("#/scans/new", "#new-scan")
	b.page("new-scan")
	b.run("full rules out quick", chromedp.SetValue("#new-scan select[name=scan_type]", "full", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#new-scan select[name=scan_type]').dispatchEvent(new Event('change'))`, nil))
	var quickOff bool
	b.run("quick disabled", chromedp.Evaluate(`document.querySelector('#new-scan select[name=tier] option[value=quick]').disabled`, &quickOff))
	if !quickOff {
		t.Error("the form allows a full scan on the quick tier")
	}
	b.run("web quick", chromedp.SetValue("#new-scan select[name=scan_type]", "web", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#new-scan select[name=scan_type]').dispatchEvent(new Event('change'))`, nil),
		chromedp.SetValue("#new-scan select[name=tier]", "quick", chromedp.ByQuery))
	b.click("#new-scan button[type=submit]")
	launched := time.Now()
	b.run("first step live", chromedp.WaitVisible("#steps li.step", chromedp.ByQuery))
	b.run("results", chromedp.WaitVisible("#issues tbody tr", chromedp.ByQuery))
	firstResult := time.Now()
	t.Logf("sign-in to first scan result: %v (launch to result %v)", firstResult.Sub(signedIn).Round(time.Millisecond), firstResult.Sub(launched).Round(time.Millisecond))
	if live := b.text(".live"); !strings.Contains(live, "completed") {
		t.Errorf("live region says %q", live)
	}
	var scanID string
	b.run("scan id", chromedp.Evaluate(`location.hash.split('/').pop()`, &scanID))

	// The hostile string, recorded as target-supplied text of a finding and
	// a step, renders as text: no element, no script.
	owner := mustUserID(t, s, email)
	recorded, err := s.api.Store.GetScanDetail(context.Background(), owner, scanID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.api.Store.RecordStep(context.Background(), owner, scanID, scans.Step{Seq: len(recorded.Steps) + 1, Tool: "http_check",
		Input: json.RawMessage(`{}`), Outcome: hostile, StartedAt: time.Now().UTC()},
		[]scans.Finding{{ID: "fnd_hostile", Title: hostile, Severity: "critical", Category: "web", Host: "demo.test",
			Evidence: hostile, Description: hostile, Remediation: "Escape it.", References: []string{"javascript:alert(1)", "https://cwe.mitre.org/data/definitions/79.html"}}},
		time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b.goTo("#/scans", "main table tbody tr")
	b.goTo("#/scans/"+scanID, "#issues tbody tr")
	b.run("hostile issue listed", chromedp.Poll(fmt.Sprintf(`[...document.querySelectorAll('#issues a[data-issue]')].some(e => e.textContent === %q)`, hostile),
		nil, chromedp.WithPollingTimeout(15*time.Second)))
	b.run("open the hostile issue", chromedp.Evaluate(fmt.Sprintf(
		`[...document.querySelectorAll('#issues a[data-issue]')].find(e => e.textContent === %q).click()`, hostile), nil))
	var evidence []string
	b.run("evidence", chromedp.WaitVisible("#issue-panel pre.evidence", chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#issue-panel pre.evidence')].map(e => e.textContent)`, &evidence))
	if !slices.Contains(evidence, hostile) {
		t.Errorf("the hostile evidence renders as none of %q", evidence)
	}
	var imgs int
	var jsLinks int
	b.run("count injected elements", chromedp.Evaluate(`document.querySelectorAll('main img').length`, &imgs),
		chromedp.Evaluate(`document.querySelectorAll('a[href^="javascript:"]').length`, &jsLinks))
	if imgs != 0 || jsLinks != 0 || b.dialogs.Load() != 0 {
		t.Errorf("hostile text became markup: %d img, %d javascript: links, %d dialogs", imgs, jsLinks, b.dialogs.Load())
	}
	if steps := b.text("#steps"); !strings.Contains(steps, hostile) {
		t.Errorf("the hostile step outcome is not shown as text: %q", steps)
	}
	b.page("issue-panel-hostile")
	b.run("close the panel", chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent("#issue-panel[open]", chromedp.ByQuery))
	b.page("scan-completed")

	// Filters of the issues table: the least severity found.
	var least string
	var sevs []string
	b.run("filter severity", chromedp.Evaluate(`(() => { const s = document.querySelector('#results select[name=severity]');
		s.value = s.options[s.options.length - 1].value; s.dispatchEvent(new Event('change')); return s.value; })()`, &least),
		chromedp.Evaluate(`[...document.querySelectorAll('#issues tbody td:first-child .badge')].map(e => e.textContent)`, &sevs))
	for _, sv := range sevs {
		if sv != least || least == "" {
			t.Errorf("severity filter %q shows %v", least, sevs)
			break
		}
	}

	// Reports: the free plan downloads Markdown and is told PDF needs Starter.
	if locked := b.text(`.locked[data-format=pdf]`); !strings.Contains(locked, "Starter plan") {
		t.Errorf("PDF shows %q", locked)
	}
	b.click(`button[data-format=md]`)
	md := awaitFile(t, filepath.Join(b.download, scanID+".md"))
	if !strings.Contains(md, "DEMO") || !strings.Contains(md, "demo.test") {
		t.Errorf("downloaded report: %.200q", md)
	}

	b.goTo("#/scans", "table tbody tr")
	b.run("status filter", chromedp.SetValue("main select[name=status]", "completed", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('main select[name=status]').dispatchEvent(new Event('change'))`, nil),
		chromedp.Sleep(300*time.Millisecond))
	if rows := b.text("main table tbody"); !strings.Contains(rows, "completed") || strings.Contains(rows, "failed") {
		t.Errorf("completed filter shows %q", rows)
	}
	b.page("scans")
	b.signOut()

	// An admin upgrades the user to Starter.
	b.signIn(admin.user.Email)
	b.goTo("#/admin", "#update-user")
	b.run("create user", chromedp.SendKeys("#create-user input[name=email]", "new-"+email, chromedp.ByQuery),
		chromedp.SetValue("#create-user select[name=plan]", "pro", chromedp.ByQuery))
	b.click("#create-user button[type=submit]")
	b.run("created", chromedp.WaitVisible("#created-user pre", chromedp.ByQuery))
	if out := b.text("#created-user"); !strings.Contains(out, "on pro") || !regexp.MustCompile(`pt_[0-9A-Za-z]{32,}`).MatchString(out) {
		t.Errorf("created user shows %q, want the plan and the first token", out)
	}
	b.page("admin")
	b.run("upgrade", chromedp.SendKeys("#update-user input[name=user_id]", mustUserID(t, s, email), chromedp.ByQuery),
		chromedp.SetValue("#update-user select[name=new_plan]", "starter", chromedp.ByQuery))
	b.click("#update-user button[type=submit]")
	if out := b.text("#update-user [role=status]"); !strings.Contains(out, "starter") {
		t.Errorf("upgrade says %q", out)
	}
	b.signOut()

	// Tokens: shown once, listed, revoked. The webhook secret: revealed, rotated.
	b.signIn(email)
	b.goTo("#/account", "#new-token")
	b.click("#new-token button[type=submit]")
	minted := b.text("#new-token-value")
	if !strings.HasPrefix(minted, "pt_") {
		t.Fatalf("minted %q", minted)
	}
	if r := s.call(http.MethodGet, "/api/targets", minted, nil); r.status != http.StatusOK {
		t.Fatalf("the minted token: %d", r.status)
	}
	b.run("listed", chromedp.WaitVisible(`#tokens tr[data-token="ci"]`, chromedp.ByQuery))
	b.click("#reveal-secret")
	before := b.text("#secret-value")
	b.page("account")
	b.click(`#tokens tr[data-token="ci"] button`)
	b.confirm()
	b.run("revoked", chromedp.WaitNotPresent(`#tokens tr[data-token="ci"]`, chromedp.ByQuery))
	if r := s.call(http.MethodGet, "/api/targets", minted, nil); r.status != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d", r.status)
	}
	b.click("#rotate-secret")
	if msg := b.text("dialog[open] p"); !strings.Contains(msg, "stops working at once") {
		t.Errorf("rotation warning %q", msg)
	}
	b.confirm()
	b.run("rotated", chromedp.Poll(fmt.Sprintf(`document.querySelector('#secret-value').textContent !== %q`, before), nil, chromedp.WithPollingTimeout(10*time.Second)))
	if after := b.text("#secret-value"); !strings.HasPrefix(after, "whsec_") || after == before {
		t.Errorf("secret %q after %q", after, before)
	}

	// On Starter the PDF report downloads too.
	b.goTo("#/scans/"+scanID, `button[data-format=pdf]`)
	b.click(`button[data-format=pdf]`)
	if pdf := awaitFile(t, filepath.Join(b.download, scanID+".pdf")); !strings.HasPrefix(pdf, "%PDF-") {
		t.Errorf("downloaded PDF starts %.8q", pdf)
	}

	// Over the per-user limit the page says when to retry, as the API does.
	session, err := s.idp.SessionToken(email, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 70; i++ {
		if r := s.call(http.MethodGet, "/api/auth/me", session, nil); r.status == http.StatusTooManyRequests {
			break
		}
	}
	b.goTo("#/account", "#reveal-secret")
	b.click("#reveal-secret")
	if msg := b.text("#rate-note"); !rateNoteRE.MatchString(msg) {
		t.Errorf("429 shows %q, want %s (TestDashboardRetriesAfter429 follows the retry)", msg, rateNoteRE)
	}
	// Signing out abandons the waiting calls: no retry signs in again.
	b.signOut()
	var back bool
	b.run("still signed out", chromedp.Sleep(time.Second), chromedp.Evaluate(`document.querySelector('#rate-note').hidden && !!document.querySelector('#sign-in')`, &back))
	if !back {
		t.Error("after signing out the page still counts down a retry, or left the sign-in page")
	}
	if b.dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", b.dialogs.Load())
	}
}

// freePlanRules checks, on the free plan, that what the plan does not allow
// is disabled before the click, with the reason and the plan that allows it:
// schedules on the target's page, the deep tier of a new scan.
func freePlanRules(t *testing.T, b *browserTest) {
	t.Helper()
	b.click(`li[data-target="demo.test"] h3 a`)
	b.run("target page", chromedp.WaitVisible("#schedule form", chromedp.ByQuery))
	var create bool
	b.run("schedule button", chromedp.Evaluate(`document.querySelector('#schedule form button[type=submit]').disabled`, &create))
	if reason := b.text("#schedule .locked-reason"); !create || !strings.Contains(reason, "Starter plan") {
		t.Errorf("on free the schedule button is disabled: %v, reason %q; want disabled, naming the Starter plan", create, reason)
	}
	if trend := b.text("#trend"); !strings.Contains(trend, "after the first completed scan") {
		t.Errorf("an unscanned target's trend says %q", trend)
	}
	b.page("target-free")
	b.goTo("#/scans/new", "#new-scan")
	var deep struct {
		Disabled bool   `json:"disabled"`
		Text     string `json:"text"`
	}
	b.run("deep tier", chromedp.Evaluate(`(() => { const o = document.querySelector('#new-scan select[name=tier] option[value=deep]'); return {disabled: o.disabled, text: o.textContent}; })()`, &deep))
	if !deep.Disabled || !strings.Contains(deep.Text, "Pro plan") {
		t.Errorf("the deep tier on free: %+v, want disabled, naming the Pro plan", deep)
	}
	b.goTo("#/targets", "#add-target")
}

// freeAccountRules checks the account page on the free plan: the token
// button is disabled before the click, saying which plan allows tokens (the
// API would answer 403), and the webhook card names the signature header.
func freeAccountRules(t *testing.T, b *browserTest, s *stack, email string) {
	t.Helper()
	b.goTo("#/account", "#new-token")
	var locked bool
	b.run("token button", chromedp.Evaluate(`document.querySelector('#new-token button[type=submit]').disabled`, &locked))
	if msg := b.text("#token-locked"); !locked || !strings.Contains(msg, "Starter plan") {
		t.Errorf("on free the token button is disabled: %v, with the reason %q; want disabled, naming the Starter plan", locked, msg)
	}
	freeSession, err := s.idp.SessionToken(email, true)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.call(http.MethodPost, "/api/tokens", freeSession, map[string]any{"name": "ci"}); r.status != http.StatusForbidden {
		t.Errorf("a free user's token creation: %d, want 403", r.status)
	}
	if wh := b.text("section[aria-labelledby=wh-h]"); !strings.Contains(wh, "X-Service-Signature") {
		t.Errorf("the webhook card does not name the header: %q", wh)
	}

}

func mustUserID(t *testing.T, s *stack, email string) string {
	t.Helper()
	id, err := s.api.Store.UserIDByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// awaitFile waits for a browser download to land.
func awaitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if raw, err := os.ReadFile(path); err == nil && len(raw) > 0 {
			return string(raw)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no download at %s", path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Sessions end: with refresh tokens the page renews its session unseen;
// without them an ended session goes back through sign-in and returns to the
// page the user was on.
func TestDashboardSessionExpiry(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	s.idp.SetSessionTTL(2 * time.Second)
	b := newBrowser(t, s.base)
	email := uniqueEmail("expiry-")

	b.signIn(email)
	time.Sleep(3 * time.Second) // past the session's end
	b.goTo("#/targets", "#add-target")
	var loc string
	b.run("location", chromedp.Location(&loc))
	if !strings.HasSuffix(loc, "/#/targets") {
		t.Fatalf("a renewed session went to %s", loc)
	}
	b.signOut()

	s.idp.SetRefreshTokens(false)
	b.signIn(email)
	b.goTo("#/account", "#reveal-secret")
	time.Sleep(3 * time.Second)
	// The provider's own session signs the user in again without a page.
	b.click("#reveal-secret")
	b.run("back on the page", chromedp.WaitVisible("#reveal-secret", chromedp.ByQuery), chromedp.Location(&loc))
	if !strings.HasSuffix(loc, "/#/account") {
		t.Fatalf("after signing in again the user is at %s, want the account page they were on", loc)
	}
}

// A running scan is cancelled from its live view: the target answers slowly,
// so the scan is still running when the user confirms.
func TestDashboardCancelsARunningScan(t *testing.T) {
	t.Parallel()
	s := startStack(t, withWebPorts(slowsite.Start(t, "127.0.0.1:0", 500*time.Millisecond), closedPort(t)))
	s.dns.Add(t, "slow.test. 60 IN A 127.0.0.1")
	b := newBrowser(t, s.base)
	email := b.signInAsNew("cancel-")
	b.goTo("#/targets", "#add-target")
	b.run("add target", chromedp.SendKeys("#add-target input[name=target]", "slow.test", chromedp.ByQuery))
	b.click("#add-target button[type=submit]")
	token := regexp.MustCompile(`service-verify-[0-9A-Za-z]+`).FindString(b.text(`li[data-target="slow.test"] pre.instructions`))
	s.dns.Add(t, fmt.Sprintf("_service-challenge.slow.test. 60 IN TXT %q", token))
	b.click(`li[data-target="slow.test"] button.verify`)
	b.run("verified", chromedp.WaitVisible(`li[data-target="slow.test"] .state-verified`, chromedp.ByQuery))

	b.goTo("#/scans/new", "#new-scan")
	b.click("#new-scan button[type=submit]")
	b.run("running", chromedp.WaitVisible(".badge.status-running", chromedp.ByQuery))
	checkLiveView(t, b)
	b.page("scan-live")
	b.click("#cancel-scan")
	if msg := b.text("dialog[open] p"); !strings.Contains(msg, "stops after its current step") {
		t.Errorf("cancel confirmation says %q", msg)
	}
	var scanID string
	b.run("scan id", chromedp.Evaluate(`location.hash.split('/').pop()`, &scanID))
	detail := func() store.ScanDetail {
		d, err := s.api.Store.GetScanDetail(context.Background(), mustUserID(t, s, email), scanID)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	b.confirm()
	// The steps recorded once the page's cancel has reached the record: at
	// most the step in progress is added after that.
	before := -1
	for deadline := time.Now().Add(15 * time.Second); before < 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if d := detail(); d.Scan.CancelRequested || d.Scan.Status == scans.Cancelled {
			before = len(d.Steps)
		}
	}
	if before < 0 {
		t.Fatal("the page's cancel never reached the scan")
	}
	b.run("cancelled", chromedp.WaitVisible(".badge.status-cancelled", chromedp.ByQuery))
	b.page("scan-cancelled")
	if after := len(detail().Steps); after > before+1 {
		t.Errorf("%d steps recorded when the cancel reached the scan, %d in the end: want at most the one in progress", before, after)
	}
	var summaries int
	b.run("no summary", chromedp.Evaluate(`document.querySelectorAll('#sum-h').length`, &summaries))
	if summaries != 0 {
		t.Error("a cancelled scan shows a summary")
	}
	if live := b.text(".live"); !strings.Contains(live, "cancelled") {
		t.Errorf("live region says %q", live)
	}
}

// checkLiveView reads a running scan's page: a sticky header with what runs
// now (the record's current_step), the time so far and the credits, newest step first, and no empty
// callback line.
func checkLiveView(t *testing.T, b *browserTest) {
	t.Helper()
	var live struct {
		Seqs    []int  `json:"seqs"`
		Now     string `json:"now"`
		Elapsed string `json:"elapsed"`
		Credits string `json:"credits"`
		Head    string `json:"head"`
		Sticky  string `json:"sticky"`
	}
	b.run("two steps", chromedp.WaitVisible(`#steps li.step[data-seq="2"]`, chromedp.ByQuery), chromedp.Evaluate(`({
		seqs: [...document.querySelectorAll('#steps li.step')].map(e => Number(e.dataset.seq)),
		now: document.querySelector('#now-running') ? document.querySelector('#now-running').textContent : '',
		elapsed: document.querySelector('#elapsed').textContent, credits: document.querySelector('#live-credits').textContent,
		head: document.querySelector('.live-head').textContent, sticky: getComputedStyle(document.querySelector('.live-head')).position})`, &live))
	if len(live.Seqs) < 2 || live.Seqs[0] < live.Seqs[len(live.Seqs)-1] || live.Sticky != "sticky" {
		t.Errorf("live steps in the order %v (header %s), want newest first under a sticky header", live.Seqs, live.Sticky)
	}
	if !regexp.MustCompile(`^step \d+: [a-z_]+`).MatchString(live.Now) || !regexp.MustCompile(`^\d+ s$`).MatchString(live.Elapsed) ||
		!strings.Contains(live.Credits, " of ") || strings.Contains(live.Head, "Callback") {
		t.Errorf("live header: now %q, elapsed %q, credits %q; header %q", live.Now, live.Elapsed, live.Credits, live.Head)
	}
}

// wordsSplit lists the words of header cells, badges and other one-line
// cells (counts, ports, host names) that the layout broke across lines, and
// every header or badge that takes more than one line at all.
const wordsSplit = `(() => {
  const bad = [];
  // lines counts the lines that the text rectangles occupy: rectangles
  // that overlap vertically share a line.
  const lines = (rects) => {
    const tops = [];
    for (const r of rects) if (r.width > 0 && !tops.some((t) => r.top < t.bottom && r.bottom > t.top)) tops.push(r);
    return tops.length;
  };
  const textRects = (el) => {
    const out = [];
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const r = document.createRange();
      r.selectNodeContents(n);
      out.push(...r.getClientRects());
    }
    return out;
  };
  for (const el of document.querySelectorAll('main th, main .badge, main td.num, main .nw, #issues td.title a')) {
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue; // visually hidden
    const n = lines(textRects(el));
    if ((el.tagName === 'TH' || el.classList.contains('badge')) && n > 1) bad.push(el.tagName.toLowerCase() + ' on ' + n + ' lines: ' + el.textContent);
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      for (const m of t.data.matchAll(/\S+/g)) {
        const r = document.createRange();
        r.setStart(t, m.index);
        r.setEnd(t, m.index + m[0].length);
        if (lines(r.getClientRects()) > 1) bad.push(el.tagName.toLowerCase() + ' breaks ' + JSON.stringify(m[0]));
      }
    }
  }
  return bad;
})()`

// The finished scan shows issues, not rows: the issues table (severity,
// title, count, hosts) of a scan of the demo target, an issue's side panel
// with its own address (opened by click, by keyboard and by URL, closed by
// Escape and Back) listing its locations and their evidence, and columns
// that never break inside a word at 390 and 1280 px.
func TestDashboardIssues(t *testing.T) {
	t.Parallel()
	s, demo := demoStack(t)
	b := newBrowser(t, s.base)
	t.Logf("screenshots in %s", b.shots)
	email := b.signInAsNew("issues-")
	b.goTo("#/targets", "#add-target")
	b.run("add target", chromedp.SendKeys("#add-target input[name=target]", demo.Domain(), chromedp.ByQuery))
	b.click("#add-target button[type=submit]")
	token := regexp.MustCompile(`service-verify-[0-9A-Za-z]+`).FindString(b.text(`li[data-target="demo.test"] pre.instructions`))
	if err := demo.PublishChallenge(token); err != nil {
		t.Fatal(err)
	}
	b.click(`li[data-target="demo.test"] button.verify`)
	b.run("verified", chromedp.WaitVisible(`li[data-target="demo.test"] .state-verified`, chromedp.ByQuery))
	b.goTo("#/scans/new", "#new-scan")
	b.click("#new-scan button[type=submit]")
	b.run("issues", chromedp.WaitVisible("#issues tbody tr", chromedp.ByQuery))
	var scanID string
	b.run("scan id", chromedp.Evaluate(`location.hash.split('/').pop()`, &scanID))

	// Findings of a known CVE on two locations join the scan: one issue
	// whose key has a colon (escaped in its address).
	owner := mustUserID(t, s, email)
	detail, err := s.api.Store.GetScanDetail(context.Background(), owner, scanID)
	if err != nil {
		t.Fatal(err)
	}
	cve, cvss := "CVE-2021-41773", 7.5
	var seeded []scans.Finding
	for i, host := range []string{"demo.test", "www.demo.test"} {
		port := demo.HTTPSPort()
		seeded = append(seeded, scans.Finding{ID: fmt.Sprintf("fnd_cve%d", i), Check: "vuln.known-cve", Issue: scans.IssueKey("vuln.known-cve", &cve),
			Title: "Apache HTTP Server path traversal (CVE-2021-41773)", Severity: "high", Category: "vuln", Host: host, Port: &port, CVE: &cve, CVSS: &cvss,
			Confidence: "firm", Evidence: "GET /cgi-bin/.%2e/.%2e/etc/passwd on " + host + " answered 200", Description: "Apache 2.4.49 maps URLs outside the document root.",
			Remediation: "Upgrade Apache HTTP Server to 2.4.51 or later.", References: []string{"https://nvd.nist.gov/vuln/detail/CVE-2021-41773"}})
	}
	if _, err = s.api.Store.RecordStep(context.Background(), owner, scanID, scans.Step{Seq: len(detail.Steps) + 1, Tool: "vuln_check",
		Input: json.RawMessage(`{}`), Outcome: "2 findings", StartedAt: time.Now().UTC()}, seeded, time.Now()); err != nil {
		t.Fatal(err)
	}
	cveKey := scans.IssueKey("vuln.known-cve", &cve)
	b.goTo("#/scans", "main table tbody tr")
	b.goTo("#/scans/"+scanID, fmt.Sprintf(`#issues a[data-issue=%q]`, cveKey))

	// What the record says: each issue's locations (host:port) by key.
	if detail, err = s.api.Store.GetScanDetail(context.Background(), owner, scanID); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, f := range detail.Findings {
		key := f.Issue
		if key == "" {
			key = scans.IssueKey(f.Check, f.CVE)
		}
		loc := f.Host
		if f.Port != nil {
			loc += fmt.Sprintf(":%d", *f.Port)
		}
		want[key] = append(want[key], loc)
	}
	type row struct {
		Key, Title, Severity string
		Count                int
		Hosts                string
	}
	var rows []row
	b.run("read the table", chromedp.Evaluate(`[...document.querySelectorAll('#issues tbody tr[data-issue]')].map(tr => ({
		Key: tr.dataset.issue, Title: tr.querySelector('a').textContent, Severity: tr.querySelector('.badge').textContent,
		Count: Number(tr.querySelector('td.num').textContent), Hosts: tr.querySelector('td.hosts').textContent}))`, &rows))
	if len(rows) != len(want) || len(rows) == 0 {
		t.Fatalf("the table lists %d issues, the record's %d findings form %d", len(rows), len(detail.Findings), len(want))
	}
	t.Logf("%d findings, %d issues", len(detail.Findings), len(rows))
	var widest row
	for _, r := range rows {
		if r.Count != len(want[r.Key]) {
			t.Errorf("issue %s counts %d, the record has %d findings of it", r.Key, r.Count, len(want[r.Key]))
		}
		if r.Key == cveKey {
			widest = r
		}
	}
	if widest.Key == "" || widest.Count != 2 || widest.Hosts != "demo.test, www.demo.test" || widest.Severity != "high" {
		t.Fatalf("the CVE's issue in the table: %+v", widest)
	}
	sel := fmt.Sprintf(`#issues a[data-issue=%q]`, widest.Key)
	var hash string
	b.run("href", chromedp.AttributeValue(sel, "href", &hash, nil, chromedp.ByQuery))
	if hash != "#/scans/"+scanID+"/issues/vuln.known-cve%3ACVE-2021-41773" {
		t.Errorf("the issue's address is %s", hash)
	}

	// panelShows checks the open panel against the record.
	panelShows := func(how string) {
		t.Helper()
		var got struct {
			Hash      string   `json:"hash"`
			Title     string   `json:"title"`
			Locations []string `json:"locations"`
			Evidence  int      `json:"evidence"`
			Focus     bool     `json:"focus"`
		}
		b.run("panel "+how, chromedp.WaitVisible("#issue-panel[open] #issue-h", chromedp.ByQuery), chromedp.Evaluate(`({hash: location.hash,
			title: document.querySelector('#issue-h').textContent,
			locations: [...document.querySelectorAll('#issue-panel li[data-finding] > details > summary')].map(e => e.textContent),
			evidence: document.querySelectorAll('#issue-panel li[data-finding] pre.evidence').length,
			focus: document.querySelector('#issue-panel').contains(document.activeElement)})`, &got))
		if decoded, _ := url.PathUnescape(strings.TrimPrefix(got.Hash, "#/scans/"+scanID+"/issues/")); decoded != widest.Key {
			t.Errorf("%s: the panel's address is %s, want the issue %s", how, got.Hash, widest.Key)
		}
		if got.Title != widest.Title || !got.Focus {
			t.Errorf("%s: the panel shows %q (focus inside: %v), want %q with focus inside", how, got.Title, got.Focus, widest.Title)
		}
		if strings.Join(got.Locations, " ") != strings.Join(want[widest.Key], " ") || got.Evidence == 0 {
			t.Errorf("%s: the panel lists %v with %d evidence blocks, want %v", how, got.Locations, got.Evidence, want[widest.Key])
		}
	}
	closed := func(how string) {
		t.Helper()
		var loc string
		b.run("closed by "+how, chromedp.WaitNotPresent("#issue-panel[open]", chromedp.ByQuery), chromedp.Evaluate(`location.hash`, &loc))
		if loc != "#/scans/"+scanID {
			t.Errorf("closed by %s at %s, want the scan's address", how, loc)
		}
	}

	// By click; Tab stays in the panel; Escape closes it and focus returns
	// to the issue's link.
	b.click(sel)
	panelShows("by click")
	var inside bool
	b.run("tab around", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"),
		chromedp.Evaluate(`document.querySelector('#issue-panel').contains(document.activeElement)`, &inside))
	if !inside {
		t.Error("Tab leaves the open issue panel")
	}
	b.page("issue-panel")
	b.capture("issue-panel-view", "")
	b.run("escape", chromedp.KeyEvent(kb.Escape))
	closed("Escape")
	var refocused bool
	b.run("focus back", chromedp.Evaluate(fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, sel), &refocused))
	if !refocused {
		t.Error("after the panel closes, focus is not back on the issue's link")
	}

	// By keyboard (Enter on the focused link); Back closes it.
	b.run("enter", chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent("\r"))
	panelShows("by keyboard")
	b.run("back", chromedp.Evaluate(`history.back()`, nil))
	closed("Back")

	// Columns at both widths: no header, badge, count, port or host name
	// breaks inside a word, and the page itself never scrolls sideways.
	for _, width := range []int64{390, 1280} {
		var split []string
		var overflow int
		b.run(fmt.Sprint("layout at ", width), emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
			chromedp.Sleep(150*time.Millisecond),
			chromedp.Evaluate(wordsSplit, &split),
			chromedp.Evaluate(`document.documentElement.scrollWidth - window.innerWidth`, &overflow))
		if len(split) > 0 {
			t.Errorf("at %d px: %s", width, strings.Join(split, "; "))
		}
		if overflow > 0 {
			t.Errorf("at %d px the page scrolls sideways by %d px (wide tables scroll in their own box)", width, overflow)
		}
	}
	b.run("reset width", emulation.ClearDeviceMetricsOverride())
	b.page("scan-issues")
	b.capture("issues-table", `section[aria-labelledby="issues-h"]`)
	b.capture("surface-tables", `section[aria-labelledby="surf-h"]`)

	// By URL: a fresh page at the issue's address signs in again (silently,
	// through the provider's session) and opens it.
	b.run("open by URL", chromedp.Navigate("about:blank"), chromedp.Navigate(s.base+"/"+hash))
	panelShows("by URL")
	b.run("close button", chromedp.Click("#issue-panel .sheet-head button", chromedp.ByQuery))
	closed("its Close button")

	// An unknown key says so in the panel.
	b.goTo("#/scans/"+scanID+"/issues/"+url.PathEscape("no.such-check"), "#issue-panel[open] #issue-h")
	if h := b.text("#issue-h"); h != "Issue not found" {
		t.Errorf("an unknown issue shows %q", h)
	}

	// The scan's most severe issue: its proof with copy buttons, then a
	// retest from the panel, followed until it ends, location by location.
	b.goTo("#/scans/"+scanID, "#issues tbody tr")
	b.click("#issues tbody tr a[data-issue]")
	var proofs struct {
		Blocks  int `json:"blocks"`
		Buttons int `json:"buttons"`
	}
	b.run("proof", chromedp.WaitVisible("#issue-panel[open] #retest", chromedp.ByQuery), chromedp.Evaluate(`({
		blocks: document.querySelectorAll('#issue-panel details.proof').length,
		buttons: document.querySelectorAll('#issue-panel details.proof button').length})`, &proofs))
	if proofs.Blocks == 0 || proofs.Buttons < proofs.Blocks {
		t.Errorf("the most severe issue shows %d proofs with %d copy buttons, want each proof with its copy button", proofs.Blocks, proofs.Buttons)
	}
	b.click("#retest")
	b.run("retest ends", chromedp.WaitVisible("#retest-results li[data-outcome]", chromedp.ByQuery))
	if st := b.text("#retest-status"); !strings.Contains(st, "credits") {
		t.Errorf("retest status %q, want the outcome and its credits", st)
	}
	b.capture("retest", "#issue-panel")
}

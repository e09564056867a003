package localstack_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"secscan/shared/ids"
	"secscan/shared/ratelimit"
	"secscan/shared/store"
)

// fillLimit takes rule's free slots of the user's log, stamped at at, so
// that the next request is refused until the oldest of them leaves the
// window (at + the rule's window).
func fillLimit(t *testing.T, s *stack, userID string, rule ratelimit.Rule, at time.Time) {
	t.Helper()
	limit := ratelimit.Target{Key: store.UserKey(userID), MustExist: true}
	for i := 0; ; i++ {
		d, err := s.api.Auth.Limiter.Take(context.Background(), limit, rule, fmt.Sprintf("seed-%d-%d", at.UnixNano(), i), at)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed {
			return
		}
		if i > rule.Limit {
			t.Fatalf("the %s log admits more than %d", rule.Name, rule.Limit)
		}
	}
}

// rateNoteRE is the note the dashboard shows while it waits out a 429.
var rateNoteRE = regexp.MustCompile(`^Rate limited, retrying in (\d+) s$`)

// Over the API's limit of 60 requests per minute the dashboard retries a
// GET by itself after Retry-After, saying so ("Rate limited, retrying in
// N s") while it waits, and the page then loads; a POST without an
// idempotency key is never repeated (the user is told when to try again);
// a retry that would wait past the 60 s budget (the hourly limit of scan
// creations, whose POST carries an idempotency key) is not attempted.
func TestDashboardRetriesAfter429(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	b := newBrowser(t, s.base)
	email := b.signInAsNew("limited-")
	userID := mustUserID(t, s, email)
	now := time.Now().UTC()
	tgt := store.Target{ID: ids.New(ids.Target, now), UserID: userID, Domain: "limited.test", Method: "dns_txt",
		VerificationToken: "service-verify-0123456789abcdefghijkl", Verified: true, VerifiedAt: &now, CreatedAt: now}
	if err := s.api.Store.CreateTarget(context.Background(), tgt); err != nil {
		t.Fatal(err)
	}
	b.goTo("#/scans/new", "#new-scan")

	// A GET: the log is full of requests made 54 s ago, so the page's first
	// call is refused with a Retry-After of about 6 s.
	fillLimit(t, s, userID, ratelimit.Requests, time.Now().Add(-54*time.Second))
	started := time.Now()
	b.run("targets page", chromedp.Evaluate(`location.hash = '#/targets'`, nil))
	var note string
	b.run("the note", chromedp.WaitVisible("#rate-note", chromedp.ByQuery), chromedp.Text("#rate-note", &note, chromedp.ByQuery))
	m := rateNoteRE.FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("while waiting the page says %q, want %s", note, rateNoteRE)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || n > 7 {
		t.Errorf("the note counts down from %d s, want the Retry-After of about 6 s", n)
	}
	b.page("rate-limited")
	b.run("the page loads after the retry", chromedp.WaitVisible(`li[data-target="limited.test"]`, chromedp.ByQuery),
		chromedp.WaitNotVisible("#rate-note", chromedp.ByQuery))
	if waited := time.Since(started); waited < 3*time.Second || waited > 30*time.Second {
		t.Errorf("the page loaded after %v, want after the Retry-After of about 6 s", waited)
	}
	var alerts string
	b.run("no error", chromedp.Evaluate(`[...document.querySelectorAll('main .alert')].map(e => e.textContent).join(' ')`, &alerts))
	if strings.Contains(alerts, "Rate limit") {
		t.Errorf("after the retry the page still shows %q", alerts)
	}

	// A scan creation over the hourly limit: its POST carries an
	// idempotency key, but the Retry-After (about an hour) is past the
	// budget, so the page says when to try again at once.
	fillLimit(t, s, userID, ratelimit.ScanCreation, time.Now())
	b.goTo("#/scans/new", "#new-scan")
	b.click("#new-scan button[type=submit]")
	msg := b.text("#new-scan .alert")
	m = regexp.MustCompile(`Rate limit exceeded: 20 scans per hour\.? Try again in (\d+) s\.`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("over the hourly limit the form says %q", msg)
	}
	if n, _ := strconv.Atoi(m[1]); n <= 60 {
		t.Errorf("Retry-After %d s, want past the 60 s budget", n)
	}
	var hidden bool
	b.run("no retry note", chromedp.Evaluate(`document.querySelector('#rate-note').hidden`, &hidden))
	if !hidden {
		t.Error("a retry past the budget is announced")
	}

	// A POST without an idempotency key: refused once, never repeated, and
	// the user is told when to try again.
	b.goTo("#/targets", "#add-target")
	fillLimit(t, s, userID, ratelimit.Requests, time.Now())
	b.run("add a target", chromedp.SendKeys("#add-target input[name=target]", "second.test", chromedp.ByQuery))
	b.click("#add-target button[type=submit]")
	var state struct {
		Alert string `json:"alert"`
		Note  bool   `json:"note"`
	}
	b.run("refused", chromedp.Poll(`document.querySelector('#add-target .alert').textContent !== ''`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Sleep(1500*time.Millisecond),
		chromedp.Evaluate(`({alert: document.querySelector('#add-target .alert').textContent, note: !document.querySelector('#rate-note').hidden})`, &state))
	if !regexp.MustCompile(`Rate limit exceeded.*Try again in \d+ s`).MatchString(state.Alert) || state.Note {
		t.Errorf("a refused POST shows %q (retry note shown: %v), want when to try again and no retry", state.Alert, state.Note)
	}
	if _, err := s.api.Store.TargetByDomain(context.Background(), userID, "second.test"); err == nil {
		t.Error("the refused POST created the target")
	}
}

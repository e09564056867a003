package localstack_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// slowSite is a web server whose every answer takes 1.5 s (or until the
// client hangs up): a retest's calls against it are still running when the
// test cancels it. requests counts the requests it has received, so a test
// can wait for a call to be under way.
func slowSite(t *testing.T) (srv *httptest.Server, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>slow</title></head><body>slow</body></html>")
	}))
	t.Cleanup(slow.Close)
	return slow, requests
}

// From the issue panel, a running retest can be cancelled: the Cancel
// button shows while it runs, the retest ends "cancelled" with the credits
// of the calls it made, and the locations it did not reach say so.
func TestDashboardRetestCancel(t *testing.T) {
	t.Parallel()
	slow, _ := slowSite(t)
	s := startStack(t, withWebPorts(portOf(t, slow.URL), closedPort(t)))
	a := s.newAccount("starter", false)
	hosts := s.loopbackHosts("cancel-ui.test", 8)
	scanID := s.seedWebIssue(a, "cancel-ui.test", time.Now().UTC(), portOf(t, slow.URL), hosts...)
	before := s.monthCredits(a)

	b := newBrowser(t, s.base)
	b.signIn(a.user.Email)
	b.goTo("#/scans/"+scanID, "#issues tbody tr a[data-issue]")
	b.click("#issues tbody tr a[data-issue]")
	b.run("panel", chromedp.WaitVisible("#issue-panel[open] #retest", chromedp.ByQuery))
	if !b.hidden("#retest-cancel") {
		t.Error("the Cancel button shows before any retest runs")
	}
	b.click("#retest")
	b.run("running", chromedp.WaitVisible("#retest-cancel", chromedp.ByQuery))
	b.click("#retest-cancel")
	b.run("cancelled", chromedp.Poll(`document.querySelector('#retest-status').textContent.startsWith('Retest cancelled')`, nil,
		chromedp.WithPollingTimeout(60*time.Second)))
	status := b.text("#retest-status")
	var outcomes []string
	b.run("results", chromedp.Evaluate(`[...document.querySelectorAll('#retest-results li')].map(e => e.dataset.outcome + ' ' + e.textContent)`, &outcomes))
	notReached := 0
	for _, o := range outcomes {
		if strings.HasPrefix(o, "error ") && strings.Contains(o, "cancelled before this call") {
			notReached++
		}
	}
	used := s.monthCredits(a).Used - before.Used
	if !strings.Contains(status, fmt.Sprintf("%d credits for the calls already made", used)) || len(outcomes) != len(hosts) || notReached == 0 || used >= 5*len(hosts) {
		t.Errorf("after Cancel: %q, %d credits used, locations %q; want the cancelled retest's credits (fewer than all %d calls') and the locations not reached",
			status, used, outcomes, len(hosts))
	}
	if !b.hidden("#retest-cancel") {
		t.Error("the Cancel button still shows after the retest ended")
	}
	b.capture("retest-cancelled", "#issue-panel")
}

// loopbackHosts adds n names under domain (h0.domain, h1.domain, …) to the
// stack's DNS, each on 127.0.0.1, and returns them.
func (s *stack) loopbackHosts(domain string, n int) []string {
	var hosts []string
	for i := range n {
		h := fmt.Sprintf("h%d.%s", i, domain)
		s.dns.Add(s.t, h+". 60 IN A 127.0.0.1")
		hosts = append(hosts, h)
	}
	return hosts
}

// hidden reports whether the element sel is absent or not displayed.
func (b *browserTest) hidden(sel string) bool {
	b.t.Helper()
	var hidden bool
	b.run("is "+sel+" hidden", chromedp.Evaluate(fmt.Sprintf(`(e => !e || e.hidden || e.offsetParent === null)(document.querySelector(%q))`, sel), &hidden))
	return hidden
}

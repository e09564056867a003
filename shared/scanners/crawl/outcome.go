package crawl

import (
	"fmt"
	"net/http"
	"strings"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

func (c *crawler) result() tools.Result {
	findings := c.out.findings()
	htmlPages, listed := c.pageList()
	outcome := fmt.Sprintf("crawled %s (%d HTML) from %s, depth ≤ %d, %s read",
		plural(len(c.pages), "page"), htmlPages, httpprobe.Clean(c.start.String(), 200), c.maxDepth, kib(c.budget.spent()))
	if r := c.stopReason(); r != "" {
		outcome += "; stopped: " + r
	}
	if s := c.skipped.describe(); s != "" {
		outcome += "; not fetched: " + s
	}
	outcome += "; " + findingCounts(findings) + "; pages: " + list(listed) + c.laterNotes()
	return tools.Result{Outcome: httpprobe.Clean(outcome, 3000), Findings: findings, Services: c.services}
}

// laterNotes are the outcome's notes after the pages: the forms and
// scripts listed, failed requests, links dropped and the crawl's notes.
func (c *crawler) laterNotes() string {
	var outcome string
	if len(c.forms) > 0 {
		outcome += fmt.Sprintf("; %s: %s", plural(len(c.forms), "form"), list(c.forms))
	}
	if len(c.scripts) > 0 {
		outcome += fmt.Sprintf("; %s: %s", plural(len(c.scripts), "same-host script"), list(c.scripts))
	}
	c.mu.Lock()
	if c.failed > 0 {
		outcome += fmt.Sprintf("; %s failed (last: %s)", plural(c.failed, "request"), httpprobe.Describe(c.lastError))
	}
	c.mu.Unlock()
	if c.queued > 0 {
		outcome += fmt.Sprintf("; %d links dropped (queue limit %d)", c.queued, maxQueued)
	}
	for _, n := range c.notes {
		outcome += "; " + n
	}
	return outcome
}

// pageList is how many of the crawled pages are HTML, and each page as
// the outcome lists it (its status when not 200).
func (c *crawler) pageList() (htmlPages int, listed []string) {
	for _, p := range c.pages {
		if isHTML(p) {
			htmlPages++
		}
		item := c.short(p.URL)
		if p.Status != http.StatusOK {
			item += fmt.Sprintf(" (%d)", p.Status)
		}
		listed = append(listed, item)
	}
	return htmlPages, listed
}

// findingCounts says how many findings there are, by severity.
func findingCounts(findings []scans.Finding) string {
	if len(findings) == 0 {
		return "no findings"
	}
	return fmt.Sprintf("%s: %s", plural(len(findings), "finding"), scans.CountBySeverity(findings))
}

func (s skipCounts) describe() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{s.limit, "past the limits"},
		{s.robots, "disallowed by robots.txt"},
		{s.scope, "out of scope"},
		{s.depth, "past max_depth"},
		{s.static, "static files"},
		{s.actions, "action-like links (logout, delete…)"},
		{s.variants, "extra query variants"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// list names at most maxListed items.
func list(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" (+%d more)", len(items)-maxListed)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func kib(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

type skipCounts struct {
	robots, scope, static, actions, depth, variants, limit int
}

package crawl

import (
	"bufio"
	"bytes"
	"slices"
	"strings"

	"context"
	"fmt"
	"net/url"
	"secscan/shared/scanners/internal/httpprobe"
)

// robots.txt (RFC 9309) is parsed here rather than with a library: the
// module has none, and the crawl needs only the matching rules — group
// selection by product token, longest match wins, allow wins ties, '*'
// and '$' in patterns.

const (
	// maxRobotsRules bounds the rules kept from one robots.txt.
	maxRobotsRules = 1000
	// maxRobotsPattern bounds one rule's pattern.
	maxRobotsPattern = 512
)

// robotsRules are the rules of one origin that apply to the crawler.
type robotsRules struct {
	// disallowAll is set when robots.txt could not be read because the
	// server failed (5xx, or no answer): RFC 9309 section 2.3.1.4 says to
	// assume a complete disallow.
	disallowAll bool
	rules       []robotsRule
}

type robotsRule struct {
	allow   bool
	pattern string
}

// allowAll is the answer for an origin without robots.txt (4xx).
var allowAll = &robotsRules{}

// parseRobots reads the groups of a robots.txt and keeps the rules of the
// group(s) naming agent (a product token such as "secscan",
// case-insensitive), or else of the "*" group(s).
func parseRobots(body []byte, agent string) *robotsRules {
	groups := robotsGroups(body)
	agent = strings.ToLower(agent)
	named := func(a string) bool { return a == agent }
	if slices.ContainsFunc(groups, func(g *robotsGroup) bool { return slices.ContainsFunc(g.agents, named) }) {
		return pickRules(groups, named)
	}
	return pickRules(groups, func(a string) bool { return a == "*" })
}

// robotsGroup is a robots.txt group: its user agents (lower case) and
// rules.
type robotsGroup struct {
	agents []string
	rules  []robotsRule
}

// robotsGroups reads the groups of a robots.txt: consecutive user-agent
// lines start one, the allow and disallow lines after them are its rules
// (at most maxRobotsRules, patterns at most maxRobotsPattern long).
func robotsGroups(body []byte) []*robotsGroup {
	var r robotsReader
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		if key, value, ok := robotsLine(sc.Text()); ok {
			r.line(key, value)
		}
	}
	return r.groups
}

// robotsLine splits a robots.txt line into its lower-case key and its
// value, without comment; ok is false for a line without a key.
func robotsLine(text string) (key, value string, ok bool) {
	line, _, _ := strings.Cut(text, "#")
	key, value, ok = strings.Cut(line, ":")
	return strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value), ok
}

// robotsReader is the state of robotsGroups between lines.
type robotsReader struct {
	groups   []*robotsGroup
	cur      *robotsGroup
	inAgents bool // the previous meaningful line was a user-agent line
}

// line reads one key: value line.
func (r *robotsReader) line(key, value string) {
	switch key {
	case "user-agent":
		r.agent(value)
	case "allow", "disallow":
		r.inAgents = false
		r.rule(key == "allow", value)
	default:
		// Sitemap, Crawl-delay and unknown keys do not end a group's
		// user-agent list in practice, but they are not rules either.
	}
}

// agent reads a user-agent line: consecutive ones name the agents of one
// group.
func (r *robotsReader) agent(value string) {
	if !r.inAgents || r.cur == nil {
		r.cur = &robotsGroup{}
		r.groups = append(r.groups, r.cur)
	}
	r.cur.agents = append(r.cur.agents, strings.ToLower(value))
	r.inAgents = true
}

// rule adds an allow or disallow rule to the current group, if any, within
// the bounds; an empty pattern ("Disallow:" with no path allows
// everything) is no rule.
func (r *robotsReader) rule(allow bool, pattern string) {
	if cur := r.cur; cur != nil && len(cur.rules) < maxRobotsRules && len(pattern) <= maxRobotsPattern && pattern != "" {
		cur.rules = append(cur.rules, robotsRule{allow: allow, pattern: pattern})
	}
}

// pickRules unites the rules of the groups with an agent that matches, at
// most maxRobotsRules.
func pickRules(groups []*robotsGroup, match func(string) bool) *robotsRules {
	out := &robotsRules{}
	for _, g := range groups {
		if slices.ContainsFunc(g.agents, match) {
			out.rules = append(out.rules, g.rules...)
		}
	}
	if len(out.rules) > maxRobotsRules {
		out.rules = out.rules[:maxRobotsRules]
	}
	return out
}

// allowed reports whether the crawler may fetch path (the escaped path
// with its query, e.g. "/a/b?c=d").
func (r *robotsRules) allowed(path string) bool {
	if r.disallowAll {
		return false
	}
	best, allow := -1, true
	for _, rule := range r.rules {
		if !robotsMatch(rule.pattern, path) {
			continue
		}
		n := len(rule.pattern)
		if n > best || (n == best && rule.allow) {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// robotsMatch matches path against a robots.txt pattern: a prefix match
// where '*' matches any run of characters and a final '$' anchors the end.
// Greedy leftmost matching of the literal segments is exact for patterns
// whose only wildcard is '*', and linear in the path per segment.
func robotsMatch(pattern, path string) bool {
	pattern, anchored := strings.CutSuffix(pattern, "$")
	segments := strings.Split(pattern, "*")
	first, rest := segments[0], segments[1:]
	if !strings.HasPrefix(path, first) {
		return false
	}
	return matchSegments(path[len(first):], rest, anchored)
}

// matchSegments matches what follows a pattern's first literal segment:
// tail, the rest of the path, against the segments that follow each '*'
// (none: the pattern had no '*', and tail must be empty when anchored).
func matchSegments(tail string, segments []string, anchored bool) bool {
	if len(segments) == 0 {
		return !anchored || tail == ""
	}
	last := segments[len(segments)-1]
	for _, seg := range segments[:len(segments)-1] {
		i := strings.Index(tail, seg)
		if i < 0 {
			return false
		}
		tail = tail[i+len(seg):]
	}
	if anchored {
		return strings.HasSuffix(tail, last)
	}
	return strings.Contains(tail, last)
}

// robotsFor returns the robots.txt rules of u's origin, fetching them the
// first time the origin is met.
func (c *crawler) robotsFor(ctx context.Context, u *url.URL) *robotsRules {
	origin := httpprobe.Origin(u)
	key := normalize(origin)
	if r, ok := c.robots[key]; ok {
		return r
	}
	robotsURL := *origin
	robotsURL.Path = "/robots.txt"
	resp, err := c.fetchRobots(ctx, &robotsURL)
	rules, note := robotsAnswer(resp, err)
	if note != "" {
		c.notes = append(c.notes, robotsURL.String()+" "+note+": nothing more crawled there")
	}
	c.robots[key] = rules
	return rules
}

// fetchRobots fetches a robots.txt within the byte budget (errBudget when
// it is spent).
func (c *crawler) fetchRobots(ctx context.Context, u *url.URL) (*httpprobe.Response, error) {
	reserved := c.budget.reserve(robotsBytes)
	if reserved <= 0 {
		return nil, errBudget
	}
	resp, err := c.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: reserved})
	used := int64(0)
	if err == nil {
		used = int64(len(resp.Body))
	}
	c.budget.refund(reserved - used)
	return resp, err
}

// robotsAnswer are the rules a robots.txt fetch gives, and why nothing
// more is crawled at the origin when that is the answer ("" otherwise).
func robotsAnswer(resp *httpprobe.Response, err error) (*robotsRules, string) {
	switch {
	case err != nil:
		// RFC 9309 2.3.1.4: an unreachable robots.txt means a complete
		// disallow.
		return &robotsRules{disallowAll: true}, fmt.Sprintf("could not be read (%s)", httpprobe.Describe(err))
	case resp.Status >= 500:
		return &robotsRules{disallowAll: true}, fmt.Sprintf("answered %d", resp.Status)
	case resp.Status >= 200 && resp.Status < 300:
		return parseRobots(resp.Body, robotsAgent), ""
	}
	return allowAll, ""
}

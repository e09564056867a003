package report_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// hostileTexts are target-supplied strings that try every trick the
// renderers must defuse: HTML, Markdown links and images, autolinks, block
// syntax at the start of a line, table pipes, code fences, entities, escapes.
var hostileTexts = []string{
	hostile,
	"line\n# heading\n- item\n1. one\n> quote\n===\n---\n    indented\n```\n~~~\n<div>",
	`<img src=x onerror=alert(1)> <a href="javascript:alert(1)">x</a> &lt;b&gt; &amp; <!-- c --> <style>*{}</style>`,
	"![img](https://evil.example/i.png) [ref]: https://evil.example www.evil.example https://evil.example/p a@evil.example <https://evil.example>",
	"\\[x\\](y) \\| `` ` `` $x$ ~~strike~~ *em* _em_ {attr} \\",
	"\"quoted' attr=\"x\" onmouseover=\"alert(1)\" ]]> </title></textarea></pre>",
}

// hostileReport puts hostile text in every field that can carry target text,
// each value tagged with its field name so that tests can find it again.
func hostileReport(watermarked bool) (report.Report, []string) {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	var visible []string
	tag := func(field string, k int, h string) string {
		v := fmt.Sprintf("%s%d %s", field, k, h)
		visible = append(visible, v)
		return v
	}
	sc := scans.Scan{
		ID: "scn_hostile", Target: "evil.example", Type: scans.Full, Tier: "quick", Status: scans.Completed,
		CreditsUsed: 1, MaxCredits: 50, CreatedAt: at, StartedAt: at, FinishedAt: at.Add(time.Minute),
		Summary: &scans.Summary{RiskRating: scans.RiskHigh, Summary: tag("summary", 0, hostileTexts[1])},
	}
	var findings []scans.Finding
	var steps []scans.Step
	for k, h := range hostileTexts {
		sc.Summary.AttackChains = append(sc.Summary.AttackChains, tag("chain", k, h))
		findings = append(findings, scans.Finding{
			ID: fmt.Sprintf("fnd_%d", k), Severity: scans.Severities[k%len(scans.Severities)], Category: scans.CategoryWeb,
			Title: tag("title", k, h), Host: tag("host", k, h), Port: ptr(80 + k),
			Evidence: tag("evidence", k, h), Description: tag("description", k, h), Remediation: tag("remediation", k, h),
			References: []string{tag("reference", k, h), "javascript:alert(1)", "http://plain.example/", "https://ok.example/\"><script>x</script>"},
			CWE:        ptr(tag("cwe", k, h)), CVE: ptr(tag("cve", k, h)), CVSS: ptr(9.8),
		})
		input, _ := json.Marshal(map[string]string{"host": "input" + fmt.Sprint(k) + " " + h})
		steps = append(steps, scans.Step{
			Seq: k + 1, Tool: tag("tool", k, h), Input: input, Outcome: "Refused: " + tag("outcome", k, h), Credits: 1, StartedAt: at,
			Services: []scans.Service{{Host: tag("svchost", k, h), Port: 1000 + k, Name: tag("svcname", k, h), Banner: tag("banner", k, h)}},
		})
	}
	// An unknown severity must not become a class name or break the tables.
	findings = append(findings, scans.Finding{ID: "fnd_odd", Severity: scans.Severity(hostile), Category: scans.Category(hostile), Title: "odd severity", Host: "evil.example"})
	r := report.Build(report.Input{Scan: sc, Findings: findings, Steps: steps, Watermarked: watermarked, GeneratedAt: at})
	return r, visible
}

// mdParts splits rendered Markdown into the text outside code (still with
// its escapes) and the verbatim content of fenced code blocks and code spans.
func mdParts(t *testing.T, md string) (outside, code string) {
	t.Helper()
	var out, cb strings.Builder
	fence := ""
	for line := range strings.Lines(md) {
		line = strings.TrimSuffix(line, "\n")
		if fence != "" {
			if strings.TrimSpace(line) == fence {
				fence = ""
				cb.WriteString("\n")
			} else {
				cb.WriteString(line + "\n")
			}
			continue
		}
		if m := regexp.MustCompile("^(`{3,})").FindString(line); m != "" {
			fence = m
			continue
		}
		// Code spans: an unescaped run of n backticks up to the next run of n.
		for i := 0; i < len(line); {
			if line[i] != '`' || escapedAt(line, i) {
				out.WriteByte(line[i])
				i++
				continue
			}
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			closeAt := -1
			for j := i + n; j < len(line); {
				if line[j] != '`' {
					j++
					continue
				}
				m := 0
				for j+m < len(line) && line[j+m] == '`' {
					m++
				}
				if m == n {
					closeAt = j
					break
				}
				j += m
			}
			if closeAt < 0 {
				t.Fatalf("unclosed code span in line %q", line)
			}
			content := line[i+n : closeAt]
			if len(content) > 2 && content[0] == ' ' && content[len(content)-1] == ' ' {
				content = content[1 : len(content)-1]
			}
			cb.WriteString(content + "\n")
			out.WriteString("CODE")
			i = closeAt + n
		}
		out.WriteByte('\n')
	}
	if fence != "" {
		t.Fatalf("unclosed code fence %q", fence)
	}
	return out.String(), cb.String()
}

// escapedAt reports whether the byte at i is preceded by an odd number of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

var mdEscape = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

// mdVisible is what a reader sees of Markdown text: escapes and entities
// resolved, white space collapsed; code kept verbatim.
func mdVisible(t *testing.T, md []byte) string {
	outside, code := mdParts(t, string(md))
	return oneSpace(stdhtml.UnescapeString(mdEscape.ReplaceAllString(outside, "$1")) + "\n" + code)
}

// htmlVisible is the text content of an HTML page, white space collapsed.
func htmlVisible(t *testing.T, page []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	var b strings.Builder
	for n := range doc.Descendants() {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "style") {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
	}
	return oneSpace(b.String())
}

// csvVisible is every cell of a CSV file, one per line.
func csvVisible(t *testing.T, data []byte) string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("read CSV: %v", err)
	}
	var b strings.Builder
	for _, row := range rows {
		for _, c := range row {
			b.WriteString(c + "\n")
		}
	}
	return oneSpace(b.String())
}

func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestMarkdownHTMLCSVKeyFacts is the golden-content test: the facts a reader
// needs appear in every format (CSV carries the findings only).
func TestMarkdownHTMLCSVKeyFacts(t *testing.T) {
	t.Parallel()
	r := sample(false)
	var story []string // what Markdown and HTML both tell
	story = append(story,
		"shop.example.com", "scn_01JABCDEFGHJKMNPQRSTVWXYZ0", "Full", "Standard", "37 of 200",
		"2026-11-20 09:30:00 UTC", "2026-11-20 09:31:35 UTC", "2026-11-21 09:30:00 UTC",
		"CRITICAL", "6 findings: 1 critical, 1 high, 2 medium, 1 low, 1 info",
		r.Summary.Summary, r.Summary.AttackChains[0],
		"dns_check", "port_scan", "http_check", "ftp", hostile,
		"Severity breakdown", "Coverage", "Not tested", "Appendix: agent steps", "SPF +all; 1 finding", "2.6 s",
		"Upgrade to 2.4.51 or later.", "CWE-527", "https://nvd.nist.gov/vuln/detail/CVE-2021-41773", "https://example.com/a?b=<c>",
	)
	story = append(story, r.Coverage.NotTested...)
	var findings []string // what every format tells
	for _, f := range r.Findings {
		findings = append(findings, oneSpace(f.Title), f.ID)
	}
	findings = append(findings, "CVE-2021-41773", "7.5", hostile, "www.shop.example.com")

	formats := []struct {
		name    string
		render  func(report.Report) []byte
		visible func(*testing.T, []byte) string
		facts   []string
		marked  bool // carries the watermark on the free plan
	}{
		{"Markdown", report.Markdown, mdVisible, slices.Concat(story, findings), true},
		{"HTML", report.HTML, htmlVisible, slices.Concat(story, findings), true},
		{"CSV", report.CSV, csvVisible, findings, false},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			paid := f.visible(t, f.render(sample(false)))
			for _, fact := range f.facts {
				if !strings.Contains(paid, oneSpace(fact)) {
					t.Errorf("%s lacks %q", f.name, fact)
				}
			}
			if strings.Contains(paid, report.Watermark) {
				t.Errorf("paid-plan %s carries the watermark", f.name)
			}
			free := f.visible(t, f.render(sample(true)))
			if got := strings.Count(free, report.Watermark); f.marked && got < 2 {
				t.Errorf("free-plan %s shows the watermark %d times, want top and bottom", f.name, got)
			}
		})
	}
}

func TestMarkdownWatermarkTopAndBottom(t *testing.T) {
	t.Parallel()
	md := strings.TrimSpace(string(report.Markdown(sample(true))))
	lines := strings.Split(md, "\n")
	if !strings.Contains(lines[0], report.Watermark) {
		t.Errorf("first line %q lacks the watermark", lines[0])
	}
	if !strings.Contains(strings.Join(lines[len(lines)-3:], "\n"), report.Watermark) {
		t.Errorf("last lines %q lack the watermark", lines[len(lines)-3:])
	}
}

// TestMarkdownEscapesHostileText renders hostile text in every field and
// checks that it made no HTML, link, image, autolink, heading or table cell,
// and that a reader still sees it exactly.
func TestMarkdownEscapesHostileText(t *testing.T) {
	t.Parallel()
	hr, tagged := hostileReport(true)
	cases := []struct {
		name    string
		r       report.Report
		visible []string
	}{
		{"sample", sample(true), []string{hostile}},
		{"hostile everywhere", hr, tagged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			md := string(report.Markdown(c.r))
			outside, _ := mdParts(t, md)
			if i := strings.IndexByte(outside, '<'); i >= 0 {
				t.Errorf("raw '<' outside code: %q", outside[max(0, i-40):min(len(outside), i+40)])
			}
			// GFM and linkify autolink "scheme://", "www." and "a@b.c"; an
			// escaped ':', '.' or '@' is not part of a link.
			for i := range len(outside) {
				if rest := outside[i:]; (strings.HasPrefix(rest, "://") || strings.HasPrefix(rest, "www.") || strings.HasPrefix(rest, "@evil")) && !escapedAt(outside, i) {
					t.Errorf("%q outside code could autolink", rest[:min(len(rest), 30)])
				}
			}
			for i := range len(outside) {
				if strings.IndexByte("[]`*_~|", outside[i]) >= 0 && !escapedAt(outside, i) && !mdOwnSyntax(outside, i) {
					t.Errorf("unescaped %q outside code: %q", outside[i], outside[max(0, i-40):min(len(outside), i+40)])
					break
				}
			}
			checkMarkdownTables(t, outside)
			checkMarkdownHeadings(t, outside, len(c.r.Findings))
			visible := mdVisible(t, []byte(md))
			for _, v := range c.visible {
				if !strings.Contains(visible, oneSpace(v)) {
					t.Errorf("reader does not see %q", v)
				}
			}
		})
	}
}

// mdOwnSyntax reports whether the character at i is the renderer's own
// syntax: bold markers, table pipes and the delimiter row.
func mdOwnSyntax(s string, i int) bool {
	lineStart := strings.LastIndexByte(s[:i], '\n') + 1
	lineEnd := strings.IndexByte(s[i:], '\n')
	line := s[lineStart : i+lineEnd]
	switch s[i] {
	case '|':
		return strings.HasPrefix(line, "|")
	case '*':
		return strings.Contains(line, "**") && (strings.HasPrefix(s[i:], "**") || strings.HasSuffix(s[:i+1], "**"))
	}
	return false
}

// checkMarkdownTables asserts that every row of a table has as many
// unescaped '|' as its header: nothing from the target added a cell.
func checkMarkdownTables(t *testing.T, outside string) {
	t.Helper()
	want, tables := -1, 0
	for _, line := range strings.Split(outside, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		pipes := 0
		for i := range len(line) {
			if line[i] == '|' && !escapedAt(line, i) {
				pipes++
			}
		}
		if want < 0 {
			want, tables = pipes, tables+1
		} else if pipes != want {
			t.Errorf("table row has %d cells' pipes, header %d: %q", pipes, want, line)
		}
		if !strings.HasSuffix(line, " |") && !strings.HasSuffix(line, "-- |") && !strings.HasSuffix(line, ": |") {
			t.Errorf("table row does not end its last cell: %q", line)
		}
	}
	if tables < 4 {
		t.Errorf("found %d tables, want cover, breakdown, findings and more", tables)
	}
}

// checkMarkdownHeadings asserts that the only headings are the renderer's.
func checkMarkdownHeadings(t *testing.T, outside string, findings int) {
	t.Helper()
	got := map[string]int{}
	for _, line := range strings.Split(outside, "\n") {
		if h, _, ok := strings.Cut(line, " "); ok && strings.Trim(h, "#") == "" && h != "" {
			got[h]++
		}
		if strings.HasPrefix(strings.TrimLeft(line, " "), "=") || strings.HasPrefix(line, ">") && !strings.HasPrefix(line, "> **") && !strings.HasPrefix(line, "> This report") {
			t.Errorf("line could be a setext heading or a quote: %q", line)
		}
	}
	want := map[string]int{"#": 1, "##": 7, "###": 5 + findings}
	for h, n := range want {
		if got[h] != n {
			t.Errorf("%d %q headings, want %d", got[h], h, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("heading levels %v, want %v", got, want)
	}
}

func TestMarkdownEvidenceFenceOutlastsBackticks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		evidence string
		fence    string
	}{
		{"plain", "```"},
		{"one ` tick", "```"},
		{"a\n```\nclosing attempt", "````"},
		{"five ````` and ``` three", "``````"},
		{"~~~\ntilde", "```"},
	}
	for _, c := range cases {
		t.Run(c.evidence, func(t *testing.T) {
			t.Parallel()
			r := report.Build(report.Input{
				Scan:     scans.Scan{ID: "scn_x", Target: "x.example", Type: scans.Web},
				Findings: []scans.Finding{{ID: "f", Title: "t", Severity: scans.Low, Evidence: c.evidence}},
			})
			md := string(report.Markdown(r))
			open := "\n" + c.fence + "text\n" + c.evidence + "\n" + c.fence + "\n"
			if !strings.Contains(md, open) {
				t.Errorf("evidence not fenced by %q:\n%s", c.fence, md)
			}
		})
	}
}

func TestMarkdownFindingsTableSortedBySeverity(t *testing.T) {
	t.Parallel()
	md := string(report.Markdown(sample(false)))
	_, table, _ := strings.Cut(md, "| # | Severity | Confidence | Title |")
	table, _, _ = strings.Cut(table, "\n\n")
	var order []string
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(line, " | ")
		order = append(order, strings.Fields(cells[1])[1])
	}
	want := []string{"Critical", "High", "Medium", "Medium", "Low", "Info"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("severity order %v, want %v", order, want)
	}
}

func BenchmarkMarkdown(b *testing.B) {
	r := large(1000, 200)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(report.Markdown(r))
	}
	b.ReportMetric(float64(n), "bytes/report")
}

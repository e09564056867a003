package report_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
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
		if field == "description" || field == "remediation" {
			// Catalogue text: its code spans show as code, without backticks.
			visible = append(visible, report.PlainText(v))
		} else {
			visible = append(visible, v)
		}
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

// mdRender renders Markdown as GitHub would (CommonMark with the GFM
// extensions: tables, strikethrough, autolinks, task lists) with goldmark,
// raw HTML passed through, so that anything the text smuggles in shows.
func mdRender(t *testing.T, md []byte) *html.Node {
	t.Helper()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	var out bytes.Buffer
	if err := gm.Convert(md, &out); err != nil {
		t.Fatalf("render Markdown: %v", err)
	}
	doc, err := html.Parse(&out)
	if err != nil {
		t.Fatalf("parse rendered Markdown: %v", err)
	}
	return doc
}

// mdVisible is what a reader sees of Markdown: the text of its rendering
// by a CommonMark library, white space collapsed.
func mdVisible(t *testing.T, md []byte) string {
	t.Helper()
	var b strings.Builder
	for n := range mdRender(t, md).Descendants() {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
	}
	return oneSpace(b.String())
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
		"CRITICAL", "14 findings: 1 critical, 1 high, 2 medium, 9 low, 1 info", "7 issues: 1 critical, 1 high, 2 medium, 2 low, 1 info",
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

// mdElements are the elements the renderer's own Markdown makes.
var mdElements = []string{"html", "head", "body", "h1", "h2", "h3", "p", "strong", "blockquote", "table", "thead", "tbody", "tr", "th", "td",
	"ul", "ol", "li", "code", "pre", "hr", "br"}

// TestMarkdownEscapesHostileText renders hostile text in every field with a
// CommonMark library and checks that it made no HTML, link, image,
// autolink, heading, emphasis or table cell of its own, and that a reader
// sees exactly the source values.
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
			md := report.Markdown(c.r)
			doc := mdRender(t, md)
			headings := map[string]int{}
			for n := range doc.Descendants() {
				if n.Type != html.ElementNode {
					continue
				}
				if !slices.Contains(mdElements, n.Data) {
					t.Errorf("the Markdown made a <%s> element", n.Data)
				}
				headings[n.Data]++
				// Table cells: each row has as many cells as its header.
				if n.Data == "tr" {
					cells := 0
					for ch := range n.ChildNodes() {
						if ch.Type == html.ElementNode {
							cells++
						}
					}
					if hdr := mdHeaderCells(n); cells != hdr {
						t.Errorf("a table row has %d cells, its header %d", cells, hdr)
					}
				}
			}
			// h2: summary, scope, plan, severity, issues, coverage and the two
			// appendices; h3: attack chains, four coverage parts and each issue once.
			if want := map[string]int{"h1": 1, "h2": 8, "h3": 5 + len(c.r.Issues)}; headings["h1"] != want["h1"] || headings["h2"] != want["h2"] || headings["h3"] != want["h3"] {
				t.Errorf("headings h1 %d, h2 %d, h3 %d; want %v", headings["h1"], headings["h2"], headings["h3"], want)
			}
			visible := mdVisible(t, md)
			for _, v := range c.visible {
				if !strings.Contains(visible, oneSpace(v)) {
					t.Errorf("reader does not see %q", v)
				}
			}
		})
	}
}

// mdHeaderCells counts the cells of the header row of tr's table.
func mdHeaderCells(tr *html.Node) int {
	table := tr.Parent
	for table != nil && table.Data != "table" {
		table = table.Parent
	}
	if table == nil {
		return -1
	}
	for n := range table.Descendants() {
		if n.Type == html.ElementNode && n.Data == "tr" {
			cells := 0
			for ch := range n.ChildNodes() {
				if ch.Type == html.ElementNode {
					cells++
				}
			}
			return cells
		}
	}
	return -1
}

// TestMarkdownEscapesOnlyWhereNeeded: names, ids and CVEs stay readable in
// the raw file, and a CommonMark rendering shows each source value as is.
func TestMarkdownEscapesOnlyWhereNeeded(t *testing.T) {
	t.Parallel()
	r := sample(false)
	md := string(report.Markdown(r))
	for _, raw := range []string{"# Security scan report: shop.example.com", "scn_01JABCDEFGHJKMNPQRSTVWXYZ0", "CVE-2021-41773",
		"Apache HTTP Server: Path traversal (CVE-2021-41773)", "shop.example.com:443", "Ünïcödé — “quotes” and emoji 🔥"} {
		if !strings.Contains(md, raw) {
			t.Errorf("raw Markdown lacks %q unescaped", raw)
		}
	}
	cases := []string{
		"demo.secscan.test", "scn_01M86Z", "CVE-2021-42013", "snake_case_name", "_leading and trailing_", "a*b*c", "x **y** z",
		"# not a heading", "- not a list", "+ not a list", "1. not a list", "2026) not a list", "> not a quote", "=== not a heading",
		"a | b", "[x](https://evil.example)", "![i](https://evil.example/i.png)", "<b>bold</b>", "&amp; &lt; & &#65;",
		"https://evil.example/p", "www.evil.example", "mail a@evil.example", "~~strike~~", "$x$", "back\\slash \\*", "`code`",
		"e.g. this. And 3.5 + 4 = 7.5 (ok) {x} !bang",
	}
	for _, c := range cases {
		r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x", Target: "x.example", Type: scans.Web},
			Findings: []scans.Finding{{ID: "f", Title: c, Severity: scans.Low, Host: "h.example", Description: c, Remediation: c}}})
		md := report.Markdown(r)
		doc := mdRender(t, md)
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && !slices.Contains(mdElements, n.Data) {
				t.Errorf("%q made a <%s> element", c, n.Data)
			}
		}
		// The title as a heading, a table cell and a paragraph: each shows
		// exactly the source text.
		var texts []string
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && (n.Data == "h3" || n.Data == "td" || n.Data == "p") {
				texts = append(texts, oneSpace(nodeText(n)))
			}
		}
		for _, want := range []string{"1. " + c, c} {
			if !slices.Contains(texts, oneSpace(want)) {
				t.Errorf("%q: no heading, cell or paragraph reads %q (got %q)", c, want, texts)
			}
		}
	}
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
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

func TestMarkdownIssuesTableSortedBySeverity(t *testing.T) {
	t.Parallel()
	md := string(report.Markdown(sample(false)))
	_, table, _ := strings.Cut(md, "| # | Severity | Confidence | Title | Count |")
	table, _, _ = strings.Cut(table, "\n\n")
	var order []string
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(line, " | ")
		order = append(order, strings.Fields(cells[1])[1])
	}
	want := []string{"Critical", "High", "Medium", "Medium", "Low", "Low", "Info"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("severity order %v, want %v", order, want)
	}
}

func BenchmarkMarkdown(b *testing.B) { benchRender(b, report.Markdown) }

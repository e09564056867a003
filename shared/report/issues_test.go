package report_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"secscan/shared/report"
	"secscan/shared/report/reporttest"
	"secscan/shared/scans"
)

// TestDemoShapedFixture: the fixture the page and speed figures are taken
// on has the demo's shape, 157 findings in 59 issues, every finding in
// exactly one issue and the CSP issue on the eight host names of one server.
func TestDemoShapedFixture(t *testing.T) {
	t.Parallel()
	r := reporttest.Demo()
	if len(r.Findings) != 157 || len(r.Issues) != 59 {
		t.Fatalf("demo: %d findings in %d issues, want 157 in 59", len(r.Findings), len(r.Issues))
	}
	seen := map[string]int{}
	total := 0
	for _, is := range r.Issues {
		total += is.Count
		if is.Count != len(is.Findings) || is.Count != len(is.Locations) {
			t.Errorf("%s: count %d, %d findings, %d locations", is.Key, is.Count, len(is.Findings), len(is.Locations))
		}
		for _, f := range is.Findings {
			seen[f.ID]++
			if f.Issue != is.Key {
				t.Errorf("finding %s (issue %s) listed under %s", f.ID, f.Issue, is.Key)
			}
		}
	}
	if total != 157 || len(seen) != 157 {
		t.Errorf("issues hold %d findings (%d distinct), want 157", total, len(seen))
	}
	for i, n := range r.IssueOf {
		if n < 1 || r.Issues[n-1].Key != r.Findings[i].Issue {
			t.Errorf("finding %s: IssueOf %d", r.Findings[i].ID, n)
		}
	}
	csp := issueByKey(r, "web.header.csp")
	var hosts []string
	for _, l := range csp.Locations {
		hosts = append(hosts, l.Host)
	}
	slices.Sort(hosts)
	if want := slices.Sorted(slices.Values(reporttest.DemoHosts)); !slices.Equal(hosts, want) {
		t.Errorf("CSP issue on %q, want the eight names %q", hosts, want)
	}
	if big := reporttest.Large(1000, 200); len(big.Findings) != 1000 || len(big.Issues) != 59 || len(big.Steps) != 200 {
		t.Errorf("Large(1000, 200): %d findings, %d issues, %d steps", len(big.Findings), len(big.Issues), len(big.Steps))
	}
}

func issueByKey(r report.Report, key string) report.Issue {
	for _, is := range r.Issues {
		if is.Key == key {
			return is
		}
	}
	return report.Issue{}
}

// TestEachIssueOnceInMarkdownAndHTML counts the issue headings: every issue
// has exactly one, in the record's order, with its count; its section lists
// every location on a line of its own, shows the evidence of at most three
// and says "and N more" for the rest; every finding is in the appendix.
func TestEachIssueOnceInMarkdownAndHTML(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]report.Report{"demo": reporttest.Demo(), "sample": sample(false)} {
		t.Run(name+"/Markdown", func(t *testing.T) {
			t.Parallel()
			doc := mdRender(t, report.Markdown(r))
			var headings []string
			for n := range doc.Descendants() {
				if n.Type == html.ElementNode && n.Data == "h3" {
					headings = append(headings, oneSpace(nodeText(n)))
				}
			}
			checkIssueHeadings(t, r, headings)
			sections := mdSections(t, doc)
			for i, is := range r.Issues {
				checkIssueSection(t, is, sections[i], "Markdown")
			}
			checkAppendix(t, r, mdVisible(t, report.Markdown(r)))
		})
		t.Run(name+"/HTML", func(t *testing.T) {
			t.Parallel()
			page := report.HTML(r)
			doc, err := html.Parse(bytes.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			var headings []string
			var articles []*html.Node
			for n := range doc.Descendants() {
				if n.Type == html.ElementNode && n.Data == "article" {
					articles = append(articles, n)
					for h := range n.Descendants() {
						if h.Type == html.ElementNode && h.Data == "h3" {
							headings = append(headings, strings.Replace(oneSpace(nodeText(h)), ". "+htmlBadge(h)+" ", ". ", 1))
						}
					}
				}
			}
			checkIssueHeadings(t, r, headings)
			if len(articles) != len(r.Issues) {
				t.Fatalf("%d issue articles, want %d", len(articles), len(r.Issues))
			}
			for i, is := range r.Issues {
				sec := issueSection{text: oneSpace(nodeText(articles[i]))}
				for n := range articles[i].Descendants() {
					if n.Type == html.ElementNode && n.Data == "pre" {
						sec.evidence++
					}
				}
				checkIssueSection(t, is, sec, "HTML")
			}
			checkAppendix(t, r, htmlVisible(t, page))
		})
	}
}

// htmlBadge is the severity badge inside an issue heading.
func htmlBadge(h *html.Node) string {
	for n := range h.Descendants() {
		if n.Type == html.ElementNode && n.Data == "span" && slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "class" && a.Val == "badge" }) {
			return nodeText(n)
		}
	}
	return ""
}

// checkIssueHeadings: one heading per issue, "N. Title", in order; no
// title has a second heading.
func checkIssueHeadings(t *testing.T, r report.Report, headings []string) {
	t.Helper()
	var got []string
	for _, h := range headings {
		if m := regexp.MustCompile(`^\d+\. `).FindString(h); m != "" {
			got = append(got, h)
		}
	}
	var want []string
	for i, is := range r.Issues {
		want = append(want, strconv.Itoa(i+1)+". "+oneSpace(is.Title))
	}
	if !slices.Equal(got, want) {
		t.Errorf("issue headings (%d):\n%q\nwant (%d):\n%q", len(got), got, len(want), want)
	}
}

type issueSection struct {
	text     string
	evidence int // evidence blocks shown
}

// mdSections cuts the rendered Markdown into the text of each issue's
// section (from its h3 to the next heading) and counts its code blocks.
func mdSections(t *testing.T, doc *html.Node) []issueSection {
	t.Helper()
	var out []issueSection
	var cur *issueSection
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "h2", "h3":
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			if n.Data == "h3" && regexp.MustCompile(`^\d+\. `).MatchString(nodeText(n)) {
				cur = &issueSection{}
			}
		case "p", "li", "td", "pre":
			if cur != nil && (n.Parent == nil || n.Parent.Data != "li") {
				cur.text += " " + oneSpace(nodeText(n))
				if n.Data == "pre" {
					cur.evidence++
				}
			}
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// checkIssueSection: every location (host:port and finding id) is in the
// issue's section, evidence is shown for at most three, and an issue found
// in more places says "and N more".
func checkIssueSection(t *testing.T, is report.Issue, sec issueSection, format string) {
	t.Helper()
	for _, f := range is.Findings {
		loc := f.Host
		if f.Port != nil {
			loc += ":" + strconv.Itoa(*f.Port)
		}
		if !strings.Contains(sec.text, oneSpace(loc)) || !strings.Contains(sec.text, f.ID) {
			t.Errorf("%s: issue %s lacks location %s (%s)", format, is.Key, loc, f.ID)
		}
	}
	shown, more := report.EvidenceOf(is)
	blocks := 0
	for _, e := range shown {
		if e.SameAs == "" && strings.TrimSpace(e.Finding.Evidence) != "" {
			blocks++
		}
	}
	if sec.evidence != blocks || blocks > 3 {
		t.Errorf("%s: issue %s shows %d evidence blocks, want %d (at most 3)", format, is.Key, sec.evidence, blocks)
	}
	moreLine := "and " + strconv.Itoa(more) + " more location"
	if got := strings.Contains(sec.text, moreLine); got != (more > 0) {
		t.Errorf("%s: issue %s (%d locations): %q shown %v", format, is.Key, is.Count, moreLine, got)
	}
}

// checkAppendix: every finding has its line in the appendix.
func checkAppendix(t *testing.T, r report.Report, visible string) {
	t.Helper()
	_, appendix, ok := strings.Cut(visible, "Appendix: findings")
	if !ok {
		t.Fatal("no findings appendix")
	}
	appendix, _, _ = strings.Cut(appendix, "Appendix: agent steps")
	for _, f := range r.Findings {
		if !strings.Contains(appendix, f.ID) {
			t.Errorf("finding %s is not in the appendix", f.ID)
		}
	}
}

// TestCollapseAndMore: the CSP issue of the sample, eight host names of one
// server, shows the first evidence, says the next two read the same, and
// collapses the other five into "and 5 more" in every format.
func TestCollapseAndMore(t *testing.T) {
	t.Parallel()
	r := sample(false)
	is := issueByKey(r, "web.header.csp")
	shown, more := report.EvidenceOf(is)
	if len(shown) != 3 || more != 5 || shown[0].SameAs != "" || shown[1].SameAs == "" || shown[2].SameAs == "" {
		t.Fatalf("EvidenceOf: %d shown (%+v), %d more", len(shown), shown, more)
	}
	for format, text := range map[string]string{"Markdown": mdVisible(t, report.Markdown(r)), "HTML": htmlVisible(t, report.HTML(r))} {
		for _, w := range []string{"and 5 more locations", report.SameEvidence(shown[1].SameAs), "and 7 more", "Locations (8)"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", format, w)
			}
		}
	}
}

// TestNoMarkdownInHTML: the catalogue's code spans become <code> in HTML,
// code spans in Markdown, and no backtick is left in the text a reader
// sees outside code and evidence.
func TestNoMarkdownInHTML(t *testing.T) {
	t.Parallel()
	r := reporttest.Demo()
	page := report.HTML(r)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	codes := 0
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "code" {
			codes++
		}
		if n.Type != html.TextNode || !strings.Contains(n.Data, "`") {
			continue
		}
		inCode := false
		for p := n.Parent; p != nil; p = p.Parent {
			if p.Type == html.ElementNode && (p.Data == "code" || p.Data == "pre" || p.Data == "style") {
				inCode = true
			}
		}
		if !inCode {
			t.Errorf("HTML text node with a backtick: %q", n.Data)
		}
	}
	if codes == 0 {
		t.Error("no <code> in the HTML of remediations written with code spans")
	}
	if !strings.Contains(string(page), "Send a <code>Content-Security-Policy</code> header") {
		t.Error("the CSP remediation's code span is not <code>")
	}
	// Markdown keeps them as code spans: rendered, no backtick outside code.
	md := mdRender(t, report.Markdown(r))
	for n := range md.Descendants() {
		if n.Type == html.TextNode && strings.Contains(n.Data, "`") && n.Parent.Data != "code" {
			t.Errorf("Markdown text with a backtick: %q", n.Data)
		}
	}
}

func TestSpans(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []report.Span
	}{
		{"plain", []report.Span{{Text: "plain"}}},
		{"Send `X-Frame-Options: DENY` now", []report.Span{{Text: "Send "}, {Text: "X-Frame-Options: DENY", Code: true}, {Text: " now"}}},
		{"``a ` b`` c", []report.Span{{Text: "a ` b", Code: true}, {Text: " c"}}},
		{"`` ` ``", []report.Span{{Text: "`", Code: true}}},
		{"unclosed ` tick", []report.Span{{Text: "unclosed ` tick"}}},
		{"```", []report.Span{{Text: "```"}}},
		{"a `` b ` c", []report.Span{{Text: "a `` b ` c"}}},
		{"x `` y", []report.Span{{Text: "x `` y"}}},
		{"`  `", []report.Span{{Text: "  ", Code: true}}},
	}
	for _, c := range cases {
		if got := report.Spans(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Spans(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if got := report.PlainText("Set `a`\nand `b` then ` c"); got != "Set a\nand b then ` c" {
		t.Errorf("PlainText = %q", got)
	}
}

// TestRecordIssuesUsed: when the scan record carries issues, the report
// uses them (their wording and order); a finding no record issue names is
// still grouped and shown.
func TestRecordIssuesUsed(t *testing.T) {
	t.Parallel()
	p := func(n int) *int { return &n }
	findings := []scans.Finding{
		{ID: "f1", Check: "web.header.csp", Issue: "web.header.csp", Title: "CSP (tool wording)", Severity: scans.Low, Host: "a.example", Port: p(443)},
		{ID: "f2", Check: "web.header.csp", Issue: "web.header.csp", Title: "CSP (tool wording)", Severity: scans.Low, Host: "b.example", Port: p(443)},
		{ID: "f3", Check: "dns.zone-transfer", Issue: "dns.zone-transfer", Title: "AXFR", Severity: scans.High, Host: "ns.example"},
		{ID: "f4", Check: "web.security-txt", Title: "No security.txt", Severity: scans.Info, Host: "a.example"},
	}
	record := []scans.Issue{
		{Key: "web.header.csp", Check: "web.header.csp", Title: "Missing Content-Security-Policy header", Severity: scans.Low, Count: 2},
		{Key: "dns.zone-transfer", Check: "dns.zone-transfer", Title: "DNS zone transfer allowed", Severity: scans.High, Count: 1},
	}
	r := report.Build(report.Input{Scan: scans.Scan{ID: "scn_x", Target: "a.example"}, Findings: findings, Issues: record})
	var got []string
	for _, is := range r.Issues {
		got = append(got, is.Title+"/"+strconv.Itoa(is.Count))
	}
	want := []string{"Missing Content-Security-Policy header/2", "DNS zone transfer allowed/1", "No security.txt/1"}
	if !slices.Equal(got, want) {
		t.Errorf("issues %q, want %q", got, want)
	}
	if md := mdVisible(t, report.Markdown(r)); !strings.Contains(md, "1. Missing Content-Security-Policy header") || !strings.Contains(md, "3. No security.txt") {
		t.Errorf("Markdown does not follow the record's issues:\n%s", md)
	}
}

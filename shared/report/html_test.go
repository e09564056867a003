package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"secscan/shared/report"
)

// htmlElements, htmlAttributes and htmlClasses are everything the page is
// made of: an element, attribute or class outside these came from data.
var (
	htmlElements = []string{"wbr", "html", "head", "meta", "title", "style", "body", "main", "div", "span", "header", "footer",
		"section", "article", "h1", "h2", "h3", "h4", "p", "strong", "dl", "dt", "dd", "ol", "ul", "li", "pre",
		"table", "colgroup", "col", "thead", "tbody", "tr", "th", "td", "a", "code", "br"}
	htmlAttributes = []string{"lang", "charset", "http-equiv", "content", "name", "class", "id", "role", "aria-hidden",
		"style", "href", "rel", "referrerpolicy"}
	htmlClasses = []string{"watermark", "demo", "bottom", "cover", "kicker", "facts", "risk", "label", "rating", "totals",
		"text", "chains", "chart", "row", "track", "fill", "count", "badge", "num", "mono", "page", "finding", "meta",
		"muted", "chips", "sev-critical", "sev-high", "sev-medium", "sev-low", "sev-info", "sev-none",
		"marking", "idchip", "host", "scope", "scopefacts", "plan", "conf", "tentative", "note",
		"locations", "evidence", "where", "more", "compact", "proof"}
)

const htmlCSP = "default-src 'none'; style-src 'unsafe-inline'"

var (
	htmlStyleAttr = regexp.MustCompile(`^width: \d+%$`)
	htmlAnchor    = regexp.MustCompile(`^i-\d+$`)
	htmlRemoteSrc = regexp.MustCompile(`(?i)src\s*=\s*["']?\s*(https?:)?//`)
)

// checkHTMLPage parses a page and asserts it is made only of the renderer's
// own elements and attributes, requests nothing from anywhere, and carries
// its Content-Security-Policy. It returns the external links.
func checkHTMLPage(t *testing.T, page []byte) (links []string) {
	t.Helper()
	if bytes.Contains(bytes.ToLower(page), []byte("<script")) {
		t.Error("page contains <script")
	}
	if htmlRemoteSrc.Match(page) {
		t.Error("page loads something with src=")
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	csp := false
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if !slices.Contains(htmlElements, n.Data) {
			t.Errorf("element <%s> is not the renderer's", n.Data)
		}
		attrs := map[string]string{}
		for _, a := range n.Attr {
			attrs[a.Key] = a.Val
			switch {
			case !slices.Contains(htmlAttributes, a.Key) || a.Namespace != "":
				t.Errorf("attribute %s=%q on <%s> is not the renderer's", a.Key, a.Val, n.Data)
			case a.Key == "class":
				for _, c := range strings.Fields(a.Val) {
					if !slices.Contains(htmlClasses, c) {
						t.Errorf("class %q on <%s> is not the renderer's", c, n.Data)
					}
				}
			case a.Key == "style" && !htmlStyleAttr.MatchString(a.Val):
				t.Errorf("style %q on <%s>", a.Val, n.Data)
			case a.Key == "id" && !htmlAnchor.MatchString(a.Val):
				t.Errorf("id %q", a.Val)
			case a.Key == "href":
				if strings.HasPrefix(a.Val, "#") {
					if !htmlAnchor.MatchString(a.Val[1:]) {
						t.Errorf("anchor %q", a.Val)
					}
					continue
				}
				if n.Data != "a" || !strings.HasPrefix(a.Val, "https://") {
					t.Errorf("href %q on <%s>", a.Val, n.Data)
				}
				links = append(links, a.Val)
			}
		}
		if n.Data == "a" && !strings.HasPrefix(attrs["href"], "#") &&
			(attrs["rel"] != "noopener noreferrer" || attrs["referrerpolicy"] != "no-referrer") {
			t.Errorf("external link %q lacks rel=noopener noreferrer / referrerpolicy: %v", attrs["href"], attrs)
		}
		if n.Data == "meta" && attrs["http-equiv"] == "Content-Security-Policy" {
			csp = attrs["content"] == htmlCSP
		}
		if n.Data == "style" && n.Parent.Data != "head" {
			t.Error("<style> outside <head>")
		}
	}
	if !csp {
		t.Errorf("no Content-Security-Policy meta tag %q", htmlCSP)
	}
	return links
}

func TestHTMLIsSafeAndSelfContained(t *testing.T) {
	t.Parallel()
	hr, tagged := hostileReport(true)
	cases := []struct {
		name    string
		r       report.Report
		visible []string
		links   []string
	}{
		{"paid sample", sample(false), []string{hostile},
			[]string{"https://owasp.org/www-project-web-security-testing-guide/", "https://nvd.nist.gov/vuln/detail/CVE-2021-41773",
				"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP", "https://securitytxt.org/"}},
		{"free sample", sample(true), []string{hostile, report.Watermark}, nil},
		// Only https URLs without quotes or brackets become links; the
		// hostile references, javascript: and http:// stay text.
		{"hostile everywhere", hr, tagged, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			page := report.HTML(c.r)
			links := checkHTMLPage(t, page)
			if c.links != nil && !slices.Equal(links, c.links) {
				t.Errorf("links %q, want %q", links, c.links)
			}
			visible := htmlVisible(t, page)
			for _, v := range c.visible {
				if !strings.Contains(visible, oneSpace(v)) {
					t.Errorf("reader does not see %q", v)
				}
			}
			for _, v := range []string{"javascript:alert(1)", "http://plain.example/"} {
				if c.name == "hostile everywhere" && !strings.Contains(visible, v) {
					t.Errorf("reference %q is not shown as text", v)
				}
			}
		})
	}
}

func TestHTMLWatermarkOnlyOnFreePlan(t *testing.T) {
	t.Parallel()
	for _, watermarked := range []bool{false, true} {
		page := string(report.HTML(sample(watermarked)))
		banners := strings.Count(page, `<div class="demo`)
		background := strings.Count(page, `<div class="watermark"`)
		want := map[bool][2]int{false: {0, 0}, true: {2, 1}}[watermarked]
		if banners != want[0] || background != want[1] {
			t.Errorf("watermarked=%v: %d banners and %d background marks, want %v", watermarked, banners, background, want)
		}
		if top := strings.Index(page, `<div class="demo"`); watermarked && top > strings.Index(page, "<h1>") {
			t.Error("the watermark banner is not at the top")
		}
	}
}

// TestHTMLPrintable checks the print rules a security lead relies on when
// the page goes to paper: page breaks, unbroken rows, repeated table headers,
// wrapped evidence, colours kept.
func TestHTMLPrintable(t *testing.T) {
	t.Parallel()
	page := string(report.HTML(sample(false)))
	for _, rule := range []string{
		"@media print", "break-before: page", "tr { break-inside: avoid;", "thead { display: table-header-group; }",
		"white-space: pre-wrap; overflow-wrap: anywhere;", "table-layout: fixed", "print-color-adjust: exact",
	} {
		if !strings.Contains(page, rule) {
			t.Errorf("page lacks %q", rule)
		}
	}
	if n := strings.Count(page, `<section class="page">`); n != 3 {
		t.Errorf("%d sections start a page, want finding details, coverage and appendix", n)
	}
}

// TestHTMLRenderToDir writes the sample files (to REPORT_RENDER_DIR when
// set, for a look in a browser) and checks each is a complete document:
// REPORT_RENDER_DIR=/tmp go test ./shared/report/ -run TestHTMLRenderToDir
func TestHTMLRenderToDir(t *testing.T) {
	dir := os.Getenv("REPORT_RENDER_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	hr, _ := hostileReport(true)
	for name, data := range map[string][]byte{
		"report-free.html": report.HTML(sample(true)), "report-paid.html": report.HTML(sample(false)),
		"report-hostile.html": report.HTML(hr), "report-large.html": report.HTML(large(1000, 200)),
		"report-free.md": report.Markdown(sample(true)), "report-hostile.md": report.Markdown(hr),
		"report-paid.csv": report.CSV(sample(false)),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".html") && !strings.HasSuffix(strings.TrimSpace(string(data)), "</html>") {
			t.Errorf("%s is not a complete HTML document", name)
		}
	}
}

func BenchmarkHTML(b *testing.B) { benchRender(b, report.HTML) }

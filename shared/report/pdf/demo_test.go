package pdf_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"secscan/shared/report"
	"secscan/shared/report/pdf"
	"secscan/shared/report/reporttest"
	"secscan/shared/scans"
)

// TestPDFDemoByIssue renders the demo-shaped scan (157 findings, 59 issues;
// 61 pages when every finding had its own section, the real demo 64): at most
// 25 pages, each issue's heading once and in order, its locations in its
// section, "and N more" where it has more than three (more than one for a
// low or info issue), every finding in the appendix, and no backtick
// anywhere (code spans are plain text).
func TestPDFDemoByIssue(t *testing.T) {
	t.Parallel()
	poppler(t)
	r := reporttest.Demo()
	path, doc := renderPDF(t, r, report.A4, "demo.pdf")
	i := info(t, path)
	t.Logf("demo: %d findings, %d issues: %d pages, %d KiB", len(r.Findings), len(r.Issues), i.pages, len(doc)>>10)
	if i.pages > 25 {
		t.Errorf("demo PDF has %d pages, want at most 25", i.pages)
	}
	raw := run(t, "pdftotext", "-enc", "UTF-8", path, "-")
	if strings.Contains(raw, "`") {
		t.Errorf("PDF text holds a backtick: …%s…", raw[max(0, strings.Index(raw, "`")-60):min(len(raw), strings.Index(raw, "`")+60)])
	}
	text := squash(raw)
	for _, w := range []string{"Send a Content-Security-Policy header on every HTML response", "Set TraceEnable off."} {
		if !strings.Contains(text, w) {
			t.Errorf("PDF lacks %q", w)
		}
	}
	// The page frame (header, footer) is cut out so that sections read on.
	frame := regexp.MustCompile(`Confidential — prepared for the account holder of demo\.secscan\.test Security scan report|Scan scn_\S+ · generated [0-9-]+ [0-9:]+ UTC Page \d+ of \d+`)
	text = frame.ReplaceAllString(text, " ")
	text = squash(text)
	details, appendix, ok := strings.Cut(text, "Appendix: findings")
	if !ok {
		t.Fatal("no findings appendix")
	}
	_, details, _ = strings.Cut(details, "Issues in detail")
	heading := func(n int) string {
		return strconv.Itoa(n) + ". " + pdfVisible.Replace(r.Issues[n-1].Title)
	}
	for n := 1; n <= len(r.Issues); n++ {
		h := heading(n)
		if c := strings.Count(details, h+" "); c != 1 {
			t.Errorf("issue heading %q appears %d times in the details", h, c)
			continue
		}
		_, sec, _ := strings.Cut(details, h+" ")
		if n < len(r.Issues) {
			sec, _, _ = strings.Cut(sec, heading(n+1)+" ")
		} else {
			sec, _, _ = strings.Cut(sec, "Coverage")
		}
		is := r.Issues[n-1]
		for _, f := range is.Findings {
			if hp := pdfHostPortOf(f.Host, f.Port); !strings.Contains(sec, hp) {
				t.Errorf("issue %d lacks location %s (%s)", n, hp, f.ID)
			}
		}
		shown, more := pdf.IssueEvidence(is)
		if minor := is.Severity == scans.Low || is.Severity == scans.Info; minor && is.Count > 0 && len(shown) != 1 {
			t.Errorf("issue %d (%s) shows the evidence of %d locations, want 1", n, is.Severity, len(shown))
		}
		if got := strings.Contains(sec, "and "+strconv.Itoa(more)+" more location"); got != (more > 0) {
			t.Errorf("issue %d (%d locations): 'and %d more' shown %v", n, is.Count, more, got)
		}
	}
	for _, f := range r.Findings {
		if !strings.Contains(appendix, f.ID) {
			t.Errorf("finding %s is not in the appendix", f.ID)
		}
	}
}

func pdfHostPortOf(host string, port *int) string {
	if port == nil {
		return host
	}
	return host + ":" + strconv.Itoa(*port)
}

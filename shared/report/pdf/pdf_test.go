package pdf_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/report"
	"secscan/shared/report/pdf"
	"secscan/shared/scans"
)

// poppler fails the test when the poppler tools are missing: the PDF
// checks must run, not be skipped on a machine that lacks them.
func poppler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install poppler-utils (apt-get install poppler-utils)", tool)
		}
	}
}

// renderPDF renders r on paper, checks the file's framing and writes it to
// a temporary file (or to $PDF_OUT/name when set, to look at it).
func renderPDF(t testing.TB, r report.Report, paper report.Paper, name string) (string, []byte) {
	t.Helper()
	doc, err := pdf.Render(r, paper)
	if err != nil {
		t.Fatalf("PDF(%s): %v", paper, err)
	}
	if !bytes.HasPrefix(doc, []byte("%PDF-")) {
		t.Fatalf("PDF(%s) starts with %q, want %%PDF-", paper, doc[:min(len(doc), 16)])
	}
	if !bytes.HasSuffix(bytes.TrimSpace(doc), []byte("%%EOF")) {
		t.Fatalf("PDF(%s) does not end with %%%%EOF", paper)
	}
	dir := os.Getenv("PDF_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, doc
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

type pdfInfo struct {
	pages         int
	width, height float64 // points
}

var pageSizeLine = regexp.MustCompile(`(?m)^Page size:\s+([\d.]+) x ([\d.]+) pts`)
var pagesLine = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)

func info(t testing.TB, path string) pdfInfo {
	t.Helper()
	out := run(t, "pdfinfo", path)
	size, pages := pageSizeLine.FindStringSubmatch(out), pagesLine.FindStringSubmatch(out)
	if size == nil || pages == nil {
		t.Fatalf("pdfinfo output without page size or count:\n%s", out)
	}
	var i pdfInfo
	i.width, _ = strconv.ParseFloat(size[1], 64)
	i.height, _ = strconv.ParseFloat(size[2], 64)
	i.pages, _ = strconv.Atoi(pages[1])
	return i
}

// squash collapses every run of white space to one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// pdfVisible is how s comes out of the PDF's core fonts: characters
// Windows-1252 lacks are transliterated or replaced with "?".
var pdfVisible = strings.NewReplacer("🔥", "?", "→", "->")

func TestPDFPaperSizes(t *testing.T) {
	t.Parallel()
	poppler(t)
	for _, tc := range []struct {
		paper         report.Paper
		width, height float64
	}{
		{report.A4, 595, 842},
		{report.Letter, 612, 792},
	} {
		t.Run(string(tc.paper), func(t *testing.T) {
			t.Parallel()
			path, _ := renderPDF(t, sample(false), tc.paper, "sample-"+string(tc.paper)+".pdf")
			i := info(t, path)
			if i.width < tc.width-1 || i.width > tc.width+1 || i.height < tc.height-1 || i.height > tc.height+1 {
				t.Errorf("page size %.1f x %.1f pts, want %.0f x %.0f", i.width, i.height, tc.width, tc.height)
			}
			// Cover, executive summary, details, coverage, appendix.
			if i.pages < 5 || i.pages > 12 {
				t.Errorf("sample has %d pages, want a few (5-12)", i.pages)
			}
			words := wordBoxes(t, path)
			checkInsidePage(t, words, tc.width, tc.height)
		})
	}
}

func TestPDFContent(t *testing.T) {
	t.Parallel()
	poppler(t)
	r := sample(true)
	path, _ := renderPDF(t, r, report.A4, "sample-watermarked.pdf")
	raw := run(t, "pdftotext", "-enc", "UTF-8", path, "-")
	text := squash(raw)
	want := []string{
		"Security scan report", "shop.example.com", r.Scan.ID, "Critical", "Overall risk rating: Critical",
		"Full", "Standard", "37 of 200", "2026-11-20 09:30:00 UTC", "2026-11-20 09:31:35 UTC", "2026-11-21 09:30:00 UTC",
		"CVE-2021-41773", "CVSS 7.5", "CWE-22", "CWE-527",
		"Credential theft: the exposed .git on shop.example.com:443",
		"dns_check", "port_scan", "http_check",
		"Page 1 of", "Executive summary", "Severity breakdown", "Issues in detail", "Coverage", "Not tested", "Appendix: findings", "Appendix: agent steps",
		"Refused: host evil.example is outside the scope",
		"Block /.git at the web server.", "https://nvd.nist.gov/vuln/detail/CVE-2021-41773", "https://example.com/a?b=<c>",
		"GET https://shop.example.com/.git/HEAD -> 200: ref: refs/heads/main",
		"Tabs and", "newlines", // control characters are gone, the words stay
		// Catalogue text loses the backticks of its code spans.
		hostile, report.PlainText("A description with " + hostile), "=cmd|' /C calc'!A0",
		report.Watermark,
	}
	for _, f := range r.Findings {
		want = append(want, pdfVisible.Replace(f.Title))
	}
	for _, w := range want {
		if !strings.Contains(text, squash(w)) {
			t.Errorf("PDF text lacks %q", w)
		}
	}
	// The long evidence (of a low issue: one line) stops and says where the
	// rest is.
	dense := strings.Join(strings.Fields(raw), "")
	if n := strings.Count(dense, "no-secure-flag-here-and-a-very-long-unbroken-token-Set-Cookie"); n >= 39 {
		t.Errorf("long evidence: %d of 39 joints found, want it cut", n)
	}
	if !strings.Contains(text, "Set-Cookie: PHPSESSID; path=/; no-secure-flag-here") || !strings.Contains(text, "… [cut: the full evidence is in findings.csv]") {
		t.Error("cut evidence does not say where the rest is")
	}
	if strings.Contains(raw, "\t") || strings.ContainsAny(raw, "\x00\x1b") {
		t.Error("control characters reached the PDF text")
	}
	// Every page has the header and a page number out of the total.
	pages := info(t, path).pages
	for n := 1; n <= pages; n++ {
		if !strings.Contains(text, "Page "+strconv.Itoa(n)+" of "+strconv.Itoa(pages)) {
			t.Errorf("no %q footer", "Page "+strconv.Itoa(n)+" of "+strconv.Itoa(pages))
		}
	}
	if got := strings.Count(text, "Confidential — prepared for the account holder of shop.example.com"); got != pages {
		t.Errorf("header on %d of %d pages", got, pages)
	}
	if got := strings.Count(text, report.Watermark); got < pages {
		t.Errorf("watermark on %d of %d pages", got, pages)
	}
}

func TestPDFWithoutFindingsOrSteps(t *testing.T) {
	t.Parallel()
	poppler(t)
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	r := report.Build(report.Input{
		Scan:        scans.Scan{ID: "scn_empty", Target: "quiet.example.com", Type: scans.SSL, Tier: "quick", Status: scans.Completed, CreatedAt: at},
		GeneratedAt: at,
	})
	path, _ := renderPDF(t, r, report.Letter, "empty.pdf")
	text := squash(run(t, "pdftotext", "-enc", "UTF-8", path, "-"))
	for _, w := range []string{"quiet.example.com", "Overall risk rating: None", "No findings were recorded.", "No attack chains were identified.", "No steps were recorded.", "Not in scope of a ssl scan"} {
		if !strings.Contains(text, w) {
			t.Errorf("PDF text lacks %q", w)
		}
	}
}

// TestPDFExtremeText feeds text no scanner should produce but a hostile
// target might: huge unbroken tokens, control and bidi characters, emoji.
// Nothing may leave the text area, and a field too long for the PDF says so.
func TestPDFExtremeText(t *testing.T) {
	t.Parallel()
	poppler(t)
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	token := strings.Repeat("A", 3000)
	weird := "bidi\u202eevil\u202c zero\u200bwidth\u200djoin esc\x1b[31mred bell\a nul\x00 emoji👨\u200d👩\u200d👧 ő ł 中文"
	f := scans.Finding{ID: "fnd_x", Title: token + " " + strings.Repeat("long title ", 300), Severity: scans.High, Category: scans.CategoryWeb,
		Host: "h\x1b.example.com", Evidence: strings.Repeat("B", 40<<10), Description: weird, Remediation: strings.Repeat("word ", 4000),
		References: []string{"https://example.com/" + strings.Repeat("x/", 400)}, CVE: ptr(strings.Repeat("CVE-", 100))}
	r := report.Build(report.Input{
		Scan: scans.Scan{ID: "scn_x", Target: "evil\x1b[2J\u202e.example.com", Type: scans.Full, Tier: "deep", Status: scans.Completed, CreatedAt: at,
			Summary: &scans.Summary{RiskRating: scans.RiskHigh, Summary: token, AttackChains: []string{token}}},
		Findings: []scans.Finding{f},
		Steps: []scans.Step{{Seq: 1, Tool: strings.Repeat("tool", 100), Input: []byte(`{"x":"` + token + `"}`), Outcome: token, StartedAt: at,
			Services: []scans.Service{{Host: token, Port: 1, Name: token, Banner: token}}}},
		GeneratedAt: at,
	})
	for _, paper := range []report.Paper{report.A4, report.Letter} {
		path, _ := renderPDF(t, r, paper, "extreme-"+string(paper)+".pdf")
		i := info(t, path)
		if i.pages > 40 {
			t.Errorf("%s: %d pages for one finding", paper, i.pages)
		}
		checkInsidePage(t, wordBoxes(t, path), i.width, i.height)
		raw := run(t, "pdftotext", "-enc", "UTF-8", path, "-")
		text := squash(raw)
		for _, w := range []string{"more characters not shown in the PDF", "[cut: the full evidence is in findings.csv]", "bidievil zerowidthjoin", "esc[31mred bell nul", "emoji???", "o l ??", "evil[2J.example.com"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: PDF text lacks %q", paper, w)
			}
		}
		if strings.ContainsAny(raw, "\u202e\u200b\u200d\x1b\x07") {
			t.Errorf("%s: control or format characters reached the PDF text", paper)
		}
		// The 3,000-letter token is all there, broken over lines (and pages:
		// the page header and footer lines are left out).
		var body []string
		for _, line := range strings.Split(raw, "\n") {
			line = strings.TrimLeft(line, "\f")
			if !strings.HasPrefix(line, "Confidential") && strings.TrimSpace(line) != "Security scan report" && !strings.HasPrefix(line, "Scan scn_x") && !strings.HasPrefix(line, "Page ") {
				body = append(body, line)
			}
		}
		if n := strings.Count(strings.Join(strings.Fields(strings.Join(body, "\n")), ""), token); n < 3 {
			t.Errorf("%s: the long token appears whole %d times, want it in summary, chain and title at least", paper, n)
		}
	}
}

func TestPDFUnknownPaper(t *testing.T) {
	t.Parallel()
	if _, err := pdf.Render(sample(false), "a3"); err == nil {
		t.Error("PDF(a3) succeeded, want an error")
	}
}

// TestPDFLarge renders 1,000 findings and 200 steps, and logs the time and
// memory it took (the benchmark below measures them properly).
func TestPDFLarge(t *testing.T) {
	poppler(t)
	r := large(1000, 200)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	path, doc := renderPDF(t, r, report.A4, "large.pdf")
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	i := info(t, path)
	t.Logf("large(1000, 200): %d pages, %d KiB, %v, %d MiB allocated, %d MiB from the OS",
		i.pages, len(doc)>>10, elapsed.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, after.Sys>>20)
	// 59 issues, every one of the 1,000 findings on a line of the appendix.
	if i.pages < 20 || i.pages > 120 {
		t.Errorf("large(1000, 200) has %d pages, want 20-120", i.pages)
	}
	all := run(t, "pdftotext", "-enc", "UTF-8", path, "-")
	for _, f := range r.Findings {
		if !strings.Contains(all, f.ID) {
			t.Errorf("finding %s is not in the PDF", f.ID)
			break
		}
	}
	text := squash(run(t, "pdftotext", "-enc", "UTF-8", "-f", strconv.Itoa(i.pages), "-l", strconv.Itoa(i.pages), path, "-"))
	if want := "Page " + strconv.Itoa(i.pages) + " of " + strconv.Itoa(i.pages); !strings.Contains(text, want) {
		t.Errorf("last page lacks %q", want)
	}
	checkInsidePage(t, wordBoxes(t, path), i.width, i.height)
}

func BenchmarkPDF(b *testing.B) {
	r := large(1000, 200)
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		doc, err := pdf.Render(r, report.A4)
		if err != nil {
			b.Fatal(err)
		}
		size = len(doc)
	}
	b.ReportMetric(float64(size)/1024, "KiB/pdf")
}

// wordBox is one word pdftotext -bbox found, in points from the top left.
type wordBox struct {
	page                   int
	xMin, yMin, xMax, yMax float64
	word                   string
}

var (
	pageTag = regexp.MustCompile(`<page `)
	wordTag = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
)

func wordBoxes(t testing.TB, path string) []wordBox {
	t.Helper()
	out := run(t, "pdftotext", "-bbox", path, "-")
	var words []wordBox
	page := 0
	for _, line := range strings.Split(out, "\n") {
		if pageTag.MatchString(line) {
			page++
			continue
		}
		if m := wordTag.FindStringSubmatch(line); m != nil {
			w := wordBox{page: page, word: m[5]}
			w.xMin, _ = strconv.ParseFloat(m[1], 64)
			w.yMin, _ = strconv.ParseFloat(m[2], 64)
			w.xMax, _ = strconv.ParseFloat(m[3], 64)
			w.yMax, _ = strconv.ParseFloat(m[4], 64)
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		t.Fatal("pdftotext -bbox found no words")
	}
	return words
}

// checkInsidePage fails for a word that runs into the side margins or off
// the page: long evidence must wrap, never overflow.
func checkInsidePage(t testing.TB, words []wordBox, width, height float64) {
	t.Helper()
	const margin = 16 * 72 / 25.4 // pdfMarginSide in points
	bad := 0
	for _, w := range words {
		if w.xMin < margin-1 || w.xMax > width-margin+1 || w.yMin < 0 || w.yMax > height-5 {
			if bad++; bad <= 5 {
				t.Errorf("page %d: %q at x %.1f-%.1f, y %.1f-%.1f is outside the text area of a %.0f x %.0f page",
					w.page, w.word, w.xMin, w.xMax, w.yMin, w.yMax, width, height)
			}
		}
	}
}

// TestPDFPageNumbersMatchPages: every page carries its own footer, "Page i
// of N" with N the document's page count. These two reports once ended
// with a page holding only a footer, every number from the middle on one
// short: gofpdf broke the page itself when the footer ended a rounding
// error past the usable height (fixed by snap).
func TestPDFPageNumbersMatchPages(t *testing.T) {
	t.Parallel()
	poppler(t)
	for _, tc := range []struct {
		findings int
		paper    report.Paper
	}{{71, report.A4}, {148, report.Letter}} {
		name := fmt.Sprintf("numbers-%d-%s.pdf", tc.findings, tc.paper)
		path, _ := renderPDF(t, large(tc.findings, tc.findings/3), tc.paper, name)
		n := info(t, path).pages
		pages := strings.Split(strings.TrimSuffix(run(t, "pdftotext", "-enc", "UTF-8", path, "-"), "\f"), "\f")
		if len(pages) != n {
			t.Fatalf("%s: pdftotext read %d pages, pdfinfo %d", name, len(pages), n)
		}
		for i, text := range pages {
			if want := fmt.Sprintf("Page %d of %d", i+1, n); !strings.Contains(squash(text), want) {
				t.Errorf("%s: page %d lacks %q", name, i+1, want)
				break
			}
		}
	}
}

package pdf

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPDFTextEncodesForCoreFonts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain ASCII <b>&amp;</b>", "plain ASCII <b>&amp;</b>"},
		{"“q” ‘s’ — – … € ™ •", "\x93q\x94 \x91s\x92 \x97 \x96 \x85 \x80 \x99 \x95"},
		{"Ünïcödé ß æ ©", "\xdcn\xefc\xf6d\xe9 \xdf \xe6 \xa9"},
		{"e\u0301", "\xe9"}, // composed first
		{"GET / → 200, a ≤ b", "GET / -> 200, a <= b"},
		{"ő č ł", "o c l"},
		{"emoji 🔥 中文", "emoji ? ??"},
		{"family 👨\u200d👩\u200d👧 ok\ufe0f", "family ??? ok"},
		{"bidi \u202eevil\u202c zero\u200bwidth", "bidi evil zerowidth"},
		{"esc \x1b[31m bell \a nul \x00 del \x7f c1 \u0085x", "esc [31m bell  nul  del  c1 \nx"},
		{"soft\u00adhyphen nbsp\u00a0kept", "softhyphen nbsp\xa0kept"},
		{"a\r\nb\rc\nd\te", "a\nb\nc\nd\te"},
		{"bad \xff utf8", "bad ? utf8"},
		{"thin\u2009space", "thin space"},
	} {
		if got := pdfText(tc.in); got != tc.want {
			t.Errorf("pdfText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPDFWrapKeepsEveryCharacterInsideTheWidth(t *testing.T) {
	t.Parallel()
	faces := []pdfFace{fBody, fH3, fMono, fTableBold}
	inputs := []string{
		"",
		"short",
		"a few words that need to wrap over more than one line of a narrow column of text",
		strings.Repeat("A", 500),
		"GET " + strings.Repeat("https://example.com/path/to/a/resource?query=value&other=thing;", 8),
		strings.Repeat("Set-Cookie: PHPSESSID; path=/; no-secure-flag-here-and-a-very-long-unbroken-token-", 10),
		"   indented   with   runs   of   spaces   " + strings.Repeat("W", 80),
		pdfText("“smart” — quotes ü € " + strings.Repeat("é", 120)),
	}
	for _, f := range faces {
		for _, width := range []float64{12, 40, 90, 178} {
			for _, in := range inputs {
				lines := pdfWrap(in, f, width)
				if len(lines) == 0 {
					t.Fatalf("pdfWrap(%q) returned no lines", in)
				}
				for _, line := range lines {
					if w := f.width(line); w > width+1e-9 {
						t.Errorf("%s %.0fmm: line %q is %.2fmm wide", f.family+string(f.style), width, line, w)
					}
				}
				// Only spaces may be dropped (at the breaks); nothing else.
				strip := func(s string) string { return strings.ReplaceAll(s, " ", "") }
				if got, want := strip(strings.Join(lines, "")), strip(in); got != want {
					t.Errorf("%s %.0fmm: wrapping lost text: %q, want %q", f.family, width, got, want)
				}
			}
		}
	}
}

func TestPDFWrapBreaksAtSpacesThenPunctuation(t *testing.T) {
	t.Parallel()
	width := fBody.width("the quick brown") + 0.01
	if got := pdfWrap("the quick brown fox jumps", fBody, width); strings.Join(got, "|") != "the quick brown|fox jumps" {
		t.Errorf("space breaks: %q", got)
	}
	url := "https://example.com/aaaa/bbbb/cccc/dddd"
	got := pdfWrap(url, fMono, fMono.width("https://example.com/aaaa/bb"))
	if got[0] != "https://example.com/aaaa/" {
		t.Errorf("URL breaks after a slash: %q", got)
	}
	if lines := wrapAll(strings.Repeat("x", 100), fMono, fMono.width(strings.Repeat("x", 30))); len(lines) != 4 || len(lines[0]) != 30 {
		t.Errorf("a token without break points is cut at the width: %q", lines)
	}
}

func wrapAll(s string, f pdfFace, width float64) []string { return pdfWrapText(s, f, width, 4) }

func TestPDFWrapTextKeepsParagraphsAndTabs(t *testing.T) {
	t.Parallel()
	got := wrapAll("a\tb\n\nc", fMono, 100)
	if strings.Join(got, "|") != "a    b||c" {
		t.Errorf("pdfWrapText = %q", got)
	}
}

func TestPDFClip(t *testing.T) {
	t.Parallel()
	if got := pdfClip("short", 10); got != "short" {
		t.Errorf("pdfClip(short) = %q", got)
	}
	got := pdfClip(strings.Repeat("é", 10), 5) // cut inside a rune
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "éé [...") || !strings.Contains(got, "8 more characters not shown in the PDF") {
		t.Errorf("pdfClip = %q", got)
	}
}

func TestPDFFitLine(t *testing.T) {
	t.Parallel()
	if got := pdfFitLine("fits", fBody, 50); got != "fits" {
		t.Errorf("pdfFitLine(fits) = %q", got)
	}
	got := pdfFitLine(strings.Repeat("word ", 50), fBody, 30)
	if !strings.HasSuffix(got, "\x85") || fBody.width(got) > 30 {
		t.Errorf("pdfFitLine = %q (%.1fmm)", got, fBody.width(got))
	}
}

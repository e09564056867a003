package pdf

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/phpdave11/gofpdf"
	"golang.org/x/text/unicode/norm"
)

// The PDF uses the PDF core fonts (Helvetica, Courier): no font files to
// ship, and every viewer has them. They only cover Windows-1252, so PDF text
// is encoded to cp1252 here, before maroto sees it: what cp1252 has (ü, —,
// “”, €, …) is kept; arrows and maths are transliterated (→ "->", ≤ "<=");
// letters outside it lose their accents (ő → o); everything else, emoji
// included, becomes "?"; control and format characters (bidi overrides,
// zero-width joiners) are dropped so target text cannot reorder or hide
// what is drawn.
//
// The family names are capitalised on purpose: maroto v2.3.3 translates
// UTF-8 to cp1252 itself for the lower-case core family names, re-parsing
// gofpdf's code page table on every text measure and draw (~240 µs each,
// seconds for a large report). gofpdf lower-cases family names, so
// "Helvetica" selects the same core font while maroto passes our cp1252
// bytes through untouched.
const (
	pdfSans = "Helvetica"
	pdfMono = "Courier"
)

// pdfPtToMM converts points (font sizes) to millimetres (maroto's unit).
const pdfPtToMM = 25.4 / 72

// pdfFace is a font at a size.
type pdfFace struct {
	family string
	style  fontstyle.Type
	size   float64 // points
}

// lineHeight is the distance between two baselines, in mm.
func (f pdfFace) lineHeight() float64 { return f.size * pdfPtToMM * 1.32 }

// height is the font height maroto uses to place the first baseline, in mm.
func (f pdfFace) height() float64 { return f.size * pdfPtToMM }

// width of s (cp1252 bytes) in mm.
func (f pdfFace) width(s string) float64 {
	w := pdfGlyphWidths()[f.family+string(f.style)]
	units := 0
	for i := 0; i < len(s); i++ {
		units += int(w[s[i]])
	}
	return float64(units) * f.size / 1000 * pdfPtToMM
}

// pdfGlyphWidths holds, per font and style, each cp1252 byte's advance width
// in 1/1000 em, taken from gofpdf (the same metrics maroto lays out with).
var pdfGlyphWidths = sync.OnceValue(func() map[string]*[256]uint16 {
	pdf := gofpdf.New("P", "mm", "A4", "")
	out := map[string]*[256]uint16{}
	for _, fs := range []struct {
		family string
		style  fontstyle.Type
	}{{pdfSans, fontstyle.Normal}, {pdfSans, fontstyle.Bold}, {pdfSans, fontstyle.Italic}, {pdfSans, fontstyle.BoldItalic}, {pdfMono, fontstyle.Normal}, {pdfMono, fontstyle.Bold}} {
		pdf.SetFont(fs.family, string(fs.style), 10)
		var w [256]uint16
		for b := 1; b < 256; b++ {
			w[b] = uint16(pdf.GetStringSymbolWidth(string([]byte{byte(b)})))
		}
		out[fs.family+string(fs.style)] = &w
	}
	return out
})

// pdfCP1252High maps the runes Windows-1252 places at 0x80–0x9F.
var pdfCP1252High = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88,
	'‰': 0x89, 'Š': 0x8A, '‹': 0x8B, 'Œ': 0x8C, 'Ž': 0x8E, '‘': 0x91, '’': 0x92, '“': 0x93,
	'”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9A, '›': 0x9B,
	'œ': 0x9C, 'ž': 0x9E, 'Ÿ': 0x9F,
}

// pdfTransliterations replace common characters cp1252 lacks.
var pdfTransliterations = map[rune]string{
	'→': "->", '←': "<-", '↔': "<->", '⇒': "=>", '⇐': "<=", '⇔': "<=>", '↑': "^", '↓': "v",
	'≤': "<=", '≥': ">=", '≠': "!=", '≈': "~", '−': "-", '∞': "inf", '√': "sqrt", '⁄': "/",
	'‐': "-", '‑': "-", '‒': "-", '―': "-", '⁃': "-", '′': "'", '″': "\"", '‛': "'", '‟': "\"",
	'‹': "<", '›': ">", '✓': "v", '✔': "v", '✗': "x", '✘': "x", '★': "*", '☆': "*", '▪': "-", '◦': "-",
	'ł': "l", 'Ł': "L", 'đ': "d", 'Đ': "D", 'ı': "i", 'ħ': "h", 'Ħ': "H", 'ŋ': "n", 'Ŋ': "N",
	'ŧ': "t", 'Ŧ': "T", 'ĸ': "k", 'ſ': "s", 'ƒ': "f",
}

// pdfText encodes s for the core fonts (see above). Line breaks survive as
// '\n' and tabs as '\t' for the layout to handle; nothing else below 0x20.
func pdfText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = norm.NFC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case pdfIsLineBreak(r):
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte('\t')
		case pdfIsDropped(r):
		case r < 0x100:
			b.WriteByte(byte(r))
		default:
			b.WriteString(pdfAbove255(r))
		}
	}
	return b.String()
}

// pdfIsLineBreak tells whether r breaks a line: CR, LF, NEL and the
// Unicode line and paragraph separators.
func pdfIsLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085'
}

// pdfIsDropped tells whether r is left out of the text: the control
// characters other than line breaks and tabs, and the soft hyphen.
func pdfIsDropped(r rune) bool {
	return r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0xAD
}

// pdfAbove255 encodes a rune above Latin-1: its cp1252 byte, a
// transliteration, a space for a space, nothing for bidi controls,
// zero-width (non-)joiners, stray combining marks and emoji selectors, or
// its base letter.
func pdfAbove255(r rune) string {
	if c, ok := pdfCP1252High[r]; ok {
		return string([]byte{c})
	}
	if t, ok := pdfTransliterations[r]; ok {
		return t
	}
	if unicode.Is(unicode.Zs, r) {
		return " "
	}
	if unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Variation_Selector) {
		return ""
	}
	return pdfBaseLetter(r)
}

// pdfBaseLetter is r without its accents when that is Latin-1 (ő → o), else "?".
func pdfBaseLetter(r rune) string {
	d := norm.NFD.String(string(r))
	base, _ := utf8.DecodeRuneInString(d)
	if base != r && base >= 0x20 && base < 0x7F {
		return string(base)
	}
	return "?"
}

// pdfClip limits s to max bytes, saying how much it left out, so one huge
// field cannot turn the PDF into thousands of pages. The CSV export and the
// API carry the full text.
func pdfClip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [... " + strconv.Itoa(utf8.RuneCountInString(s[cut:])) + " more characters not shown in the PDF]"
}

// pdfOneLine is s with line breaks and tabs turned into spaces.
func pdfOneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// pdfBreakAt are the characters after which an over-long word may break when
// no space is left on the line (URLs, paths, key=value lists).
func pdfBreakAt(c byte) bool {
	switch c {
	case '/', '-', ',', ';', '&', '?', '=', ':', '|', '.', '_', '\\', ')', ']', '}', '>':
		return true
	}
	return false
}

// pdfWrap breaks one paragraph of cp1252 text s (no '\n') into lines no wider
// than width mm in face f: at spaces first, then after punctuation, and a
// word longer than a whole line anywhere, so nothing runs off the page.
// Spaces inside a line are kept (evidence keeps its alignment); the space a
// line breaks at is dropped.
func pdfWrap(s string, f pdfFace, width float64) []string {
	if s == "" {
		return []string{""}
	}
	wr := &pdfWrapper{s: s, w: pdfGlyphWidths()[f.family+string(f.style)],
		limit: int(width * 1000 / (f.size * pdfPtToMM)), lastSpace: -1, lastPunct: -1}
	for i := 0; i < len(s); i++ {
		wr.take(i)
	}
	return append(wr.lines, strings.TrimRight(s[wr.start:], " "))
}

// pdfWrapper breaks a paragraph into lines as it takes its bytes in turn.
type pdfWrapper struct {
	s     string
	w     *[256]uint16 // glyph widths of the face
	limit int          // the line width in glyph units
	lines []string     // the lines ended so far
	// The current line starts at s[start] and is units wide; the last
	// space and break-after punctuation on it, -1 when none.
	start, units         int
	lastSpace, lastPunct int
}

// take adds s[i] to the current line, first ending lines until it fits.
func (wr *pdfWrapper) take(i int) {
	c := wr.s[i]
	cw := int(wr.w[c])
	// A loop: what is left after a break may still not fit with c.
	for wr.units+cw > wr.limit && i > wr.start && c != ' ' {
		wr.breakBefore(i)
	}
	if c == ' ' && i == wr.start && len(wr.lines) > 0 {
		wr.start++ // a wrapped line does not start with a space
		return
	}
	wr.units += cw
	if c == ' ' {
		wr.lastSpace = i
	} else if pdfBreakAt(c) {
		wr.lastPunct = i
	}
}

// breakBefore ends the current line where pdfBreak chooses, as it cannot
// take s[i], and starts the next one with what follows.
func (wr *pdfWrapper) breakBefore(i int) {
	end, next := pdfBreak(wr.s, wr.start, i, wr.lastSpace, wr.lastPunct)
	wr.lines = append(wr.lines, strings.TrimRight(wr.s[wr.start:end], " "))
	wr.start = next
	wr.units = pdfUnits(wr.w, wr.s[wr.start:i])
	if wr.lastSpace < wr.start {
		wr.lastSpace = -1
	}
	if wr.lastPunct < wr.start {
		wr.lastPunct = -1
	}
}

// pdfBreak chooses where a line that cannot take s[i] ends (end) and the
// next one starts (next): at the last space after start, else after the
// last punctuation, else right before s[i]; the next line does not start
// with spaces.
func pdfBreak(s string, start, i, lastSpace, lastPunct int) (end, next int) {
	switch {
	case lastSpace > start:
		end, next = lastSpace, lastSpace+1
	case lastPunct >= start:
		end, next = lastPunct+1, lastPunct+1
	default:
		end, next = i, i
	}
	for next < i && s[next] == ' ' {
		next++
	}
	return end, next
}

// pdfUnits is the width of s in glyph units of the widths w.
func pdfUnits(w *[256]uint16, s string) int {
	units := 0
	for j := 0; j < len(s); j++ {
		units += int(w[s[j]])
	}
	return units
}

// pdfWrapText wraps text that may hold several paragraphs; tabs become
// tabWidth spaces.
func pdfWrapText(s string, f pdfFace, width float64, tabWidth int) []string {
	s = strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabWidth))
	var out []string
	for _, p := range strings.Split(s, "\n") {
		out = append(out, pdfWrap(p, f, width)...)
	}
	return out
}

// Package safetext is the one place text from outside the service (what a
// scanned target answered: banners, headers, certificate names, TXT records,
// file names, error texts that quote them) is made safe to store and show.
// Each policy is named for where the text goes and says what it removes and
// why; callers pick the policy, never a hand-written filter.
//
// Every policy bounds its work: only a prefix of the input proportional to
// max is examined, so a megabyte banner costs no more than a short one.
//
// What every policy removes, and why:
//   - invalid UTF-8: a byte that is not text cannot be shown faithfully;
//   - C0 and C1 control characters (NUL, BEL, ESC, DEL, U+0080–U+009F):
//     they move the cursor, ring, or start terminal sequences;
//   - terminal escape sequences (ESC [ … final, ESC ] … BEL), whole, so a
//     banner's colour codes do not leave "[31m" behind;
//   - format characters (Unicode Cf): the bidi overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069, U+200E/F), which make text read in
//     another order than it is stored ("Trojan Source"), and the zero-width
//     characters (U+200B–U+200D, U+2060, U+FEFF), which hide text inside
//     text; private-use and surrogate code points, which show as nothing
//     or as a box.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is one line of untrusted text for a field shown in the API, a report,
// the dashboard or a sentence: what every policy removes is dropped, runs of
// white space (line breaks, tabs, U+2028 included) become one space, and the
// result is at most max runes, cut at a nearby word boundary with "…" when
// it was longer. Text of one line cannot forge a second line of a log,
// a report table or a message.
func Line(s string, max int) string { return apply(s, max, false) }

// Block is untrusted text of several lines (a response excerpt, a file's
// first lines): as Line, but a line break (LF, CRLF, CR, U+2028/U+2029)
// is kept as one "\n", with at most one empty line in a row; other white
// space runs become one space.
func Block(s string, max int) string { return apply(s, max, true) }

// Prompt is target text placed inside a model prompt's data delimiters
// (modelplanner): as Block, and every tag spelled like the delimiters loses
// its opening bracket (DefuseDataTags), so data cannot close its own block
// and pass for instructions.
func Prompt(s string, max int) string { return DefuseDataTags(Block(s, max)) }

// DefuseDataTags replaces with "[" the opening bracket of every tag that a
// reader (a model) could take for a data delimiter "<untrusted-data>" or
// "</untrusted-data>", however it is spelled: any letter case (Unicode
// folding included: "ſ" for s, the Kelvin sign for k, fullwidth letters),
// white space or invisible format characters anywhere in it ("< /untrusted
// -data>"), "_" or a dash between the words or none, and an opening bracket
// that looks like "<" ("＜", "﹤", "‹", "〈", "⟨", "&lt;").
func DefuseDataTags(s string) string {
	if !strings.ContainsAny(s, tagOpeners+"&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := openerAt(s[i:]); n > 0 && spellsDataTag(s[i+n:]) {
			b.WriteByte('[')
			i += n
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// tagOpeners are "<" and the characters that read like it.
const tagOpeners = "<\uff1c\ufe64\u2039\u3008\u27e8"

// openerAt is the length of the opening bracket s starts with, 0 when none.
func openerAt(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case strings.ContainsRune(tagOpeners, r):
		return n
	case len(s) >= 4 && strings.EqualFold(s[:4], "&lt;"):
		return 4
	}
	return 0
}

// spellsDataTag reports whether s, after an opening bracket, spells the
// delimiters' tag name: an optional "/", then "untrusted", separators, and
// "data", ignoring case, white space and format characters.
func spellsDataTag(s string) bool {
	rs := []rune(s[:min(len(s), 200)])
	i := skipIgnorable(rs, 0)
	if i < len(rs) && (rs[i] == '/' || rs[i] == '\uff0f') {
		i++
	}
	i, ok := spells(rs, i, "untrusted")
	if !ok {
		return false
	}
	for i < len(rs) && (ignorable(rs[i]) || rs[i] == '_' || unicode.Is(unicode.Pd, rs[i])) {
		i++
	}
	_, ok = spells(rs, i, "data")
	return ok
}

// spells matches word (lowercase ASCII) in rs from i, letter by letter,
// skipping ignorable runes before each letter; it returns where the match
// ends.
func spells(rs []rune, i int, word string) (int, bool) {
	for _, c := range word {
		i = skipIgnorable(rs, i)
		if i == len(rs) || !sameLetter(rs[i], c) {
			return i, false
		}
		i++
	}
	return i, true
}

func skipIgnorable(rs []rune, i int) int {
	for i < len(rs) && ignorable(rs[i]) {
		i++
	}
	return i
}

// ignorable runes do not change how a tag reads: white space and format
// characters (zero-width, soft hyphen, bidi controls).
func ignorable(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }

// sameLetter reports whether r reads as the lowercase ASCII letter c: any
// case or simple case folding of it, or its fullwidth form.
func sameLetter(r, c rune) bool {
	if r >= '\uff01' && r <= '\uff5e' {
		r -= 0xfee0 // fullwidth ASCII
	}
	r = unicode.ToLower(r)
	for f := r; ; {
		if f == c {
			return true
		}
		if f = unicode.SimpleFold(f); f == r {
			return false
		}
	}
}

// Log is untrusted text written to a terminal or a CI log: as Line (so it
// cannot start a line of its own), and every "::" becomes ": :", so no part
// of it reads as a GitHub Actions workflow command ("::error::",
// "::add-mask::", "::stop-commands::") whatever the line it is printed on.
func Log(s string, max int) string {
	s = Line(s, max)
	for strings.Contains(s, "::") {
		s = strings.ReplaceAll(s, "::", ": :")
	}
	return s
}

// MaxPDFMeta bounds a PDF metadata value (title, subject, keywords).
const MaxPDFMeta = 200

// PDFMeta is untrusted text for a PDF's document information (title,
// subject), which viewers show in window titles and file dialogs: one
// line (Line) of at most MaxPDFMeta runes. The PDF library escapes the
// string syntax (parentheses, backslashes); this removes what would show
// as something other than the text.
func PDFMeta(s string) string { return Line(s, MaxPDFMeta) }

// apply is the one filter behind the policies.
func apply(s string, max int, lines bool) string {
	if max <= 0 {
		return ""
	}
	long := len(s) > max*utf8.UTFMax+64
	if long {
		s = s[:max*utf8.UTFMax+64] // may split a rune; the loop drops the fragment
	}
	if out, ok := clean(s, max); ok {
		return out
	}
	w := filter(s, max, lines)
	if w.runes <= max && !long {
		return w.b.String()
	}
	kept := []rune(w.b.String())
	return truncate(kept[:min(len(kept), max-1)])
}

// clean is s capped at max runes when s is already clean plain ASCII up to
// the cap (the common case): false when it needs filtering.
func clean(s string, max int) (string, bool) {
	if len(s) <= max && plainASCII(s) {
		return s, true
	}
	if len(s) > max && plainASCII(strings.TrimRight(s[:max+1], " ")) {
		return truncate([]rune(s[:max-1])), true
	}
	return "", false
}

// filter writes the runes of s that the policy keeps, stopping after the
// first past max.
func filter(s string, max int, lines bool) *writer {
	w := new(writer)
	w.b.Grow(min(len(s), max+8))
	escape := escNone
	for _, r := range s {
		if escape, r = skipEscape(escape, r); r < 0 {
			continue
		}
		if w.add(r, lines) && w.runes > max {
			break
		}
	}
	return w
}

// writer accumulates kept runes, holding back white space until text
// follows it (so none leads or trails).
type writer struct {
	b                  strings.Builder
	runes              int
	pendingSpace, crLF bool
	pendingBreaks      int
}

// add takes r; it reports whether r was written.
func (w *writer) add(r rune, lines bool) bool {
	switch {
	case r > ' ' && r < 0x7f: // printable ASCII, the common case
	case lines && (r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'):
		w.lineBreak(r)
		return false
	case unicode.IsSpace(r):
		w.pendingSpace = w.runes > 0
		w.crLF = false
		return false
	case removed(r):
		return false
	}
	w.crLF = false
	w.flush()
	w.b.WriteRune(r)
	w.runes++
	return true
}

// lineBreak holds back a line break (at most two in a row, none leading;
// CR LF is one).
func (w *writer) lineBreak(r rune) {
	if r == '\n' && w.crLF {
		w.crLF = false
		return
	}
	w.crLF = r == '\r'
	if w.runes > 0 {
		w.pendingBreaks = min(w.pendingBreaks+1, 2)
	}
}

// flush writes the white space held back before a kept rune.
func (w *writer) flush() {
	switch {
	case w.pendingBreaks > 0:
		w.b.WriteString(strings.Repeat("\n", w.pendingBreaks))
		w.runes += w.pendingBreaks
	case w.pendingSpace:
		w.b.WriteByte(' ')
		w.runes++
	}
	w.pendingBreaks, w.pendingSpace = 0, false
}

// removed reports whether every policy drops r (see the package comment).
func removed(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs)
}

// truncate ends cut (already one rune short of the cap) with an ellipsis,
// on a word boundary when one is near.
func truncate(cut []rune) string {
	for i := len(cut) - 1; i > 0 && i >= len(cut)-15; i-- {
		if cut[i] == ' ' {
			cut = cut[:i]
			break
		}
	}
	return strings.TrimRight(string(cut), " ,;:-") + "…"
}

// plainASCII reports whether s is printable ASCII with single inner spaces,
// i.e. already clean.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return false
			}
			continue
		}
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// Terminal escape sequences are dropped whole, not just their ESC byte.
const (
	escNone = iota
	escStart
	escCSI // ESC [ parameters… final byte
	escOSC // ESC ] text… BEL or ESC \
)

// skipEscape advances the escape-sequence state by r; it returns r = -1
// while r belongs to a sequence.
func skipEscape(state int, r rune) (int, rune) { return escapeSteps[state](r) }

// escapeSteps are the escape-sequence states' transitions, by state.
var escapeSteps = [...]func(r rune) (int, rune){
	escNone:  textRune,
	escStart: afterESC,
	escCSI:   inCSI,
	escOSC:   inOSC,
}

// textRune is the state after r outside a sequence.
func textRune(r rune) (int, rune) {
	switch r {
	case 0x1b:
		return escStart, -1
	case 0x9b: // CSI as one C1 character
		return escCSI, -1
	}
	return escNone, r
}

// inCSI is the state after r inside a CSI sequence.
func inCSI(r rune) (int, rune) {
	switch {
	case r >= 0x40 && r <= 0x7e:
		return escNone, -1
	case r >= 0x20 && r < 0x40:
		return escCSI, -1
	}
	return escNone, r // malformed: stop skipping
}

// inOSC is the state after r inside an OSC sequence.
func inOSC(r rune) (int, rune) {
	if r == 0x07 || r == 0x1b || r == 0x9c {
		return escNone, -1
	}
	return escOSC, -1
}

// afterESC is the state after ESC and r.
func afterESC(r rune) (int, rune) {
	switch r {
	case '[':
		return escCSI, -1
	case ']':
		return escOSC, -1
	}
	return escNone, -1 // a two-character sequence such as ESC c
}

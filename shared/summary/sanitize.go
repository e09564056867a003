package summary

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length caps for text that reaches the summary. Titles, hosts and evidence
// are written by tools from what targets answered (banners, headers, file
// names), so every piece is cleaned and bounded before it is quoted.
const (
	maxTitle       = 90
	maxHost        = 80
	maxDomain      = 253
	maxToken       = 60 // CVE, CWE, file and cookie names, paths
	maxRemediation = 240
	maxPartial     = 200
	maxDetail      = 512 // description/evidence prefix used for matching
	maxToolName    = 40
	maxChain       = 700
	maxSummary     = 3000
)

// clean makes untrusted text safe to embed in a sentence: invalid UTF-8,
// control and format characters (escapes, NULs, bidi overrides, zero-width
// joiners) are dropped, runs of white space (newlines included) collapse to
// one space, and the result is at
// most max runes, cut at a word boundary with an ellipsis when it was longer.
// Only a bounded prefix of s is examined, so a megabyte banner costs no more
// than a short one.
func clean(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if limit := max*utf8.UTFMax + 64; len(s) > limit {
		s = s[:limit] // may split a rune; the loop below drops the fragment
	}
	if len(s) <= max && plainASCII(s) {
		return s
	}
	if len(s) > max && plainASCII(strings.TrimRight(s[:max+1], " ")) {
		cut := s[:max-1] // ASCII: bytes are runes
		if i := strings.LastIndexByte(cut, ' '); i > 0 && i >= len(cut)-15 {
			cut = cut[:i]
		}
		return strings.TrimRight(cut, " ,;:-") + "…"
	}
	var b strings.Builder
	b.Grow(min(len(s), max+8))
	runes := 0
	pendingSpace := false
	escape := escNone
	for _, r := range s {
		if escape, r = skipEscape(escape, r); r < 0 {
			continue
		}
		switch {
		case r > ' ' && r < 0x7f: // printable ASCII, the common case
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r):
			pendingSpace = runes > 0
			continue
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs):
			// Escape sequences, NULs, bidi overrides, zero-width characters.
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			runes++
			pendingSpace = false
		}
		b.WriteRune(r)
		if runes++; runes > max {
			break
		}
	}
	if runes <= max {
		return b.String()
	}
	return truncate([]rune(b.String())[:max-1])
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

// Terminal escape sequences are dropped whole, not just their ESC byte, so
// a banner's colour codes do not leave "[31m" behind.
const (
	escNone = iota
	escStart
	escCSI // ESC [ parameters… final byte
	escOSC // ESC ] text… BEL or ESC \
)

// skipEscape advances the escape-sequence state by r; it returns r = -1
// while r belongs to a sequence.
func skipEscape(state int, r rune) (int, rune) {
	switch state {
	case escStart:
		switch r {
		case '[':
			return escCSI, -1
		case ']':
			return escOSC, -1
		}
		return escNone, -1 // a two-character sequence such as ESC c
	case escCSI:
		if r >= 0x40 && r <= 0x7e {
			return escNone, -1
		}
		if r >= 0x20 && r < 0x40 {
			return escCSI, -1
		}
		return escNone, r // malformed: stop skipping
	case escOSC:
		if r == 0x07 || r == 0x1b || r == 0x9c {
			return escNone, -1
		}
		return escOSC, -1
	}
	if r == 0x1b {
		return escStart, -1
	}
	return escNone, r
}

// lower is clean followed by lower-casing, for keyword matching. ASCII is
// lowered byte by byte: strings.ToLower takes its slow path for the whole
// string as soon as one rune (such as the ellipsis) is not ASCII.
func lower(s string, max int) string {
	s = clean(s, max)
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	return string(b)
}

// firstSentence returns the first sentence of s (cleaned, bounded), ending
// with terminal punctuation.
func firstSentence(s string, max int) string {
	s = clean(s, max)
	if s == "" {
		return ""
	}
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			// A sentence ends at punctuation followed by a space (dots inside
			// names like ".git" or "example.com" are not followed by one),
			// except after an abbreviation such as "e.g." or "etc.".
			if s[i+1] == ' ' && !abbreviation(s[:i]) {
				return s[:i+1]
			}
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(s); !strings.ContainsRune(".!?…", r) {
		s += "."
	}
	return s
}

// abbreviation reports whether text ends with a word that a dot after it
// abbreviates: one letter, a dotted form like "e.g", or a common short one.
func abbreviation(text string) bool {
	word := text[strings.LastIndexAny(text, " (")+1:]
	return utf8.RuneCountInString(word) <= 1 || strings.Contains(word, ".") ||
		slices.Contains([]string{"etc", "vs", "approx", "incl", "min", "max", "no"}, strings.ToLower(word))
}

// hasAny reports whether s contains any of subs.
func hasAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// hasWord reports whether s contains any of words as a whole word: the
// characters around the match are not letters or digits (a word that itself
// starts or ends with punctuation, like ".git", is only checked on its
// alphanumeric sides). So "ftp" matches "anonymous ftp login" but neither
// "sftp" nor "vsftpd", and ".git" does not match "foo.github.io".
func hasWord(s string, words ...string) bool {
	for _, w := range words {
		if w == "" {
			continue
		}
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], w)
			if i < 0 {
				break
			}
			i += from
			end := i + len(w)
			okBefore := !isWordByte(w[0]) || i == 0 || !isWordByte(s[i-1])
			okAfter := !isWordByte(w[len(w)-1]) || end == len(s) || !isWordByte(s[end])
			if okBefore && okAfter {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// plural writes "1 finding", "2 findings".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// joinAnd joins items as English prose: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// capitalize upper-cases the first letter of a sentence.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// decapitalize lower-cases the first letter of a phrase set inside a
// sentence, unless it starts an acronym ("Credit budget…" → "credit
// budget…", "AWS…" unchanged).
func decapitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	next, _ := utf8.DecodeRuneInString(s[size:])
	if size == 0 || !unicode.IsUpper(r) || unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// quote puts a (cleaned) title in typographic quotes.
func quote(s string) string { return "“" + s + "”" }

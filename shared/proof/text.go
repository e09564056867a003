package proof

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes target text safe to keep: invalid UTF-8 replaced, control
// characters other than newline and tab shown as \xNN escapes, CRLF made
// LF. Rendering still escapes it; this keeps terminals and copy buttons
// from receiving raw escape sequences.
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case !shownEscaped(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// shownEscaped reports the runes Clean shows as escapes: control
// characters other than newline and tab, line and paragraph separators,
// and bidirectional controls.
func shownEscaped(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// Bound cuts s to at most limit characters, marking the cut with "…".
func Bound(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + "…"
}

// FirstLines returns the first n lines of s (at most maxChars characters).
func FirstLines(s string, n, maxChars int) string {
	lines := strings.SplitN(strings.ReplaceAll(s, "\r\n", "\n"), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return Bound(strings.Join(lines, "\n"), maxChars)
}

// binary reports bytes that are not text: a NUL, or mostly invalid UTF-8.
func binary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	bad := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0 {
			return true
		}
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		b = b[size:]
	}
	return bad > 8
}

// describeBinary summarises binary bytes: their length and the first few in
// hex (a file's magic number is what proves an archive or dump).
func describeBinary(b []byte, total int) string {
	head := b[:min(len(b), 16)]
	hex := make([]string, len(head))
	for i, c := range head {
		hex[i] = fmt.Sprintf("%02x", c)
	}
	return fmt.Sprintf("(binary body, %d bytes; first bytes: %s)", total, strings.Join(hex, " "))
}

package summary

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"secscan/shared/safetext"
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

// lower is clean followed by lower-casing, for keyword matching. ASCII is
// lowered byte by byte: strings.ToLower takes its slow path for the whole
// string as soon as one rune (such as the ellipsis) is not ASCII.
func lower(s string, max int) string {
	s = safetext.Line(s, max)
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
	s = safetext.Line(s, max)
	if s == "" {
		return ""
	}
	if i := sentenceEnd(s); i >= 0 {
		return s[:i+1]
	}
	return withFullStop(s)
}

// sentenceEnd is where the first sentence of s ends: punctuation followed
// by a space (dots inside names like ".git" or "example.com" are not
// followed by one), except after an abbreviation such as "e.g." or "etc.";
// -1 when s is one sentence.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if strings.IndexByte(".!?", s[i]) >= 0 && s[i+1] == ' ' && !abbreviation(s[:i]) {
			return i
		}
	}
	return -1
}

// withFullStop ends s with terminal punctuation.
func withFullStop(s string) string {
	if r, _ := utf8.DecodeLastRuneInString(s); !strings.ContainsRune(".!?…", r) {
		return s + "."
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
	return slices.ContainsFunc(words, func(w string) bool { return w != "" && hasOneWord(s, w) })
}

// hasOneWord reports whether s contains the word w (not "") as a whole word.
func hasOneWord(s, w string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if wordBounded(s, w, i) {
			return true
		}
		from = i + 1
	}
	return false
}

// wordBounded reports whether the match of w at s[i] stands alone: no
// letter or digit next to its alphanumeric ends.
func wordBounded(s, w string, i int) bool {
	end := i + len(w)
	okBefore := !isWordByte(w[0]) || i == 0 || !isWordByte(s[i-1])
	okAfter := !isWordByte(w[len(w)-1]) || end == len(s) || !isWordByte(s[end])
	return okBefore && okAfter
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

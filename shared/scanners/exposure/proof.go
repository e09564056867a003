package exposure

import (
	"regexp"
	"strings"
)

// needle is the part of a matched line found verbatim in the body: the
// text before any redaction mark, at most 40 bytes.
func needle(matched string) string {
	n, _, _ := strings.Cut(matched, "…")
	n = strings.TrimSpace(n)
	if len(n) > 40 {
		n = n[:40]
	}
	return n
}

// assignment is a "name = value" or "name: value" line of a configuration
// or credentials file.
var assignment = regexp.MustCompile(`(?m)^\s*(?:export\s+)?[\w.-]{1,80}\s*[:=]\s*["']?([^\s"']{6,})`)

// quoted is a quoted string literal: the values of a dump's INSERT, of a
// PHP define().
var quoted = regexp.MustCompile(`'([^'\n]{6,200})'|"([^"\n]{6,200})"`)

// maxAssignedValues bounds the values taken from one body.
const maxAssignedValues = 64

// minAssignedValue is the shortest value redacted: shorter ones (on, true,
// 3306) are settings, not secrets.
const minAssignedValue = 6

// assignedValues are the values assigned in a file the tool found exposed,
// and its quoted literals: an exposed environment, credentials or password
// file, a dump or a source backup is secrets through and through, so its
// proof redacts every value, not only those whose name says secret (pages
// are left to the generic redaction). Over-redacting a setting costs
// nothing; a leaked key does.
func assignedValues(body []byte) []string {
	if looksLikeMarkup(body) {
		return nil // a page (a listing, a debug page): generic redaction only
	}
	var out []string
	for _, m := range assignment.FindAllSubmatch(body, maxAssignedValues) {
		if v := string(m[1]); len(v) >= minAssignedValue {
			out = append(out, v)
		}
	}
	for _, m := range quoted.FindAllSubmatch(body, maxAssignedValues) {
		out = append(out, string(m[1])+string(m[2]))
	}
	return out
}

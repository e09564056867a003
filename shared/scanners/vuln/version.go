package vuln

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a software version as products print it: "1.12.4", "2.4.49",
// OpenSSH's "7.2p2", OpenSSL's "1.0.1f", "3.0.0-rc.1". Distribution
// suffixes ("5.5.62-0ubuntu0.14.04.1", "10.3.34-MariaDB") are dropped: they
// name a package build, not the upstream version the dataset speaks of.
type Version struct {
	raw   string
	parts []part
}

// part is one run of digits or of letters.
type part struct {
	num   int64
	str   string
	isNum bool
}

const (
	maxVersionLength = 64
	maxVersionParts  = 16
)

// preReleaseRank orders pre-release words; they sort before the release
// itself ("3.0.0-rc1" < "3.0.0"), while other letters are post-release
// patch levels ("7.2" < "7.2p2", "1.0.1" < "1.0.1f").
var preReleaseRank = map[string]int{"dev": 1, "snapshot": 1, "alpha": 2, "beta": 3, "pre": 4, "preview": 4, "rc": 5}

// ParseVersion parses a version; it errs on text that does not start with
// a digit (after an optional "v") or is too long.
func ParseVersion(s string) (Version, error) {
	raw := strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(raw, "v"), "V")
	if err := checkVersionText(raw, s); err != nil {
		return Version{}, err
	}
	core, rest := splitCore(s)
	parts, err := splitParts(core)
	if err != nil {
		return Version{}, fmt.Errorf("version %q: %w", raw, err)
	}
	parts = append(parts, preRelease(rest)...)
	if len(parts) > maxVersionParts {
		return Version{}, fmt.Errorf("version %q has too many parts", raw)
	}
	return Version{raw: raw, parts: parts}, nil
}

// checkVersionText errs on version text s (raw as given) that is too long
// or does not start with a digit.
func checkVersionText(raw, s string) error {
	if len(s) > maxVersionLength {
		return fmt.Errorf("version %q is too long", s[:maxVersionLength])
	}
	if s == "" || !isDigit(s[0]) {
		return fmt.Errorf("version %q does not start with a digit", raw)
	}
	return nil
}

// preRelease returns the pre-release parts of what follows a version's
// core: after "-", only a pre-release word belongs to the version
// ("-rc.1", "-beta2"); anything else ("+…" too) is a distribution's build
// label.
func preRelease(rest string) []part {
	if !strings.HasPrefix(rest, "-") {
		return nil
	}
	tail, _ := splitCore(rest[1:])
	pre, err := splitParts(tail)
	if err != nil || len(pre) == 0 || pre[0].isNum || preReleaseRank[pre[0].str] == 0 {
		return nil
	}
	return pre
}

// MustParseVersion is ParseVersion for constants; it panics on error.
func MustParseVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// splitCore returns the leading run of digits, letters and dots, and the
// rest.
func splitCore(s string) (string, string) {
	i := strings.IndexFunc(s, func(r rune) bool { return !isCoreRune(r) })
	if i < 0 {
		i = len(s)
	}
	return strings.TrimRight(s[:i], "."), s[i:]
}

// isCoreRune reports whether r belongs in a version's core: an ASCII
// digit, letter or dot.
func isCoreRune(r rune) bool {
	return r < 0x80 && (isDigit(byte(r)) || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// splitParts cuts "2p2.10rc1" into 2, "p", 2, 10, "rc", 1.
func splitParts(s string) ([]part, error) {
	var out []part
	for seg := range strings.SplitSeq(s, ".") {
		if seg == "" {
			return nil, fmt.Errorf("empty component")
		}
		for seg != "" {
			p, n, err := leadingPart(seg)
			if err != nil {
				return nil, err
			}
			out, seg = append(out, p), seg[n:]
		}
	}
	return out, nil
}

// leadingPart reads the run of digits or of letters seg starts with, and
// its length.
func leadingPart(seg string) (part, int, error) {
	digits := isDigit(seg[0])
	i := 1
	for i < len(seg) && isDigit(seg[i]) == digits {
		i++
	}
	if !digits {
		return part{str: strings.ToLower(seg[:i])}, i, nil
	}
	if i > 18 {
		return part{}, 0, fmt.Errorf("number %q is too long", seg[:i])
	}
	n, _ := strconv.ParseInt(seg[:i], 10, 64)
	return part{num: n, isNum: true}, i, nil
}

// String returns the version as given.
func (v Version) String() string { return v.raw }

// Compare returns -1, 0 or +1 as v is older than, the same as, or newer
// than w. Missing trailing numbers count as zero ("1.2" == "1.2.0").
func (v Version) Compare(w Version) int {
	for i := 0; i < max(len(v.parts), len(w.parts)); i++ {
		var a, b *part
		if i < len(v.parts) {
			a = &v.parts[i]
		}
		if i < len(w.parts) {
			b = &w.parts[i]
		}
		if c := comparePart(a, b); c != 0 {
			return c
		}
	}
	return 0
}

// comparePart orders one position; nil is a missing part.
func comparePart(a, b *part) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -compareToMissing(b)
	case b == nil:
		return compareToMissing(a)
	case a.isNum && b.isNum:
		return cmpInt(a.num, b.num)
	case a.isNum:
		return 1 // a new number outranks a letter suffix: "1.0.2" > "1.0.1f" is decided earlier; "7.3" > "7.p"
	case b.isNum:
		return -1
	}
	return compareWords(a.str, b.str)
}

// compareToMissing orders a part against the missing part of a shorter
// version.
func compareToMissing(a *part) int {
	if a.isNum {
		return sign(a.num) // "1.2.0" == "1.2", "1.2.1" > "1.2"
	}
	if preReleaseRank[a.str] > 0 {
		return -1 // "3.0.0rc1" < "3.0.0"
	}
	return 1 // "7.2p2" > "7.2"
}

// compareWords orders two word parts: pre-releases by rank and before any
// other word, other words alphabetically.
func compareWords(a, b string) int {
	ra, rb := preReleaseRank[a], preReleaseRank[b]
	switch {
	case ra > 0 && rb > 0:
		return cmpInt(int64(ra), int64(rb))
	case ra > 0:
		return -1
	case rb > 0:
		return 1
	}
	return strings.Compare(a, b)
}

func sign(n int64) int {
	if n > 0 {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

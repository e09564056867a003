// Package domainname owns the rules for the domain names users register as
// scan targets (CONTRACT "Targets"): Normalize turns user input into the one
// canonical form the service stores (lowercase ASCII, punycode, no trailing
// dot) or says in a plain sentence why the input is not a domain name, and
// InScope decides whether a host belongs to a registered domain.
package domainname

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

const (
	maxNameLength  = 253
	maxLabelLength = 63
)

// ErrInvalid is matched (errors.Is) by every error Normalize returns.
var ErrInvalid = errors.New("invalid domain name")

// invalidError carries a sentence meant for the user (an API "detail").
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// idnaProfile maps input the way browsers do for lookup (UTS #46,
// non-transitional) and enforces STD3 rules (letters, digits, hyphens only)
// and the hyphen rules. Lengths and empty labels are checked by Normalize
// itself, with clearer messages than the library's.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.CheckHyphens(true),
	idna.CheckJoiners(true),
	idna.StrictDomainName(true),
	idna.Transitional(false),
)

// Normalize returns the canonical form of a user-supplied domain name:
// spaces trimmed, lowercased, one trailing dot removed, internationalized
// labels converted to punycode ("bücher.de" -> "xn--bcher-kva.de"). It
// refuses URLs, paths, ports, user info, wildcards, IP literals, single
// labels and anything that is not a valid DNS host name; the error (matching
// ErrInvalid) is a sentence naming the problem.
func Normalize(input string) (string, error) {
	s := strings.TrimSpace(input)
	if s == "" {
		return "", invalid("the domain name is empty")
	}
	if len(s) > 1024 {
		return "", invalid("%q is too long for a domain name (at most %d characters)", truncate(s, 40), maxNameLength)
	}
	if err := checkShape(s); err != nil {
		return "", err
	}

	name := strings.TrimSuffix(strings.ToLower(s), ".")
	if name == "" {
		return "", invalid("%q is not a domain name", s)
	}
	if err := checkLabels(s, name); err != nil {
		return "", err
	}
	ascii, err := toASCII(s, name)
	if err != nil {
		return "", err
	}
	if err := checkASCII(s, ascii); err != nil {
		return "", err
	}
	return ascii, nil
}

// toASCII maps name (the lowercased input s) to its ASCII (punycode) form.
func toASCII(s, name string) (string, error) {
	ascii, err := idnaProfile.ToASCII(name)
	if err != nil {
		return "", invalid("%q is not a valid domain name: it contains characters or a label form that domain names do not allow", s)
	}
	if ascii != name && strings.ContainsAny(ascii, "/:@?#[]* ") {
		// Unicode input that maps to URL syntax (e.g. fullwidth solidus).
		return "", invalid("%q is not a valid domain name: it contains characters that domain names do not allow", s)
	}
	return ascii, nil
}

// checkLabels refuses, before the IDNA mapping, an IP address, an
// underscore, empty labels and labels that start or end with a hyphen in
// name (the lowercased input s).
func checkLabels(s, name string) error {
	if _, err := netip.ParseAddr(name); err == nil {
		return invalid("%q is an IP address; give a domain name such as example.com", s)
	}
	if strings.Contains(name, "_") {
		return invalid("%q contains an underscore, which is not allowed in host names", s)
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" {
			return invalid("%q has an empty label (two dots in a row, or a leading dot)", s)
		}
		if strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return invalid("%q has a label that starts or ends with a hyphen (%q)", s, label)
		}
	}
	return nil
}

// checkASCII refuses an ASCII (punycode) name that is too long, a single
// label, has an invalid label or ends in a numeric one; s is the input.
func checkASCII(s, ascii string) error {
	if len(ascii) > maxNameLength {
		return invalid("%q is too long: a domain name has at most %d characters (this one has %d)", truncate(s, 40), maxNameLength, len(ascii))
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return invalid("%q is a single label; give a full domain name such as example.com", s)
	}
	for _, label := range labels {
		if err := checkLabel(s, label); err != nil {
			return err
		}
	}
	if looksNumeric(labels[len(labels)-1]) {
		return invalid("%q ends in a numeric label, which makes it look like an IP address; give a domain name such as example.com", s)
	}
	return nil
}

// checkShape refuses inputs that are something else than a bare name
// (URL, e-mail, host:port, path, wildcard), with a hint at the fix.
func checkShape(s string) error {
	if err := checkURLShape(s); err != nil {
		return err
	}
	if _, err := netip.ParseAddr(strings.TrimSuffix(s, ".")); err == nil {
		return invalid("%q is an IP address; give a domain name such as example.com", s)
	}
	if i := strings.LastIndex(s, ":"); i >= 0 {
		return invalid("%q contains a port or a colon; give only the domain name, e.g. %s", s, hint(s[:i]))
	}
	if strings.Contains(s, "*") {
		return invalid("%q is a wildcard; give one domain name (its subdomains are in scope automatically)", s)
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return invalid("%q contains spaces; give a single domain name", s)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return invalid("%q contains control characters", s)
	}
	return nil
}

// checkURLShape refuses a URL, a bracketed IP address, user info and a
// path, query or fragment.
func checkURLShape(s string) error {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "//") {
		return invalid("%q is a URL; give only the domain name, e.g. %s", s, urlHint(s))
	}
	if strings.HasPrefix(s, "[") || strings.HasSuffix(s, "]") {
		return invalid("%q is an IP address; give a domain name such as example.com", s)
	}
	if strings.Contains(s, "@") {
		return invalid("%q contains \"@\" (user info or an e-mail address); give only the domain name, e.g. %s", s, hintAfter(s, "@"))
	}
	if i := strings.IndexAny(s, "/?#\\"); i >= 0 {
		return invalid("%q contains a path, query or fragment; give only the domain name, e.g. %s", s, hint(s[:i]))
	}
	return nil
}

// urlHint suggests the normalized host name of the URL s.
func urlHint(s string) string {
	if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
		return hint(u.Hostname())
	}
	return "example.com"
}

// hint suggests the normalized form of the part of the input before a path
// or port, when that part is a valid name.
func hint(prefix string) string {
	if h, err := Normalize(prefix); err == nil {
		return h
	}
	return "example.com"
}

func hintAfter(s, sep string) string {
	return hint(s[strings.LastIndex(s, sep)+len(sep):])
}

func checkLabel(input, label string) error {
	switch {
	case label == "":
		return invalid("%q has an empty label (two dots in a row, or a leading dot)", input)
	case len(label) > maxLabelLength:
		return invalid("%q has a label longer than %d characters (%q)", truncate(input, 80), maxLabelLength, truncate(label, 20))
	case label[0] == '-' || label[len(label)-1] == '-':
		return invalid("%q has a label that starts or ends with a hyphen (%q)", input, label)
	}
	if i := strings.IndexFunc(label, func(r rune) bool { return !isLDH(r) }); i >= 0 {
		return invalid("%q contains %q, which is not allowed in domain names (letters, digits and hyphens only)", input, string(label[i]))
	}
	return nil
}

// isLDH reports whether r is a letter (lowercase), digit or hyphen.
func isLDH(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' }

// looksNumeric is true for a top-level label that URL parsers would read as
// part of an IPv4 address (decimal, or 0x hex), e.g. "127.1" or "a.0x7f".
func looksNumeric(label string) bool {
	if digits, hex := strings.CutPrefix(label, "0x"); hex {
		return strings.Trim(digits, "0123456789abcdef") == ""
	}
	return strings.Trim(label, "0123456789") == ""
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// InScope reports whether host is domain or one of its subdomains. Both are
// compared case-insensitively with one trailing dot ignored; Unicode names
// are compared in their punycode form. "badexample.com" is not in the scope
// of "example.com". host must be a bare host name, without port.
func InScope(host, domain string) bool {
	h, ok := canonicalForScope(host)
	if !ok {
		return false
	}
	d, ok := canonicalForScope(domain)
	if !ok {
		return false
	}
	return h == d || strings.HasSuffix(h, "."+d)
}

func canonicalForScope(name string) (string, bool) {
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if name == "" || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return "", false
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			ascii, err := idnaProfile.ToASCII(name)
			if err != nil {
				return "", false
			}
			return ascii, true
		}
	}
	return name, true
}

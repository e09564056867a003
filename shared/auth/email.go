package auth

import (
	"errors"
	"net/mail"
	"strings"

	"secscan/shared/domainname"
)

// ErrEmail is the refusal of an address NormalizeEmail cannot compare safely.
var ErrEmail = errors.New("must be a plain ASCII email address like name@example.com")

// NormalizeEmail returns the comparable form of an email address: trimmed,
// the domain part converted to its IDNA ASCII form, and lower-cased with
// ASCII rules only. An address whose local part is not plain printable ASCII
// is refused (ErrEmail): Unicode case folding would let "\u212Aate@corp.test"
// (a Kelvin sign) compare equal to "kate@corp.test" and claim that account.
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || len(s) > 254 {
		return "", ErrEmail
	}
	local, domain := s[:at], s[at+1:]
	if !plainLocalPart(local) {
		return "", ErrEmail
	}
	ascii, ok := asciiDomain(domain)
	if !ok {
		return "", ErrEmail
	}
	email := asciiLower(local) + "@" + ascii
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || len(email) > 254 {
		return "", ErrEmail
	}
	return email, nil
}

// plainLocalPart says whether an address's local part is printable ASCII
// without spaces.
func plainLocalPart(local string) bool {
	return !strings.ContainsFunc(local, func(c rune) bool { return c <= ' ' || c >= 0x7f })
}

// asciiDomain is an address's domain in its IDNA ASCII form. Unicode that
// IDNA maps onto plain ASCII (a Kelvin sign for a K) is refused: a
// look-alike, never a real internationalized name.
func asciiDomain(domain string) (string, bool) {
	ascii, err := domainname.Normalize(domain)
	if err != nil || (!isASCII(domain) && !strings.Contains(ascii, "xn--")) {
		return "", false
	}
	return ascii, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiLower lower-cases A-Z only; every other byte is kept as is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

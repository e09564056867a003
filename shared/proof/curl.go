package proof

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Curl returns a curl command line that repeats a request: every argument
// single-quoted (a quote inside closes, escapes and reopens), control
// characters dropped, so pasting it into a POSIX shell runs exactly curl
// with these arguments and nothing else.
func Curl(method string, u *url.URL, h http.Header, insecure bool) string {
	args := []string{"curl", "-i", "--path-as-is"}
	if insecure {
		args = append(args, "--insecure")
	}
	switch method {
	case "", http.MethodGet:
	case http.MethodHead:
		args = append(args, "--head")
	default:
		args = append(args, "-X", shellQuote(method))
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range h[name] {
			args = append(args, "-H", shellQuote(http.CanonicalHeaderKey(name)+": "+v))
		}
	}
	target := ""
	if u != nil {
		if u.Opaque != "" {
			// A request target sent verbatim (not valid percent-encoding on
			// purpose) is given to curl as is.
			base := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
			args = append(args, "--request-target", shellQuote(strings.TrimPrefix(u.Opaque, "//"+u.Host)))
			target = base.String()
		} else {
			target = u.String()
		}
	}
	args = append(args, shellQuote(target))
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

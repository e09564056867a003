package proof

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"secscan/shared/scans"
)

// Curl returns a curl command line that repeats a request: every argument
// single-quoted (a quote inside closes, escapes and reopens), control
// characters dropped, so pasting it into a POSIX shell runs exactly curl
// with these arguments and nothing else. --globoff sends the URL as it is:
// without it curl expands "[1-1000000]" or "{a,b}" in a URL (the target's
// text, a link it served) into as many requests.
func Curl(method string, u *url.URL, h http.Header, insecure bool) string {
	args := []string{scans.CurlPrefix}
	if insecure {
		args = append(args, "--insecure")
	}
	args = append(args, methodArgs(method)...)
	args = append(args, headerArgs(h)...)
	args = append(args, targetArgs(u)...)
	return strings.Join(args, " ")
}

// methodArgs are curl's arguments for a request method: none for GET.
func methodArgs(method string) []string {
	switch method {
	case "", http.MethodGet:
		return nil
	case http.MethodHead:
		return []string{"--head"}
	}
	return []string{"-X", shellQuote(method)}
}

// headerArgs are a -H argument for every header value, by name.
func headerArgs(h http.Header) []string {
	var args []string
	for _, name := range headerNames(h, nil) {
		for _, v := range h[name] {
			args = append(args, "-H", shellQuote(http.CanonicalHeaderKey(name)+": "+v))
		}
	}
	return args
}

// targetArgs name the URL to curl: a request target sent verbatim (not
// valid percent-encoding on purpose) is given as is, after its origin.
func targetArgs(u *url.URL) []string {
	switch {
	case u == nil:
		return []string{shellQuote("")}
	case u.Opaque != "":
		base := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
		return []string{"--request-target", shellQuote(strings.TrimPrefix(u.Opaque, "//"+u.Host)), shellQuote(base.String())}
	}
	return []string{shellQuote(u.String())}
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

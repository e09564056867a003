package httpprobe

import (
	"bytes"
	"errors"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"secscan/shared/plainerr"
	"secscan/shared/safetext"
)

// Clean makes target-supplied text safe for evidence and outcomes: one line
// of at most max runes (safetext.Line).
func Clean(s string, max int) string { return safetext.Line(s, max) }

// Describe turns a failed request into a few words for an outcome line.
func Describe(err error) string {
	if err == nil {
		return "no answer"
	}
	if strings.HasPrefix(err.Error(), "refused: ") { // a tool's own refusal, already in words
		return Clean(err.Error(), 200)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	return Clean(plainerr.Describe(err), 200)
}

// ScriptSources returns the absolute http(s) URLs of the <script src>
// elements of an HTML page, resolved against page (and its <base href>),
// deduplicated, in document order, at most max. They are not checked
// against the scope: callers decide whether to fetch them.
func ScriptSources(body []byte, page *url.URL, max int) []*url.URL {
	base := page
	seen := map[string]bool{}
	var out []*url.URL
	z := html.NewTokenizer(bytes.NewReader(body))
	// The tokenizer's own buffer is bounded by the body, which callers
	// have already capped.
	for len(out) < max {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tag, ref, ok := scriptOrBase(z, tt)
		if !ok {
			continue
		}
		u, ok := webURL(base, ref)
		if !ok {
			continue
		}
		if tag == "base" {
			base = u
		} else if !seen[u.String()] {
			seen[u.String()] = true
			out = append(out, u)
		}
	}
	return out
}

// webURL resolves ref against base to an absolute http(s) URL without its
// fragment; false when it is no such URL.
func webURL(base *url.URL, ref string) (*url.URL, bool) {
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	u.Fragment = ""
	return u, true
}

// refAttributes name the attribute of the reference each tag scriptOrBase
// reads holds.
var refAttributes = map[string]string{"script": "src", "base": "href"}

// scriptOrBase reads a <script src> or <base href> start tag: its name and
// the attribute's value, trimmed (the first such attribute).
func scriptOrBase(z *html.Tokenizer, tt html.TokenType) (tag, ref string, ok bool) {
	if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return "", "", false
	}
	name, hasAttr := z.TagName()
	tag = string(name)
	want, known := refAttributes[tag]
	if !known || !hasAttr {
		return "", "", false
	}
	for more := true; more; {
		var key, val []byte
		key, val, more = z.TagAttr()
		if string(key) == want {
			return tag, strings.TrimSpace(string(val)), true
		}
	}
	return "", "", false
}

// SameOrigin reports whether a and b share scheme, host and port.
func SameOrigin(a, b *url.URL) bool {
	ha, pa := HostPort(a)
	hb, pb := HostPort(b)
	return a.Scheme == b.Scheme && ha == hb && pa == pb
}

// SameHost reports whether a and b name the same host (any scheme or port).
func SameHost(a, b *url.URL) bool {
	ha, _ := HostPort(a)
	hb, _ := HostPort(b)
	return ha == hb
}

package discovery

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// linkAttrs are the attributes whose URLs name hosts a page links to.
var linkAttrs = map[string]string{"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src", "form": "action", "area": "href"}

// linkHosts returns the host names of the absolute http(s) links of an
// HTML page, resolved against page, deduplicated, at most maxLinks. They
// are only names: the caller decides which are in scope.
func linkHosts(body []byte, page *url.URL) []string {
	seen := map[string]bool{}
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for len(out) < maxLinks {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		for _, link := range linkTargets(z) {
			if h := linkHost(page, link); h != "" && !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// linkTargets are the values of the link attribute of the tag z is at
// (none when the tag is not a link).
func linkTargets(z *html.Tokenizer) []string {
	name, hasAttr := z.TagName()
	want, ok := linkAttrs[string(name)]
	var out []string
	for more := hasAttr && ok; more; {
		var key, val []byte
		key, val, more = z.TagAttr()
		if string(key) == want {
			out = append(out, string(val))
		}
	}
	return out
}

// linkHost is the lower-case host name of link, resolved against page,
// when it is an absolute http(s) URL; "" otherwise.
func linkHost(page *url.URL, link string) string {
	u, err := page.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

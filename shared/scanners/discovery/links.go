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
		name, hasAttr := z.TagName()
		want, ok := linkAttrs[string(name)]
		if !ok || !hasAttr {
			continue
		}
		for {
			key, val, more := z.TagAttr()
			if string(key) == want {
				if u, err := page.Parse(strings.TrimSpace(string(val))); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
					if h := strings.ToLower(u.Hostname()); h != "" && !seen[h] {
						seen[h] = true
						out = append(out, h)
					}
				}
			}
			if !more {
				break
			}
		}
	}
	return out
}

package crawl

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

const (
	// maxLinksPerPage bounds the links kept from one page.
	maxLinksPerPage = 200
	// maxFormsPerPage bounds the forms kept from one page.
	maxFormsPerPage = 20
	// maxFieldsPerForm bounds the fields listed per form.
	maxFieldsPerForm = 30
	// maxResourcesPerPage bounds the subresources kept from one page.
	maxResourcesPerPage = 200
	// maxTokens bounds the tokens read from one page (the body is already
	// capped; this bounds the work on pathological markup).
	maxTokens = 200_000
)

// document is what the crawl reads from one HTML page.
type document struct {
	links     []*url.URL // a, area, frame and iframe targets, absolute, without fragment
	forms     []form
	resources []resource // subresources, for mixed content
	scripts   []*url.URL // <script src>
	generator string     // <meta name="generator" content>
}

// form is one <form> and its fields.
type form struct {
	method   string   // upper case; GET when absent
	action   *url.URL // resolved; the page itself when absent
	fields   []string // input names, never values
	password bool     // has an <input type="password">
}

// resource is a subresource a page loads.
type resource struct {
	url *url.URL
	tag string // e.g. "script src", "img src"
	// active content (scripts, styles, frames, plugins) runs with the
	// page's privileges; passive content (images, media) does not.
	active bool
}

// resourceAttrs names the attribute of each tag that loads a subresource,
// and whether the content is active.
var resourceAttrs = map[string]struct {
	attr   string
	active bool
}{
	"script": {"src", true},
	"iframe": {"src", true},
	"frame":  {"src", true},
	"object": {"data", true},
	"embed":  {"src", true},
	"img":    {"src", false},
	"audio":  {"src", false},
	"video":  {"src", false},
	"source": {"src", false},
	"track":  {"src", false},
}

// parseHTML extracts links, forms, subresources and the generator of a
// page. URLs are resolved against page and <base href>; only http(s)
// results are kept; none is checked against the scope here.
func parseHTML(body []byte, page *url.URL) document {
	var doc document
	base := page
	var cur *form // the open <form>, if any
	z := html.NewTokenizer(bytes.NewReader(body))
	for range maxTokens {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt == html.EndTagToken {
			if name, _ := z.TagName(); string(name) == "form" && cur != nil {
				doc.forms = append(doc.forms, *cur)
				cur = nil
			}
			continue
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		tag := string(name)
		attrs := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			key := string(k)
			if _, dup := attrs[key]; !dup {
				attrs[key] = strings.TrimSpace(string(v))
			}
		}
		resolve := func(ref string) *url.URL {
			if ref == "" {
				return nil
			}
			u, err := base.Parse(ref)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil
			}
			u.Fragment, u.RawFragment = "", ""
			return u
		}
		switch tag {
		case "base":
			if u := resolve(attrs["href"]); u != nil {
				base = u
			}
		case "a", "area":
			if u := resolve(attrs["href"]); u != nil && len(doc.links) < maxLinksPerPage {
				doc.links = append(doc.links, u)
			}
		case "meta":
			if strings.EqualFold(attrs["name"], "generator") && doc.generator == "" {
				doc.generator = attrs["content"]
			}
		case "link":
			if hasToken(attrs["rel"], "stylesheet") {
				if u := resolve(attrs["href"]); u != nil && len(doc.resources) < maxResourcesPerPage {
					doc.resources = append(doc.resources, resource{url: u, tag: "link rel=stylesheet href", active: true})
				}
			}
		case "form":
			if cur != nil && len(doc.forms) < maxFormsPerPage {
				doc.forms = append(doc.forms, *cur) // an unclosed form ends where the next starts
			}
			cur = nil
			if len(doc.forms) >= maxFormsPerPage {
				break
			}
			method := strings.ToUpper(attrs["method"])
			if method == "" {
				method = "GET"
			}
			action := page
			if a, ok := attrs["action"]; ok && a != "" {
				action = resolve(a)
			}
			if action == nil {
				break // javascript: and other non-http actions are not requests
			}
			cur = &form{method: method, action: action}
		case "input", "textarea", "select":
			if cur == nil {
				break
			}
			if strings.EqualFold(attrs["type"], "password") {
				cur.password = true
			}
			if n := attrs["name"]; n != "" && len(cur.fields) < maxFieldsPerForm {
				cur.fields = append(cur.fields, n)
			}
		}
		if ra, ok := resourceAttrs[tag]; ok {
			if u := resolve(attrs[ra.attr]); u != nil {
				if len(doc.resources) < maxResourcesPerPage {
					doc.resources = append(doc.resources, resource{url: u, tag: tag + " " + ra.attr, active: ra.active})
				}
				if tag == "script" && len(doc.scripts) < maxResourcesPerPage {
					doc.scripts = append(doc.scripts, u)
				}
			}
			if tag == "iframe" || tag == "frame" {
				if u := resolve(attrs["src"]); u != nil && len(doc.links) < maxLinksPerPage {
					doc.links = append(doc.links, u)
				}
			}
		}
	}
	if cur != nil && len(doc.forms) < maxFormsPerPage {
		doc.forms = append(doc.forms, *cur)
	}
	return doc
}

// hasToken reports whether a space-separated attribute value (rel)
// contains token, case-insensitively.
func hasToken(list, token string) bool {
	for f := range strings.FieldsSeq(list) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

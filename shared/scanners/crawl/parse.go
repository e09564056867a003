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
	p := parser{page: page, base: page}
	z := html.NewTokenizer(bytes.NewReader(body))
	for range maxTokens {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		p.token(z, tt)
	}
	if p.cur != nil && len(p.doc.forms) < maxFormsPerPage {
		p.doc.forms = append(p.doc.forms, *p.cur)
	}
	return p.doc
}

// parser is the state of parseHTML between tokens.
type parser struct {
	doc        document
	page, base *url.URL
	cur        *form // the open <form>, if any
}

// token reads the token z is at, of type tt: a start tag, or the end of a
// form; other tokens are skipped.
func (p *parser) token(z *html.Tokenizer, tt html.TokenType) {
	switch tt {
	case html.EndTagToken:
		if name, _ := z.TagName(); string(name) == "form" {
			p.closeForm()
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		p.startTag(tagAttrs(z))
	}
}

// tagAttrs reads the current start tag's name and attributes (the first of
// a repeated attribute wins; values trimmed).
func tagAttrs(z *html.Tokenizer) (string, map[string]string) {
	name, hasAttr := z.TagName()
	attrs := map[string]string{}
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		key := string(k)
		if _, dup := attrs[key]; !dup {
			attrs[key] = strings.TrimSpace(string(v))
		}
	}
	return string(name), attrs
}

// resolve makes ref absolute against the base, without fragment; nil when
// empty, unparsable or not http(s).
func (p *parser) resolve(ref string) *url.URL {
	if ref == "" {
		return nil
	}
	u, err := p.base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	u.Fragment, u.RawFragment = "", ""
	return u
}

func (p *parser) addLink(u *url.URL) {
	if u != nil && len(p.doc.links) < maxLinksPerPage {
		p.doc.links = append(p.doc.links, u)
	}
}

func (p *parser) addResource(u *url.URL, tag string, active bool) {
	if u != nil && len(p.doc.resources) < maxResourcesPerPage {
		p.doc.resources = append(p.doc.resources, resource{url: u, tag: tag, active: active})
	}
}

// closeForm ends the open form, if any.
func (p *parser) closeForm() {
	if p.cur != nil {
		p.doc.forms = append(p.doc.forms, *p.cur)
		p.cur = nil
	}
}

// tagHandlers read the tags that are not only subresources.
var tagHandlers = map[string]func(*parser, map[string]string){
	"base":     (*parser).setBase,
	"a":        (*parser).link,
	"area":     (*parser).link,
	"meta":     (*parser).meta,
	"link":     (*parser).stylesheet,
	"form":     (*parser).openForm,
	"input":    (*parser).field,
	"textarea": (*parser).field,
	"select":   (*parser).field,
}

func (p *parser) startTag(tag string, attrs map[string]string) {
	if h, ok := tagHandlers[tag]; ok {
		h(p, attrs)
	}
	if ra, ok := resourceAttrs[tag]; ok {
		p.subresource(tag, ra.attr, ra.active, attrs)
	}
}

// setBase reads <base href>: later URLs resolve against it.
func (p *parser) setBase(attrs map[string]string) {
	if u := p.resolve(attrs["href"]); u != nil {
		p.base = u
	}
}

// link reads an <a> or <area> target.
func (p *parser) link(attrs map[string]string) { p.addLink(p.resolve(attrs["href"])) }

// meta reads the first <meta name="generator">.
func (p *parser) meta(attrs map[string]string) {
	if strings.EqualFold(attrs["name"], "generator") && p.doc.generator == "" {
		p.doc.generator = attrs["content"]
	}
}

// stylesheet reads a <link rel=stylesheet>, an active subresource.
func (p *parser) stylesheet(attrs map[string]string) {
	if hasToken(attrs["rel"], "stylesheet") {
		p.addResource(p.resolve(attrs["href"]), "link rel=stylesheet href", true)
	}
}

// openForm starts a form; an unclosed form ends where the next starts.
func (p *parser) openForm(attrs map[string]string) {
	if p.cur != nil && len(p.doc.forms) < maxFormsPerPage {
		p.doc.forms = append(p.doc.forms, *p.cur)
	}
	p.cur = nil
	if len(p.doc.forms) >= maxFormsPerPage {
		return
	}
	method := strings.ToUpper(attrs["method"])
	if method == "" {
		method = "GET"
	}
	action := p.page
	if a, ok := attrs["action"]; ok && a != "" {
		action = p.resolve(a)
	}
	if action == nil {
		return // javascript: and other non-http actions are not requests
	}
	p.cur = &form{method: method, action: action}
}

// field records an input of the open form, if any.
func (p *parser) field(attrs map[string]string) {
	if p.cur == nil {
		return
	}
	if strings.EqualFold(attrs["type"], "password") {
		p.cur.password = true
	}
	if n := attrs["name"]; n != "" && len(p.cur.fields) < maxFieldsPerForm {
		p.cur.fields = append(p.cur.fields, n)
	}
}

// subresource records what a resource tag loads; scripts are listed apart
// and frames are links as well.
func (p *parser) subresource(tag, attr string, active bool, attrs map[string]string) {
	if u := p.resolve(attrs[attr]); u != nil {
		p.addResource(u, tag+" "+attr, active)
		if tag == "script" && len(p.doc.scripts) < maxResourcesPerPage {
			p.doc.scripts = append(p.doc.scripts, u)
		}
	}
	if tag == "iframe" || tag == "frame" {
		p.addLink(p.resolve(attrs["src"]))
	}
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

package modelplanner

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"

	"secscan/shared/checks"
	"secscan/shared/domainname"
	"secscan/shared/lazyre"
	"secscan/shared/planner"
	"secscan/shared/scans"
)

// The model's executive summary and attack chains are untrusted output: the
// model read the target's text (pages, banners, DNS records), and whatever
// it writes reaches reports, the dashboard and the webhook under the
// service's name. So the text may name only what the service itself knows
// to be about the scan, never what the target wrote: the allow-list is the
// scope, the findings' hosts (and the addresses the scan resolved them
// to), their CVE and CWE ids, and their references (the check catalogue's
// and the CVE dataset's), never a finding's evidence, which the scanned
// server writes. A URL must be a reference or on an allowed host, an e-mail
// address's domain an allowed host, every host name on the list, every
// host-like word plain ASCII (no lookalike dot, letter or invisible
// character); no command line at all; and every sentence must refer to a
// finding by what it contains (its host, title, CVE, CWE, port or id). A
// rejection says which rule failed without quoting the offending text (it
// may be an attacker's), except names of the scope and CVEs, which are not.

var (
	urlPattern   = lazyre.New(`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s<>"'` + "`" + `]+|\b(?:javascript|data|vbscript):[^\s]+`)
	emailPattern = lazyre.New(`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,63}\b`)
	codeSpan     = lazyre.New("`[^`]*`")
	// commandPatterns recognise shell command lines: an executive summary
	// has no use for one, and one in the evidence is the target's text.
	commandPatterns = []*regexp.Regexp{
		regexp.MustCompile(`\|\s*(?:sudo\s+)?(?:ba|z|k|da|c|tc|fi)?sh\b`),
		regexp.MustCompile(`(?i)\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|php|node|iex|powershell|pwsh)\b`),
		regexp.MustCompile(`(?i)\bsudo\s+\S`),
		regexp.MustCompile(`(?i)\b(?:curl|wget)\s+(?:-{1,2}[a-z]|['"]?[a-z]+://|\S+\s*\|)`),
		regexp.MustCompile(`(?i)\b(?:bash|sh|zsh|powershell|pwsh|cmd(?:\.exe)?)\s+[-/](?:c|e|enc|encodedcommand|command)\b`),
		regexp.MustCompile(`(?i)\bInvoke-(?:WebRequest|Expression|RestMethod)\b`),
		regexp.MustCompile(`(?i)\b(?:rm\s+-[a-z]*[rf]|chmod\s+[+0-7]|nc\s+-[a-z]*e)`),
		regexp.MustCompile(`\$\(|&&`),
	}
	wordPattern = lazyre.New(`[a-z0-9]+`)
	// hostLike finds words with a dot inside, in any script: labels of
	// letters, digits, marks, format characters (zero-width), "_" and "-",
	// joined by a full stop or a character a browser or a reader takes for
	// one (U+3002, U+FF0E, U+FF61, U+FE52, U+2024, Syriac and Lisu stops)
	// or a defanged "[.]", "(.)", "[dot]", "(dot)".
	hostLike = lazyre.New(`[\p{L}\p{N}\p{M}\p{Cf}_-]+(?:(?:[.\x{3002}\x{FF0E}\x{FF61}\x{FE52}\x{2024}\x{0701}\x{0702}\x{A4F8}]|\[\.\]|\(\.\)|(?i:\[dot\]|\(dot\)))[\p{L}\p{N}\p{M}\p{Cf}_-]+)+`)
)

// specialUseTLDs are names that are host names without being in the public
// suffix list (RFC 2606, RFC 6761, common private zones).
var specialUseTLDs = []string{"example", "test", "invalid", "localhost", "local", "internal", "onion", "arpa", "lan", "home", "corp", "intranet"}

// productNames are dotted product names under a real top-level domain that
// are not host names.
var productNames = []string{"asp.net", "vb.net", "ado.net"}

// stopWords carry no meaning of a title: a sentence sharing only them with
// a title does not refer to its finding.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "that": true, "this": true,
	"are": true, "was": true, "not": true, "its": true, "has": true, "have": true, "been": true, "can": true, "any": true,
	"all": true, "via": true, "over": true, "into": true, "than": true, "then": true, "use": true, "uses": true, "used": true,
	"one": true, "more": true, "may": true, "which": true, "their": true, "there": true, "without": true, "other": true}

// known is the allow-list of the model's text, built from what the service
// itself knows (never from evidence), and what its sentences may refer to.
type known struct {
	scope string
	// hosts: the scope, the findings' hosts and the hosts of their
	// references; addrs: the findings' hosts' addresses as the scan
	// resolved them; cves: the findings' CVE ids, theirs and their
	// references' (a finding grouping several CVEs references each).
	hosts, addrs, cves map[string]bool
	refs               []string // the references, lowercased
	// corpus (lowercased) is what a code span may quote: the hosts, the
	// findings' ids, titles, CVE, CWE and references.
	corpus   string
	findings []findingRef
}

// findingRef is what a sentence can name to refer to one finding.
type findingRef struct {
	id, title, host, cve, cwe, port string
	titleWords                      []string
}

func knownOf(s planner.State) known {
	k := known{scope: strings.ToLower(s.Scan.Target), hosts: map[string]bool{}, addrs: map[string]bool{}, cves: map[string]bool{}}
	k.hosts[k.scope] = true
	var b strings.Builder
	b.WriteString(k.scope + "\n")
	for _, f := range s.Findings {
		host := strings.ToLower(f.Host)
		k.hosts[host] = true
		if _, err := netip.ParseAddr(host); err == nil {
			k.addrs[host] = true
		}
		if h, ok := s.Surface.Host(f.Host); ok {
			for _, a := range h.Addresses {
				k.addrs[strings.ToLower(a)] = true
			}
		}
		if f.CVE != nil {
			k.cves[strings.ToLower(*f.CVE)] = true
		}
		refs := slices.Clone(f.References)
		if c, ok := checks.Lookup(f.Check); ok {
			refs = append(refs, c.References...)
		}
		for _, r := range refs {
			k.addReference(r)
		}
		fmt.Fprintf(&b, "%s %s %s %s %s %s\n", f.ID, f.Host, f.Title, deref(f.CVE), deref(f.CWE), strings.Join(refs, " "))
		k.findings = append(k.findings, refOf(f))
	}
	k.corpus = strings.ToLower(b.String())
	return k
}

// addReference allows a reference URL, its host and the CVE ids it names.
func (k *known) addReference(ref string) {
	ref = strings.ToLower(ref)
	k.refs = append(k.refs, ref)
	if u, err := url.Parse(ref); err == nil && u.Hostname() != "" {
		k.hosts[u.Hostname()] = true
	}
	for _, id := range cvePattern.FindAllString(ref, -1) {
		k.cves[id] = true
	}
}

// inCorpus reports whether s is part of what a code span may quote.
func (k known) inCorpus(s string) bool { return strings.Contains(k.corpus, strings.ToLower(s)) }

// check applies the rules to one text; what names it in a rejection ("the
// summary", "attack chain 2").
func (k known) check(what, text string) error {
	for _, rule := range textRules {
		if err := rule(k, what, text); err != nil {
			return err
		}
	}
	return nil
}

// textRules are the rules check applies, in order: the first broken one
// rejects the text.
var textRules = []func(k known, what, text string) error{
	noLookalikes, (known).knownURLs, (known).knownEmails, noCommands, (known).knownCode,
	(known).knownHosts, (known).knownAddresses, (known).everySentenceAnchored,
}

// noLookalikes: every host-like word is plain ASCII with plain dots. A
// non-ASCII dot ("evil。com" is evil.com to a browser), letter (a Cyrillic
// "е" in "ехample.com"), invisible character or a defanged dot makes a
// host that the other rules cannot compare with the allow-list.
func noLookalikes(_ known, what, text string) error {
	for _, w := range hostLike.FindAllString(text, -1) {
		if !plainASCII(w) || strings.ContainsAny(w, "[(") {
			return fmt.Errorf("%s contains a host-like name with a character that is not a plain ASCII letter, digit, hyphen or dot", what)
		}
	}
	return nil
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// knownURLs: every URL is a reference of a finding, or a plain http(s) URL
// on an allowed host (the scope, a finding's host).
func (k known) knownURLs(what, text string) error {
	for _, u := range urlPattern.FindAllString(text, 20) {
		if !k.allowedURL(strings.TrimRight(u, ".,;:!?)]}")) {
			return fmt.Errorf("%s contains a URL that no finding contains", what)
		}
	}
	return nil
}

// allowedURL reports whether raw is a reference of a finding, or an
// http(s) URL without credentials whose host is the scope or a finding's.
func (k known) allowedURL(raw string) bool {
	lower := strings.ToLower(raw)
	if slices.Contains(k.refs, lower) {
		return true
	}
	u, err := url.Parse(lower)
	if err != nil || !plainASCII(raw) || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return false
	}
	host := u.Hostname()
	return host != "" && k.hosts[host] && !k.referenceHostOnly(host)
}

// referenceHostOnly reports whether host is allowed only as the host of a
// reference (nvd.nist.gov): a URL there must be the reference itself.
func (k known) referenceHostOnly(host string) bool {
	if host == k.scope {
		return false
	}
	return !slices.ContainsFunc(k.findings, func(r findingRef) bool { return r.host == host })
}

// knownEmails: every e-mail address is at an allowed host (the scope, a
// finding's host): the target's text can name any mailbox, but only the
// domain's owner receives mail there.
func (k known) knownEmails(what, text string) error {
	for _, e := range emailPattern.FindAllString(text, 20) {
		domain := strings.ToLower(e[strings.LastIndexByte(e, '@')+1:])
		if !k.hosts[domain] || k.referenceHostOnly(domain) {
			return fmt.Errorf("%s contains an e-mail address that no finding contains", what)
		}
	}
	return nil
}

// noCommands: no command lines.
func noCommands(_ known, what, text string) error {
	for _, p := range commandPatterns {
		if p.MatchString(text) {
			return fmt.Errorf("%s contains a command line", what)
		}
	}
	return nil
}

// knownCode: every code span quotes the allow-list or a finding's title.
func (k known) knownCode(what, text string) error {
	for _, span := range codeSpan.FindAllString(text, 20) {
		if inner := strings.Trim(span, "`"); strings.TrimSpace(inner) != "" && !k.inCorpus(inner) {
			return fmt.Errorf("%s contains code that no finding contains", what)
		}
	}
	return nil
}

// knownHosts: every host name, in the scope or outside it, is on the
// allow-list.
func (k known) knownHosts(what, text string) error {
	for _, at := range hostPattern.FindAllStringIndex(text, 40) {
		name := strings.ToLower(text[at[0]:at[1]])
		switch {
		case k.hosts[name], pathSegment(text, at[0]) && k.inCorpus("/"+name):
		case domainname.InScope(name, k.scope):
			return fmt.Errorf("it names %s, which no finding names", line(name, 80))
		case isHostName(name):
			return fmt.Errorf("%s names a host outside the scope that no finding names", what)
		}
	}
	return nil
}

// knownAddresses: every IP address is a finding's host or one of their
// addresses, and every CVE id a finding's.
func (k known) knownAddresses(_, text string) error {
	for _, rule := range []struct {
		pattern *lazyre.Regexp
		allowed map[string]bool
	}{{ipPattern, k.addrs}, {cvePattern, k.cves}} {
		for _, m := range rule.pattern.FindAllString(text, 20) {
			if len(m) > 4 && !rule.allowed[strings.ToLower(m)] {
				return fmt.Errorf("it names %s, which no finding names", line(m, 80))
			}
		}
	}
	return nil
}

// everySentenceAnchored: every sentence refers to a finding.
func (k known) everySentenceAnchored(what, text string) error {
	for i, sentence := range sentences(text) {
		if !k.refersToFinding(sentence) {
			return fmt.Errorf("sentence %d of %s refers to no finding (name its host, title, CVE, CWE, port or id)", i+1, what)
		}
	}
	return nil
}

// pathSegment reports whether the dotted word at i of text is a file name
// in a path ("/backup/site.zip"): a "/" before it, not "//" (a host follows
// that). One that a finding's title names (a listing's file) is no host
// name; URLs are checked on their own.
func pathSegment(text string, i int) bool {
	return i > 0 && text[i-1] == '/' && (i < 2 || text[i-2] != '/')
}

// isHostName reports whether a dotted word is a host name rather than a
// file or product name ("Node.js", "index.php"): its last label is a
// top-level domain of the public suffix list or a special-use one.
func isHostName(name string) bool {
	if slices.Contains(productNames, name) {
		return false
	}
	if slices.Contains(specialUseTLDs, name[strings.LastIndexByte(name, '.')+1:]) {
		return true
	}
	_, icann := publicsuffix.PublicSuffix(name)
	return icann
}

// refOf is what a sentence may name a finding by: its id, host, CVE, CWE,
// port, title and the title's significant words.
func refOf(f scans.Finding) findingRef {
	r := findingRef{id: f.ID, title: strings.ToLower(f.Title), host: strings.ToLower(f.Host),
		cve: strings.ToLower(deref(f.CVE)), cwe: strings.ToLower(deref(f.CWE))}
	if f.Port != nil {
		r.port = fmt.Sprintf("port %d", *f.Port)
	}
	for _, w := range wordPattern.FindAllString(r.title, -1) {
		if len(w) >= 3 && !stopWords[w] && !slices.Contains(r.titleWords, w) {
			r.titleWords = append(r.titleWords, w)
		}
	}
	return r
}

// refersToFinding reports whether a sentence names a finding by what it
// contains: its id, host, CVE, CWE, port, whole title, or two of the
// title's significant words (one when the title has only one).
func (k known) refersToFinding(sentence string) bool {
	lower := strings.ToLower(sentence)
	words := wordPattern.FindAllString(lower, -1)
	return slices.ContainsFunc(k.findings, func(r findingRef) bool { return r.namedIn(lower, words) })
}

// namedIn reports whether a sentence, in lower case and as its words, names
// the finding: one of its references whole, or enough of its title's words.
func (r findingRef) namedIn(lower string, words []string) bool {
	return r.referencedIn(lower) || r.titleIn(words)
}

// referencedIn reports whether a sentence in lower case contains one of
// the finding's references whole: id, host, CVE, CWE, port or title.
func (r findingRef) referencedIn(lower string) bool {
	return slices.ContainsFunc([]string{r.id, r.host, r.cve, r.cwe, r.port, r.title}, func(s string) bool {
		return s != "" && strings.Contains(lower, strings.ToLower(s))
	})
}

// titleIn reports whether a sentence's words include two of the title's
// significant words (one when the title has only one).
func (r findingRef) titleIn(words []string) bool {
	need := min(2, len(r.titleWords))
	for _, tw := range r.titleWords {
		if need > 0 && slices.ContainsFunc(words, func(w string) bool { return sameWord(w, tw) }) {
			need--
		}
	}
	return need == 0 && len(r.titleWords) > 0
}

// sameWord matches a word and its inflections ("credential", "credentials";
// "exposed", "exposes").
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 5 && n >= min(len(a), len(b))-2
}

// sentences splits text at a full stop, question or exclamation mark
// followed by white space and a capital, digit or quote (so "e.g. the" and
// "www.example.com" stay whole), and at line breaks. Pieces without a
// letter are dropped.
func sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	flush := func(end int) {
		piece := strings.TrimSpace(string(rs[start:end]))
		if strings.IndexFunc(piece, unicode.IsLetter) >= 0 {
			out = append(out, piece)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\n' || endsSentence(rs, i) {
			flush(i + 1)
		}
	}
	flush(len(rs))
	return out
}

// endsSentence reports whether rs[i] is a full stop, question or
// exclamation mark that ends a sentence: white space follows it on its line,
// then a capital, a digit, a quote or the end of the text.
func endsSentence(rs []rune, i int) bool {
	if !strings.ContainsRune(".!?", rs[i]) || i+1 >= len(rs) || !unicode.IsSpace(rs[i+1]) {
		return false
	}
	j := i + 1
	for j < len(rs) && unicode.IsSpace(rs[j]) && rs[j] != '\n' {
		j++
	}
	return j == len(rs) || opensSentence(rs[j])
}

// opensSentence reports whether r can open a sentence: a capital, a digit,
// a quote or a parenthesis.
func opensSentence(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune(`"'“(`, r)
}

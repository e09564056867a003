package summary

import (
	"cmp"
	"slices"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// maxChains is how many attack chains a summary lists.
const maxChains = 5

// maxAnchors bounds the candidates tried per host and link, so a scan with
// thousands of findings on one host stays linear.
const maxAnchors = 32

// chain is one detected attack path.
type chain struct {
	rule    int // position in chainRules: the tie-breaker after severity
	rank    int // the most severe link
	text    string
	impact  string // what it leads to, for the narrative ("a data breach")
	members []*entry
}

// match is one place (a host) where every link of a chain is present.
type match struct {
	host  string
	links []*entry // one per link, in the rule's order
	rank  int
}

// index groups the entries that are evidence of anything, per host, most
// important first.
type index struct {
	domain string
	hosts  []string // sorted
	byHost map[string][]*entry
	all    []*entry // sorted by importance
}

func newIndex(domain string, entries []*entry) *index {
	ix := &index{domain: domain, byHost: map[string][]*entry{}}
	for _, e := range entries {
		if e.kinds == 0 {
			continue
		}
		if _, seen := ix.byHost[e.host]; !seen {
			ix.hosts = append(ix.hosts, e.host)
		}
		ix.byHost[e.host] = append(ix.byHost[e.host], e)
		ix.all = append(ix.all, e)
	}
	slices.Sort(ix.hosts)
	return ix
}

// first returns up to limit entries of kind k from list (already sorted).
func first(list []*entry, k kind, limit int) []*entry {
	var out []*entry
	for _, e := range list {
		if e.is(k) {
			out = append(out, e)
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// onSameHost finds, per host, entries for every link, at least one of them
// a finding above info. With related set, the links must also be about the
// same service as the first link: the same port, or (when a port is
// missing) an entry related says is about that service.
func (ix *index) onSameHost(links []kind, related func(*entry) bool) []match {
	var out []match
	for _, h := range ix.hosts {
		list := ix.byHost[h]
		for _, a := range first(list, links[0], maxAnchors) {
			m, ok := matchFrom(h, list, a, links[1:], related)
			if !ok {
				continue
			}
			if hasIssue(m.links) {
				out = append(out, m)
			}
			break
		}
	}
	sortMatches(out)
	return out
}

// matchFrom is the match of the anchor a on host h: an entry of list for
// each of the other links; not ok when one has none.
func matchFrom(h string, list []*entry, a *entry, others []kind, related func(*entry) bool) (match, bool) {
	m := match{host: h, links: []*entry{a}, rank: a.rank}
	for _, k := range others {
		pick := linkOf(list, k, a, related)
		if pick == nil {
			return match{}, false
		}
		m.links = append(m.links, pick)
		m.rank = min(m.rank, pick.rank)
	}
	return m, true
}

// linkOf is the first entry of list of kind k (about a's service, with
// related set), nil when there is none.
func linkOf(list []*entry, k kind, a *entry, related func(*entry) bool) *entry {
	for _, c := range first(list, k, maxAnchors) {
		if related == nil || sameService(a, c, related) {
			return c
		}
	}
	return nil
}

func sameService(a, c *entry, related func(*entry) bool) bool {
	if a == c {
		return true
	}
	if a.port != 0 && c.port != 0 {
		return a.port == c.port
	}
	return related(c)
}

func sortMatches(ms []match) {
	slices.SortFunc(ms, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.host, b.host))
	})
}

// alsoOn is the parenthesis naming the other hosts where a chain exists.
func alsoOn(ms []match) string {
	if len(ms) < 2 {
		return ""
	}
	var names []string
	for _, m := range ms[1:min(len(ms), 3)] {
		names = append(names, m.host)
	}
	if rest := len(ms) - 3; rest > 0 {
		names = append(names, plural(rest, "other host", "other hosts"))
	}
	return " (the same combination is present on " + joinAnd(names) + ")"
}

func membersOf(ms []match) ([]*entry, int) {
	var out []*entry
	rank := len(scans.Severities)
	for _, m := range ms {
		out = append(out, m.links...)
		rank = min(rank, m.rank)
	}
	return out, rank
}

// chainRule detects one kind of attack path; ok is false unless every link
// is present.
type chainRule func(ix *index) (c chain, ok bool)

// chainRules in the order the brief lists them; the order breaks ties
// between chains of equal severity.
var chainRules = []chainRule{
	repoSecretChain,
	databaseChain,
	sessionHijackChain,
	corsChain,
	phishingChain,
	xssChain,
	cleartextRCEChain,
	certificateChain,
	takeoverChain,
	spoofingChain,
}

// detectChains returns at most maxChains chains, most severe first.
func detectChains(ix *index) []chain {
	var out []chain
	for i, rule := range chainRules {
		if c, ok := rule(ix); ok && hasIssue(c.members) {
			c.rule = i
			c.text = safetext.Line(c.text, maxChain)
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b chain) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.rule, b.rule))
	})
	return out[:min(len(out), maxChains)]
}

// hasIssue reports whether a chain rests on at least one finding rated
// above info: services from the audit trail and informational findings can
// complete a chain but never make one on their own, so a scan rated "none"
// never lists an attack path.
func hasIssue(members []*entry) bool {
	return slices.ContainsFunc(members, func(e *entry) bool { return !e.synthetic && e.rank < scans.Info.Rank() })
}

// sameHostPair is the first repository and secret on one host, else the
// first of each.
func sameHostPair(repos, secrets []*entry) (repo, secret *entry) {
	for _, r := range repos {
		for _, s := range secrets {
			if r.host == s.host {
				return r, s
			}
		}
	}
	return repos[0], secrets[0]
}

// repositoryKinds name the version control system of a repository exposure
// other than Git's.
var repositoryKinds = map[scans.CheckCode]string{
	checks.ExposedSVN.Code: "Subversion",
	checks.ExposedHg.Code:  "Mercurial",
}

// certificateAdjectives describe a certificate by its finding's check;
// "untrusted" for others.
var certificateAdjectives = map[scans.CheckCode]string{
	checks.CertExpired.Code:      "expired",
	checks.CertSelfSigned.Code:   "self-signed",
	checks.CertHostMismatch.Code: "mismatched",
	checks.CertNotYetValid.Code:  "not yet valid",
}

// quotedWithCVE is e's title quoted, followed by its CVE when the title
// does not name it.
func quotedWithCVE(e *entry) string {
	if e.cve != "" && !strings.Contains(strings.ToUpper(e.title), e.cve) {
		return quote(e.title) + " (" + e.cve + ")"
	}
	return quote(e.title)
}

// distinctOthers are the places (key) of entries other than first, each
// once, in order.
func distinctOthers(entries []*entry, first string, key func(*entry) string) []string {
	var others []string
	for _, o := range entries {
		if k := key(o); k != first && !slices.Contains(others, k) {
			others = append(others, k)
		}
	}
	return others
}

// namedOthers names the first two of others and counts the rest
// ("a, b and 3 others").
func namedOthers(others []string) string {
	if len(others) > 2 {
		others = append(others[:2], plural(len(others)-2, "other", "others"))
	}
	return joinAnd(others)
}

// repoSecretChain: an exposed repository and a leaked secret. The secret may
// have been reported against another host of the domain (a code scan often
// reports the domain), so the same host is preferred but not required.
func repoSecretChain(ix *index) (chain, bool) {
	repos := first(ix.all, kindRepoExposed, maxAnchors)
	secrets := first(ix.all, kindSecret, maxAnchors)
	if len(repos) == 0 || len(secrets) == 0 {
		return chain{}, false
	}
	repo, secret := sameHostPair(repos, secrets)
	vcs, path := cmp.Or(repositoryKinds[repo.check()], "Git"), firstMatch(repoPathRE, repo.title, repo.evidence)
	where := repo.location()
	if path != "" {
		where += " (" + path + ")"
	}
	secretWhere := secret.location()
	if file := firstMatch(secretFileRE, secret.title, secret.evidence); file != "" {
		secretWhere = file + " on " + secretWhere
	}
	var text string
	if repo == secret {
		text = "Credential theft leading to account takeover: " + quote(repo.title) + " on " + where +
			" lets anyone download the source and its history together with the credentials in it, " +
			"which an attacker can use to sign in to the systems they unlock."
	} else {
		text = "Credential theft leading to account takeover: the " + vcs + " repository exposed on " + where +
			" lets anyone download the source and its history, and " + quote(secret.title) + " (" + secretWhere +
			") shows that credentials are in there for the taking, ready to sign in to the systems they unlock."
	}
	return chain{
		text: text, impact: "credential theft and account takeover",
		rank: min(repo.rank, secret.rank), members: []*entry{repo, secret},
	}, true
}

func relatedToDatabase(e *entry) bool { return databaseOf(e) != "" }

// databaseChain: a database reachable from outside that also runs
// vulnerable software or answers without authentication (the same service:
// same port, or the finding names a database).
func databaseChain(ix *index) (chain, bool) {
	ms := ix.onSameHost([]kind{kindDatabase, kindOutdated | kindNoAuth}, relatedToDatabase)
	if len(ms) == 0 {
		return chain{}, false
	}
	db, weak := ms[0].links[0], ms[0].links[1]
	text := databaseText(db, weak)
	members, rank := membersOf(ms)
	return chain{text: text + alsoOn(ms) + ".", impact: "a data breach", rank: rank, members: members}, true
}

// databaseText is the data breach sentence of the database db and its
// weakness weak (the same entry when one finding says both).
func databaseText(db, weak *entry) string {
	service := "the " + cmp.Or(databaseOf(db), "database") + " service on " + db.location()
	switch {
	case weak.is(kindNoAuth) && !weak.is(kindOutdated) && db == weak:
		return "Data breach: " + quote(weak.title) + " on " + db.location() +
			" means anyone on the internet can read or destroy the data it holds, no exploit needed"
	case weak.is(kindNoAuth) && !weak.is(kindOutdated):
		return "Data breach: " + service + " is reachable from the internet (" + quote(db.title) + ") and " +
			quote(weak.title) + ", so anyone can read or destroy the data it holds, no exploit needed"
	}
	reach := " is reachable from the internet and "
	if db != weak {
		reach = " is reachable from the internet (" + quote(db.title) + ") and "
	}
	return "Data breach: " + service + reach + quotedWithCVE(weak) +
		" means it can be attacked directly, bypassing the application, to read or destroy the data it holds"
}

// sessionHijackChain: no HSTS, no redirect to HTTPS and a cookie without the
// Secure flag, all on one host.
func sessionHijackChain(ix *index) (chain, bool) {
	ms := ix.onSameHost([]kind{kindNoHSTS, kindNoHTTPSRedirect, kindInsecureCookie}, nil)
	if len(ms) == 0 {
		return chain{}, false
	}
	m := ms[0]
	cookie := "its cookies lack"
	if name := cookieName(m.links[2]); name != "" {
		cookie = "its cookie " + quote(name) + " lacks"
	}
	text := "Session hijacking on hostile networks: " + m.host + " sends no effective HSTS header and does not redirect HTTP to HTTPS, and " +
		cookie + " the Secure flag, so anyone on the same Wi-Fi or network path can keep a visitor on plain HTTP and read the session cookie in cleartext" +
		alsoOn(ms) + "."
	members, rank := membersOf(ms)
	return chain{text: text, impact: "session hijacking", rank: rank, members: members}, true
}

// corsChain: CORS trusting foreign origins with credentials, on a host that
// sets cookies (a cookie finding there, or cookies in the CORS finding's
// evidence; a description saying "cookies" in general is not evidence).
func corsChain(ix *index) (chain, bool) {
	var ms []match
	for _, h := range ix.hosts {
		if m, ok := corsMatch(h, ix.byHost[h]); ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return chain{}, false
	}
	sortMatches(ms)
	m := ms[0]
	text := "Cross-site data theft: " + m.host + " " + corsTrust(m.links[0]) + " with credentials allowed and " + setsCookies(m.links[0], m.links[1]) +
		", so any web page a logged-in user visits can read their data from " + m.host + " using their own session" + alsoOn(ms) + "."
	members, rank := membersOf(ms)
	return chain{text: text, impact: "cross-site data theft", rank: rank, members: members}, true
}

// corsTrust is what the CORS finding c says the policy trusts.
func corsTrust(c *entry) string {
	if code := c.check(); code == checks.CORSCredentials.Code || code == checks.CORSReflected.Code {
		return "reflects any Origin in Access-Control-Allow-Origin"
	}
	return "accepts untrusted origins in its CORS policy"
}

// setsCookies says the host sets cookies, naming the cookie of the cookie
// finding when it is not the CORS finding c itself.
func setsCookies(c, cookie *entry) string {
	if name := cookieName(cookie); name != "" && cookie != c {
		return "sets cookies such as " + quote(name)
	}
	return "sets cookies"
}

// corsMatch is the first CORS finding with credentials among a host's
// entries that has a cookie to go with it and makes an issue.
func corsMatch(h string, list []*entry) (match, bool) {
	for _, c := range first(list, kindCORSCredentials, maxAnchors) {
		if cookie := corsCookie(c, list); cookie != nil && hasIssue([]*entry{c, cookie}) {
			return match{host: h, links: []*entry{c, cookie}, rank: min(c.rank, cookie.rank)}, true
		}
	}
	return match{}, false
}

// corsCookie is the evidence that the host of the CORS finding c sets
// cookies: c itself when its evidence shows one, else the host's first
// cookie finding, else nil.
func corsCookie(c *entry, list []*entry) *entry {
	if strings.Contains(strings.ToLower(c.evidence), "cookie") {
		return c
	}
	if cs := first(list, kindCookie, 1); len(cs) > 0 {
		return cs[0]
	}
	return nil
}

// phishingChain: an open redirect on a host without a Content-Security-Policy.
func phishingChain(ix *index) (chain, bool) {
	ms := ix.onSameHost([]kind{kindOpenRedirect, kindNoCSP}, nil)
	if len(ms) == 0 {
		return chain{}, false
	}
	m := ms[0]
	where := m.host
	if p := firstMatch(redirectRE, m.links[0].title, m.links[0].evidence); p != "" {
		where += " (" + p + ")"
	}
	text := "Phishing from a trusted name: the open redirect on " + where + " turns genuine " + ix.domain +
		" links into a springboard to attacker pages, and with no Content-Security-Policy there is no second line of defence if the redirect target can also carry script" +
		alsoOn(ms) + "."
	members, rank := membersOf(ms)
	return chain{text: text, impact: "phishing", rank: rank, members: members}, true
}

// xssChain: a JavaScript library with known XSS flaws on a host without a
// Content-Security-Policy.
func xssChain(ix *index) (chain, bool) {
	ms := ix.onSameHost([]kind{kindVulnerableJS, kindNoCSP}, nil)
	if len(ms) == 0 {
		return chain{}, false
	}
	m := ms[0]
	lib := m.links[0]
	name := quotedWithCVE(lib)
	text := "Cross-site scripting: " + m.host + " loads " + name + ", a library with known XSS flaws, and sends no Content-Security-Policy to contain injected script, " +
		"so an attacker who reaches the vulnerable code path can run script in visitors' sessions" + alsoOn(ms) + "."
	members, rank := membersOf(ms)
	return chain{text: text, impact: "cross-site scripting", rank: rank, members: members}, true
}

func relatedToCleartext(e *entry) bool {
	return e.is(kindCleartextLogin) || e.port == 21 || e.port == 23
}

// cleartextRCEChain: FTP or Telnet exposed, running outdated or backdoored
// software on the same service.
func cleartextRCEChain(ix *index) (chain, bool) {
	ms := ix.onSameHost([]kind{kindCleartextLogin, kindOutdated}, relatedToCleartext)
	if len(ms) == 0 {
		return chain{}, false
	}
	m := ms[0]
	svc, old := m.links[0], m.links[1]
	where := svc.location()
	if svc.port == 0 {
		where = old.location()
	}
	version := softwareVersion(old.title, old.evidence, svc.title, svc.evidence)
	members, rank := membersOf(ms)
	return chain{text: rceText(cleartextProtocol(svc), where, version, old) + alsoOn(ms) + ".", impact: "remote code execution", rank: rank, members: members}, true
}

// cleartextProtocol names the cleartext login service of svc.
func cleartextProtocol(svc *entry) string {
	if svc.check() == checks.TelnetExposed.Code || (svc.synthetic && hasWord(svc.text, "telnet")) || svc.port == 23 {
		return "Telnet"
	}
	return "FTP"
}

// rceText is the chain's sentence for proto on where running old, a
// release identified as version.
func rceText(proto, where, version string, old *entry) string {
	switch {
	case strings.EqualFold(version, "vsftpd 2.3.4"):
		return "Remote code execution: " + proto + " on " + where + " sends logins in cleartext and identifies as vsFTPd 2.3.4, " +
			"the release distributed with a backdoor that opens a root shell on port 6200 to anyone who logs in with a smiley in the user name"
	case old.is(kindBackdoor):
		what := quote(old.title)
		if old.synthetic && version != "" {
			what = version
		}
		return "Remote code execution: " + proto + " on " + where + " sends logins in cleartext and runs " + what +
			", a release known to contain a backdoor, so anyone who reaches the port can run commands on the host"
	default:
	}
	return "Remote code execution risk: " + proto + " on " + where + " sends logins in cleartext and runs outdated software (" + quotedWithCVE(old) +
		"), so sniffed credentials or a public exploit for that version can give an attacker a foothold on the host"
}

// certificateChain: an untrusted certificate teaches users to click through
// the browser's warning, which is what an interceptor needs.
func certificateChain(ix *index) (chain, bool) {
	certs := first(ix.all, kindBadCertificate, maxAnchors)
	if len(certs) == 0 {
		return chain{}, false
	}
	c := certs[0]
	adjective := cmp.Or(certificateAdjectives[c.check()], "untrusted")
	others := distinctOthers(certs[1:], c.location(), (*entry).location)
	also := ""
	if len(others) > 0 {
		also = " (certificate problems also on " + namedOthers(others) + ")"
	}
	text := "Man-in-the-middle: the " + adjective + " certificate on " + c.location() +
		" makes browsers warn on every visit, training users to click through certificate warnings, which is exactly what an attacker intercepting the connection with a forged certificate relies on" +
		also + "."
	return chain{text: text, impact: "man-in-the-middle attacks", rank: c.rank, members: certs}, true
}

// takeoverChain: a CNAME pointing at a resource anyone can claim.
func takeoverChain(ix *index) (chain, bool) {
	ds := first(ix.all, kindDanglingCNAME, maxAnchors)
	if len(ds) == 0 {
		return chain{}, false
	}
	d := ds[0]
	points := "points (CNAME) to a resource that no longer exists"
	if target := strings.ToLower(firstMatch(cnameRE, d.title, d.evidence)); target != "" && target != d.host {
		points = "is a CNAME to " + target + ", which nobody has claimed"
	}
	parent := cmp.Or(ix.domain, "your domain")
	also := ""
	if others := distinctOthers(ds[1:], d.host, func(e *entry) string { return e.host }); len(others) > 0 {
		also = " (also " + namedOthers(others) + ")"
	}
	text := "Subdomain takeover: " + d.host + also + " " + points + "; whoever claims it can serve content under the trusted " + parent +
		" name, read cookies scoped to the parent domain and run convincing phishing."
	return chain{text: text, impact: "subdomain takeover", rank: d.rank, members: ds}, true
}

// spfPart is what the spoofing chain says of SPF, and its finding: none
// published, or a weak record; nil when SPF is sound.
func spfPart(ix *index, spfMissing []*entry) (string, *entry) {
	if len(spfMissing) > 0 {
		return "publishes no SPF record", spfMissing[0]
	}
	if weak := first(ix.all, kindSPFWeak, 1); len(weak) > 0 {
		return "has a weak SPF record (" + quote(weak[0].title) + ")", weak[0]
	}
	return "", nil
}

// dmarcPart is what the spoofing chain says of the DMARC finding d.
func dmarcPart(d *entry) string {
	if d.check() == checks.DMARCMissing.Code {
		return "no DMARC policy"
	}
	return "a DMARC policy that does not tell receivers to reject spoofed mail"
}

// spoofingChain: no DMARC enforcement, or no SPF at all. A weak SPF record
// alone is not a chain: an enforcing DMARC policy still stops spoofing.
func spoofingChain(ix *index) (chain, bool) {
	dmarc := first(ix.all, kindDMARC, 1)
	spfMissing := first(ix.all, kindSPFMissing, 1)
	if len(dmarc) == 0 && len(spfMissing) == 0 {
		return chain{}, false
	}
	var parts []string
	var members []*entry
	if part, e := spfPart(ix, spfMissing); e != nil {
		parts, members = append(parts, part), append(members, e)
	}
	if len(dmarc) > 0 {
		parts, members = append(parts, dmarcPart(dmarc[0])), append(members, dmarc[0])
	}
	rank := topRank(members)
	domain := cmp.Or(ix.domain, members[0].host)
	text := "Email spoofing: " + domain + " " + withVerb(joinAnd(parts)) + ", so anyone can send mail that appears to come from @" + domain +
		", a ready-made tool for phishing your customers and staff."
	return chain{text: text, impact: "email spoofing", rank: rank, members: members}, true
}

// topRank is the rank of the most severe of entries.
func topRank(entries []*entry) int {
	rank := len(scans.Severities)
	for _, e := range entries {
		rank = min(rank, e.rank)
	}
	return rank
}

// withVerb makes the spoofing chain's parts a predicate: "has" before
// those that do not start with their own verb.
func withVerb(parts string) string {
	if strings.HasPrefix(parts, "publishes") || strings.HasPrefix(parts, "has") {
		return parts
	}
	return "has " + parts
}

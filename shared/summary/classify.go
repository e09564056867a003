package summary

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"secscan/shared/scans"
)

// kind is what a finding is evidence of, as far as attack chains and the
// "why fix this first" sentence care. A finding can be several kinds.
//
// Titles are written by many tools, so kinds are recognised from the
// category plus keywords in the title, CWE and CVE, matched case-insensitively
// and on word boundaries. Kinds that describe a missing protection (HSTS,
// CSP, SPF, DMARC, Secure cookies) also need a negative word or a severity
// above info, so an informational "HSTS header present" never counts as
// "HSTS missing".
type kind uint32

const (
	kindRepoExposed     kind = 1 << iota // .git/.svn/.hg served over HTTP
	kindSecret                           // a credential in code, config or .env
	kindDatabase                         // a database service reachable from outside
	kindOutdated                         // outdated software or a known CVE
	kindBackdoor                         // a release known to ship a backdoor
	kindNoHSTS                           // HSTS missing or weak
	kindNoHTTPSRedirect                  // plain HTTP is served, not redirected
	kindInsecureCookie                   // a cookie without the Secure flag
	kindCookie                           // the host sets cookies
	kindCORSCredentials                  // CORS trusting foreign origins with credentials
	kindOpenRedirect                     // an open redirect
	kindNoCSP                            // Content-Security-Policy missing or weak
	kindVulnerableJS                     // a JavaScript library with known XSS flaws
	kindCleartextLogin                   // FTP or Telnet
	kindBadCertificate                   // expired, self-signed or otherwise untrusted
	kindDanglingCNAME                    // a CNAME to a resource anyone can claim
	kindSPFMissing                       // no SPF record
	kindSPFWeak                          // an SPF record that does not stop spoofing
	kindDMARC                            // DMARC missing or not enforcing
	kindNoAuth                           // a service that answers without authentication
)

// entry is one finding reduced to what the summary needs, cleaned once.
type entry struct {
	order    int // position in the input, the last tie-breaker
	sev      scans.Severity
	rank     int
	cvss     float64 // -1 when unknown
	category scans.Category
	title    string // cleaned, for display
	titleKey string // title in lower case, for sorting and grouping
	host     string // cleaned, lower case
	port     int    // 0 when none
	cve      string // cleaned, upper case
	text     string // lower case title + CWE + CVE, for matching
	detail   string // lower case description + evidence prefix, for matching
	evidence string // cleaned evidence prefix, original case, for names and paths
	kinds    kind
	// synthetic entries come from services in the audit trail (a banner, a
	// listening FTP server): they can complete an attack chain but are not
	// findings, so they are never counted or named as such.
	synthetic bool
	src       *scans.Finding
}

func (e *entry) is(k kind) bool { return e.kinds&k != 0 }

// location is "host:port", or "host" when the finding has no port.
func (e *entry) location() string {
	if e.port == 0 {
		return e.host
	}
	h := e.host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(e.port)
}

// normalSeverity maps unknown severities to info, so a tool's typo can never
// raise (or silently drop) the risk rating.
func normalSeverity(s scans.Severity) scans.Severity {
	s = scans.Severity(strings.ToLower(strings.TrimSpace(string(s))))
	if s.Rank() < len(scans.Severities) {
		return s
	}
	return scans.Info
}

// cleanHost keeps the first word of a host and only the characters a host
// name or address literal can have, so a host field carrying a header
// injection or a sentence still reads as one name.
func cleanHost(h, fallback string) string {
	h, _, _ = strings.Cut(lower(h, maxHost), " ")
	h = strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r == ':' || r == '[' || r == ']' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, h)
	h = strings.Trim(h, ".:")
	if h == "" {
		return fallback
	}
	return h
}

func newEntry(i int, f *scans.Finding, domain string) *entry {
	e := &entry{
		order:    i,
		sev:      normalSeverity(f.Severity),
		cvss:     -1,
		category: scans.Category(lower(string(f.Category), 16)),
		title:    clean(f.Title, maxTitle),
		host:     cleanHost(f.Host, domain),
		src:      f,
	}
	e.rank = e.sev.Rank()
	if e.title == "" {
		e.title = "Untitled finding"
	}
	e.titleKey = strings.ToLower(e.title)
	if f.Port != nil && *f.Port > 0 && *f.Port < 65536 {
		e.port = *f.Port
	}
	if f.CVSS != nil && *f.CVSS >= 0 && *f.CVSS <= 10 {
		e.cvss = *f.CVSS
	}
	var cwe string
	if f.CWE != nil {
		cwe = lower(*f.CWE, maxToken)
	}
	if f.CVE != nil {
		e.cve = strings.ToUpper(clean(*f.CVE, maxToken))
	}
	// Match on the title as a tool wrote it, a little longer than the
	// display cap so a keyword at the end of a long title still counts.
	e.text = lower(f.Title, 2*maxTitle) + " " + cwe + " " + strings.ToLower(e.cve)
	e.evidence = clean(f.Evidence, maxDetail)
	e.detail = lower(f.Description, maxDetail) + " " + strings.ToLower(e.evidence)
	e.kinds = classify(e)
	return e
}

// byImportance sorts entries most important first, in the one order of
// findings every report uses (scans.CompareFindings), so the narrative names
// findings in the order the findings table lists them. Synthetic entries
// (services, never findings) follow stable textual keys.
func byImportance(a, b *entry) int {
	if a.src != nil && b.src != nil && !a.synthetic && !b.synthetic {
		return cmp.Or(cmp.Compare(a.rank, b.rank), scans.CompareFindings(a.src, b.src), cmp.Compare(a.order, b.order))
	}
	return cmp.Or(
		cmp.Compare(a.rank, b.rank),
		cmp.Compare(b.cvss, a.cvss),
		trueFirst(a.cve != "", b.cve != ""),
		cmp.Compare(a.titleKey, b.titleKey),
		cmp.Compare(a.host, b.host),
		cmp.Compare(a.port, b.port),
		cmp.Compare(a.cve, b.cve),
		cmp.Compare(a.evidence, b.evidence),
		cmp.Compare(a.order, b.order),
	)
}

// trueFirst orders true before false.
func trueFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// negative words mark a finding as the absence or weakness of a protection.
func negative(t string) bool {
	return hasWord(t, "missing", "no", "not", "without", "absent", "lacks", "lack", "lacking",
		"disabled", "weak", "short", "invalid", "misconfigured", "unsafe", "permissive",
		"insecure", "none", "softfail", "fails", "never", "doesn't", "isn't", "report-only") ||
		hasAny(t, "p=none", "~all", "?all", "+all", "does not", "not set")
}

func classify(e *entry) kind {
	t, all := e.text, e.text+" "+e.detail
	cat := e.category
	problem := e.rank < scans.Info.Rank() || negative(t)
	var k kind

	if hasWord(t, ".git", ".svn", ".hg", "cwe-527") ||
		hasAny(t, "git repository", "git directory", "git folder", "git metadata", "git config",
			"version control", "source repository", "svn repository", "mercurial repository") {
		k |= kindRepoExposed
	}

	if hasWord(t, "ftp", "telnet", "vsftpd", "proftpd", "pure-ftpd", "telnetd") ||
		(cat == scans.CategoryNetwork && (e.port == 21 || e.port == 23)) {
		k |= kindCleartextLogin
	}

	if k&kindCleartextLogin == 0 && (hasWord(t, "secret", "secrets", "apikey", "api_key", ".env",
		".npmrc", ".htpasswd", ".pgpass", ".netrc", ".git-credentials", "hardcoded", "hard-coded",
		"cwe-798", "cwe-259", "cwe-321") ||
		hasAny(t, "api key", "api token", "access key", "private key", "aws_access_key", "aws_secret",
			"leaked credential", "leaked password", "leaked key", "leaked token", "credential leak",
			"secret leak", "client secret", "connection string", "environment file", "credentials file",
			"credential file", "password file", "auth token") ||
		(cat == scans.CategoryCode && hasWord(t, "password", "passwords", "credential", "credentials", "token", "tokens"))) {
		k |= kindSecret
	}

	if databaseName(t, e.port) != "" && !hasAny(t, "injection") &&
		(databasePort(e.port) != "" || cat == scans.CategoryNetwork) {
		k |= kindDatabase
	}

	js := jsLibrary(t)
	if e.cve != "" || hasAny(t, "cve-", "outdated", "out of date", "out-of-date", "end-of-life",
		"end of life", "unsupported version", "obsolete", "vulnerable version", "known vulnerab",
		"deprecated version", "backdoor", "unpatched", "vsftpd 2.3.4", "proftpd 1.3.3c") ||
		hasWord(t, "eol", "cwe-1104", "cwe-937", "cwe-1035") ||
		((cat == scans.CategoryVuln || js != "") && hasWord(t, "vulnerable", "vulnerability", "vulnerabilities")) {
		k |= kindOutdated
	}
	if hasAny(t, "without authentication", "no authentication", "unauthenticated", "without a password",
		"no password required", "anonymous access") || hasWord(t, "cwe-306") {
		k |= kindNoAuth
	}
	if hasAny(all, "backdoor", "vsftpd 2.3.4", "proftpd 1.3.3c", "cve-2011-2523", "cve-2010-4221", "unrealircd 3.2.8.1") {
		k |= kindBackdoor | kindOutdated
	}

	if hasAny(t, "hsts", "strict-transport-security", "strict transport security") && problem {
		k |= kindNoHSTS
	}

	if hasAny(t, "open redirect", "open-redirect", "unvalidated redirect", "arbitrary redirect") || hasWord(t, "cwe-601") {
		k |= kindOpenRedirect
	} else if (hasAny(t, "redirect") && hasWord(t, "http", "https") && negative(t)) ||
		hasAny(t, "no https", "https not enforced", "does not enforce https", "cleartext http",
			"plain http", "plaintext http", "unencrypted http", "served over http", "without https",
			"http only", "https is not available", "no tls") {
		k |= kindNoHTTPSRedirect
	}

	if hasWord(t, "cookie", "cookies", "set-cookie", "cwe-614", "cwe-1004", "cwe-1275") {
		k |= kindCookie
		if (hasWord(t, "secure", "insecure", "cwe-614")) && problem {
			k |= kindInsecureCookie
		}
	}

	if (hasWord(t, "cors") || hasAny(t, "cross-origin resource sharing", "access-control-allow-origin",
		"cross-origin request", "origin reflect", "reflected origin", "reflects origin", "arbitrary origin")) &&
		// The title, or the observed header: descriptions of the
		// credential-less variant mention credentials too ("without credentials").
		((hasAny(t, "credential") && !hasAny(t, "without credential")) || hasAny(e.detail, "allow-credentials: true")) {
		k |= kindCORSCredentials
	}

	if (hasAny(t, "content-security-policy", "content security policy") || hasWord(t, "csp")) && problem {
		k |= kindNoCSP
	}

	if js != "" && k&kindOutdated != 0 &&
		(hasAny(all, "xss", "cross-site scripting", "cross site scripting") || hasWord(all, "cwe-79") || xssProne(js)) {
		k |= kindVulnerableJS
	}

	if (cat == scans.CategorySSL || hasWord(t, "certificate", "cert", "tls", "ssl")) &&
		hasAny(t, "expired", "self-signed", "self signed", "untrusted", "not trusted", "unknown authority",
			"unknown ca", "hostname mismatch", "name mismatch", "does not match", "doesn't match",
			"revoked", "invalid certificate", "certificate is invalid", "not yet valid") {
		k |= kindBadCertificate
	}

	if hasAny(t, "dangling") ||
		(hasAny(t, "takeover") && !hasAny(t, "account takeover") &&
			(cat == scans.CategoryDNS || hasWord(t, "subdomain", "cname", "dns", "domain"))) ||
		(hasWord(t, "cname") && hasAny(t, "nxdomain", "unclaimed", "does not exist", "nonexistent",
			"non-existent", "not exist", "unresolv", "unregistered", "no longer exist", "orphan")) {
		k |= kindDanglingCNAME
	}

	if hasWord(t, "spf") {
		if hasAny(t, "missing", "no spf", "not found", "absent", "not published", "lacks", "without",
			"no record", "does not have", "not configured") {
			k |= kindSPFMissing
		} else if problem {
			k |= kindSPFWeak
		}
	}
	if hasWord(t, "dmarc") && problem {
		k |= kindDMARC
	}
	return k
}

// Databases by keyword and by their well-known ports (ports only where the
// port is unambiguous).
var databases = []struct{ word, name string }{
	{"mysql", "MySQL"}, {"mariadb", "MariaDB"}, {"postgresql", "PostgreSQL"}, {"postgres", "PostgreSQL"},
	{"mongodb", "MongoDB"}, {"mongo", "MongoDB"}, {"redis", "Redis"}, {"elasticsearch", "Elasticsearch"},
	{"memcached", "Memcached"}, {"mssql", "SQL Server"}, {"sql server", "SQL Server"}, {"oracle", "Oracle"},
	{"couchdb", "CouchDB"}, {"cassandra", "Cassandra"}, {"influxdb", "InfluxDB"}, {"clickhouse", "ClickHouse"},
	{"neo4j", "Neo4j"}, {"rethinkdb", "RethinkDB"}, {"database", "database"},
}

var databasePorts = map[int]string{
	3306: "MySQL", 5432: "PostgreSQL", 27017: "MongoDB", 6379: "Redis", 9200: "Elasticsearch",
	11211: "Memcached", 1433: "SQL Server", 1521: "Oracle", 5984: "CouchDB", 9042: "Cassandra",
	7687: "Neo4j", 28015: "RethinkDB",
}

func databasePort(port int) string { return databasePorts[port] }

// databaseName names the database a finding is about, or "".
func databaseName(t string, port int) string {
	for _, d := range databases {
		if hasWord(t, d.word) {
			if d.word == "database" {
				if name := databasePort(port); name != "" {
					return name
				}
			}
			return d.name
		}
	}
	return databasePort(port)
}

// JavaScript libraries, with whether their known CVEs are mostly XSS.
var jsLibraries = []struct {
	word, name string
	xss        bool
}{
	{"jquery ui", "jQuery UI", true}, {"jquery-ui", "jQuery UI", true}, {"jquery", "jQuery", true},
	{"angularjs", "AngularJS", true}, {"angular", "Angular", true}, {"bootstrap", "Bootstrap", true},
	{"handlebars", "Handlebars", true}, {"dompurify", "DOMPurify", true}, {"mustache", "Mustache", true},
	{"knockout", "Knockout", true}, {"ember", "Ember", true}, {"yui", "YUI", true}, {"dojo", "Dojo", true},
	{"ckeditor", "CKEditor", true}, {"tinymce", "TinyMCE", true}, {"prototype.js", "Prototype", true},
	{"highlight.js", "highlight.js", true}, {"vue", "Vue", true}, {"vue.js", "Vue", true},
	{"lodash", "Lodash", false}, {"underscore", "Underscore", false}, {"moment", "Moment", false},
	{"moment.js", "Moment", false}, {"react", "React", false},
	{"javascript library", "JavaScript library", false}, {"javascript librar", "JavaScript library", false},
	{"js library", "JavaScript library", false}, {"js librar", "JavaScript library", false},
	{"retire.js", "JavaScript library", false}, {"javascript component", "JavaScript library", false},
}

func jsLibrary(t string) string {
	for _, l := range jsLibraries {
		if hasWord(t, l.word) || (strings.HasSuffix(l.word, "librar") && strings.Contains(t, l.word)) {
			return l.name
		}
	}
	return ""
}

func xssProne(name string) bool {
	for _, l := range jsLibraries {
		if l.name == name {
			return l.xss
		}
	}
	return false
}

// Patterns that pull concrete names out of titles and evidence.
var (
	repoPathRE   = regexp.MustCompile(`/\.(?:git|svn|hg)(?:/[A-Za-z0-9_.\-]{1,40})?/?`)
	secretFileRE = regexp.MustCompile(`(?i)(?:^|[\s(\[“"'=:])(/?(?:[\w\-.]+/){0,4}(?:\.(?:env(?:\.[\w\-]+)?|npmrc|htpasswd|pgpass|netrc|git-credentials|dockercfg)|credentials|id_rsa|[\w\-]+(?:\.[\w\-]+)*\.(?:env|ya?ml|json|jsx?|mjs|tsx?|py|php|rb|go|java|kt|cs|properties|ini|cfg|conf|config|xml|sh|toml|pem|key|tf|tfvars)))\b`)
	quotedRE     = regexp.MustCompile(`["'“‘]([A-Za-z0-9_.\-]{1,40})["'”’]`)
	setCookieRE  = regexp.MustCompile(`(?i)set-cookie:\s*([A-Za-z0-9_.\-]{1,40})=`)
	cookieWordRE = regexp.MustCompile(`(?i)\bcookies?\s*[:=]?\s*([A-Za-z0-9_.\-]{1,40})`)
	redirectRE   = regexp.MustCompile(`(?:https?://[^/\s]+)?(/[A-Za-z0-9_.\-/]{0,40}\?[A-Za-z0-9_\-]{1,30}=)`)
	cnameRE      = regexp.MustCompile(`(?i)(?:cname|→|->|points to|pointing to|alias of|alias for|target)\s*:?\s*(?:to\s+)?([a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?)+)`)
	versionRE    = regexp.MustCompile(`(?i)(vsftpd|proftpd|pure-ftpd|openssh|telnetd|mysql|mariadb|postgresql|redis|mongodb)[ /_-]?v?(\d+(?:\.\d+){1,3}[a-z]?)`)
)

var cookieStopwords = []string{"without", "missing", "lacks", "lacking", "set", "is", "has", "flag", "flags",
	"not", "the", "with", "attribute", "attributes", "secure", "httponly", "samesite", "in", "on", "over",
	"sent", "for", "and", "are", "named", "a", "an", "no", "lack", "cookie", "cookies", "insecure"}

// firstMatch returns the first submatch (group 1 if the pattern has one) of
// re in any of texts, cleaned and bounded.
func firstMatch(re *regexp.Regexp, texts ...string) string {
	for _, s := range texts {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		return clean(m[len(m)-1], maxToken)
	}
	return ""
}

func cookieName(e *entry) string {
	if n := firstMatch(setCookieRE, e.evidence); n != "" {
		return n
	}
	if n := firstMatch(quotedRE, e.title); n != "" {
		return n
	}
	for _, text := range []string{e.title, e.evidence} {
		for _, m := range cookieWordRE.FindAllStringSubmatch(text, 3) {
			if !slices.Contains(cookieStopwords, strings.ToLower(m[1])) {
				return clean(m[1], maxToken)
			}
		}
	}
	return ""
}

// softwareVersion pulls "vsFTPd 2.3.4" out of a title or banner.
func softwareVersion(texts ...string) string {
	for _, s := range texts {
		if m := versionRE.FindStringSubmatch(s); m != nil {
			return clean(m[1]+" "+m[2], maxToken)
		}
	}
	return ""
}

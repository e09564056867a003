package summary

import (
	"cmp"
	"secscan/shared/checks"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"secscan/shared/lazyre"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// kind is what a finding is evidence of, as far as attack chains and the
// "why fix this first" sentence care: the catalogue's traits of its check
// (checks.TraitsOf), never words of its title.
type kind = checks.Trait

const (
	kindRepoExposed     = checks.TraitRepoExposed
	kindSecret          = checks.TraitSecret
	kindDatabase        = checks.TraitDatabase
	kindOutdated        = checks.TraitOutdated
	kindBackdoor        = checks.TraitBackdoor
	kindNoHSTS          = checks.TraitNoHSTS
	kindNoHTTPSRedirect = checks.TraitNoHTTPSRedirect
	kindInsecureCookie  = checks.TraitInsecureCookie
	kindCookie          = checks.TraitCookie
	kindCORSCredentials = checks.TraitCORSCredentials
	kindOpenRedirect    = checks.TraitOpenRedirect
	kindNoCSP           = checks.TraitNoCSP
	kindVulnerableJS    = checks.TraitVulnerableJS
	kindCleartextLogin  = checks.TraitCleartextLogin
	kindBadCertificate  = checks.TraitBadCertificate
	kindDanglingCNAME   = checks.TraitDanglingCNAME
	kindSPFMissing      = checks.TraitSPFMissing
	kindSPFWeak         = checks.TraitSPFWeak
	kindDMARC           = checks.TraitDMARC
	kindNoAuth          = checks.TraitNoAuth
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
	db       string // the database a service entry is, by its protocol name
	// synthetic entries come from services in the audit trail (a banner, a
	// listening FTP server): they can complete an attack chain but are not
	// findings, so they are never counted or named as such.
	synthetic bool
	src       *scans.Finding
}

func (e *entry) is(k kind) bool { return e.kinds&k != 0 }

// check is the entry's check code ("" for a service, which is no finding).
func (e *entry) check() scans.CheckCode {
	if e.src == nil || e.synthetic {
		return ""
	}
	return e.src.Check
}

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
	h = strings.Map(hostRune, h)
	h = strings.Trim(h, ".:")
	if h == "" {
		return fallback
	}
	return h
}

// hostRune keeps r when a host name or address literal can have it (-1
// drops it).
func hostRune(r rune) rune {
	if strings.ContainsRune(".-_:[]", r) || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return r
	}
	return -1
}

// validPort is p when it is a TCP port number, else 0.
func validPort(p int) int {
	if p > 0 && p < 65536 {
		return p
	}
	return 0
}

// valueOf is *p, the zero value for nil.
func valueOf[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// cvssOf is a finding's CVSS score when it is one (0 to 10), else -1.
func cvssOf(p *float64) float64 {
	if p != nil && *p >= 0 && *p <= 10 { // NaN too is no score
		return *p
	}
	return -1
}

// newEntry is the entry of finding f, the i-th.
func newEntry(i int, f *scans.Finding, domain string) *entry {
	e := &entry{
		order:    i,
		sev:      normalSeverity(f.Severity),
		category: scans.Category(lower(string(f.Category), 16)),
		title:    cmp.Or(safetext.Line(f.Title, maxTitle), "Untitled finding"),
		host:     cleanHost(f.Host, domain),
		port:     validPort(valueOf(f.Port)),
		cvss:     cvssOf(f.CVSS),
		cve:      strings.ToUpper(safetext.Line(valueOf(f.CVE), maxToken)),
		src:      f,
	}
	e.rank = e.sev.Rank()
	e.titleKey = strings.ToLower(e.title)
	cwe := lower(valueOf(f.CWE), maxToken)
	// Match on the title as a tool wrote it, a little longer than the
	// display cap so a keyword at the end of a long title still counts.
	e.text = lower(f.Title, 2*maxTitle) + " " + cwe + " " + strings.ToLower(e.cve)
	e.evidence = safetext.Line(f.Evidence, maxDetail)
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

// classify is the finding's traits, and a finding of any network or
// vulnerability check on a database's well-known port is about that database
// (a CVE of the MySQL server on 3306).
func classify(e *entry) kind {
	k := checks.TraitsOf(e.src)
	if databasePort(e.port) != "" && (e.category == scans.CategoryNetwork || e.category == scans.CategoryVuln) {
		k |= kindDatabase
	}
	return k
}

var databasePorts = map[int]string{
	3306: "MySQL", 5432: "PostgreSQL", 27017: "MongoDB", 6379: "Redis", 9200: "Elasticsearch",
	11211: "Memcached", 1433: "SQL Server", 1521: "Oracle", 5984: "CouchDB", 9042: "Cassandra",
	7687: "Neo4j", 28015: "RethinkDB",
}

func databasePort(port int) string { return databasePorts[port] }

// serviceNames are the databases by the protocol name port_scan gives their
// service (a protocol token, not prose).
var serviceNames = map[string]string{
	"mysql": "MySQL", "postgresql": "PostgreSQL", "postgres": "PostgreSQL", "mongodb": "MongoDB",
	"redis": "Redis", "memcached": "Memcached", "elasticsearch": "Elasticsearch", "mssql": "SQL Server",
	"ms-sql-s": "SQL Server", "oracle": "Oracle", "couchdb": "CouchDB", "cassandra": "Cassandra",
}

// serviceDatabase names the database a discovered service is: by its
// protocol name, else its port.
func serviceDatabase(name string, port int) string {
	if db, ok := serviceNames[name]; ok {
		return db
	}
	return databasePort(port)
}

// databaseOf names the database an entry is about: its check's, else its
// port's; "" when none.
func databaseOf(e *entry) string {
	if e.db != "" {
		return e.db
	}
	if e.src != nil && !e.synthetic {
		if name := checks.Database(e.src.Check); name != "" {
			return name
		}
	}
	return databasePort(e.port)
}

// Patterns that pull concrete names out of titles and evidence.
var (
	repoPathRE   = lazyre.New(`/\.(?:git|svn|hg)(?:/[A-Za-z0-9_.\-]{1,40})?/?`)
	secretFileRE = lazyre.New(`(?i)(?:^|[\s(\[“"'=:])(/?(?:[\w\-.]+/){0,4}(?:\.(?:env(?:\.[\w\-]+)?|npmrc|htpasswd|pgpass|netrc|git-credentials|dockercfg)|credentials|id_rsa|[\w\-]+(?:\.[\w\-]+)*\.(?:env|ya?ml|json|jsx?|mjs|tsx?|py|php|rb|go|java|kt|cs|properties|ini|cfg|conf|config|xml|sh|toml|pem|key|tf|tfvars)))\b`)
	quotedRE     = lazyre.New(`["'“‘]([A-Za-z0-9_.\-]{1,40})["'”’]`)
	setCookieRE  = lazyre.New(`(?i)set-cookie:\s*([A-Za-z0-9_.\-]{1,40})=`)
	cookieWordRE = lazyre.New(`(?i)\bcookies?\s*[:=]?\s*([A-Za-z0-9_.\-]{1,40})`)
	redirectRE   = lazyre.New(`(?:https?://[^/\s]+)?(/[A-Za-z0-9_.\-/]{0,40}\?[A-Za-z0-9_\-]{1,30}=)`)
	cnameRE      = lazyre.New(`(?i)(?:cname|→|->|points to|pointing to|alias of|alias for|target)\s*:?\s*(?:to\s+)?([a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?)+)`)
	versionRE    = lazyre.New(`(?i)(vsftpd|proftpd|pure-ftpd|openssh|telnetd|mysql|mariadb|postgresql|redis|mongodb)[ /_-]?v?(\d+(?:\.\d+){1,3}[a-z]?)`)
)

var cookieStopwords = []string{"without", "missing", "lacks", "lacking", "set", "is", "has", "flag", "flags",
	"not", "the", "with", "attribute", "attributes", "secure", "httponly", "samesite", "in", "on", "over",
	"sent", "for", "and", "are", "named", "a", "an", "no", "lack", "cookie", "cookies", "insecure"}

// firstMatch returns the first submatch (group 1 if the pattern has one) of
// re in any of texts, cleaned and bounded.
func firstMatch(re *lazyre.Regexp, texts ...string) string {
	for _, s := range texts {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		return safetext.Line(m[len(m)-1], maxToken)
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
				return safetext.Line(m[1], maxToken)
			}
		}
	}
	return ""
}

// softwareVersion pulls "vsFTPd 2.3.4" out of a title or banner.
func softwareVersion(texts ...string) string {
	for _, s := range texts {
		if m := versionRE.FindStringSubmatch(s); m != nil {
			return safetext.Line(m[1]+" "+m[2], maxToken)
		}
	}
	return ""
}

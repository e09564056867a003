package checks

import "secscan/shared/scans"

// Trait is what a finding of a check is evidence of, as far as the executive
// summary cares: which findings chain into an attack (an exposed repository
// and a leaked secret are credential theft; a missing HSTS header, no HTTPS
// redirect and a cookie without Secure are session hijacking) and why one
// finding should be fixed first. Traits are data of the catalogue, so the
// summary never reads a finding's title to decide what it is.
type Trait uint32

// Traits. A check can have several.
const (
	TraitRepoExposed     Trait = 1 << iota // .git/.svn/.hg served over HTTP
	TraitSecret                            // a credential in code, config or .env
	TraitDatabase                          // a database service reachable from outside
	TraitOutdated                          // outdated software or a known CVE
	TraitBackdoor                          // a release known to ship a backdoor
	TraitNoHSTS                            // HSTS missing or weak
	TraitNoHTTPSRedirect                   // plain HTTP is served, not redirected
	TraitInsecureCookie                    // a cookie without the Secure flag
	TraitCookie                            // the host sets cookies
	TraitCORSCredentials                   // CORS trusting foreign origins with credentials
	TraitOpenRedirect                      // an open redirect
	TraitNoCSP                             // Content-Security-Policy missing or weak
	TraitVulnerableJS                      // a client-side library with known XSS flaws
	TraitCleartextLogin                    // FTP or Telnet
	TraitBadCertificate                    // expired, self-signed or otherwise untrusted
	TraitDanglingCNAME                     // a CNAME to a resource anyone can claim
	TraitSPFMissing                        // no SPF record
	TraitSPFWeak                           // an SPF record that does not stop spoofing
	TraitDMARC                             // DMARC missing or not enforcing
	TraitNoAuth                            // a service that answers without authentication
)

// traits of the checks that have any, keyed by code so the table reads as
// data; a test keeps every key in the catalogue.
var traits = map[scans.CheckCode]Trait{
	ExposedGit.Code: TraitRepoExposed,
	ExposedSVN.Code: TraitRepoExposed,
	ExposedHg.Code:  TraitRepoExposed,

	Secret.Code:                TraitSecret,
	ExposedEnv.Code:            TraitSecret,
	ExposedAWSCredentials.Code: TraitSecret,
	ExposedNpmrc.Code:          TraitSecret,
	ExposedHtpasswd.Code:       TraitSecret,
	ExposedActuatorEnv.Code:    TraitSecret,

	MySQLExposed.Code:              TraitDatabase,
	PostgreSQLExposed.Code:         TraitDatabase,
	MongoDBExposed.Code:            TraitDatabase,
	MSSQLExposed.Code:              TraitDatabase,
	OracleExposed.Code:             TraitDatabase,
	RedisExposed.Code:              TraitDatabase,
	MemcachedExposed.Code:          TraitDatabase,
	ElasticsearchExposed.Code:      TraitDatabase,
	RedisNoAuth.Code:               TraitDatabase | TraitNoAuth,
	MemcachedNoAuth.Code:           TraitDatabase | TraitNoAuth,
	ElasticsearchNoAuth.Code:       TraitDatabase | TraitNoAuth,
	DockerNoAuth.Code:              TraitNoAuth,
	ConsulNoAuth.Code:              TraitNoAuth,
	KubeletNoAuth.Code:             TraitNoAuth,
	KubernetesAPINoAuth.Code:       TraitNoAuth,
	JenkinsNoAuth.Code:             TraitNoAuth,
	RabbitMQNoAuth.Code:            TraitNoAuth,
	SolrNoAuth.Code:                TraitNoAuth | TraitDatabase,
	CouchDBNoAuth.Code:             TraitNoAuth | TraitDatabase,
	EtcdExposed.Code:               TraitDatabase,
	FTPAnonymousLogin.Code:         TraitNoAuth,
	FTPAnonymousSensitiveFile.Code: TraitNoAuth,
	MySQLEOL.Code:                  TraitOutdated, // a database by its port (summary), named by Database
	MariaDBEOL.Code:                TraitOutdated,

	OpenSSHOutdated.Code: TraitOutdated,
	VsftpdBackdoor.Code:  TraitBackdoor | TraitOutdated | TraitCleartextLogin,
	KnownCVE.Code:        TraitOutdated,
	ConfirmedCVE.Code:    TraitOutdated,
	EndOfLife.Code:       TraitOutdated,

	TelnetExposed.Code: TraitCleartextLogin,
	FTPExposed.Code:    TraitCleartextLogin,
	FTPNoTLS.Code:      TraitCleartextLogin,

	HeaderHSTS.Code:       TraitNoHSTS,
	HeaderHSTSMaxAge.Code: TraitNoHSTS,
	HTTPSRedirect.Code:    TraitNoHTTPSRedirect,
	CookieSecure.Code:     TraitCookie | TraitInsecureCookie,
	CookieHTTPOnly.Code:   TraitCookie,
	CookieSameSite.Code:   TraitCookie,
	CORSCredentials.Code:  TraitCORSCredentials,
	OpenRedirect.Code:     TraitOpenRedirect,
	HeaderCSP.Code:        TraitNoCSP,

	CertExpired.Code:      TraitBadCertificate,
	CertNotYetValid.Code:  TraitBadCertificate,
	CertSelfSigned.Code:   TraitBadCertificate,
	CertUntrusted.Code:    TraitBadCertificate,
	CertHostMismatch.Code: TraitBadCertificate,

	DanglingCNAME.Code:     TraitDanglingCNAME,
	SPFMissing.Code:        TraitSPFMissing,
	SPFNeutral.Code:        TraitSPFWeak,
	SPFNoAll.Code:          TraitSPFWeak,
	SPFPassAll.Code:        TraitSPFWeak,
	SPFMultiple.Code:       TraitSPFWeak,
	SPFTooManyLookups.Code: TraitSPFWeak,
	DMARCMissing.Code:      TraitDMARC,
	DMARCNone.Code:         TraitDMARC,
	DMARCPartial.Code:      TraitDMARC,
	DMARCInvalid.Code:      TraitDMARC,
	DMARCMultiple.Code:     TraitDMARC,
}

// clientLibraries are the end-of-life checks of client-side libraries whose
// flaws are mostly cross-site scripting.
var clientLibraries = map[string]bool{"angularjs": true, "bootstrap": true, "vue": true}

func init() {
	for product, c := range endOfLifeByProduct {
		t := TraitOutdated
		if clientLibraries[product] {
			t |= TraitVulnerableJS
		}
		traits[c.Code] = t
	}
}

// TraitsOf returns the traits of a finding: its check's, plus what its own
// fields say (a CVE is a known vulnerability; a known vulnerability whose
// weakness is cross-site scripting, CWE-79, is a library or page with XSS
// flaws).
func TraitsOf(f *scans.Finding) Trait {
	t := traits[f.Check]
	if f.CVE != nil && *f.CVE != "" {
		t |= TraitOutdated
	}
	if t&TraitOutdated != 0 && f.CWE != nil && *f.CWE == "CWE-79" {
		t |= TraitVulnerableJS
	}
	return t
}

// Database names the database a check is about ("" when none): the summary's
// chains say "MySQL", not "the service".
func Database(code scans.CheckCode) string { return databases[code] }

var databases = map[scans.CheckCode]string{
	MySQLExposed.Code: "MySQL", PostgreSQLExposed.Code: "PostgreSQL", MongoDBExposed.Code: "MongoDB",
	MSSQLExposed.Code: "SQL Server", OracleExposed.Code: "Oracle", RedisExposed.Code: "Redis",
	MemcachedExposed.Code: "Memcached", ElasticsearchExposed.Code: "Elasticsearch",
	RedisNoAuth.Code: "Redis", MemcachedNoAuth.Code: "Memcached", ElasticsearchNoAuth.Code: "Elasticsearch",
	MySQLEOL.Code: "MySQL", MariaDBEOL.Code: "MariaDB",
	CouchDBNoAuth.Code: "CouchDB", SolrNoAuth.Code: "Solr", EtcdExposed.Code: "etcd",
}

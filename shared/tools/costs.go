package tools

// PublishedCosts is the published cost table (docs/design.md, openapi): the credits
// one call of each tool costs. The scanners' Cost methods are the source; a
// test asserts they agree, so functions that only need a price (pricing a
// retest before it runs) do not link the scanners.
var PublishedCosts = map[string]int{
	"dns_check":        3,
	"discover_hosts":   5,
	"port_scan":        5,
	"tls_check":        5,
	"http_check":       5,
	"exposed_files":    10,
	"http_fingerprint": 2,
	"version_check":    5,
	"web_crawl":        15,
	"code_scan":        10,
	"service_info":     2,
	"ssh_audit":        2,
	"file_secrets":     3,
	"listing_files":    3,
	"confirm_cve":      2,
	"ftp_audit":        2,
}

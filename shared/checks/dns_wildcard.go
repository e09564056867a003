package checks

import "secscan/shared/scans"

// DNSWildcard is a zone (the domain or a subzone) that answers for any
// label (discover_hosts, which also keeps the wildcard's answers from
// becoming hosts).
var DNSWildcard = define(Check{
	Code: "dns.wildcard", Title: "Wildcard DNS record answers for any name",
	Category: scans.CategoryDNS, Severity: scans.Low,
	Rationale: "Not a flaw by itself (RFC 4592 allows it), but every name resolves: a forgotten or dangling record hides behind it, typo and look-alike names reach the wildcard's server, and host discovery cannot tell real names from phantoms; low, a configuration to review.",
	Description: "Random labels under the zone resolve: the zone has a wildcard record (`*.<zone>`). Every name " +
		"under it, including ones nobody configured, answers with the wildcard's addresses, so mistyped and " +
		"stale names reach that server (often with a wildcard certificate that makes them look legitimate), " +
		"records that were removed keep resolving, and inventories of the zone cannot tell real hosts from phantoms.",
	Remediation: "Remove the wildcard record unless the zone serves per-tenant names on purpose; list the names " +
		"you serve explicitly instead. Where the wildcard must stay, make its server answer unknown names with " +
		"an error (not the application) and keep its certificate to the names it serves.",
	References: []string{"https://www.rfc-editor.org/rfc/rfc4592", "https://www.rfc-editor.org/rfc/rfc1034#section-4.3.3"},
})

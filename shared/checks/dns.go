package checks

import "secscan/shared/scans"

// Mail authentication, CAA, DNSSEC, zone transfers and dangling aliases
// (dns_check). Severities follow the RFCs' own verdicts: a record the RFC
// makes a permanent error or that lets spoofed mail pass is medium (high
// when it vouches for any sender), monitoring-only policies and optional
// hardening are low.

const (
	refSPF       = "https://www.rfc-editor.org/rfc/rfc7208"
	refDMARC     = "https://www.rfc-editor.org/rfc/rfc7489"
	refCWE290    = "https://cwe.mitre.org/data/definitions/290.html"
	refGoogle    = "https://support.google.com/a/answer/81126"
	spoofing     = " Without it, anyone can send mail that claims to come from the domain (phishing of customers and staff, invoice fraud), and providers such as Gmail and Yahoo junk or reject bulk mail from domains that lack it."
	spfExample   = "`v=spf1 include:<your mail provider> -all` (or `v=spf1 -all` for a domain that sends no mail)"
	dmarcExample = "`v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@<domain>`"

	spoofRationale   = "Spoofed mail from the domain is not rejected (RFC 7208/7489); phishing still needs a victim to act."
	permErrRationale = "The RFC makes this a permanent error, so receivers apply no policy: as bad as having none."
	weakRationale    = "A policy exists but is not enforced on all mail; spoofing is reported, not blocked."
)

// SPF.
var (
	SPFMissing = define(Check{
		Code: "dns.spf.missing", Title: "No SPF record",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290",
		Rationale:   spoofRationale + " The tool lowers it to low on a subdomain (which often sends no mail).",
		Description: "The domain publishes no SPF record, so receivers cannot tell which servers may send its mail." + spoofing,
		Remediation: "Publish one TXT record at the domain listing every service that sends its mail, e.g. " + spfExample + "; then add DMARC.",
		References:  []string{refSPF, refGoogle, refCWE290},
	})
	SPFMultiple = define(Check{
		Code: "dns.spf.multiple", Title: "Multiple SPF records",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290", Rationale: permErrRationale,
		Description: "The domain publishes more than one SPF record. RFC 7208 makes that a permanent error: receivers treat the domain as having no usable SPF policy.",
		Remediation: "Merge the records into a single v=spf1 TXT record (one include: per sending service).",
		References:  []string{refSPF + "#section-4.5", refCWE290},
	})
	SPFPassAll = define(Check{
		Code: "dns.spf.pass-all", Title: "SPF record allows any sender (+all)",
		Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-290",
		Rationale:   "Worse than no record: SPF actively vouches for spoofed mail and DMARC passes through SPF alignment for anyone.",
		Description: "The SPF record ends in +all (or a bare all, which means the same): every server on the internet passes SPF for this domain, so SPF vouches for spoofed mail, and DMARC alignment through SPF succeeds for anyone.",
		Remediation: "Replace +all with -all (or ~all while you verify the list of senders): " + spfExample + ".",
		References:  []string{refSPF + "#section-5.1", refCWE290},
	})
	SPFNeutral = define(Check{
		Code: "dns.spf.neutral", Title: "SPF record ends in ?all (neutral)",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290",
		Rationale:   "Equivalent to no SPF policy for unlisted senders (RFC 7208 section 8.2).",
		Description: "The SPF record ends in ?all, which explicitly says nothing about unlisted senders: spoofed mail is not penalised by SPF.",
		Remediation: "End the record with -all (or ~all) once it lists every sending service: " + spfExample + ".",
		References:  []string{refSPF + "#section-8.2", refCWE290},
	})
	SPFNoAll = define(Check{
		Code: "dns.spf.no-all", Title: "SPF record has no all mechanism",
		Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290", Rationale: weakRationale,
		Description: "The SPF record has neither an all mechanism nor a redirect, so mail from servers it does not list gets a neutral result, as with ?all.",
		Remediation: "End the record with -all (or ~all): " + spfExample + ".",
		References:  []string{refSPF + "#section-4.7", refCWE290},
	})
	SPFTooManyLookups = define(Check{
		Code: "dns.spf.too-many-lookups", Title: "SPF record needs more than 10 DNS lookups",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290", Rationale: permErrRationale,
		Description: "Evaluating the SPF record takes more than the 10 DNS lookups RFC 7208 allows, so receivers stop with a permanent error and treat the domain as having no usable SPF policy.",
		Remediation: "Remove unused include:, a, mx and ptr terms, replace includes by ip4:/ip6: ranges where the provider allows it, or move senders to a subdomain with its own record.",
		References:  []string{refSPF + "#section-4.6.4", refCWE290},
	})
)

// DMARC.
var (
	DMARCMissing = define(Check{
		Code: "dns.dmarc.missing", Title: "No DMARC record",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290", Rationale: spoofRationale,
		Description: "The domain publishes no DMARC policy at _dmarc, so receivers have no instruction for mail that fails SPF and DKIM, and the owner gets no reports of spoofing." + spoofing,
		Remediation: "Publish a TXT record at _dmarc.<domain>: start with " + dmarcExample + " and move to p=reject once the reports show only legitimate senders pass.",
		References:  []string{refDMARC, refGoogle, refCWE290},
	})
	DMARCMultiple = define(Check{
		Code: "dns.dmarc.multiple", Title: "Multiple DMARC records",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290", Rationale: permErrRationale,
		Description: "More than one DMARC record is published at _dmarc; RFC 7489 tells receivers to apply no DMARC policy at all in that case.",
		Remediation: "Keep exactly one v=DMARC1 TXT record at _dmarc.<domain>.",
		References:  []string{refDMARC + "#section-6.6.3", refCWE290},
	})
	DMARCInvalid = define(Check{
		Code: "dns.dmarc.invalid", Title: "DMARC record has no valid policy",
		Category: scans.CategoryDNS, Severity: scans.Medium, CWE: "CWE-290", Rationale: permErrRationale,
		Description: "The DMARC record's policy tag (p=, or sp= for subdomains) is missing or is not none, quarantine or reject, so receivers cannot apply it.",
		Remediation: "Fix the record, e.g. " + dmarcExample + ".",
		References:  []string{refDMARC + "#section-6.3", refCWE290},
	})
	DMARCNone = define(Check{
		Code: "dns.dmarc.none", Title: "DMARC policy is none (monitoring only)",
		Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290", Rationale: weakRationale,
		Description: "The DMARC policy is p=none: receivers send reports but still deliver mail that fails authentication, so spoofed mail reaches inboxes.",
		Remediation: "Review the aggregate reports (rua=), make sure every legitimate sender passes SPF or DKIM with alignment, then move to p=quarantine and p=reject.",
		References:  []string{refDMARC + "#section-6.3", refCWE290},
	})
	DMARCPartial = define(Check{
		Code: "dns.dmarc.partial", Title: "DMARC policy applies to only part of the mail (pct below 100)",
		Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-290", Rationale: weakRationale,
		Description: "The DMARC record sets pct below 100, so the quarantine or reject policy is applied only to that share of failing mail; the rest is treated as with a weaker policy.",
		Remediation: "Raise pct to 100 (or remove the tag) once the reports are clean.",
		References:  []string{refDMARC + "#section-6.3", refCWE290},
	})
)

// CAA, DNSSEC, zone transfers, dangling aliases.
var (
	CAAMissing = define(Check{
		Code: "dns.caa.missing", Title: "No CAA record",
		Category: scans.CategoryDNS, Severity: scans.Low,
		// No CWE describes a missing CAA record; the finding is hardening.
		Rationale:   "Optional hardening (RFC 8659): it only limits the damage of a mis-issuance by another CA.",
		Description: "Neither the domain nor any parent domain publishes a CAA record, so every public certificate authority may issue certificates for it. CAA narrows that to the authorities you use, which limits what an attacker can do with a mis-issuance at, or a weak domain validation by, any other CA.",
		Remediation: "Publish CAA records at the domain naming the authorities you use, e.g. `<domain>. CAA 0 issue \"letsencrypt.org\"`, `<domain>. CAA 0 issuewild \";\"` (no wildcard certificates unless you need them) and `<domain>. CAA 0 iodef \"mailto:security@<domain>\"`. List every CA your teams and providers (CDN, load balancer) use, or their renewals will fail.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc8659", "https://letsencrypt.org/docs/caa/"},
	})
	DNSSECMissing = define(Check{
		Code: "dns.dnssec.missing", Title: "DNSSEC not enabled",
		Category: scans.CategoryDNS, Severity: scans.Low, CWE: "CWE-345",
		Rationale:   "Recommended by RFC 9364 but forging answers still needs cache poisoning or an on-path attacker; TLS protects most traffic anyway.",
		Description: "The zone has no DS record at its parent, so there is no DNSSEC chain of trust to it: validating resolvers cannot detect forged or altered answers for the domain (cache poisoning, on-path tampering). This check only sees which DS and DNSKEY records are published, through the scan's resolver, which does not validate signatures; it does not prove a signed zone valid.",
		Remediation: "Turn on DNSSEC signing at your DNS provider, then publish the DS record it gives you at your registrar; check the chain with a DNSSEC debugger before relying on it.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc4033", "https://www.rfc-editor.org/rfc/rfc9364", "https://cwe.mitre.org/data/definitions/345.html"},
	})
	ZoneTransfer = define(Check{
		Code: "dns.zone-transfer", Title: "Zone transfer (AXFR) allowed",
		Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-200",
		Rationale:   "Hands the whole zone, internal and admin host names included, to anyone (US-CERT TA15-103A); it maps the attack surface rather than breaching it.",
		Description: "A name server of the domain answers zone transfer (AXFR) requests from anyone, handing out every record of the zone: internal host names, staging and admin systems, mail and VPN endpoints, which maps the attack surface for an attacker. The scan read only the start of the answer and kept none of it.",
		Remediation: "Restrict zone transfers to your secondary name servers, by IP address and preferably with TSIG keys (BIND: `allow-transfer { <secondaries>; };`, PowerDNS: `allow-axfr-ips`, Windows DNS: Zone Transfers tab, \"Only to the following servers\"), on every name server of the zone.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc5936#section-6", "https://www.cisa.gov/uscert/ncas/alerts/TA15-103A", refCWE200},
	})
	DanglingCNAME = define(Check{
		Code: "dns.dangling-cname", Title: "Dangling CNAME (possible subdomain takeover)",
		// CWE-350 is the entry takeover reports commonly cite; no CWE names
		// dangling DNS records exactly.
		Category: scans.CategoryDNS, Severity: scans.High, CWE: "CWE-350",
		Rationale:   "Whoever claims the name serves content under your domain with a valid certificate (OWASP WSTG subdomain takeover); claiming it needs no other flaw.",
		Description: "The name is an alias (CNAME) for a name at a hosting service where customers choose their own names, and that name does not exist (NXDOMAIN): the resource behind it was deleted or never claimed. Whoever registers it at the service serves content under your name, with a valid certificate: phishing, theft of cookies scoped to the parent domain, bypass of CSP or CORS rules that trust your subdomains. Seen with DNS only: the scan never connects to the target. Services that answer every name with wildcard DNS show no NXDOMAIN, so their dangling aliases are not seen here.",
		Remediation: "Delete the CNAME record if the service is no longer used, or re-create the resource at the service under the same name first. Remove DNS records before deprovisioning what they point to.",
		References: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/10-Test_for_Subdomain_Takeover",
			"https://learn.microsoft.com/en-us/azure/security/fundamentals/subdomain-takeover",
			"https://cwe.mitre.org/data/definitions/350.html",
		},
	})
)

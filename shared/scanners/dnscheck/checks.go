package dnscheck

import "secscan/shared/scans"

// check is one kind of finding: everything but the evidence. Its Title is
// fixed, so the agent recognises the same issue found twice.
type check struct {
	Title       string
	Severity    scans.Severity
	CWE         string
	Description string
	Remediation string
	References  []string
}

func (c check) finding(domain, evidence string) scans.Finding {
	f := scans.Finding{
		Title:       c.Title,
		Severity:    c.Severity,
		Category:    scans.CategoryDNS,
		Host:        domain,
		Evidence:    evidence,
		Description: c.Description,
		Remediation: c.Remediation,
		References:  append([]string(nil), c.References...),
	}
	if c.CWE != "" {
		f.CWE = &c.CWE
	}
	return f
}

const (
	refSPF    = "https://www.rfc-editor.org/rfc/rfc7208"
	refDMARC  = "https://www.rfc-editor.org/rfc/rfc7489"
	refCWE290 = "https://cwe.mitre.org/data/definitions/290.html"
	refGoogle = "https://support.google.com/a/answer/81126"
	spoofing  = " Without it, anyone can send mail that claims to come from the domain (phishing of " +
		"customers and staff, invoice fraud), and providers such as Gmail and Yahoo junk or reject bulk mail from " +
		"domains that lack it."
	spfExample   = "`v=spf1 include:<your mail provider> -all` (or `v=spf1 -all` for a domain that sends no mail)"
	dmarcExample = "`v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@<domain>`"
)

// SPF checks.
var (
	spfMissing = check{
		Title:    "No SPF record",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "The domain publishes no SPF record, so receivers cannot tell which servers may send its " +
			"mail." + spoofing,
		Remediation: "Publish one TXT record at the domain listing every service that sends its mail, e.g. " +
			spfExample + "; then add DMARC.",
		References: []string{refSPF, refGoogle, refCWE290},
	}
	spfMultiple = check{
		Title:    "Multiple SPF records",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "The domain publishes more than one SPF record. RFC 7208 makes that a permanent error: " +
			"receivers treat the domain as having no usable SPF policy.",
		Remediation: "Merge the records into a single v=spf1 TXT record (one include: per sending service).",
		References:  []string{refSPF + "#section-4.5", refCWE290},
	}
	spfPassAll = check{
		Title:    "SPF record allows any sender (+all)",
		Severity: scans.High,
		CWE:      "CWE-290",
		Description: "The SPF record ends in +all (or a bare all, which means the same): every server on the " +
			"internet passes SPF for this domain, so SPF vouches for spoofed mail, and DMARC alignment through SPF " +
			"succeeds for anyone.",
		Remediation: "Replace +all with -all (or ~all while you verify the list of senders): " + spfExample + ".",
		References:  []string{refSPF + "#section-5.1", refCWE290},
	}
	spfNeutral = check{
		Title:    "SPF record ends in ?all (neutral)",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "The SPF record ends in ?all, which explicitly says nothing about unlisted senders: spoofed " +
			"mail is not penalised by SPF.",
		Remediation: "End the record with -all (or ~all) once it lists every sending service: " + spfExample + ".",
		References:  []string{refSPF + "#section-8.2", refCWE290},
	}
	spfNoAll = check{
		Title:    "SPF record has no all mechanism",
		Severity: scans.Low,
		CWE:      "CWE-290",
		Description: "The SPF record has neither an all mechanism nor a redirect, so mail from servers it does " +
			"not list gets a neutral result, as with ?all.",
		Remediation: "End the record with -all (or ~all): " + spfExample + ".",
		References:  []string{refSPF + "#section-4.7", refCWE290},
	}
	spfTooManyLookups = check{
		Title:    "SPF record needs more than 10 DNS lookups",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "Evaluating the SPF record takes more than the 10 DNS lookups RFC 7208 allows, so receivers " +
			"stop with a permanent error and treat the domain as having no usable SPF policy.",
		Remediation: "Remove unused include:, a, mx and ptr terms, replace includes by ip4:/ip6: ranges where the " +
			"provider allows it, or move senders to a subdomain with its own record.",
		References: []string{refSPF + "#section-4.6.4", refCWE290},
	}
)

// DMARC checks.
var (
	dmarcMissing = check{
		Title:    "No DMARC record",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "The domain publishes no DMARC policy at _dmarc, so receivers have no instruction for mail " +
			"that fails SPF and DKIM, and the owner gets no reports of spoofing." + spoofing,
		Remediation: "Publish a TXT record at _dmarc.<domain>: start with " + dmarcExample + " and move to " +
			"p=reject once the reports show only legitimate senders pass.",
		References: []string{refDMARC, refGoogle, refCWE290},
	}
	dmarcMultiple = check{
		Title:    "Multiple DMARC records",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "More than one DMARC record is published at _dmarc; RFC 7489 tells receivers to apply no " +
			"DMARC policy at all in that case.",
		Remediation: "Keep exactly one v=DMARC1 TXT record at _dmarc.<domain>.",
		References:  []string{refDMARC + "#section-6.6.3", refCWE290},
	}
	dmarcInvalid = check{
		Title:    "DMARC record has no valid policy",
		Severity: scans.Medium,
		CWE:      "CWE-290",
		Description: "The DMARC record's policy tag (p=, or sp= for subdomains) is missing or is not none, " +
			"quarantine or reject, so receivers cannot apply it.",
		Remediation: "Fix the record, e.g. " + dmarcExample + ".",
		References:  []string{refDMARC + "#section-6.3", refCWE290},
	}
	dmarcNone = check{
		Title:    "DMARC policy is none (monitoring only)",
		Severity: scans.Low,
		CWE:      "CWE-290",
		Description: "The DMARC policy is p=none: receivers send reports but still deliver mail that fails " +
			"authentication, so spoofed mail reaches inboxes.",
		Remediation: "Review the aggregate reports (rua=), make sure every legitimate sender passes SPF or DKIM " +
			"with alignment, then move to p=quarantine and p=reject.",
		References: []string{refDMARC + "#section-6.3", refCWE290},
	}
	dmarcPartial = check{
		Title:    "DMARC policy applies to only part of the mail (pct below 100)",
		Severity: scans.Low,
		CWE:      "CWE-290",
		Description: "The DMARC record sets pct below 100, so the quarantine or reject policy is applied only to " +
			"that share of failing mail; the rest is treated as with a weaker policy.",
		Remediation: "Raise pct to 100 (or remove the tag) once the reports are clean.",
		References:  []string{refDMARC + "#section-6.3", refCWE290},
	}
)

const (
	refCAA        = "https://www.rfc-editor.org/rfc/rfc8659"
	refCAAGuide   = "https://letsencrypt.org/docs/caa/"
	refDNSSEC     = "https://www.rfc-editor.org/rfc/rfc4033"
	refDNSSECBCP  = "https://www.rfc-editor.org/rfc/rfc9364"
	refCWE345     = "https://cwe.mitre.org/data/definitions/345.html"
	refAXFR       = "https://www.rfc-editor.org/rfc/rfc5936#section-6"
	refAXFRCISA   = "https://www.cisa.gov/uscert/ncas/alerts/TA15-103A"
	refCWE200     = "https://cwe.mitre.org/data/definitions/200.html"
	refTakeover   = "https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/10-Test_for_Subdomain_Takeover"
	refTakeoverMS = "https://learn.microsoft.com/en-us/azure/security/fundamentals/subdomain-takeover"
	refCWE350     = "https://cwe.mitre.org/data/definitions/350.html"
)

// Certificate authority authorization (RFC 8659).
var caaMissing = check{
	Title:    "No CAA record",
	Severity: scans.Low,
	// No CWE describes a missing CAA record; the finding is hardening.
	Description: "Neither the domain nor any parent domain publishes a CAA record, so every public certificate " +
		"authority may issue certificates for it. CAA narrows that to the authorities you use, which limits what " +
		"an attacker can do with a mis-issuance at, or a weak domain validation by, any other CA.",
	Remediation: "Publish CAA records at the domain naming the authorities you use, e.g. " +
		"`<domain>. CAA 0 issue \"letsencrypt.org\"`, `<domain>. CAA 0 issuewild \";\"` (no wildcard " +
		"certificates unless you need them) and `<domain>. CAA 0 iodef \"mailto:security@<domain>\"`. List every " +
		"CA your teams and providers (CDN, load balancer) use, or their renewals will fail.",
	References: []string{refCAA, refCAAGuide},
}

// DNSSEC.
var dnssecMissing = check{
	Title:    "DNSSEC not enabled",
	Severity: scans.Low,
	CWE:      "CWE-345",
	Description: "The zone has no DS record at its parent, so there is no DNSSEC chain of trust to it: " +
		"validating resolvers cannot detect forged or altered answers for the domain (cache poisoning, " +
		"on-path tampering). This check only sees which DS and DNSKEY records are published, through the " +
		"scan's resolver, which does not validate signatures; it does not prove a signed zone valid.",
	Remediation: "Turn on DNSSEC signing at your DNS provider, then publish the DS record it gives you at " +
		"your registrar; check the chain with a DNSSEC debugger before relying on it.",
	References: []string{refDNSSEC, refDNSSECBCP, refCWE345},
}

// Zone transfers (RFC 5936).
var axfrAllowed = check{
	Title:    "Zone transfer (AXFR) allowed",
	Severity: scans.High,
	CWE:      "CWE-200",
	Description: "A name server of the domain answers zone transfer (AXFR) requests from anyone, handing out " +
		"every record of the zone: internal host names, staging and admin systems, mail and VPN endpoints, " +
		"which maps the attack surface for an attacker. The scan read only the start of the answer and kept " +
		"none of it.",
	Remediation: "Restrict zone transfers to your secondary name servers, by IP address and preferably with " +
		"TSIG keys (BIND: `allow-transfer { <secondaries>; };`, PowerDNS: `allow-axfr-ips`, Windows DNS: " +
		"Zone Transfers tab, \"Only to the following servers\"), on every name server of the zone.",
	References: []string{refAXFR, refAXFRCISA, refCWE200},
}

// Dangling CNAMEs. The title names the service, filled in by
// danglingCNAME.
var danglingCNAMECheck = check{
	Severity: scans.High,
	// CWE-350 is the entry takeover reports commonly cite; no CWE names
	// dangling DNS records exactly.
	CWE: "CWE-350",
	Description: "The name is an alias (CNAME) for a name at a hosting service where customers choose their " +
		"own names, and that name does not exist (NXDOMAIN): the resource behind it was deleted or never " +
		"claimed. Whoever registers it at the service serves content under your name, with a valid " +
		"certificate: phishing, theft of cookies scoped to the parent domain, bypass of CSP or CORS rules " +
		"that trust your subdomains. Seen with DNS only: the scan never connects to the target. Services that " +
		"answer every name with wildcard DNS show no NXDOMAIN, so their dangling aliases are not seen here.",
	Remediation: "Delete the CNAME record if the service is no longer used, or re-create the resource at the " +
		"service under the same name first. Remove DNS records before deprovisioning what they point to.",
	References: []string{refTakeover, refTakeoverMS, refCWE350},
}

func danglingCNAME(service string) check {
	c := danglingCNAMECheck
	c.Title = "Dangling CNAME to " + service + " (possible subdomain takeover)"
	return c
}

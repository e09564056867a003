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

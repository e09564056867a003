package dnscheck

import (
	"secscan/shared/checks"
	"secscan/shared/scans"
)

// finding is a finding of check c on a domain (or name server) name; DNS
// findings have no port unless the tool sets one.
func finding(c *checks.Check, name, evidence string) scans.Finding {
	return c.Finding(name, nil, evidence)
}

// emitted is every check the tool can report.
var emitted = []*checks.Check{
	checks.SPFMissing, checks.SPFMultiple, checks.SPFPassAll, checks.SPFNeutral, checks.SPFNoAll, checks.SPFTooManyLookups,
	checks.DMARCMissing, checks.DMARCMultiple, checks.DMARCInvalid, checks.DMARCNone, checks.DMARCPartial,
	checks.CAAMissing, checks.DNSSECMissing, checks.ZoneTransfer, checks.DanglingCNAME,
}

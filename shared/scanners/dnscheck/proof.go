package dnscheck

import (
	"fmt"
	"strings"
	"time"

	"secscan/shared/proof"
	"secscan/shared/scans"
)

// maxProofRecords bounds the records a DNS proof lists.
const maxProofRecords = 20

// transferProof is the transcript of an allowed zone transfer: the query
// and what the answer showed (the records themselves are not kept).
func transferProof(zone string, a transferAttempt, at time.Time) *scans.Proof {
	request := fmt.Sprintf("connect %s (%s) over TCP\nDNS query: %s IN AXFR", a.ns, a.addr, zone)
	response := fmt.Sprintf("rcode NOERROR; the answer starts with the zone's SOA record\n%d records in the first answer message; "+
		"reading stopped there on purpose, no record was kept (only the names of its aliases, checked for dangling CNAMEs)", a.records)
	return proof.Transcript(request, response, at)
}

// txtProof is the transcript of a TXT lookup: the query and the records
// answered (or why there were none).
func txtProof(a txtAnswer, at time.Time) *scans.Proof {
	request := fmt.Sprintf("DNS query: %s IN TXT (through the configured resolver)", a.name)
	var lines []string
	for i, r := range a.records {
		if i == maxProofRecords {
			lines = append(lines, fmt.Sprintf("… and %d more", len(a.records)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("%s TXT %q", a.name, r))
	}
	if len(lines) == 0 {
		lines = append(lines, "no TXT record ("+answered(a)+")")
	}
	return proof.Transcript(request, strings.Join(lines, "\n"), at)
}

package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// itemSize is DynamoDB's size of an item: attribute names plus values.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)/2 + 1
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// The ledger's items stay far below DynamoDB's 400 KB whatever the history:
// one item per issue (no per-scan history), one comparison per scan in the
// scan's own partition (split at 300 KB), one latest-scans item per type.
// A target with 1,000 issues across 50 scans is measured here.
func TestLedgerItemSizes(t *testing.T) {
	now := time.Now().UTC()
	cve := "CVE-2024-12345"
	exp := now.Add(time.Hour).Format(time.RFC3339)
	tr, _ := json.Marshal(scans.Triage{State: scans.TriageAcceptedRisk, Reason: strings.Repeat("é", 250) + strings.Repeat("r", 250),
		ExpiresAt: &exp, UpdatedAt: now.Format(time.RFC3339), UpdatedBy: "usr_01JD0000000000000000000000"})
	ledger := marshal(ledgerItem{PK: targetPK("tgt_01JD0000000000000000000000"), SK: ledgerPrefix + "vuln.known-cve:" + cve,
		Key: "vuln.known-cve:" + cve, Check: "vuln.known-cve", CVE: &cve, Title: strings.Repeat("t", 200), Severity: "critical",
		Status: "fixed", FirstSeenAt: now, LastSeenAt: now, LastScanID: "scn_01JD0000000000000000000000", FixedAt: &now, Triage: string(tr)})
	ledgerSize := itemSize(ledger)

	c := scans.Comparison{BaselineScanID: "scn_01JD0000000000000000000000", BaselineFinishedAt: now,
		Changes: map[string]scans.IssueChange{}, Triage: map[string]scans.Triage{}}
	for i := range 1000 {
		k := fmt.Sprintf("vuln.known-cve:CVE-2024-%05d", i)
		c.Changes[k] = scans.ChangeRecurring
		if i%10 == 0 { // one issue in ten triaged, with a long reason
			var t scans.Triage
			_ = json.Unmarshal(tr, &t)
			c.Triage[k] = t
		}
		if i%5 == 0 {
			c.Fixed = append(c.Fixed, scans.FixedIssue{Key: k + "-old", Check: "vuln.known-cve", Title: strings.Repeat("t", 80),
				Severity: scans.High, LastSeenScanID: "scn_01JD0000000000000000000000"})
		}
	}
	body, _ := json.Marshal(comparisonJSON(c))
	compareItems := (len(body) + maxCompareItemBytes - 1) / maxCompareItemBytes

	var refs []string
	for range maxLatest {
		refs = append(refs, "scn_01JD0000000000000000000000|"+now.Format(time.RFC3339Nano))
	}
	latest := itemSize(marshal(latestItem{PK: targetPK("tgt_01JD0000000000000000000000"), SK: latestPrefix + "full", Scans: refs, Version: 50}))
	host := itemSize(marshal(assetHostItem{PK: targetPK("tgt_01JD0000000000000000000000"), SK: assetHost + strings.Repeat("h", 60) + ".example.com",
		Name: strings.Repeat("h", 60) + ".example.com", Addresses: []string{"192.0.2.1", "2001:db8::1", "192.0.2.2"},
		Sources: []string{"apex", "certificate", "axfr"}, FirstSeenAt: now, LastSeenAt: now}))
	t.Logf("ledger item (worst case: 200-char title, 500-char reason): %d B; 1,000 of them: %d KB in 1,000 items",
		ledgerSize, ledgerSize*1000/1024)
	t.Logf("comparison of a scan with 1,000 issues (100 triaged, 200 fixed): %d KB JSON in %d item(s); 50 scans: 50 such, one per scan partition",
		len(body)/1024, compareItems)
	t.Logf("latest-scans item: %d B; asset host item: %d B", latest, host)
	if ledgerSize > 2<<10 || len(body)/compareItems > maxCompareItemBytes || latest > 1<<10 {
		t.Errorf("items too large: ledger %d B, comparison %d B per item, latest %d B", ledgerSize, len(body)/compareItems, latest)
	}
}

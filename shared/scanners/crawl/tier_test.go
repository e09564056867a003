package crawl

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"secscan/shared/plans"
	"secscan/shared/tools"
)

// TestCrawlBeyondTheTierRefused: below the deep tier a crawl of more than
// 10 pages or deeper than 2 is refused before anything is fetched (the
// environment has no dialer: nothing could be); the deep tier passes the
// tier check.
func TestCrawlBeyondTheTierRefused(t *testing.T) {
	t.Parallel()
	tool := New()
	for _, in := range []string{`{"max_pages": 50}`, `{"max_pages": 11}`, `{"max_depth": 3}`} {
		_, err := tool.Run(context.Background(), tools.Env{Domain: "scan.test", Tier: plans.Standard}, json.RawMessage(in))
		if !tools.IsInputError(err) || !strings.Contains(err.Error(), "is the deep tier's; this is a standard scan") {
			t.Errorf("standard %s: %v, want the deep-only refusal", in, err)
		}
		if err := tool.(tools.TierBound).CheckTier(plans.Deep, json.RawMessage(in)); err != nil {
			t.Errorf("deep %s: %v", in, err)
		}
	}
	if err := tool.(tools.TierBound).CheckTier(plans.Standard, json.RawMessage(`{"max_pages": 10, "max_depth": 2}`)); err != nil {
		t.Errorf("the light crawl: %v", err)
	}
}

package discovery

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"secscan/shared/plans"
	"secscan/shared/tools"
)

// TestDeepWordlistRefusedBelowDeep: the deep wordlist is refused on a
// standard or quick scan before any query (the environment has no
// resolver: none could be sent); the deep tier passes the tier check.
func TestDeepWordlistRefusedBelowDeep(t *testing.T) {
	t.Parallel()
	tool := New()
	in := json.RawMessage(`{"sources": ["wordlist"], "wordlist": "deep"}`)
	for _, tier := range []plans.Tier{plans.Standard, plans.Quick} {
		_, err := tool.Run(context.Background(), tools.Env{Domain: "scan.test", Tier: tier}, in)
		if !tools.IsInputError(err) || !strings.Contains(err.Error(), "the deep wordlist") {
			t.Errorf("%s: %v, want the deep-only refusal", tier, err)
		}
	}
	if err := tool.(tools.TierBound).CheckTier(plans.Deep, in); err != nil {
		t.Errorf("deep: %v", err)
	}
}

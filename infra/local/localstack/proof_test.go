package localstack_test

import (
	"net/http"
	"strings"
	"testing"

	"secscan/shared/scans"
)

// checkDemoProofs holds a real scan of the demo to CONTRACT "Proof and
// retest": every critical or high finding with confidence certain has a
// proof, bounded, and no proof shows a secret the demo planted.
func checkDemoProofs(t *testing.T, s *stack, a account, scanID, tier string) {
	t.Helper()
	r := s.patient(http.MethodGet, "/api/scans/"+scanID, a.token, nil)
	expect(t, r, http.StatusOK)
	var rec struct {
		Findings []struct {
			Title      string       `json:"title"`
			Severity   string       `json:"severity"`
			Confidence string       `json:"confidence"`
			Proof      *scans.Proof `json:"proof"`
		} `json:"findings"`
	}
	r.json(t, &rec)
	proven, serious := 0, 0
	for _, f := range rec.Findings {
		if f.Proof != nil {
			proven++
			if len([]rune(f.Proof.Response)) > scans.MaxProofResponse || len([]rune(f.Proof.Request)) > scans.MaxProofRequest {
				t.Errorf("%s: %q proof over its bounds", tier, f.Title)
			}
			// The demo's planted AWS secret key and Stripe key.
			for _, secret := range []string{"wJalrXUtnFEMI/K7MDENG", "sk_live_"} {
				if strings.Contains(f.Proof.Request+f.Proof.Response, secret) {
					t.Errorf("%s: %q proof shows a secret:\n%s", tier, f.Title, f.Proof.Response)
				}
			}
		}
		if (f.Severity == "critical" || f.Severity == "high") && f.Confidence == "certain" {
			serious++
			if f.Proof == nil {
				t.Errorf("%s: %s certain finding %q has no proof", tier, f.Severity, f.Title)
			}
		}
	}
	t.Logf("FIGURES %s: %d of %d findings carry a proof; %d critical/high certain findings, all proven", tier, proven, len(rec.Findings), serious)
}

package api

import (
	"net/http"

	"secscan/shared/auth"
	"secscan/shared/checks"
	"secscan/shared/httpapi"
	"secscan/shared/scans"
)

// checkJSON is one entry of GET /api/checks (CONTRACT "Checks and issues"):
// the catalogue entry without its internal severity rationale, cwe null
// when the check has none, references always an array.
type checkJSON struct {
	Check       scans.CheckCode `json:"check"`
	Title       string          `json:"title"`
	Category    scans.Category  `json:"category"`
	Severity    scans.Severity  `json:"severity"`
	CWE         *string         `json:"cwe"`
	Description string          `json:"description"`
	Remediation string          `json:"remediation"`
	References  []string        `json:"references"`
}

func renderCheck(c *checks.Check) checkJSON {
	out := checkJSON{
		Check: c.Code, Title: c.Title, Category: c.Category, Severity: c.Severity, CWE: optional(c.CWE),
		Description: c.Description, Remediation: c.Remediation, References: c.References,
	}
	if out.References == nil {
		out.References = []string{}
	}
	return out
}

// listChecks serves the check catalogue, ordered by code, to any
// authenticated user.
func (a *API) listChecks(w http.ResponseWriter, _ *http.Request, _ auth.Principal) error {
	all := checks.All()
	out := make([]checkJSON, len(all))
	for i, c := range all {
		out[i] = renderCheck(c)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

package cli

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/table"
	"secscan/shared/scans"
)

// maxTriageReason is the API's bound on a triage reason, in characters.
const maxTriageReason = 500

func (a *app) issuesCommand() *cobra.Command {
	var status, state string
	cmd := &cobra.Command{
		Use:   "issues <domain|target-id>",
		Short: "List a target's issue ledger: every issue its scans found, open or fixed, and its triage",
		Long: `issues lists the target's issue ledger: each weakness its scans found, with
its severity, whether it is open or fixed, its triage (false_positive or
accepted_risk, set with 'secscan triage') and when it was last seen. The KEY is
what 'secscan triage' takes. The table fits the terminal's width (or COLUMNS,
else 100 columns); --json prints the ledger as the API returns it.`,
		Example: `  secscan issues example.com
  secscan issues example.com --status open
  secscan issues example.com --state false_positive
  secscan issues example.com --json | jq -r '.[] | select(.status == "open") | .key'`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if status != "" && status != "open" && status != "fixed" {
				return usageError("--status must be open or fixed, not %q", status)
			}
			if state != "" && !validTriageState(state) {
				return usageError("--state must be open, accepted_risk or false_positive, not %q", state)
			}
			es, err := targetCall(a, args[0], func(c *client.Client, id string) ([]client.LedgerEntry, error) {
				return c.TargetIssues(a.ctx, id, status, state)
			})
			if err != nil {
				return err
			}
			return showList(a, es, "No issues.", func(es []client.LedgerEntry) ([]table.Column, [][]string) { return ledgerTable(es, time.Now()) })
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only issues with this status: open or fixed")
	cmd.Flags().StringVar(&state, "state", "", "only issues with this triage state: open, accepted_risk or false_positive")
	return cmd
}

// ledgerTable is a target's issues: severity, key, status, triage, title
// and when last seen; the key (what triage takes) is squeezed last, and a
// terminal too narrow for a useful title leaves the title out.
func ledgerTable(es []client.LedgerEntry, now time.Time) ([]table.Column, [][]string) {
	cols := []table.Column{{Header: "SEVERITY"}, {Header: "KEY", Keep: true}, {Header: "STATUS", Drop: 2},
		{Header: "TRIAGE"}, {Header: "TITLE", Flex: true, Min: 12, Drop: 3}, {Header: "LAST SEEN", Drop: 1}}
	rows := make([][]string, 0, len(es))
	for _, e := range es {
		rows = append(rows, []string{string(e.Severity), findings.CleanLine(e.Key, 0), e.Status, triageCell(e.Triage, now),
			findings.CleanLine(e.Title, 0), e.LastSeenAt.UTC().Format("2006-01-02")})
	}
	return cols, rows
}

// triageCell is the triage as it applies now: "-" when open or expired.
func triageCell(t *client.Triage, now time.Time) string {
	if t == nil || !findings.Suppressed(t, now) {
		return "-"
	}
	if t.State == scans.TriageAcceptedRisk && t.ExpiresAt != nil {
		if exp, err := time.Parse(time.RFC3339, *t.ExpiresAt); err == nil {
			return "accepted_risk until " + exp.UTC().Format("2006-01-02")
		}
	}
	return t.State
}

func validTriageState(s string) bool {
	return s == scans.TriageOpen || s == scans.TriageAcceptedRisk || s == scans.TriageFalsePositive
}

// triageFlags are the flags of the triage command.
type triageFlags struct {
	state, reason, expires string
}

// request checks the flags as the API would (naming the flag) and builds
// the body; now decides whether --expires is in the future.
func (f triageFlags) request(now time.Time) (client.TriageRequest, error) {
	req := client.TriageRequest{State: strings.ToLower(strings.TrimSpace(f.state))}
	if req.State == "" {
		return req, usageError("--state is required: false_positive, accepted_risk or open")
	}
	if !validTriageState(req.State) {
		return req, usageError("--state must be false_positive, accepted_risk or open, not %q", f.state)
	}
	var err error
	if req.Reason, err = triageReason(req.State, f.reason); err != nil {
		return req, err
	}
	if f.expires == "" {
		return req, nil
	}
	req.ExpiresAt, err = triageExpiry(req.State, f.expires, now)
	return req, err
}

// triageReason checks --reason: required unless the state is open, at
// most maxTriageReason characters; nil when empty.
func triageReason(state, reason string) (*string, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "" && state != scans.TriageOpen:
		return nil, usageError("--reason is required with --state %s (why, for whoever reads the ledger next)", state)
	case utf8.RuneCountInString(reason) > maxTriageReason:
		return nil, usageError("--reason must be at most %d characters, not %d", maxTriageReason, utf8.RuneCountInString(reason))
	case reason == "":
		return nil, nil
	}
	return &reason, nil
}

// triageExpiry checks --expires (set): accepted_risk only, and after now;
// RFC 3339.
func triageExpiry(state, expires string, now time.Time) (*string, error) {
	if state != scans.TriageAcceptedRisk {
		return nil, usageError("--expires applies only to --state accepted_risk")
	}
	exp, err := parseExpiry(expires)
	if err != nil {
		return nil, err
	}
	if !exp.After(now) {
		return nil, usageError("--expires must be in the future, not %s", exp.Format(time.RFC3339))
	}
	v := exp.Format(time.RFC3339)
	return &v, nil
}

// parseExpiry reads --expires: a date (YYYY-MM-DD, the acceptance ends as
// that day begins, UTC) or an RFC 3339 time.
func parseExpiry(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, usageError("--expires must be a date (2027-01-31) or an RFC 3339 time (2027-01-31T12:00:00Z), not %q", findings.CleanLine(s, 60))
}

func (a *app) triageCommand() *cobra.Command {
	var f triageFlags
	cmd := &cobra.Command{
		Use:   "triage <domain|target-id> <issue-key>",
		Short: "Mark an issue of a target false_positive or accepted_risk (or open again)",
		Long: `triage records a decision on an issue of the target's ledger ('secscan issues'
lists the keys). It applies to every later scan of the target: their issues
carry it, and their risk rating, summary and webhook counts leave it out.

The CI gate honours it: --fail-on ignores the findings of issues triaged as
false_positive, or as accepted_risk that has not expired (an expired
acceptance counts again); --include-triaged counts them all the same.

--state false_positive and accepted_risk need a --reason (at most 500
characters); --expires (accepted_risk only) ends the acceptance: a date
(the acceptance ends as that day begins, UTC) or an RFC 3339 time. --state
open withdraws the decision. Who changed it and when is kept.`,
		Example: `  secscan triage example.com web.header.csp --state false_positive --reason "CSP is set by the CDN"
  secscan triage example.com tls.protocol.tls10 --state accepted_risk --reason "legacy clients until Q2" --expires 2027-06-30
  secscan triage example.com web.header.csp --state open`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			req, err := f.request(time.Now())
			if err != nil {
				return err
			}
			key := strings.TrimSpace(args[1])
			if key == "" {
				return usageError("the issue key must not be empty; 'secscan issues %s' lists them", findings.CleanLine(args[0], 60))
			}
			e, err := targetCall(a, args[0], func(c *client.Client, id string) (client.LedgerEntry, error) { return c.SetTriage(a.ctx, id, key, req) })
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(e)
			}
			a.printTriaged(e)
			return nil
		},
	}
	cmd.Flags().StringVar(&f.state, "state", "", "false_positive, accepted_risk or open (required)")
	cmd.Flags().StringVar(&f.reason, "reason", "", "why (1–500 characters; required unless --state open)")
	cmd.Flags().StringVar(&f.expires, "expires", "", "accepted_risk only: when the acceptance ends (YYYY-MM-DD or RFC 3339)")
	return cmd
}

func (a *app) printTriaged(e client.LedgerEntry) {
	key := findings.CleanLine(e.Key, 0)
	if e.Triage == nil {
		fmt.Fprintf(a.out(), "%s is open again: later scans count it in the risk rating and the --fail-on gate.\n", key)
		return
	}
	until := ""
	if e.Triage.ExpiresAt != nil {
		until = " until " + *e.Triage.ExpiresAt
	}
	fmt.Fprintf(a.out(), "%s is %s%s: %s\nLater scans leave it out of the risk rating and the --fail-on gate (--include-triaged counts it).\n",
		key, e.Triage.State, until, findings.CleanLine(e.Triage.Reason, 500))
}

package cli

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
)

// retestPoll is how often --wait asks for the retest's state.
const retestPoll = time.Second

func (a *app) retestCommand() *cobra.Command {
	var (
		wait    bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "retest <scan-id> <issue-key>",
		Short: "Re-run the checks behind one issue of a completed scan",
		Long: `retest repeats, on the issue's locations, only the tool calls that found it,
and says per location whether the weakness is reproduced, not reproduced, or
could not be tested (an unreachable host is never taken for a fix). It costs
those tools' credits. When no location reproduces, the target's issue ledger
marks the issue fixed.

With --wait it waits for the end and exits 0 when no location reproduced, 1
when any did, 3 when the retest failed or a location could not be tested.`,
		Example: `  secscan retest scn_01J… web.header.csp --wait
  secscan retest scn_01J… vuln.known-cve:CVE-2021-41773 --wait --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			rt, err := c.CreateRetest(a.ctx, args[0], args[1])
			if err != nil {
				return apiError(err)
			}
			if !wait {
				if a.jsonOut {
					return a.printJSON(rt)
				}
				fmt.Fprintf(a.out(), "Retest %s queued for issue %s of %s.\nFollow it with: secscan retest … --wait, or GET /api/retests/%s\n",
					rt.ID, findings.CleanLine(rt.IssueKey, 200), rt.ScanID, rt.ID)
				return nil
			}
			a.info("Retest %s of %s started…", rt.ID, findings.CleanLine(rt.IssueKey, 200))
			if rt, err = a.awaitRetest(c, rt, timeout); err != nil {
				return err
			}
			return a.reportRetest(rt)
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the retest to end and print each location's outcome")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long --wait waits")
	return cmd
}

// awaitRetest polls until the retest ends, the timeout passes or the
// command is interrupted.
func (a *app) awaitRetest(c *client.Client, rt client.Retest, timeout time.Duration) (client.Retest, error) {
	deadline := time.Now().Add(timeout)
	for rt.Status == "queued" || rt.Status == "running" {
		if time.Now().After(deadline) {
			return rt, withCode(ExitError, fmt.Errorf("retest %s still %s after %v", rt.ID, rt.Status, timeout))
		}
		select {
		case <-a.ctx.Done():
			return rt, withCode(ExitError, a.ctx.Err())
		case <-time.After(retestPoll):
		}
		next, err := c.Retest(a.ctx, rt.ID)
		if err != nil {
			return rt, apiError(err)
		}
		rt = next
	}
	return rt, nil
}

// reportRetest prints the outcome and returns the exit code it means.
func (a *app) reportRetest(rt client.Retest) error {
	code := retestExit(rt)
	if a.jsonOut {
		if err := a.printJSON(rt); err != nil {
			return err
		}
	} else {
		if rt.Status != "completed" {
			detail := ""
			if rt.Error != nil {
				detail = ": " + findings.CleanLine(*rt.Error, 300)
			}
			fmt.Fprintf(a.out(), "Retest %s %s%s\n", rt.ID, rt.Status, detail)
		}
		for _, r := range rt.Results {
			where := r.Host
			if r.Port != nil {
				where = net.JoinHostPort(r.Host, strconv.Itoa(*r.Port))
			}
			fmt.Fprintf(a.out(), "%-15s %s  %s\n", r.Outcome, findings.CleanLine(where, 200), findings.CleanLine(r.Detail, 300))
		}
		a.info("Retest %s %s: %d location(s), %d credits.", rt.ID, rt.Status, len(rt.Results), rt.CreditsUsed)
	}
	if code != ExitOK {
		return withCode(code, nil)
	}
	return nil
}

// retestExit is 0 when nothing reproduced, 1 when something did, 3 when
// the retest failed or a location could not be tested.
func retestExit(rt client.Retest) int {
	if rt.Status != "completed" {
		return ExitFailed
	}
	code := ExitOK
	for _, r := range rt.Results {
		switch r.Outcome {
		case "reproduced":
			code = max(code, ExitGate)
		case "not_reproduced":
		default:
			code = ExitFailed
		}
	}
	return code
}

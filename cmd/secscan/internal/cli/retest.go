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
when any did, 3 when the retest failed or a location could not be tested.
Ctrl-C while waiting cancels the retest: the calls under way finish (and are
charged), no other starts, and the command shows the outcome (exit 3); a
second Ctrl-C stops waiting.`,
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

// awaitRetest polls until the retest ends or the timeout passes, saying
// when its state changes. The first interrupt cancels the retest (the calls
// under way finish, no other starts, and it ends within 30 s) and waits for
// that end, which reportRetest then shows; a second stops waiting.
func (a *app) awaitRetest(c *client.Client, rt client.Retest, timeout time.Duration) (client.Retest, error) {
	interrupts, release := a.claimInterrupts()
	defer release()
	deadline := time.Now().Add(timeout)
	cancelled := false
	for rt.Status == "queued" || rt.Status == "running" {
		if time.Now().After(deadline) {
			return rt, withCode(ExitError, fmt.Errorf("retest %s still %s after %v", rt.ID, rt.Status, timeout))
		}
		select {
		case <-a.ctx.Done():
			return rt, withCode(ExitError, a.ctx.Err())
		case <-interrupts:
			if cancelled {
				a.info("Interrupted again: no longer waiting; cancellation of retest %s was requested.", rt.ID)
				return rt, withCode(ExitError, nil)
			}
			cancelled = true
			if err := a.cancelRetest(c, rt.ID); err != nil {
				return rt, err
			}
		case <-time.After(retestPoll):
		}
		next, err := a.refreshRetest(c, rt)
		if err != nil {
			return rt, err
		}
		rt = next
	}
	return rt, nil
}

// refreshRetest reads the retest again and says so when its state changed.
func (a *app) refreshRetest(c *client.Client, rt client.Retest) (client.Retest, error) {
	next, err := c.Retest(a.ctx, rt.ID)
	if err != nil {
		return rt, apiError(err)
	}
	if next.Status != rt.Status {
		a.info("Retest %s %s…", next.ID, next.Status)
	}
	return next, nil
}

// cancelRetest asks the API to cancel the retest; one that has just ended
// (409) is no error: its end is shown as it is.
func (a *app) cancelRetest(c *client.Client, id string) error {
	a.info("Interrupted: cancelling retest %s (the calls under way finish, no other starts)…", id)
	if _, err := c.CancelRetest(a.ctx, id); err != nil && client.StatusOf(err) != 409 {
		return apiError(err)
	}
	return nil
}

// reportRetest prints the outcome and returns the exit code it means.
func (a *app) reportRetest(rt client.Retest) error {
	code := retestExit(rt)
	if a.jsonOut {
		if err := a.printJSON(rt); err != nil {
			return err
		}
	} else {
		a.printRetest(rt)
	}
	if code != ExitOK {
		return withCode(code, nil)
	}
	return nil
}

// printRetest writes the retest as text: its state when it did not
// complete, then one line per location, and a summary on stderr.
func (a *app) printRetest(rt client.Retest) {
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
	if rt.LedgerNote != nil {
		a.info("%s", findings.CleanLine(*rt.LedgerNote, 400))
	}
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

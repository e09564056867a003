package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/table"
)

func (a *app) targetsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "targets",
		Short: "Register, list, verify and remove the domains you scan",
		Long: `A target is a domain you prove you control, by a DNS TXT record or an HTTP
file. Only verified targets can be scanned; the scope of a scan is the domain
and its subdomains.`,
		Example: `  secscan targets add example.com --method dns_txt
  secscan targets verify example.com
  secscan targets list
  secscan targets rm example.com`,
	}
	cmd.AddCommand(a.targetsAdd(), a.targetsList(), a.targetsVerify(), a.targetsRemove())
	return cmd
}

func (a *app) targetsAdd() *cobra.Command {
	var method string
	cmd := &cobra.Command{
		Use:   "add <domain>",
		Short: "Register a domain and print its ownership challenge",
		Long: `add registers a domain and prints the exact record or file that proves you
control it. Publish it, then run 'secscan targets verify <domain>'.`,
		Example: `  secscan targets add example.com                     # DNS TXT record
  secscan targets add example.com --method http_file  # a file under /.well-known/`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if method != "dns_txt" && method != "http_file" {
				return usageError("--method must be dns_txt or http_file, not %q", method)
			}
			t, err := call(a, func(c *client.Client) (client.Target, error) { return c.CreateTarget(a.ctx, args[0], method) })
			if err != nil {
				return err
			}
			return a.showf(t, "Registered %s as %s (unverified).\n\n%s\n\nThen run: secscan targets verify %s\n",
				t.Target, t.ID, findings.Clean(t.Instructions), t.Target)
		},
	}
	cmd.Flags().StringVar(&method, "method", "dns_txt", "how to prove ownership: dns_txt or http_file")
	return cmd
}

func (a *app) targetsList() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your targets",
		Example: `  secscan targets list
  secscan targets list --json | jq -r '.[] | select(.verified) | .target'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ts, err := call(a, func(c *client.Client) ([]client.Target, error) { return c.Targets(a.ctx) })
			if err != nil {
				return err
			}
			return showList(a, ts, "No targets. Add one with: secscan targets add <domain>", targetsTable)
		},
	}
}

// targetsTable is the targets list: id, domain, method, whether verified
// and when created.
func targetsTable(ts []client.Target) ([]table.Column, [][]string) {
	cols := []table.Column{{Header: "ID", Keep: true}, {Header: "TARGET", Flex: true, Fit: table.TruncateRunes},
		{Header: "METHOD", Drop: 2}, {Header: "VERIFIED"}, {Header: "CREATED", Drop: 1}}
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, []string{t.ID, findings.CleanLine(t.Target, 0), t.Method, fmt.Sprint(t.Verified),
			t.CreatedAt.UTC().Format("2006-01-02 15:04")})
	}
	return cols, rows
}

func (a *app) targetsVerify() *cobra.Command {
	return &cobra.Command{
		Use:   "verify <domain|target-id>",
		Short: "Check the ownership challenge of a target",
		Long: `verify asks the service to look up the challenge now. On failure the service
says what it looked up and what it found (exit code 2).`,
		Example: `  secscan targets verify example.com
  secscan targets verify tgt_01J9Z…`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			t, err := targetCall(a, args[0], func(c *client.Client, id string) (client.Target, error) { return c.VerifyTarget(a.ctx, id) })
			if err != nil {
				return err
			}
			return a.showf(t, "%s (%s) is verified; it can be scanned.\n", t.Target, t.ID)
		},
	}
}

func (a *app) targetsRemove() *cobra.Command {
	return &cobra.Command{
		Use:     "rm <domain|target-id>",
		Aliases: []string{"remove", "delete"},
		Short:   "Remove a target (its scans are kept)",
		Example: `  secscan targets rm example.com`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			id, err := targetCall(a, args[0], func(c *client.Client, id string) (string, error) { return id, c.DeleteTarget(a.ctx, id) })
			if err != nil {
				return err
			}
			return a.removed(id)
		},
	}
}

// targetClient is the API client and the id of the target arg names (a
// target id, or a domain it looks up): what every per-target command needs.
func (a *app) targetClient(arg string) (*client.Client, string, error) {
	c, err := a.client()
	if err != nil {
		return nil, "", err
	}
	id, err := a.targetID(c, arg)
	if err != nil {
		return nil, "", err
	}
	return c, id, nil
}

// targetID accepts a target id or a domain, which it looks up.
func (a *app) targetID(c *client.Client, arg string) (string, error) {
	if strings.HasPrefix(arg, "tgt_") {
		return arg, nil
	}
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(arg)), ".")
	ts, err := c.Targets(a.ctx)
	if err != nil {
		return "", apiError(err)
	}
	for _, t := range ts {
		if t.Target == domain {
			return t.ID, nil
		}
	}
	return "", usageError("no target %s is registered; add it with: secscan targets add %s", domain, domain)
}

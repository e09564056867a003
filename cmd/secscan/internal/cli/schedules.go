package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/table"
)

// cadences are the schedule cadences the API knows (CONTRACT "Monitoring").
var cadences = []string{"daily", "weekly", "monthly"}

func (a *app) schedulesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "schedules",
		Aliases: []string{"schedule"},
		Short:   "Scan a target daily, weekly or monthly: list, create, run now, remove",
		Long: `A schedule scans a verified target on a cadence (daily, weekly or monthly) with
a scan type and tier, as 'secscan scan' would. Every run counts toward the
hourly scan limit and the monthly allowance like any scan. Plans limit how many
schedules you may have and which cadences (starter: weekly and monthly; pro and
enterprise: daily too; free: none); the API says which plan allows what you asked.`,
		Example: `  secscan schedules create example.com --cadence weekly --type full --tier standard
  secscan schedules list
  secscan schedules run sch_01J9Z…
  secscan schedules rm sch_01J9Z…`,
	}
	cmd.AddCommand(a.schedulesList(), a.schedulesCreate(), a.schedulesRun(), a.schedulesRemove())
	return cmd
}

func (a *app) schedulesList() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your schedules",
		Example: `  secscan schedules list
  secscan schedules list --json | jq -r '.[] | select(.last_error != null) | .id'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ss, err := call(a, func(c *client.Client) ([]client.Schedule, error) { return c.Schedules(a.ctx) })
			if err != nil {
				return err
			}
			return showList(a, ss, "No schedules. Create one with: secscan schedules create <domain> --cadence weekly", schedulesTable)
		},
	}
}

// schedulesTable is the schedules list: id, target, cadence, type, tier,
// the next run, the last scan and the last error (cut to the width); a
// narrow terminal loses the last scan first, the last error last.
func schedulesTable(ss []client.Schedule) ([]table.Column, [][]string) {
	cols := []table.Column{{Header: "ID", Keep: true}, {Header: "TARGET", Flex: true, Min: 12, Fit: table.TruncateRunes},
		{Header: "CADENCE"}, {Header: "TYPE", Drop: 3}, {Header: "TIER", Drop: 4}, {Header: "NEXT RUN", Drop: 2},
		{Header: "LAST SCAN", Drop: 5}, {Header: "LAST ERROR", Flex: true, Weight: 2, Min: 16, Drop: 1}}
	rows := make([][]string, 0, len(ss))
	for _, s := range ss {
		next := "paused"
		if s.Enabled && s.NextRunAt != nil {
			next = s.NextRunAt.UTC().Format("2006-01-02 15:04")
		}
		rows = append(rows, []string{s.ID, findings.CleanLine(s.Target, 0), s.Cadence, s.ScanType, s.Tier, next,
			dashIfNil(s.LastScanID), findings.CleanLine(dashIfNil(s.LastError), 0)})
	}
	return cols, rows
}

func dashIfNil(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

func (a *app) schedulesCreate() *cobra.Command {
	var req client.ScheduleRequest
	cmd := &cobra.Command{
		Use:   "create <domain|target-id>",
		Short: "Scan a verified target on a cadence",
		Long: `create schedules scans of a verified target: --cadence daily, weekly or monthly,
with the scan type and tier of 'secscan scan'. The first run is one cadence from
now; 'secscan schedules run <id>' starts one at once.`,
		Example: `  secscan schedules create example.com --cadence weekly
  secscan schedules create example.com --cadence daily --type web --tier quick
  secscan schedules create tgt_01J9Z… --cadence monthly --type full --tier deep --max-credits 300`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			req.Target = strings.TrimSpace(args[0])
			req.Cadence = strings.ToLower(strings.TrimSpace(req.Cadence))
			if err := checkScheduleFlags(req); err != nil {
				return err
			}
			s, err := call(a, func(c *client.Client) (client.Schedule, error) { return c.CreateSchedule(a.ctx, req) })
			if err != nil {
				return err
			}
			next := "-"
			if s.NextRunAt != nil {
				next = s.NextRunAt.UTC().Format("2006-01-02 15:04 UTC")
			}
			return a.showf(s, "Scheduled %s: a %s %s scan of %s, %s; first run %s.\nRun it now with: secscan schedules run %s\n",
				s.ID, s.ScanType, s.Tier, findings.CleanLine(s.Target, 0), s.Cadence, next, s.ID)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Cadence, "cadence", "", "how often: daily, weekly or monthly (required)")
	f.StringVar(&req.ScanType, "type", "full", "scan type: full, network, web, vuln, ssl or code")
	f.StringVar(&req.Tier, "tier", "standard", "tier: quick, standard or deep (full needs standard or deep)")
	f.IntVar(&req.MaxCredits, "max-credits", 0, "credit cap of each run (default and ceiling: the tier's)")
	f.StringVar(&req.CallbackURL, "callback-url", "", "https URL that receives the signed webhook when a run ends")
	return cmd
}

// checkScheduleFlags rejects what the API would, naming the flag.
func checkScheduleFlags(req client.ScheduleRequest) error {
	if req.Target == "" {
		return usageError("the target (a domain or tgt_ id) must not be empty")
	}
	if req.Cadence == "" {
		return usageError("--cadence is required: daily, weekly or monthly")
	}
	if !slices.Contains(cadences, req.Cadence) {
		return usageError("--cadence must be daily, weekly or monthly, not %q", req.Cadence)
	}
	if req.MaxCredits < 0 {
		return usageError("--max-credits must be positive")
	}
	return nil
}

// scheduleArg checks that arg is a schedule id.
func scheduleArg(arg string) (string, error) {
	id := strings.TrimSpace(arg)
	if !strings.HasPrefix(id, "sch_") {
		return "", usageError("%q is not a schedule id (sch_…); 'secscan schedules list' shows them", findings.CleanLine(arg, 60))
	}
	return id, nil
}

func (a *app) schedulesRun() *cobra.Command {
	return &cobra.Command{
		Use:   "run <schedule-id>",
		Short: "Start a schedule's scan now",
		Long: `run starts the schedule's scan at once (its cadence is unchanged). It counts
toward the hourly scan limit and the monthly allowance like any scan.`,
		Example: `  secscan schedules run sch_01J9Z…
  secscan schedules run sch_01J9Z… --json | jq -r .id`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			id, err := scheduleArg(args[0])
			if err != nil {
				return err
			}
			s, err := call(a, func(c *client.Client) (client.Scan, error) { return c.RunSchedule(a.ctx, id) })
			if err != nil {
				return err
			}
			return a.showf(s, "Started %s (%s %s scan of %s) for schedule %s.\nFollow it with: secscan scans show %s\n",
				s.ID, s.ScanType, s.Tier, findings.CleanLine(s.Target, 0), id, s.ID)
		},
	}
}

func (a *app) schedulesRemove() *cobra.Command {
	return &cobra.Command{
		Use:     "rm <schedule-id>",
		Aliases: []string{"remove", "delete"},
		Short:   "Remove a schedule (its scans are kept)",
		Example: `  secscan schedules rm sch_01J9Z…`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			id, err := scheduleArg(args[0])
			if err != nil {
				return err
			}
			if _, err := call(a, func(c *client.Client) (string, error) { return id, c.DeleteSchedule(a.ctx, id) }); err != nil {
				return err
			}
			return a.removed(id)
		},
	}
}

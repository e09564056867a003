package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/table"
)

// render writes findings in one format.
func render(w io.Writer, format string, m findings.Meta, fs []client.Finding, gate findings.Gate, table findings.Table, jsonIndent func(io.Writer, any) error) error {
	switch format {
	case "json":
		if fs == nil {
			fs = []client.Finding{}
		}
		return jsonIndent(w, fs)
	case "sarif":
		return findings.WriteSARIF(w, m, fs, gate)
	case "junit":
		return findings.WriteJUnit(w, m, fs, gate)
	case "markdown":
		return findings.WriteMarkdown(w, m, fs, gate)
	default:
		return findings.WriteTable(w, m.Scan.Issues, fs, gate, table)
	}
}

// writeFiles writes the --sarif, --junit and --markdown files.
func (a *app) writeFiles(m findings.Meta, fs []client.Finding, gate findings.Gate, g gateFlags) error {
	for _, out := range []struct{ path, format string }{{g.sarif, "sarif"}, {g.junit, "junit"}, {g.markdown, "markdown"}} {
		if out.path == "" {
			continue
		}
		err := writeFile(out.path, reportMode, func(w io.Writer) error {
			return render(w, out.format, m, fs, gate, findings.Table{}, a.writeJSONTo)
		})
		if err != nil {
			return withCode(ExitError, fmt.Errorf("writing %s: %w", out.path, err))
		}
	}
	return nil
}

// writeFindings writes the --format output to stdout or --output; --json
// alone means the JSON format.
func (a *app) writeFindings(m findings.Meta, fs []client.Finding, gate findings.Gate, g gateFlags) error {
	format := g.format
	if a.jsonOut && format == "table" {
		format = "json"
	}
	toFile := g.output != "" && g.output != "-"
	table := findings.Table{Width: a.tableWidth(!toFile), ByFinding: g.byFinding}
	if toFile {
		if err := writeFile(g.output, reportMode, func(w io.Writer) error { return render(w, format, m, fs, gate, table, a.writeJSONTo) }); err != nil {
			return withCode(ExitError, fmt.Errorf("writing %s: %w", g.output, err))
		}
		return nil
	}
	return render(a.out(), format, m, fs, gate, table, a.writeJSONTo)
}

// tableWidth is how wide a table may be: the terminal's width when stdout
// is one (and the table goes there), else COLUMNS, else 100.
func (a *app) tableWidth(toStdout bool) int {
	term := 0
	if toStdout && a.env.StdoutWidth != nil {
		term = a.env.StdoutWidth()
	}
	return table.Width(term, a.env.Getenv("COLUMNS"))
}

// writeTable writes a table to stdout, fitted to its width.
func (a *app) writeTable(cols []table.Column, rows [][]string) error {
	return table.Write(a.out(), a.tableWidth(true), cols, rows)
}

func (a *app) findingsCommand() *cobra.Command {
	var g gateFlags
	cmd := &cobra.Command{
		Use:   "findings <scan-id>",
		Short: "Print a scan's findings as a table, JSON, SARIF, JUnit or Markdown, with a quality gate",
		Long: `findings prints the findings of a scan in one format and applies the quality
gate: exit 1 when a finding at or above --fail-on counts (confident enough per
--min-confidence, and new relative to --baseline), 3 when the scan failed or was
cancelled. The gate counts findings, not issues, and ignores the findings of
issues triaged as false_positive or unexpired accepted_risk (the scan record's
issues carry the target's triage; 'secscan triage' sets it): --include-triaged
counts them too.

The table has one line per issue (one weakness wherever it occurs): severity,
title, how many findings and on which hosts, fitted to the terminal's width (or
COLUMNS, else 100 columns); --by-finding lists every finding instead. JSON is
the array of findings (usable as a --baseline).

SARIF 2.1.0 has one rule per check code with help and remediation, a level and
a security-severity from the severity, and one result per issue with all its
locations (the URL or host:port), the issue key and its locations as a partial
fingerprint, so GitHub tracks alerts across runs. JUnit has one test case per
issue; an issue fails when one of its findings fails the gate (without
--fail-on: any finding above info).

A --baseline saved before fingerprints changed (they were derived from titles
until check codes came) still matches: a finding is known when its fingerprint
or its fingerprint under the old rule is in the baseline.`,
		Example: `  secscan findings scn_01J9Z…
  secscan findings scn_01J9Z… --by-finding
  secscan findings scn_01J9Z… --format sarif -o secscan.sarif
  secscan findings scn_01J9Z… --format junit --fail-on high -o secscan.xml
  secscan findings scn_01J9Z… --format json > baseline.json
  secscan findings scn_NEW… --baseline baseline.json --fail-on medium`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, gate, err := a.gatedClient(g)
			if err != nil {
				return err
			}
			s, err := c.Scan(a.ctx, args[0])
			if err != nil {
				return apiError(err)
			}
			gate = gate.WithTriage(s.Issues, time.Now())
			m := findings.Meta{Scan: s, CLIVersion: a.env.Version}
			if err := a.writeFindings(m, s.Findings, gate, g); err != nil {
				return err
			}
			if s.Status == client.Failed || s.Status == client.Cancelled {
				return withCode(ExitFailed, fmt.Errorf("scan %s %s", s.ID, s.Status))
			}
			if gate.FailOn == "" {
				return nil
			}
			return a.gateVerdict(gate, gate.Failures(s.Findings), gate.TriagedFailures(s.Findings), "")
		},
	}
	g.register(cmd, false)
	return cmd
}

func (a *app) reportCommand() *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "report <scan-id>",
		Short: "Download a completed scan's report (md, html, pdf or csv)",
		Long: `report downloads the report of a completed scan. The free plan has md and html;
pdf and csv need the starter plan. Without -o the file is named as the service
suggests, <domain>-<YYYY-MM-DD>-<scan id>.<format> (the scan's creation date,
UTC), in the current directory; -o - writes to stdout.`,
		Example: `  secscan report scn_01J9Z… --format pdf
  secscan report scn_01J9Z… --format html -o report.html
  secscan report scn_01J9Z… --format md -o - | less`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			format, err := reportFormat(format)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			if output == "-" {
				// The document itself, byte for byte (a PDF is binary).
				_, err := c.Report(a.ctx, args[0], format, a.rawStdout)
				return apiError(err)
			}
			file, n, err := a.saveReport(c, args[0], format, output)
			if err != nil {
				return apiError(err)
			}
			return a.showf(map[string]any{"file": file, "bytes": n, "format": format}, "Saved %s (%d bytes).\n", file, n)
		},
	}
	cmd.Flags().StringVar(&format, "format", "pdf", "md, html, pdf or csv")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default <domain>-<YYYY-MM-DD>-<scan id>.<format>; - for stdout)")
	return cmd
}

// reportFormat checks --format of report ("markdown" is md).
func reportFormat(format string) (string, error) {
	format = strings.ToLower(format)
	if format == "markdown" {
		format = "md"
	}
	if !slices.Contains([]string{"md", "html", "pdf", "csv"}, format) {
		return "", usageError("--format must be md, html, pdf or csv, not %q", format)
	}
	return format, nil
}

// saveReport downloads the report of scanID into output, by default the
// name the service suggests (else <scan id>.<format>): the file and its
// size.
func (a *app) saveReport(c *client.Client, scanID, format, output string) (string, int64, error) {
	name, body, err := c.OpenReport(a.ctx, scanID, format)
	if err != nil {
		return "", 0, err
	}
	defer body.Close()
	if output == "" {
		output = name
	}
	if output == "" { // a service that suggests no name
		output = filepath.Base(scanID) + "." + format
	}
	var n int64
	err = writeFile(output, reportMode, func(w io.Writer) error {
		var err error
		n, err = io.Copy(w, body)
		return err
	})
	if err != nil {
		return "", 0, fmt.Errorf("downloading the %s report: %w", format, err)
	}
	return output, n, nil
}

// reportMode is the mode of the reports and findings files written.
const reportMode = 0o644

// writeFile writes into a temporary file next to path, with mode, and
// renames it only when complete, so a failed run never leaves half a
// report for the next CI step to upload, nor half a configuration.
func writeFile(path string, mode os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secscan-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (a *app) scansCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scans",
		Short: "List, show and cancel scans",
		Example: `  secscan scans list --status running
  secscan scans show scn_01J9Z…
  secscan scans cancel scn_01J9Z…`,
	}
	var status, target string
	var limit int
	list := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your scans, newest first",
		Example: `  secscan scans list
  secscan scans list --status completed --target example.com --limit 5
  secscan scans list --json | jq -r '.[0].id'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ss, err := call(a, func(c *client.Client) ([]client.Scan, error) { return c.Scans(a.ctx, status, target, limit) })
			if err != nil {
				return err
			}
			return showList(a, ss, "No scans.", scansTable)
		},
	}
	list.Flags().StringVar(&status, "status", "", "only scans with this status (queued, running, completed, failed, cancelled)")
	list.Flags().StringVar(&target, "target", "", "only scans of this domain")
	list.Flags().IntVar(&limit, "limit", 20, "at most this many scans (0: all)")

	show := &cobra.Command{
		Use:   "show <scan-id>",
		Short: "Show a scan: status, summary, agent steps and findings",
		Example: `  secscan scans show scn_01J9Z…
  secscan scans show scn_01J9Z… --json > scan.json   # also usable as --baseline`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			raw, s, err := c.ScanRaw(a.ctx, args[0])
			if err != nil {
				return apiError(err)
			}
			if a.jsonOut {
				_, err := a.out().Write(append(bytes.TrimSpace(raw), '\n'))
				return err
			}
			return a.showScan(s)
		},
	}
	cancel := &cobra.Command{
		Use:     "cancel <scan-id>",
		Short:   "Cancel a queued or running scan",
		Long:    "cancel sets the scan's cancellation flag; the agent stops before its next step.",
		Example: `  secscan scans cancel scn_01J9Z…`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := call(a, func(c *client.Client) (client.Scan, error) { return c.CancelScan(a.ctx, args[0]) })
			if err != nil {
				return err
			}
			return a.showf(s, "Cancellation requested for %s (now %s).\n", s.ID, s.Status)
		},
	}
	cmd.AddCommand(list, show, cancel)
	return cmd
}

func (a *app) showScan(s client.Scan) error {
	w := a.out()
	fmt.Fprintf(w, "Scan %s: %s %s scan of %s — %s\n", s.ID, s.ScanType, s.Tier, s.Target, s.Status)
	fmt.Fprintf(w, "Credits: %d of %d. Created %s.\n", s.CreditsUsed, s.MaxCredits, s.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"))
	if s.Error != nil && *s.Error != "" {
		fmt.Fprintf(w, "Error: %s\n", findings.CleanLine(*s.Error, 500))
	}
	if cur := s.CurrentStep; cur != nil {
		fmt.Fprintf(w, "Running now: step %d %s, since %s.\n", cur.Seq, findings.CleanLine(cur.Tool, 40), cur.StartedAt.UTC().Format("15:04:05Z"))
	}
	if s.Summary != nil {
		fmt.Fprintf(w, "\nRisk: %s\n%s\n", s.Summary.RiskRating, findings.Clean(s.Summary.Summary))
		for _, chain := range s.Summary.AttackChains {
			fmt.Fprintf(w, "  - %s\n", findings.CleanLine(chain, 500))
		}
	}
	if len(s.Steps) > 0 {
		fmt.Fprintln(w, "\nAgent steps:")
		if err := a.writeTable(stepsTable(s.Steps)); err != nil {
			return err
		}
	}
	groups := findings.Group(s.Issues, s.Findings)
	fmt.Fprintf(w, "\nIssues: %d (%d findings: %s):\n", len(groups), len(s.Findings), findings.SeverityLine(s.Findings))
	return findings.WriteTable(w, s.Issues, s.Findings, findings.Gate{}, findings.Table{Width: a.tableWidth(true)})
}

// scansTable is the scans list: id, target, type, tier, status, issues,
// findings, credits and creation time (the least needed columns go first
// on a narrow terminal).
func scansTable(ss []client.Scan) ([]table.Column, [][]string) {
	cols := []table.Column{{Header: "ID", Keep: true}, {Header: "TARGET", Flex: true, Fit: table.TruncateRunes}, {Header: "TYPE", Drop: 3},
		{Header: "TIER", Drop: 4}, {Header: "STATUS"}, {Header: "ISSUES", Right: true}, {Header: "FINDINGS", Right: true, Drop: 2},
		{Header: "CREDITS", Right: true, Drop: 5}, {Header: "CREATED", Drop: 1}}
	rows := make([][]string, 0, len(ss))
	for _, s := range ss {
		issues := fmt.Sprint(s.IssuesCount)
		if s.IssuesCount == 0 && s.FindingsCount > 0 {
			issues = "-" // a server that predates issues
		}
		rows = append(rows, []string{s.ID, findings.CleanLine(s.Target, 0), s.ScanType, s.Tier, s.Status, issues,
			fmt.Sprint(s.FindingsCount), fmt.Sprintf("%d/%d", s.CreditsUsed, s.MaxCredits), s.CreatedAt.UTC().Format("2006-01-02 15:04")})
	}
	return cols, rows
}

// stepsTable is a scan's agent steps: number, tool, status, credits,
// duration and outcome (cut to the width).
func stepsTable(steps []client.Step) ([]table.Column, [][]string) {
	cols := []table.Column{{Header: "STEP", Right: true}, {Header: "TOOL"}, {Header: "STATUS"}, {Header: "CREDITS", Right: true, Drop: 2},
		{Header: "TIME", Right: true, Drop: 1}, {Header: "OUTCOME", Flex: true}}
	rows := make([][]string, 0, len(steps))
	for _, st := range steps {
		rows = append(rows, []string{fmt.Sprint(st.Seq), findings.CleanLine(st.Tool, 40), st.Status, fmt.Sprint(st.Credits),
			fmt.Sprintf("%d ms", st.DurationMS), findings.CleanLine(st.Outcome, 0)})
	}
	return cols, rows
}

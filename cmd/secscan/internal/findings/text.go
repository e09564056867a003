package findings

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"secscan/cmd/secscan/internal/client"
)

// WriteTable writes one line per finding for a terminal: severity,
// confidence, title and location, with a mark on the findings that fail the
// gate and, with a baseline, on the new ones.
func WriteTable(w io.Writer, fs []client.Finding, g Gate) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "SEVERITY\tCONFIDENCE\tTITLE\tLOCATION"
	if g.Baseline != nil {
		header += "\tBASELINE"
	}
	if g.FailOn != "" {
		header += "\tGATE"
	}
	fmt.Fprintln(tw, header)
	for _, f := range fs {
		line := fmt.Sprintf("%s\t%s\t%s\t%s", f.Severity, f.Confidence, CleanLine(f.Title, 80), CleanLine(Location(f), 80))
		if g.Baseline != nil {
			line += "\t" + map[bool]string{true: "new", false: "known"}[g.IsNew(f)]
		}
		if g.FailOn != "" {
			line += "\t" + map[bool]string{true: "FAIL", false: "-"}[g.Fails(f)]
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// CountBySeverity counts findings per severity, most severe first.
func CountBySeverity(fs []client.Finding) []int {
	counts := make([]int, len(Severities))
	for _, f := range fs {
		if r := SeverityRank(f.Severity); r < len(counts) {
			counts[r]++
		}
	}
	return counts
}

// SeverityLine is "2 critical, 5 high, 0 medium, 1 low, 3 info".
func SeverityLine(fs []client.Finding) string {
	counts := CountBySeverity(fs)
	parts := make([]string, len(Severities))
	for i, s := range Severities {
		parts[i] = fmt.Sprintf("%d %s", counts[i], s)
	}
	return strings.Join(parts, ", ")
}

// mdEscaper escapes what Markdown (GitHub and GitLab flavours, tables
// included) would turn into emphasis, code, links, images or table cells,
// and HTML, so target text stays text.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "~", `\~`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;",
)

func escapeMarkdown(s string) string { return mdEscaper.Replace(s) }

// WriteMarkdown writes a findings summary for a pull-request comment or a
// job summary: the counts, the gate's verdict and a table of findings.
func WriteMarkdown(w io.Writer, m Meta, fs []client.Finding, g Gate) error {
	var b strings.Builder
	title := "secscan findings"
	if m.Scan.Target != "" {
		title = fmt.Sprintf("secscan: %s (%s, %s)", escapeMarkdown(m.Scan.Target), m.Scan.ScanType, m.Scan.Tier)
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	if m.Scan.ID != "" {
		fmt.Fprintf(&b, "Scan `%s`: %s, %d of %d credits used.\n\n", m.Scan.ID, m.Scan.Status, m.Scan.CreditsUsed, m.Scan.MaxCredits)
	}
	fmt.Fprintf(&b, "**%d findings:** %s.\n\n", len(fs), SeverityLine(fs))
	if g.FailOn != "" {
		failures := g.Failures(fs)
		verdict := "passed"
		if len(failures) > 0 {
			verdict = fmt.Sprintf("**failed**: %d finding(s)", len(failures))
		}
		what := "findings"
		if g.Baseline != nil {
			what = "new findings"
		}
		if g.MinConfidence != "" {
			what += fmt.Sprintf(" of confidence %s or better", g.MinConfidence)
		}
		fmt.Fprintf(&b, "Quality gate (fail on %s at or above %s): %s.\n\n", what, g.FailOn, verdict)
	}
	if len(fs) > 0 {
		b.WriteString("| Severity | Confidence | Finding | Location |")
		sep := "|---|---|---|---|"
		if g.Baseline != nil {
			b.WriteString(" Baseline |")
			sep += "---|"
		}
		b.WriteString("\n" + sep + "\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |", f.Severity, f.Confidence,
				escapeMarkdown(CleanLine(f.Title, 200)), escapeMarkdown(CleanLine(Location(f), 200)))
			if g.Baseline != nil {
				b.WriteString(" " + map[bool]string{true: "new", false: "known"}[g.IsNew(f)] + " |")
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

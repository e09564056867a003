package findings

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/table"
	"secscan/shared/scans"
)

// DefaultWidth is the table's width when the output is not a terminal and
// COLUMNS is not set.
const DefaultWidth = table.DefaultWidth

// Table says how a table is laid out.
type Table struct {
	// Width is the widest a line may be (DefaultWidth when 0).
	Width int
	// ByFinding lists one line per finding instead of one per issue.
	ByFinding bool
}

// WriteTable writes the scan's issues for a terminal, one line each:
// severity, title, how many findings and where (host:port), with, when a
// baseline or a gate is set, how many of its findings are new and whether
// it fails the gate. No line is wider than t.Width. With t.ByFinding it
// writes one line per finding instead (WriteFindingsTable).
func WriteTable(w io.Writer, issues []client.Issue, fs []client.Finding, g Gate, t Table) error {
	if t.ByFinding {
		return WriteFindingsTable(w, fs, g, t.Width)
	}
	if len(fs) == 0 && len(issues) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	cols := []table.Column{{Header: "SEVERITY"}, {Header: "TITLE", Flex: true, Weight: 3}, {Header: "COUNT", Right: true},
		{Header: "HOSTS", Flex: true, Weight: 2, Fit: table.FitList}}
	if g.Baseline != nil {
		cols = append(cols, table.Column{Header: "BASELINE"})
	}
	if g.FailOn != "" {
		cols = append(cols, table.Column{Header: "GATE"})
	}
	var rows [][]string
	for _, is := range Group(issues, fs) {
		row := []string{string(is.Severity), CleanLine(cveFirst(is), 0), fmt.Sprint(is.count()), strings.Join(is.Hosts(), ", ")}
		if g.Baseline != nil {
			row = append(row, g.baselineMark(is))
		}
		if g.FailOn != "" {
			row = append(row, g.mark(is.Findings...))
		}
		rows = append(rows, row)
	}
	return table.Write(w, widthOr(t.Width), cols, rows)
}

// WriteFindingsTable writes one line per finding: severity, confidence,
// title and location, with a mark on the findings that fail the gate and,
// with a baseline, on the new ones; no line wider than width.
func WriteFindingsTable(w io.Writer, fs []client.Finding, g Gate, width int) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	cols := []table.Column{{Header: "SEVERITY"}, {Header: "CONFIDENCE"}, {Header: "TITLE", Flex: true}, {Header: "LOCATION", Flex: true, Fit: table.TruncateRunes}}
	if g.Baseline != nil {
		cols = append(cols, table.Column{Header: "BASELINE"})
	}
	if g.FailOn != "" {
		cols = append(cols, table.Column{Header: "GATE"})
	}
	var rows [][]string
	for _, f := range fs {
		row := []string{string(f.Severity), string(f.Confidence), CleanLine(f.Title, 0), CleanLine(Location(f), 0)}
		if g.Baseline != nil {
			row = append(row, map[bool]string{true: "new", false: "known"}[g.IsNew(f)])
		}
		if g.FailOn != "" {
			row = append(row, g.mark(f))
		}
		rows = append(rows, row)
	}
	return table.Write(w, widthOr(width), cols, rows)
}

// mark is the GATE cell of an issue's findings (or one finding): FAIL,
// "triaged" when only the issue's triage keeps them from failing, else "-".
func (g Gate) mark(fs ...client.Finding) string {
	switch {
	case slices.ContainsFunc(fs, g.Fails):
		return "FAIL"
	case len(g.TriagedFailures(fs)) > 0:
		return "triaged"
	}
	return "-"
}

// cveFirst is an issue's title with its CVE first, so that issues of one
// component stay apart when their titles are cut.
func cveFirst(is IssueGroup) string {
	cve := strings.ToUpper(ptrString(is.CVE))
	if cve == "" || strings.HasPrefix(strings.ToUpper(is.Title), cve) {
		return is.Title
	}
	t := strings.TrimSpace(strings.Replace(is.Title, "("+cve+")", "", 1))
	return cve + " " + t
}

func widthOr(w int) int {
	if w <= 0 {
		return DefaultWidth
	}
	return w
}

// CountBySeverity counts findings per severity, most severe first.
func CountBySeverity(fs []client.Finding) []int {
	counts := make([]int, len(scans.Severities))
	for _, f := range fs {
		if r := f.Severity.Rank(); r < len(counts) {
			counts[r]++
		}
	}
	return counts
}

// SeverityLine is "2 critical, 5 high, 0 medium, 1 low, 3 info".
func SeverityLine(fs []client.Finding) string {
	counts := CountBySeverity(fs)
	parts := make([]string, len(scans.Severities))
	for i, s := range scans.Severities {
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
// job summary: the counts, the gate's verdict (which counts findings) and a
// table of issues with their first three locations.
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
	groups := Group(m.Scan.Issues, fs)
	fmt.Fprintf(&b, "**%d findings in %d issues:** %s.\n\n", len(fs), len(groups), SeverityLine(fs))
	if g.FailOn != "" {
		fmt.Fprintf(&b, "Quality gate (fail on %s at or above %s): %s.\n\n", g.counted(), g.FailOn, g.verdict(fs))
	}
	if len(groups) > 0 {
		writeMarkdownIssues(&b, groups, g)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counted says which findings the gate counts: "findings", or "new
// findings" with a baseline, and the confidence floor if any.
func (g Gate) counted() string {
	what := "findings"
	if g.Baseline != nil {
		what = "new findings"
	}
	if g.MinConfidence != "" {
		what += fmt.Sprintf(" of confidence %s or better", g.MinConfidence)
	}
	return what
}

// verdict is the gate's verdict on fs: passed, or failed with the count,
// and how many findings their triage kept out.
func (g Gate) verdict(fs []client.Finding) string {
	verdict := "passed"
	if failures := g.Failures(fs); len(failures) > 0 {
		verdict = fmt.Sprintf("**failed**: %d finding(s)", len(failures))
	}
	if n := len(g.TriagedFailures(fs)); n > 0 {
		verdict += fmt.Sprintf(" (%d triaged finding(s) not counted: false positives and accepted risks)", n)
	}
	return verdict
}

// baselineMark says how much of an issue the baseline knows: "known",
// "new", or "N new".
func (g Gate) baselineMark(is IssueGroup) string {
	switch n := g.NewCount(is); n {
	case 0:
		return "known"
	case len(is.Findings):
		return "new"
	default:
		return fmt.Sprintf("%d new", n)
	}
}

// writeMarkdownIssues writes the Markdown table of issues: severity, title,
// count, the first three locations and, with a baseline, its mark.
func writeMarkdownIssues(b *strings.Builder, groups []IssueGroup, g Gate) {
	b.WriteString("| Severity | Issue | Count | Locations |")
	sep := "|---|---|---:|---|"
	if g.Baseline != nil {
		b.WriteString(" Baseline |")
		sep += "---|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, is := range groups {
		hosts := is.Hosts()
		where := strings.Join(hosts[:min(len(hosts), 3)], ", ")
		if len(hosts) > 3 {
			where += fmt.Sprintf(" and %d more", len(hosts)-3)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s |", is.Severity, escapeMarkdown(CleanLine(is.Title, 200)), is.count(),
			escapeMarkdown(CleanLine(where, 300)))
		if g.Baseline != nil {
			b.WriteString(" " + g.baselineMark(is) + " |")
		}
		b.WriteString("\n")
	}
}

package pdf

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/consts/align"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// scope is the scope and authorisation statement.
func (d *pdfDoc) scope(s report.Scope) {
	d.h2("Scope and authorisation")
	d.paragraph(s.Ownership, pdfPara{f: fBody, color: pdfColorText})
	d.space(2)
	facts := [][2]string{
		{"Target", pdfOneLine(s.Target)},
		{"Scan window", s.Window},
		{"Tier and budget", s.Tier + ", " + s.Budget},
		{"Hosts tested (" + strconv.Itoa(len(s.Tested)) + ")", pdfList(s.Tested)},
		{"Discovered, not tested (" + strconv.Itoa(len(s.NotTested)) + ")", pdfList(s.NotTested)},
	}
	d.facts(facts, fTable)
}

// facts adds a two-column table of labels and values, the values in face f.
func (d *pdfDoc) facts(facts [][2]string, f pdfFace) {
	for _, fact := range facts {
		rw, _ := d.tableRow([]pdfCell{
			{size: 26, text: fact[0], f: fSmallBold, color: pdfColorMuted},
			{size: 74, text: fact[1], f: f},
		}, true)
		d.m.AddRows(rw)
	}
}

// appendix opens an appendix with its title and introduction; when it has
// nothing to list (n is 0) it says empty and reports false.
func (d *pdfDoc) appendix(title, intro string, n int, empty string) bool {
	d.space(pdfSectionGap)
	d.h1(title)
	d.muted(intro)
	d.space(2)
	if n == 0 {
		d.muted(empty)
		return false
	}
	return true
}

// plan is the remediation plan: the distinct actions, most urgent first.
func (d *pdfDoc) plan(r report.Report) {
	d.h2("Remediation plan")
	if len(r.Plan) == 0 {
		d.muted("Nothing to remediate: no finding suggests a change.")
		return
	}
	// The PDF lists the actions above low; each low or info issue's own
	// section says how to fix it (report.md and report.html list them all).
	urgent := slices.DeleteFunc(slices.Clone(r.Plan), func(a report.Action) bool { return minor(a.Severity) })
	intro := "The distinct actions, most urgent first, with the findings each resolves (issue numbers as in the issues table; the issues list their locations)."
	if rest := len(r.Plan) - len(urgent); rest > 0 {
		intro += " " + pdfCapitalize(pdfPlural(rest, "lower-priority action")) + " (low and info) are not listed here: the remediation of each low or info issue below says what to do."
	}
	d.paragraph(intro, pdfPara{f: fSmall, color: pdfColorMuted})
	d.space(1.5)
	rows := make([][]pdfCell, len(urgent))
	for i, a := range urgent {
		rows[i] = []pdfCell{
			{size: 4, text: strconv.Itoa(i + 1), f: fTableSmall, color: pdfColorMuted},
			{size: 9, text: pdfCapitalize(string(a.Severity)), f: fTableSmallBold, color: pdfOnSeverity(a.Severity), bg: pdfSeverityColor(a.Severity), lines: 1},
			{size: 68, text: pdfOneLine(report.PlainText(a.Text)), f: fTableSmallBold},
			{size: 19, text: pdfPlural(len(a.Findings), "finding") + ": " + a.Numbers(), f: fTableSmall},
		}
	}
	d.compact(func() {
		d.table([]pdfCell{{size: 4, text: "#"}, {size: 9, text: "Priority"}, {size: 68, text: "Action"}, {size: 19, text: "Resolves"}}, rows)
	})
}

// pdfList joins items with semicolons, "none" when empty.
func pdfList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = pdfOneLine(it)
	}
	return strings.Join(out, "; ")
}

func (d *pdfDoc) coverage(r report.Report) {
	d.space(pdfSectionGap)
	d.h1("Coverage")
	c := r.Coverage

	d.h2("Tools run")
	d.compactTable([]pdfCell{{size: 40, text: "Tool"}, {size: 20, text: "Steps", al: align.Right}, {size: 20, text: "Findings added", al: align.Right}, {size: 20, text: "Credits", al: align.Right}},
		pdfToolRows(c.ToolsRun, r.Steps), "No tools were run.")

	d.h2("Hosts")
	if len(c.Hosts) == 0 {
		d.muted("No hosts were recorded.")
	}
	for _, h := range c.Hosts {
		d.bullet(pdfOneLine(h))
	}

	d.h2("Services discovered")
	d.compactTable([]pdfCell{{size: 30, text: "Host"}, {size: 9, text: "Port", al: align.Right}, {size: 15, text: "Service"}, {size: 46, text: "Banner"}},
		pdfServiceRows(c.Services), "No services were recorded.")

	d.h2("Not tested")
	if len(c.NotTested) == 0 {
		d.muted("Every check of this scan type ran to completion.")
	}
	for _, s := range c.NotTested {
		d.bullet(s)
		d.space(1)
	}
}

// compactTable adds a compact table, or the muted sentence empty when it
// has no rows.
func (d *pdfDoc) compactTable(header []pdfCell, rows [][]pdfCell, empty string) {
	if len(rows) == 0 {
		d.muted(empty)
		return
	}
	d.compact(func() { d.table(header, rows) })
}

// bullet adds s as an item of a bulleted list.
func (d *pdfDoc) bullet(s string) {
	d.paragraph(s, pdfPara{f: fDetail, color: pdfColorText, indent: 3, lead: "\u2022"})
}

// pdfToolRows are the rows of the tools run: each tool's steps, findings
// added and credits, summed over the steps.
func pdfToolRows(toolsRun []string, steps []scans.Step) [][]pdfCell {
	type usage struct{ steps, findings, credits int }
	used := map[string]*usage{}
	for _, st := range steps {
		u := used[st.Tool]
		if u == nil {
			u = &usage{}
			used[st.Tool] = u
		}
		u.steps++
		u.findings += st.FindingsAdded
		u.credits += st.Credits
	}
	rows := make([][]pdfCell, 0, len(toolsRun))
	for _, tool := range toolsRun {
		u := cmp.Or(used[tool], &usage{})
		rows = append(rows, []pdfCell{
			{size: 40, text: tool, f: fTable},
			{size: 20, text: strconv.Itoa(u.steps), f: fTable, al: align.Right},
			{size: 20, text: strconv.Itoa(u.findings), f: fTable, al: align.Right},
			{size: 20, text: strconv.Itoa(u.credits), f: fTable, al: align.Right},
		})
	}
	return rows
}

// pdfServiceRows are the rows of the services discovered.
func pdfServiceRows(services []scans.Service) [][]pdfCell {
	rows := make([][]pdfCell, len(services))
	for i, s := range services {
		rows[i] = []pdfCell{
			{size: 30, text: pdfOneLine(s.Host), f: fTable, lines: 3},
			{size: 9, text: strconv.Itoa(s.Port), f: fTable, al: align.Right},
			{size: 15, text: pdfOneLine(s.Name), f: fTable, lines: 2},
			{size: 46, text: cmp.Or(s.Banner, "-"), f: fMonoSmall, fit: true},
		}
	}
	return rows
}

// pdfStepLines bounds a step's input and outcome cells: the audit trail
// stays a table to scan; the record and report.md hold each in full.
const pdfStepLines = 2

func (d *pdfDoc) steps(r report.Report) {
	if !d.appendix("Appendix: agent steps", "The audit trail of the scan: every tool call the agent made, in order, with what it returned (shortened here; report.md and the scan record hold each in full) and what it cost.",
		len(r.Steps), "No steps were recorded.") {
		return
	}
	// The numeric columns are just wide enough for their bold headings on A4.
	header := []pdfCell{{size: 4, text: "#", al: align.Right}, {size: 15, text: "Tool"}, {size: 28, text: "Input"}, {size: 31, text: "Outcome"},
		{size: 6, text: "New", al: align.Right}, {size: 8, text: "Credits", al: align.Right}, {size: 8, text: "Time", al: align.Right}}
	rows := make([][]pdfCell, len(r.Steps))
	for i, st := range r.Steps {
		input := strings.TrimSpace(string(st.Input))
		if input == "" {
			input = "-"
		}
		rows[i] = []pdfCell{
			{size: 4, text: strconv.Itoa(st.Seq), f: fTable, color: pdfColorMuted, al: align.Right},
			{size: 15, text: pdfOneLine(st.Tool), f: fTableSmallBold, lines: 2},
			{size: 28, text: input, f: fMonoSmall, lines: pdfStepLines, tab: 2},
			{size: 31, text: pdfOneLine(st.Outcome), f: fTable, lines: pdfStepLines},
			{size: 6, text: strconv.Itoa(st.FindingsAdded), f: fTable, al: align.Right},
			{size: 8, text: strconv.Itoa(st.Credits), f: fTable, al: align.Right},
			{size: 8, text: pdfDuration(st.DurationMS), f: fTable, al: align.Right},
		}
	}
	d.compact(func() { d.table(header, rows) })
}

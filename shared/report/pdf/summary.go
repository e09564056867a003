package pdf

import (
	"strconv"
	"strings"
	"time"

	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// riskBox shows the risk rating as a coloured box with the rating in it.
func (d *pdfDoc) riskBox(r report.Report) {
	rating := r.Summary.RiskRating
	if rating == "" {
		rating = scans.RiskNone
	}
	bg, fg := pdfColorNoRisk, pdfColorWhite
	if rating != scans.RiskNone {
		sev := scans.Severity(rating)
		bg, fg = pdfSeverityColor(sev), pdfOnSeverity(sev)
	}
	const h = 17.0
	box := col.New(24).WithStyle(&props.Cell{BackgroundColor: bg}).Add(
		text.New(pdfFitLine(pdfText(strings.ToUpper(string(rating))), fRisk, d.colWidth(24)-2),
			pdfTextProps(fRisk, fg, pdfMiddle(fRisk, h), 0, align.Center)))
	desc := col.New(73).Add(
		text.New(pdfFitLine(pdfText("Overall risk rating: "+pdfCapitalize(string(rating))), fH2, d.colWidth(73)),
			pdfTextProps(fH2, pdfColorNavy, 2.6, 0, align.Left)),
		text.New(pdfFitLine(pdfText(pdfCountLine(r)), fBody, d.colWidth(73)),
			pdfTextProps(fBody, pdfColorMuted, 9.6, 0, align.Left)))
	d.m.AddRow(snap(h), box, col.New(3), desc)
}

// pdfCountLine says how many issues of each severity there are, and how
// many findings they hold.
func pdfCountLine(r report.Report) string {
	var parts []string
	for _, c := range r.IssueCounts {
		if c.Count > 0 {
			parts = append(parts, strconv.Itoa(c.Count)+" "+string(c.Severity))
		}
	}
	if len(parts) == 0 {
		return "No findings."
	}
	return pdfPlural(len(r.Issues), "issue") + " (" + pdfPlural(len(r.Findings), "finding") + "): " + strings.Join(parts, ", ") + "."
}

func (d *pdfDoc) cover(r report.Report) {
	d.space(14)
	d.m.AddRow(snap(fTitle.lineHeight()+2), col.New().Add(text.New(pdfText("Security scan report"), pdfTextProps(fTitle, pdfColorNavy, 0, 0, align.Left))))
	d.paragraph(pdfOneLine(r.Scan.Target), pdfPara{f: fSubtitle, color: pdfColorText})
	if r.Watermark != "" {
		d.space(3)
		d.paragraph(r.Watermark, pdfPara{f: fH2, color: pdfColorWatermark})
	}
	d.space(10)
	d.riskBox(r)
	d.space(10)
	duration := "-"
	if !r.Scan.StartedAt.IsZero() && !r.Scan.FinishedAt.IsZero() {
		duration = r.Scan.FinishedAt.Sub(r.Scan.StartedAt).Round(time.Second).String()
	}
	facts := [][2]string{
		{"Target", pdfOneLine(r.Scan.Target)},
		{"Scan type", pdfCapitalize(string(r.Scan.Type))},
		{"Tier", pdfCapitalize(string(r.Scan.Tier))},
		{"Scan ID", r.Scan.ID},
		{"Created", pdfTime(r.Scan.CreatedAt)},
		{"Started", pdfTime(r.Scan.StartedAt)},
		{"Finished", pdfTime(r.Scan.FinishedAt)},
		{"Duration", duration},
		{"Credits used", strconv.Itoa(r.Scan.CreditsUsed) + " of " + strconv.Itoa(r.Scan.MaxCredits)},
		{"Issues", pdfCountLine(r)},
		{"Agent steps", strconv.Itoa(len(r.Steps))},
		{"Generated at", pdfTime(r.GeneratedAt)},
	}
	d.facts(facts, fBody)
	d.space(8)
	d.paragraph("This report was generated from an automated scan of the target above. It sets out the overall risk, "+
		"each issue (one weakness, wherever it was found) with its locations, evidence and remediation, what the scan covered "+
		"and what it did not, and, in the appendices, every finding on one line and every step the scanning agent took. "+
		"Times are in UTC.", pdfPara{f: fSmall, color: pdfColorMuted})
}

func (d *pdfDoc) executiveSummary(r report.Report) {
	d.newPage()
	d.h1("Executive summary")
	d.riskBox(r)
	d.space(5)
	narrative := report.PlainText(r.Summary.Summary)
	if strings.TrimSpace(narrative) == "" {
		narrative = "No summary was recorded for this scan."
	}
	d.paragraph(narrative, pdfPara{f: fBody, color: pdfColorText})

	d.h2("Attack chains")
	if len(r.Summary.AttackChains) == 0 {
		d.muted("No attack chains were identified.")
	}
	for i, chain := range r.Summary.AttackChains {
		d.paragraph(report.PlainText(chain), pdfPara{f: fBody, color: pdfColorText, indent: 4, lead: strconv.Itoa(i+1) + ".", leadFace: fBodyBold})
		d.space(1.5)
	}

	d.scope(r.Scope)
	d.plan(r)

	d.h2("Severity breakdown")
	d.severityChart(r)

	d.h2("Issues by severity")
	if len(r.Issues) == 0 {
		d.muted("No findings were recorded.")
		return
	}
	d.paragraph("Each weakness once, with every place it was found ("+pdfPlural(len(r.Findings), "finding")+" in "+pdfPlural(len(r.Issues), "issue")+").",
		pdfPara{f: fSmall, color: pdfColorMuted})
	d.space(1.5)
	header := []pdfCell{{size: 4, text: "#"}, {size: 9, text: "Severity"}, {size: 11, text: "Confidence"}, {size: 46, text: "Title"}, {size: 8, text: "Count", al: align.Right}, {size: 22, text: "Locations"}}
	rows := make([][]pdfCell, len(r.Issues))
	for i, is := range r.Issues {
		rows[i] = pdfIssueRow(i+1, is)
	}
	d.compact(func() { d.table(header, rows) })
}

// pdfIssueRow is issue n's row of the issues by severity.
func pdfIssueRow(n int, is report.Issue) []pdfCell {
	conf := pdfCell{size: 11, text: pdfCapitalize(string(is.Confidence)), f: fTableSmall, lines: 1}
	if is.Confidence == scans.Tentative {
		// Tentative issues stand apart: muted and marked.
		conf.text, conf.color, conf.f = "? Tentative", pdfColorMuted, fTableSmallBold
	}
	return []pdfCell{
		{size: 4, text: strconv.Itoa(n), f: fTableSmall, color: pdfColorMuted},
		{size: 9, text: pdfCapitalize(string(is.Severity)), f: fTableSmallBold, color: pdfOnSeverity(is.Severity), bg: pdfSeverityColor(is.Severity), lines: 1},
		conf,
		{size: 46, text: pdfOneLine(is.Title), f: fTableSmall, fit: true},
		{size: 8, text: strconv.Itoa(is.Count), f: fTableSmall, al: align.Right},
		{size: 22, text: pdfFirstLocation(is), f: fTableSmall, fit: true},
	}
}

// pdfFirstLocation is an issue's first location and how many more ("-"
// for none).
func pdfFirstLocation(is report.Issue) string {
	switch len(is.Findings) {
	case 0:
		return "-"
	case 1:
		return pdfHostPort(is.Findings[0])
	}
	return pdfHostPort(is.Findings[0]) + " +" + strconv.Itoa(len(is.Findings)-1)
}

// severityChart draws one horizontal bar per severity, its length
// proportional to the count, with the count next to it.
func (d *pdfDoc) severityChart(r report.Report) {
	const (
		labelSize = 13
		barSpan   = 70
		barH      = 6.0
	)
	most := 1
	for _, c := range r.IssueCounts {
		most = max(most, c.Count)
	}
	d.ensure(float64(len(r.IssueCounts))*(barH+1.5) + 8)
	for k, c := range r.IssueCounts {
		n := (c.Count*barSpan + most/2) / most
		if c.Count > 0 && n == 0 {
			n = 1
		}
		cols := []core.Col{col.New(labelSize).Add(text.New(pdfText(pdfCapitalize(string(c.Severity))), pdfTextProps(fBody, pdfColorText, pdfMiddle(fBody, barH), 0, align.Left)))}
		if n > 0 {
			cols = append(cols, col.New(n).WithStyle(&props.Cell{BackgroundColor: pdfSeverityColor(c.Severity)}))
		}
		count := strconv.Itoa(c.Count) + " (" + strconv.Itoa(r.Counts[k].Count) + ")"
		cols = append(cols, col.New(17).Add(text.New(count, pdfTextProps(fBodyBold, pdfColorText, pdfMiddle(fBodyBold, barH), 1.5, align.Left))))
		d.m.AddRow(snap(barH), cols...)
		d.space(1.5)
	}
	d.paragraph(pdfPlural(len(r.Issues), "issue")+" ("+pdfPlural(len(r.Findings), "finding")+", in brackets) in total.", pdfPara{f: fSmall, color: pdfColorMuted})
}

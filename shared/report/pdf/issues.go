package pdf

import (
	"strconv"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"secscan/shared/report"
	"secscan/shared/scans"
)

func (d *pdfDoc) issueDetails(r report.Report) {
	if len(r.Issues) == 0 {
		return
	}
	d.space(pdfSectionGap)
	d.h1("Issues in detail")
	d.paragraph("Each issue once: its locations, the evidence of the first three (of the first, for low and info issues), then what it means and how to fix it. "+
		"A critical or high issue shows the exchange that proved it in two lines; report.html and the API hold each proof in full, with a curl command to repeat it. "+
		"A tentative issue (marked ?) is inferred from an announced version; confirm it before acting on it.", pdfPara{f: fSmall, color: pdfColorMuted})
	d.space(2)
	for i, is := range r.Issues {
		if i > 0 {
			d.space(1.8)
		}
		d.issue(i+1, is)
	}
}

// pdfIssueGap is the space between the parts of an issue's section, in mm.
const pdfIssueGap = 0.35

// pdfEvidenceLines bounds one location's evidence in the sections of
// critical and high issues (one line less for medium, one line for low and
// info); findings.csv and the API hold it in full.
const pdfEvidenceLines = 3

// pdfProof is the proof the PDF shows under the i-th shown location of is:
// for a critical or high issue, its first location's, as two lines (what
// was sent, what came back); report.html, report.md and the API hold the
// whole exchange and the curl command.
func pdfProof(is report.Issue, i int, p *scans.Proof) string {
	if p == nil || i > 0 || (is.Severity != scans.Critical && is.Severity != scans.High) {
		return ""
	}
	first := func(s string) string {
		line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
		return strings.TrimSpace(line)
	}
	return "Proof: sent " + first(p.Request) + "\nanswered " + first(p.Response)
}

// minor is true for low and info: the PDF gives their issues less room.
func minor(s scans.Severity) bool { return s == scans.Low || s == scans.Info }

// IssueEvidence is the PDF's choice of the locations of is that show their
// evidence, and how many more it lists without: the first three
// (report.EvidenceOf), or only the first for a low or info issue, whose
// locations usually repeat one header or record.
func IssueEvidence(is report.Issue) ([]report.Evidence, int) {
	shown, more := report.EvidenceOf(is)
	if minor(is.Severity) && len(shown) > 1 {
		more += len(shown) - 1
		shown = shown[:1]
	}
	return shown, more
}

// issue is one issue's section: title, classification, its locations one
// line each with the evidence of the first three (evidence that repeats an
// earlier one but for the host name is said to be the same), the others
// after "and N more" two to a line, description, remediation and
// references.
func (d *pdfDoc) issue(n int, is report.Issue) {
	d.ensure(2*fH3.lineHeight() + 20)
	d.paragraph(strconv.Itoa(n)+". "+pdfOneLine(is.Title), pdfPara{f: fH3, color: pdfColorNavy, indent: 1, bar: pdfSeverityColor(is.Severity)})
	d.space(0.5)

	label := pdfLabelled
	d.paragraph(pdfOneLine(strings.Join(pdfClassification(is), "  ·  ")), label("Classification", fSmall, pdfColorMuted))
	d.space(pdfIssueGap)
	shown, more := IssueEvidence(is)
	for i, e := range shown {
		p := label("", fSmallBold, pdfColorText)
		if i == 0 {
			p.lead = "Locations (" + strconv.Itoa(len(is.Findings)) + ")"
		}
		d.ensure(3 * fSmall.lineHeight())
		if e.SameAs != "" {
			p.f, p.color = fSmall, pdfColorMuted
			d.paragraph(pdfHostPort(e.Finding)+"   "+pdfOneLine(e.Finding.ID)+"   - "+report.SameEvidence(e.SameAs), p)
		} else {
			d.paragraph(pdfHostPort(e.Finding)+"   "+pdfOneLine(e.Finding.ID), p)
			d.evidence(is, i, e.Finding)
		}
		d.space(pdfIssueGap)
	}
	if more > 0 {
		rest := make([]string, 0, more)
		for _, f := range is.Findings[len(shown):] {
			rest = append(rest, pdfHostPort(f))
		}
		d.paragraph("and "+pdfPlural(more, "more location")+": "+strings.Join(rest, ", ")+" (their ids are in the appendix, their evidence in findings.csv).",
			label("", fSmall, pdfColorMuted))
	}
	d.space(pdfIssueGap)
	d.paragraph(pdfOrNone(report.PlainText(is.Description)), label("Description", fDetail, pdfColorText))
	d.space(pdfIssueGap)
	d.paragraph(pdfOrNone(report.PlainText(is.Remediation)), label("Remediation", fDetail, pdfColorText))
	d.space(pdfIssueGap)
	refs := make([]string, len(is.References))
	for i, ref := range is.References {
		refs[i] = pdfOneLine(ref)
	}
	d.paragraph(pdfOrNone(strings.Join(refs, "   ")), label("References", fSmall, pdfColorText))
}

// pdfLabelled is a paragraph of an issue's section: s in the label
// column, the text beside it in face f.
func pdfLabelled(s string, f pdfFace, color *props.Color) pdfPara {
	const labelCols = 13
	return pdfPara{f: f, color: color, indent: labelCols, lead: s, leadFace: fSmallBold}
}

// pdfClassification is an issue's classification: severity, confidence,
// category, CWE, CVE, CVSS and check; a no-break space keeps each "Label:
// value" on one line.
func pdfClassification(is report.Issue) []string {
	meta := []string{pdfCapitalize(string(is.Severity)), pdfCapitalize(string(is.Confidence)), string(is.Category)}
	if is.Confidence == scans.Tentative {
		meta[1] = "? Tentative"
	}
	if is.CWE != nil && *is.CWE != "" {
		meta = append(meta, *is.CWE)
	}
	if is.CVE != nil && *is.CVE != "" {
		meta = append(meta, *is.CVE)
	}
	if is.CVSS != nil {
		meta = append(meta, "CVSS\u00a0"+strconv.FormatFloat(*is.CVSS, 'f', 1, 64))
	}
	if is.Check != "" {
		meta = append(meta, "check\u00a0"+string(is.Check))
	}
	return meta
}

// evidence shows the evidence of the i-th finding f of an issue in a code
// box, fewer lines for lesser severities, then its proof.
func (d *pdfDoc) evidence(is report.Issue, i int, f scans.Finding) {
	evidence := pdfLabelled("", fMonoSmall, pdfColorText)
	evidence.bg, evidence.tab = pdfColorCode, 4
	evidence.maxLines, evidence.cutNote = pdfEvidenceLines, "\u2026 [cut: the full evidence is in findings.csv]"
	switch {
	case minor(is.Severity):
		evidence.maxLines = 1
	case is.Severity == scans.Medium:
		evidence.maxLines = pdfEvidenceLines - 1
	}
	d.paragraph(pdfOrNone(f.Evidence), evidence)
	if proof := pdfProof(is, i, f.Proof); proof != "" {
		d.space(0.3)
		evidence.maxLines, evidence.cutNote = 2, "\u2026"
		d.paragraph(proof, evidence)
	}
}

// findingsAppendix lists every finding on one line, by issue: nothing is
// dropped when an issue shows the evidence of only its first locations.
func (d *pdfDoc) findingsAppendix(r report.Report) {
	if !d.appendix("Appendix: findings", "Every finding on one line, by issue (numbers as in the issues section); findings.csv has each one's evidence.",
		len(r.Findings), "No findings were recorded.") {
		return
	}
	// One line each: the id in full (it is what findings.csv and the API
	// name), the rest shortened with an ellipsis when it does not fit.
	header := []pdfCell{{size: 4, text: "#", al: align.Right}, {size: 10, text: "Severity"}, {size: 33, text: "ID"}, {size: 26, text: "Host:port"}, {size: 27, text: "Title"}}
	rows := make([][]pdfCell, 0, len(r.Findings))
	for n, is := range r.Issues {
		for _, f := range is.Findings {
			rows = append(rows, []pdfCell{
				{size: 4, text: strconv.Itoa(n + 1), f: fTableSmall, color: pdfColorMuted, al: align.Right},
				{size: 10, text: pdfCapitalize(string(f.Severity)), f: fTableSmall, fit: true},
				{size: 33, text: pdfOneLine(f.ID), f: fTableSmall, lines: 2},
				{size: 26, text: pdfHostPort(f), f: fTableSmall, fit: true},
				{size: 27, text: pdfOneLine(f.Title), f: fTableSmall, fit: true},
			})
		}
	}
	d.compact(func() { d.table(header, rows) })
}

// Package pdf renders a report.Report as a PDF document with maroto v2, in
// a package of its own so that only the function serving PDFs links maroto.
// Target-supplied text is encoded for the core fonts and clipped (text.go).
package pdf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/page"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/consts/pagesize"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// Layout, in millimetres. The grid has 100 columns, so a column size reads
// as a percentage of the text width.
const (
	pdfMarginSide   = 16.0
	pdfMarginTop    = 12.0
	pdfMarginBottom = 16.0
	pdfGrid         = 100
	pdfPadX         = 1.6
	pdfPadY         = 1.3
	// pdfPadYBox pads a shaded box of text (evidence) above and below.
	pdfPadYBox = 0.6
	// pdfPadYCompact pads the cells of the long tables.
	pdfPadYCompact = 0.35
	// pdfWrapSlack keeps our line widths safely inside maroto's, so it never
	// wraps a line a second time.
	pdfWrapSlack = 0.5
	// pdfMaxFieldBytes bounds one target-supplied field in the PDF.
	pdfMaxFieldBytes = 16 << 10
)

var (
	pdfColorText      = &props.Color{Red: 33, Green: 37, Blue: 41}
	pdfColorMuted     = &props.Color{Red: 96, Green: 104, Blue: 114}
	pdfColorNavy      = &props.Color{Red: 23, Green: 42, Blue: 88}
	pdfColorRule      = &props.Color{Red: 208, Green: 213, Blue: 220}
	pdfColorZebra     = &props.Color{Red: 246, Green: 247, Blue: 249}
	pdfColorCode      = &props.Color{Red: 240, Green: 242, Blue: 245}
	pdfColorWhite     = &props.Color{Red: 255, Green: 255, Blue: 255}
	pdfColorWatermark = &props.Color{Red: 200, Green: 16, Blue: 46}
	pdfColorNoRisk    = &props.Color{Red: 21, Green: 128, Blue: 61}
)

// pdfSeverityColors: critical dark red, high red-orange, medium amber, low
// blue, info grey.
var pdfSeverityColors = map[scans.Severity]*props.Color{
	scans.Critical: {Red: 139, Green: 0, Blue: 0},
	scans.High:     {Red: 217, Green: 72, Blue: 15},
	scans.Medium:   {Red: 245, Green: 159, Blue: 0},
	scans.Low:      {Red: 37, Green: 99, Blue: 235},
	scans.Info:     {Red: 107, Green: 114, Blue: 128},
}

func pdfSeverityColor(s scans.Severity) *props.Color {
	if c, ok := pdfSeverityColors[s]; ok {
		return c
	}
	return pdfSeverityColors[scans.Info]
}

// pdfOnSeverity is the text colour on a severity background: white, except
// on amber where white would be hard to read.
func pdfOnSeverity(s scans.Severity) *props.Color {
	if s == scans.Medium {
		return pdfColorText
	}
	return pdfColorWhite
}

var (
	fTitle     = pdfFace{pdfSans, fontstyle.Bold, 26}
	fSubtitle  = pdfFace{pdfSans, fontstyle.Normal, 15}
	fH1        = pdfFace{pdfSans, fontstyle.Bold, 16}
	fH2        = pdfFace{pdfSans, fontstyle.Bold, 11.5}
	fH3        = pdfFace{pdfSans, fontstyle.Bold, 10.5}
	fBody      = pdfFace{pdfSans, fontstyle.Normal, 9.5}
	fBodyBold  = pdfFace{pdfSans, fontstyle.Bold, 9.5}
	fSmall     = pdfFace{pdfSans, fontstyle.Normal, 8}
	fSmallBold = pdfFace{pdfSans, fontstyle.Bold, 8}
	fTable     = pdfFace{pdfSans, fontstyle.Normal, 8}
	fTableBold = pdfFace{pdfSans, fontstyle.Bold, 8}
	fMono      = pdfFace{pdfMono, fontstyle.Normal, 7.8}
	fMonoSmall = pdfFace{pdfMono, fontstyle.Normal, 7}
	fDetail    = pdfFace{pdfSans, fontstyle.Normal, 8.2}
	// fTableSmall is the face of the long compact tables.
	fTableSmall     = pdfFace{pdfSans, fontstyle.Normal, 7.2}
	fTableSmallBold = pdfFace{pdfSans, fontstyle.Bold, 7.2}
	fRisk           = pdfFace{pdfSans, fontstyle.Bold, 15}
)

// Render renders r as a PDF document on paper, with a header (report title,
// target, watermark if any) and a "Page N of M" footer on every page.
func Render(r report.Report, paper report.Paper) ([]byte, error) {
	var size pagesize.Type
	switch paper {
	case report.A4:
		size = pagesize.A4
	case report.Letter:
		size = pagesize.Letter
	default:
		return nil, fmt.Errorf("pdf report: unknown paper %q", paper)
	}
	pageW, pageH := pagesize.GetDimensions(size)
	cfg := config.NewBuilder().
		WithPageSize(size).
		WithLeftMargin(pdfMarginSide).WithRightMargin(pdfMarginSide).
		WithTopMargin(pdfMarginTop).WithBottomMargin(pdfMarginBottom).
		WithMaxGridSize(pdfGrid).
		WithDefaultFont(&props.Font{Family: pdfSans, Style: fontstyle.Normal, Size: fBody.size, Color: pdfColorText}).
		WithPageNumber(props.PageNumber{Pattern: "Page {current} of {total}", Place: props.RightBottom,
			Family: pdfSans, Style: fontstyle.Normal, Size: fSmall.size, Color: pdfColorMuted}).
		WithCompression(true).
		WithTitle("Security scan report: "+pdfMetadataText(r.Scan.Target), true).
		WithSubject("Scan "+pdfMetadataText(r.Scan.ID), true).
		WithCreator("secscan", false).
		WithCreationDate(r.GeneratedAt).
		Build()
	d := &pdfDoc{m: maroto.New(cfg), width: pageW - 2*pdfMarginSide, height: pageH - pdfMarginTop - pdfMarginBottom, padY: pdfPadY}
	if err := d.frame(r); err != nil {
		return nil, fmt.Errorf("pdf report: %w", err)
	}
	d.cover(r)
	d.executiveSummary(r)
	d.issueDetails(r)
	d.coverage(r)
	d.findingsAppendix(r)
	d.steps(r)
	doc, err := d.m.Generate()
	if err != nil {
		return nil, fmt.Errorf("pdf report: generate: %w", err)
	}
	return doc.GetBytes(), nil
}

// pdfDoc lays a report out on maroto rows. Text is wrapped here (see
// pdfWrap), one fixed-height row per line for running text, so a long text
// breaks across pages between any two lines and no row is ever taller than
// a page (maroto moves a too-tall row to a new page whole and it is cut).
type pdfDoc struct {
	m       core.Maroto
	width   float64 // text width
	height  float64 // text height, header and footer included
	headerH float64
	footerH float64
	// padY is the padding above and below a table cell's text: pdfPadY,
	// less in the long compact tables (issues, plan, appendices).
	padY float64
}

// compact lays out the tables f adds with less padding.
func (d *pdfDoc) compact(f func()) {
	d.padY = pdfPadYCompact
	defer func() { d.padY = pdfPadY }()
	f()
}

func (d *pdfDoc) colWidth(size int) float64 { return d.width * float64(size) / pdfGrid }

// fits reports whether h more millimetres fit on the current page.
// maroto's FitlnCurrentPage counts the header twice (it is already among
// the page's rows), hence the correction.
func (d *pdfDoc) fits(h float64) bool { return d.m.FitlnCurrentPage(h - d.headerH) }

// ensure starts a new page unless h more millimetres fit on this one: a
// heading stays with the start of what it introduces.
func (d *pdfDoc) ensure(h float64) {
	if !d.fits(h) {
		d.newPage()
	}
}

// newPage starts a new page unless the current one is still empty.
func (d *pdfDoc) newPage() { d.m.AddPages(page.New()) }

func (d *pdfDoc) space(h float64) { d.m.AddRow(h, col.New()) }

// pdfTextProps places one line of text in face f.
func pdfTextProps(f pdfFace, color *props.Color, top, pad float64, al align.Type) props.Text {
	return props.Text{Family: f.family, Style: f.style, Size: f.size, Color: color, Top: top, Left: pad, Right: pad, Align: al}
}

// pdfMiddle is the top offset that centres one line of f in a box h high.
func pdfMiddle(f pdfFace, h float64) float64 { return max(0, h/2-0.64*f.height()) }

// frame registers the header and footer of every page.
func (d *pdfDoc) frame(r report.Report) error {
	const headerRowH = 6.5
	// The confidentiality marking heads every page; the right side names
	// the report, or carries the free plan's watermark.
	left := col.New(66).Add(text.New(
		pdfFitLine(pdfText(pdfOneLine(r.Confidential)), fSmallBold, d.colWidth(66)-pdfWrapSlack),
		pdfTextProps(fSmallBold, pdfColorNavy, 1.2, 0, align.Left)))
	right := col.New(34)
	if r.Watermark != "" {
		right.Add(text.New(pdfFitLine(pdfText(r.Watermark), fSmallBold, d.colWidth(34)-pdfWrapSlack),
			pdfTextProps(fSmallBold, pdfColorWatermark, 1.2, 0, align.Right)))
	} else {
		right.Add(text.New(pdfFitLine(pdfText("Security scan report"), fSmall, d.colWidth(34)-pdfWrapSlack),
			pdfTextProps(fSmall, pdfColorMuted, 1.2, 0, align.Right)))
	}
	header := row.New(headerRowH).Add(left, right).
		WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: pdfColorRule, BorderThickness: 0.3})
	gap := row.New(5).Add(col.New())
	d.headerH = headerRowH + 5
	if err := d.m.RegisterHeader(header, gap); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	// The footer row is a rule; its text sits below it, in the bottom
	// margin, on the same baseline as maroto's page number.
	const footerRowH = 4
	info := "Scan " + pdfOneLine(r.Scan.ID) + " · generated " + pdfTime(r.GeneratedAt)
	footer := row.New(footerRowH).Add(col.New().Add(text.New(
		pdfFitLine(pdfText(info), fSmall, d.colWidth(70)), pdfTextProps(fSmall, pdfColorMuted, footerRowH, 0, align.Left)))).
		WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: pdfColorRule, BorderThickness: 0.3})
	d.footerH = footerRowH
	if err := d.m.RegisterFooter(footer); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// pdfPara describes running text: one row per line.
type pdfPara struct {
	f     pdfFace
	color *props.Color
	// indent leaves grid columns free on the left; lead (a bullet, a
	// number or a label in leadFace) is drawn there on the first line.
	indent   int
	lead     string
	leadFace pdfFace
	bg       *props.Color // a shaded box behind the text (evidence)
	bar      *props.Color // fills the indent: a coloured bar left of the text
	tab      int          // spaces per tab
	// maxLines cuts the text after this many lines (0: no limit), ending
	// the last with cutNote.
	maxLines int
	cutNote  string
}

// paragraph adds s (raw text: it is encoded here) as running text.
func (d *pdfDoc) paragraph(s string, p pdfPara) {
	size := pdfGrid - p.indent
	pad, left := 0.0, 0.0
	if p.bg != nil {
		pad, left = pdfPadX, pdfPadX
	}
	if p.bar != nil {
		left = 2
	}
	if p.tab == 0 {
		p.tab = 1
	}
	if p.leadFace.family == "" {
		p.leadFace = p.f
	}
	width := d.colWidth(size) - left - pad - pdfWrapSlack
	lines := pdfWrapText(pdfText(pdfClip(s, pdfMaxFieldBytes)), p.f, width, p.tab)
	if p.maxLines > 0 && len(lines) > p.maxLines {
		note := pdfText(p.cutNote)
		lines = lines[:p.maxLines]
		last := pdfFitLine(lines[p.maxLines-1]+"\x85", p.f, width-p.f.width(note))
		lines[p.maxLines-1] = strings.TrimSuffix(last, "\x85") + note
	}
	lh := p.f.lineHeight()
	leadDone := false
	// addRow adds one line, or with edge the padding above or below a box.
	addRow := func(h float64, line string, edge bool) {
		var cols []core.Col
		if p.indent > 0 {
			c := col.New(p.indent)
			if p.bar != nil {
				c.WithStyle(&props.Cell{BackgroundColor: p.bar})
			}
			if !leadDone && p.lead != "" && !edge {
				c.Add(text.New(pdfFitLine(pdfText(p.lead), p.leadFace, d.colWidth(p.indent)-1.5),
					pdfTextProps(p.leadFace, pdfColorMuted, max(0, lh-p.leadFace.lineHeight()), 0, align.Left)))
				leadDone = true
			}
			cols = append(cols, c)
		}
		c := col.New(size)
		if line != "" {
			tp := pdfTextProps(p.f, p.color, 0, pad, align.Left)
			tp.Left = left
			c.Add(text.New(line, tp))
		}
		if p.bg != nil {
			c.WithStyle(&props.Cell{BackgroundColor: p.bg})
		}
		d.m.AddRow(h, append(cols, c)...)
	}
	if p.bg != nil {
		d.ensure(2*pdfPadYBox + lh)
		addRow(pdfPadYBox, "", true)
	}
	for _, line := range lines {
		addRow(lh, line, false)
	}
	if p.bg != nil {
		addRow(pdfPadYBox, "", true)
	}
}

// heading adds a section title that stays with at least keep mm of what follows.
func (d *pdfDoc) heading(s string, f pdfFace, keep float64, rule bool) {
	lines := pdfWrapText(pdfText(pdfOneLine(s)), f, d.width-pdfWrapSlack, 1)
	lh := f.lineHeight()
	h := float64(len(lines))*lh + 2
	d.ensure(h + keep)
	c := col.New()
	for i, line := range lines {
		c.Add(text.New(line, pdfTextProps(f, pdfColorNavy, float64(i)*lh, 0, align.Left)))
	}
	rw := row.New(h).Add(c)
	if rule {
		rw.WithStyle(&props.Cell{BorderType: border.Bottom, BorderColor: pdfColorNavy, BorderThickness: 0.5})
	}
	d.m.AddRows(rw)
	d.space(3)
}

func (d *pdfDoc) h1(s string) { d.heading(s, fH1, 40, true) }
func (d *pdfDoc) h2(s string) { d.space(3); d.heading(s, fH2, 20, false) }

// pdfCell is one cell of a table row.
type pdfCell struct {
	size  int
	text  string // raw text, encoded by tableRow
	f     pdfFace
	color *props.Color
	bg    *props.Color
	al    align.Type
	lines int // at most this many lines (0: what fits on a page)
	tab   int
	fit   bool // one line, shortened with an ellipsis when too long
}

// tableRow builds a row whose cells wrap their text; the row is as tall as
// its tallest cell and never taller than a page.
func (d *pdfDoc) tableRow(cells []pdfCell, rule bool) (core.Row, float64) {
	// The first lines of all cells share a baseline, whatever their sizes.
	first := 0.0
	for _, c := range cells {
		if c.text != "" {
			first = max(first, c.f.height())
		}
	}
	wrapped := make([][]string, len(cells))
	h := 0.0
	// Leave room for a table's header row above the tallest possible row.
	room := d.height - d.headerH - d.footerH - 2*d.padY - 12
	for i, c := range cells {
		if c.text == "" {
			continue // a coloured bar or an empty cell
		}
		width := d.colWidth(c.size) - 2*pdfPadX - pdfWrapSlack
		var lines []string
		if c.fit {
			lines = []string{pdfFitLine(pdfText(pdfClip(c.text, pdfMaxFieldBytes)), c.f, width)}
		} else {
			lines = pdfWrapText(pdfText(pdfClip(c.text, pdfMaxFieldBytes)), c.f, width, max(c.tab, 1))
		}
		limit := int(room / c.f.lineHeight())
		if c.lines > 0 && c.lines < limit {
			limit = c.lines
		}
		if len(lines) > limit {
			// A cut cell says so, in words, not only with an ellipsis.
			lines = lines[:limit]
			lines[limit-1] = pdfFitLine(lines[limit-1]+"\x85", c.f, width-c.f.width(pdfCutNote))
			lines[limit-1] = strings.TrimSuffix(lines[limit-1], "\x85") + pdfCutNote
		}
		wrapped[i] = lines
		h = max(h, first-c.f.height()+float64(len(lines))*c.f.lineHeight())
	}
	h += 2 * d.padY
	cols := make([]core.Col, len(cells))
	for i, c := range cells {
		color := c.color
		if color == nil {
			color = pdfColorText
		}
		al := c.al
		if al == "" {
			al = align.Left
		}
		cl := col.New(c.size)
		for j, line := range wrapped[i] {
			top := d.padY + first - c.f.height() + float64(j)*c.f.lineHeight()
			cl.Add(text.New(line, pdfTextProps(c.f, color, top, pdfPadX, al)))
		}
		style := &props.Cell{BackgroundColor: c.bg}
		if rule {
			style.BorderType, style.BorderColor, style.BorderThickness = border.Bottom, pdfColorRule, 0.2
		}
		cols[i] = cl.WithStyle(style)
	}
	return row.New(h).Add(cols...), h
}

// table adds a header row and rows, repeating the header on every page
// the table continues on.
func (d *pdfDoc) table(header []pdfCell, rows [][]pdfCell) {
	for i := range header {
		header[i].f, header[i].color, header[i].bg = fTableBold, pdfColorWhite, pdfColorNavy
	}
	for i, cells := range rows {
		if i%2 == 1 {
			for j := range cells {
				if cells[j].bg == nil {
					cells[j].bg = pdfColorZebra
				}
			}
		}
		r, h := d.tableRow(cells, true)
		hr, hh := d.tableRow(header, false)
		if i == 0 {
			// The header never ends a page: it stays with the first rows
			// (three, or all when fewer).
			keep := h
			for _, next := range rows[1:min(len(rows), pdfKeepRows)] {
				_, nh := d.tableRow(next, true)
				keep += nh
			}
			d.ensure(hh + keep)
			d.m.AddRows(hr)
		} else if !d.fits(h) {
			d.newPage()
			d.m.AddRows(hr)
		}
		d.m.AddRows(r)
	}
}

// pdfKeepRows is how many rows a table's header keeps with it on a page.
const pdfKeepRows = 3

// pdfCutNote ends a table cell whose text was cut to fit.
const pdfCutNote = "\x85 [cut]"

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
	d.m.AddRow(h, box, col.New(3), desc)
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
	d.m.AddRow(fTitle.lineHeight()+2, col.New().Add(text.New(pdfText("Security scan report"), pdfTextProps(fTitle, pdfColorNavy, 0, 0, align.Left))))
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
	for _, f := range facts {
		rw, _ := d.tableRow([]pdfCell{
			{size: 26, text: f[0], f: fSmallBold, color: pdfColorMuted},
			{size: 74, text: f[1], f: fBody},
		}, true)
		d.m.AddRows(rw)
	}
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
		d.paragraph("No attack chains were identified.", pdfPara{f: fBody, color: pdfColorMuted})
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
		d.paragraph("No findings were recorded.", pdfPara{f: fBody, color: pdfColorMuted})
		return
	}
	d.paragraph("Each weakness once, with every place it was found ("+pdfPlural(len(r.Findings), "finding")+" in "+pdfPlural(len(r.Issues), "issue")+").",
		pdfPara{f: fSmall, color: pdfColorMuted})
	d.space(1.5)
	header := []pdfCell{{size: 4, text: "#"}, {size: 9, text: "Severity"}, {size: 11, text: "Confidence"}, {size: 46, text: "Title"}, {size: 8, text: "Count", al: align.Right}, {size: 22, text: "Locations"}}
	rows := make([][]pdfCell, len(r.Issues))
	for i, is := range r.Issues {
		conf := pdfCell{size: 11, text: pdfCapitalize(string(is.Confidence)), f: fTableSmall, lines: 1}
		if is.Confidence == scans.Tentative {
			// Tentative issues stand apart: muted and marked.
			conf.text, conf.color, conf.f = "? Tentative", pdfColorMuted, fTableSmallBold
		}
		where := "-"
		if len(is.Findings) > 0 {
			where = pdfHostPort(is.Findings[0])
			if len(is.Findings) > 1 {
				where += " +" + strconv.Itoa(len(is.Findings)-1)
			}
		}
		rows[i] = []pdfCell{
			{size: 4, text: strconv.Itoa(i + 1), f: fTableSmall, color: pdfColorMuted},
			{size: 9, text: pdfCapitalize(string(is.Severity)), f: fTableSmallBold, color: pdfOnSeverity(is.Severity), bg: pdfSeverityColor(is.Severity), lines: 1},
			conf,
			{size: 46, text: pdfOneLine(is.Title), f: fTableSmall, fit: true},
			{size: 8, text: strconv.Itoa(is.Count), f: fTableSmall, al: align.Right},
			{size: 22, text: where, f: fTableSmall, fit: true},
		}
	}
	d.compact(func() { d.table(header, rows) })
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
		d.m.AddRow(barH, cols...)
		d.space(1.5)
	}
	d.paragraph(pdfPlural(len(r.Issues), "issue")+" ("+pdfPlural(len(r.Findings), "finding")+", in brackets) in total.", pdfPara{f: fSmall, color: pdfColorMuted})
}

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

	// A no-break space keeps each "Label: value" on one line.
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
	const labelCols = 13
	label := func(s string, f pdfFace, color *props.Color) pdfPara {
		return pdfPara{f: f, color: color, indent: labelCols, lead: s, leadFace: fSmallBold}
	}
	d.paragraph(pdfOneLine(strings.Join(meta, "  ·  ")), label("Classification", fSmall, pdfColorMuted))
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
			evidence := label("", fMonoSmall, pdfColorText)
			evidence.bg, evidence.tab = pdfColorCode, 4
			evidence.maxLines, evidence.cutNote = pdfEvidenceLines, "\u2026 [cut: the full evidence is in findings.csv]"
			switch {
			case minor(is.Severity):
				evidence.maxLines = 1
			case is.Severity == scans.Medium:
				evidence.maxLines = pdfEvidenceLines - 1
			}
			d.paragraph(pdfOrNone(e.Finding.Evidence), evidence)
			if proof := pdfProof(is, i, e.Finding.Proof); proof != "" {
				d.space(0.3)
				evidence.maxLines, evidence.cutNote = 2, "\u2026"
				d.paragraph(proof, evidence)
			}
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

// findingsAppendix lists every finding on one line, by issue: nothing is
// dropped when an issue shows the evidence of only its first locations.
func (d *pdfDoc) findingsAppendix(r report.Report) {
	d.space(pdfSectionGap)
	d.h1("Appendix: findings")
	d.paragraph("Every finding on one line, by issue (numbers as in the issues section); findings.csv has each one's evidence.",
		pdfPara{f: fBody, color: pdfColorMuted})
	d.space(2)
	if len(r.Findings) == 0 {
		d.paragraph("No findings were recorded.", pdfPara{f: fBody, color: pdfColorMuted})
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
	for _, f := range facts {
		rw, _ := d.tableRow([]pdfCell{
			{size: 26, text: f[0], f: fSmallBold, color: pdfColorMuted},
			{size: 74, text: f[1], f: fTable},
		}, true)
		d.m.AddRows(rw)
	}
}

// plan is the remediation plan: the distinct actions, most urgent first.
func (d *pdfDoc) plan(r report.Report) {
	d.h2("Remediation plan")
	if len(r.Plan) == 0 {
		d.paragraph("Nothing to remediate: no finding suggests a change.", pdfPara{f: fBody, color: pdfColorMuted})
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
	if len(c.ToolsRun) == 0 {
		d.paragraph("No tools were run.", pdfPara{f: fBody, color: pdfColorMuted})
	} else {
		type usage struct{ steps, findings, credits int }
		used := map[string]*usage{}
		for _, st := range r.Steps {
			u := used[st.Tool]
			if u == nil {
				u = &usage{}
				used[st.Tool] = u
			}
			u.steps++
			u.findings += st.FindingsAdded
			u.credits += st.Credits
		}
		rows := make([][]pdfCell, 0, len(c.ToolsRun))
		for _, tool := range c.ToolsRun {
			u := used[tool]
			if u == nil {
				u = &usage{}
			}
			rows = append(rows, []pdfCell{
				{size: 40, text: tool, f: fTable},
				{size: 20, text: strconv.Itoa(u.steps), f: fTable, al: align.Right},
				{size: 20, text: strconv.Itoa(u.findings), f: fTable, al: align.Right},
				{size: 20, text: strconv.Itoa(u.credits), f: fTable, al: align.Right},
			})
		}
		d.compact(func() {
			d.table([]pdfCell{{size: 40, text: "Tool"}, {size: 20, text: "Steps", al: align.Right}, {size: 20, text: "Findings added", al: align.Right}, {size: 20, text: "Credits", al: align.Right}}, rows)
		})
	}

	d.h2("Hosts")
	if len(c.Hosts) == 0 {
		d.paragraph("No hosts were recorded.", pdfPara{f: fBody, color: pdfColorMuted})
	}
	for _, h := range c.Hosts {
		d.paragraph(pdfOneLine(h), pdfPara{f: fDetail, color: pdfColorText, indent: 3, lead: "\u2022"})
	}

	d.h2("Services discovered")
	if len(c.Services) == 0 {
		d.paragraph("No services were recorded.", pdfPara{f: fBody, color: pdfColorMuted})
	} else {
		rows := make([][]pdfCell, len(c.Services))
		for i, s := range c.Services {
			banner := s.Banner
			if banner == "" {
				banner = "-"
			}
			rows[i] = []pdfCell{
				{size: 30, text: pdfOneLine(s.Host), f: fTable, lines: 3},
				{size: 9, text: strconv.Itoa(s.Port), f: fTable, al: align.Right},
				{size: 15, text: pdfOneLine(s.Name), f: fTable, lines: 2},
				{size: 46, text: banner, f: fMonoSmall, fit: true},
			}
		}
		d.compact(func() {
			d.table([]pdfCell{{size: 30, text: "Host"}, {size: 9, text: "Port", al: align.Right}, {size: 15, text: "Service"}, {size: 46, text: "Banner"}}, rows)
		})
	}

	d.h2("Not tested")
	if len(c.NotTested) == 0 {
		d.paragraph("Every check of this scan type ran to completion.", pdfPara{f: fBody, color: pdfColorMuted})
	}
	for _, s := range c.NotTested {
		d.paragraph(s, pdfPara{f: fDetail, color: pdfColorText, indent: 3, lead: "\u2022"})
		d.space(1)
	}
}

// pdfStepLines bounds a step's input and outcome cells: the audit trail
// stays a table to scan; the record and report.md hold each in full.
const pdfStepLines = 2

func (d *pdfDoc) steps(r report.Report) {
	d.space(pdfSectionGap)
	d.h1("Appendix: agent steps")
	d.paragraph("The audit trail of the scan: every tool call the agent made, in order, with what it returned (shortened here; report.md and the scan record hold each in full) and what it cost.", pdfPara{f: fBody, color: pdfColorMuted})
	d.space(2)
	if len(r.Steps) == 0 {
		d.paragraph("No steps were recorded.", pdfPara{f: fBody, color: pdfColorMuted})
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

// pdfFitLine shortens one line of encoded text to width, ending it with "…"
// when it had to cut.
func pdfFitLine(s string, f pdfFace, width float64) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "\t", " ")
	if f.width(s) <= width {
		return s
	}
	s = strings.TrimSuffix(s, "\x85")
	for len(s) > 0 && f.width(s+"\x85") > width {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ") + "\x85"
}

func pdfHostPort(f scans.Finding) string {
	h := pdfOneLine(f.Host)
	if h == "" {
		h = "-"
	}
	if f.Port != nil {
		return h + ":" + strconv.Itoa(*f.Port)
	}
	return h
}

func pdfCVECVSS(f scans.Finding, sep string) string {
	var parts []string
	if f.CVE != nil && *f.CVE != "" {
		parts = append(parts, *f.CVE)
	}
	if f.CVSS != nil {
		parts = append(parts, "CVSS "+strconv.FormatFloat(*f.CVSS, 'f', 1, 64))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, sep)
}

func pdfTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func pdfDuration(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

func pdfCapitalize(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pdfPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func pdfOrNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "None recorded."
	}
	return s
}

// pdfMetadataText is s without control or format characters, for the PDF's
// document information (shown by viewers in their title bar).
func pdfMetadataText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

// pdfSectionGap is the space above a section that starts mid-page, in mm.
const pdfSectionGap = 4.0

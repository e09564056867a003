// Package pdf renders a report.Report as a PDF document with maroto v2, in
// a package of its own so that only the function serving PDFs links maroto.
// Target-supplied text is encoded for the core fonts and clipped (text.go).
package pdf

import (
	"fmt"
	"math"

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

// snap rounds a row's height up to a multiple of 1/64 mm. A page's rows
// are laid out by adding their heights, once by maroto to decide where a
// page ends and once by gofpdf to place them; each row's cells are drawn
// by gofpdf, which starts a page on its own when a cell ends past the
// usable height. The footer row ends exactly there, so when the two sums
// rounded differently the footer was pushed onto a page of its own and
// every later page number was one short (a trailing page with only a
// footer). On a binary grid the sums are exact (the A4 text height is a
// whole number of millimetres; Letter's is not, and maroto's filler row
// is rounded down to the nanometre, which leaves the margin).
func snap(h float64) float64 { return math.Ceil(h*64) / 64 }

func (d *pdfDoc) space(h float64) { d.m.AddRow(snap(h), col.New()) }

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

// pdfSectionGap is the space above a section that starts mid-page, in mm.
const pdfSectionGap = 4.0

package pdf

import (
	"cmp"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

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
	if p.leadFace.family == "" {
		p.leadFace = p.f
	}
	r := d.paraRows(p)
	lines := pdfParaLines(s, p, d.colWidth(r.size)-r.left-r.pad-pdfWrapSlack)
	if p.bg != nil {
		d.ensure(2*pdfPadYBox + r.lh)
		r.add(pdfPadYBox, "", true)
	}
	for _, line := range lines {
		r.add(r.lh, line, false)
	}
	if p.bg != nil {
		r.add(pdfPadYBox, "", true)
	}
}

// pdfParaRows adds the rows of one paragraph.
type pdfParaRows struct {
	d         *pdfDoc
	p         pdfPara
	size      int     // grid columns of the text, right of the indent
	pad, left float64 // the text's padding right and left in its column
	lh        float64 // the line height
	leadDone  bool    // the lead is drawn
}

// paraRows sets out the columns and padding of a paragraph in p.
func (d *pdfDoc) paraRows(p pdfPara) *pdfParaRows {
	r := &pdfParaRows{d: d, p: p, size: pdfGrid - p.indent, lh: p.f.lineHeight()}
	if p.bg != nil {
		r.pad, r.left = pdfPadX, pdfPadX
	}
	if p.bar != nil {
		r.left = 2
	}
	return r
}

// add adds one line, or with edge the padding above or below a box.
func (r *pdfParaRows) add(h float64, line string, edge bool) {
	var cols []core.Col
	if r.p.indent > 0 {
		cols = append(cols, r.indentCol(edge))
	}
	c := col.New(r.size)
	if line != "" {
		tp := pdfTextProps(r.p.f, r.p.color, 0, r.pad, align.Left)
		tp.Left = r.left
		c.Add(text.New(line, tp))
	}
	if r.p.bg != nil {
		c.WithStyle(&props.Cell{BackgroundColor: r.p.bg})
	}
	r.d.m.AddRow(snap(h), append(cols, c)...)
}

// indentCol is the indent's column of a row: the bar, and the lead on the
// first line.
func (r *pdfParaRows) indentCol(edge bool) core.Col {
	p := r.p
	c := col.New(p.indent)
	if p.bar != nil {
		c.WithStyle(&props.Cell{BackgroundColor: p.bar})
	}
	if !r.leadDone && p.lead != "" && !edge {
		c.Add(text.New(pdfFitLine(pdfText(p.lead), p.leadFace, r.d.colWidth(p.indent)-1.5),
			pdfTextProps(p.leadFace, pdfColorMuted, max(0, r.lh-p.leadFace.lineHeight()), 0, align.Left)))
		r.leadDone = true
	}
	return c
}

// muted adds s as running text in muted colour: an introduction, or what a
// section says when it is empty.
func (d *pdfDoc) muted(s string) { d.paragraph(s, pdfPara{f: fBody, color: pdfColorMuted}) }

// pdfParaLines wraps s into lines of width mm in p's face (tabs every
// p.tab, default 1), at most p.maxLines of them, the last then ending
// with p.cutNote.
func pdfParaLines(s string, p pdfPara, width float64) []string {
	if p.tab == 0 {
		p.tab = 1
	}
	lines := pdfWrapText(pdfText(pdfClip(s, pdfMaxFieldBytes)), p.f, width, p.tab)
	return pdfCutLines(lines, p.maxLines, p.f, width, pdfText(p.cutNote))
}

// pdfCutLines keeps at most limit of lines (0: all), and when it cuts,
// ends the last one kept, shortened to fit, with the encoded note.
func pdfCutLines(lines []string, limit int, f pdfFace, width float64, note string) []string {
	if limit <= 0 || len(lines) <= limit {
		return lines
	}
	lines = lines[:limit]
	last := pdfFitLine(lines[limit-1]+"\x85", f, width-f.width(note))
	lines[limit-1] = strings.TrimSuffix(last, "\x85") + note
	return lines
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
	rw := row.New(snap(h)).Add(c)
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
	for i, c := range cells {
		if c.text == "" {
			continue // a coloured bar or an empty cell
		}
		wrapped[i] = d.cellLines(c)
		h = max(h, first-c.f.height()+float64(len(wrapped[i]))*c.f.lineHeight())
	}
	h += 2 * d.padY
	cols := make([]core.Col, len(cells))
	for i, c := range cells {
		cols[i] = d.cellCol(c, wrapped[i], first, rule)
	}
	h = snap(h)
	return row.New(h).Add(cols...), h
}

// cellLines are the lines of a cell's text: one fitted line, or its text
// wrapped and cut, saying so in words, at c.lines or at what fits on a page
// below a table's header row.
func (d *pdfDoc) cellLines(c pdfCell) []string {
	width := d.colWidth(c.size) - 2*pdfPadX - pdfWrapSlack
	s := pdfText(pdfClip(c.text, pdfMaxFieldBytes))
	if c.fit {
		return []string{pdfFitLine(s, c.f, width)}
	}
	room := d.height - d.headerH - d.footerH - 2*d.padY - 12
	limit := int(room / c.f.lineHeight())
	if c.lines > 0 && c.lines < limit {
		limit = c.lines
	}
	return pdfCutLines(pdfWrapText(s, c.f, width, max(c.tab, 1)), limit, c.f, width, pdfCutNote)
}

// cellCol is the column of a cell with its lines, the first on the row's
// shared baseline first.
func (d *pdfDoc) cellCol(c pdfCell, lines []string, first float64, rule bool) core.Col {
	color := cmp.Or(c.color, pdfColorText)
	al := cmp.Or(c.al, align.Left)
	cl := col.New(c.size)
	for j, line := range lines {
		top := d.padY + first - c.f.height() + float64(j)*c.f.lineHeight()
		cl.Add(text.New(line, pdfTextProps(c.f, color, top, pdfPadX, al)))
	}
	style := &props.Cell{BackgroundColor: c.bg}
	if rule {
		style.BorderType, style.BorderColor, style.BorderThickness = border.Bottom, pdfColorRule, 0.2
	}
	return cl.WithStyle(style)
}

// table adds a header row and rows, repeating the header on every page
// the table continues on.
func (d *pdfDoc) table(header []pdfCell, rows [][]pdfCell) {
	for i := range header {
		header[i].f, header[i].color, header[i].bg = fTableBold, pdfColorWhite, pdfColorNavy
	}
	for i, cells := range rows {
		if i%2 == 1 {
			pdfZebra(cells)
		}
		r, h := d.tableRow(cells, true)
		d.headerBefore(i, h, header, rows)
		d.m.AddRows(r)
	}
}

// pdfZebra shades the cells of an odd row that have no colour of their own.
func pdfZebra(cells []pdfCell) {
	for j := range cells {
		if cells[j].bg == nil {
			cells[j].bg = pdfColorZebra
		}
	}
}

// headerBefore adds the table's header before row i (h mm tall) when it
// starts the table, kept with the first rows (three, or all when fewer)
// so it never ends a page, or when the row starts a new page.
func (d *pdfDoc) headerBefore(i int, h float64, header []pdfCell, rows [][]pdfCell) {
	hr, hh := d.tableRow(header, false)
	switch {
	case i == 0:
		keep := h
		for _, next := range rows[1:min(len(rows), pdfKeepRows)] {
			_, nh := d.tableRow(next, true)
			keep += nh
		}
		d.ensure(hh + keep)
		d.m.AddRows(hr)
	case !d.fits(h):
		d.newPage()
		d.m.AddRows(hr)
	}
}

// pdfKeepRows is how many rows a table's header keeps with it on a page.
const pdfKeepRows = 3

// pdfCutNote ends a table cell whose text was cut to fit.
const pdfCutNote = "\x85 [cut]"

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

package pdf

import (
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
	size := pdfGrid - p.indent
	pad, left := 0.0, 0.0
	if p.bg != nil {
		pad, left = pdfPadX, pdfPadX
	}
	if p.bar != nil {
		left = 2
	}
	if p.leadFace.family == "" {
		p.leadFace = p.f
	}
	lines := pdfParaLines(s, p, d.colWidth(size)-left-pad-pdfWrapSlack)
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

// pdfParaLines wraps s into lines of width mm in p's face (tabs every
// p.tab, default 1), at most p.maxLines of them, the last then ending
// with p.cutNote.
func pdfParaLines(s string, p pdfPara, width float64) []string {
	if p.tab == 0 {
		p.tab = 1
	}
	lines := pdfWrapText(pdfText(pdfClip(s, pdfMaxFieldBytes)), p.f, width, p.tab)
	if p.maxLines > 0 && len(lines) > p.maxLines {
		note := pdfText(p.cutNote)
		lines = lines[:p.maxLines]
		last := pdfFitLine(lines[p.maxLines-1]+"\x85", p.f, width-p.f.width(note))
		lines[p.maxLines-1] = strings.TrimSuffix(last, "\x85") + note
	}
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

// Package table lays out the CLI's terminal tables so that no line is wider
// than the terminal: columns keep their natural width while they fit, flex
// columns share what the others leave, the widest give way first, optional
// columns are left out when even that is not enough, and a shortened cell
// ends in "…" at a word boundary, so a terminal never wraps a line.
package table

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultWidth is a table's width when the output is not a terminal and
// COLUMNS is not set.
const DefaultWidth = 100

// MinWidth is the narrowest table laid out; narrower widths get this.
const MinWidth = 20

// Gap is the space between two columns.
const Gap = 2

// minCell is the narrowest a column is squeezed to before columns are
// dropped or the line is cut.
const minCell = 4

// Column is one column of a table.
type Column struct {
	Header string
	// Flex columns share what the fixed ones leave of the width; a fixed
	// column is as wide as its widest cell while the table fits.
	Flex bool
	// Weight is a flex column's share of the width relative to the other
	// flex columns (1 when 0).
	Weight int
	// Right right-aligns the column (counts).
	Right bool
	// Fit shortens a cell to a width (default: TruncateWords).
	Fit func(s string, width int) string
	// Min is the narrowest a flex column is worth showing at (minCell when
	// smaller): a table that cannot give it that much drops columns first
	// (this one too, when it has a Drop).
	Min int
	// Keep is squeezed last (ids a reader copies): the other columns give
	// way first.
	Keep bool
	// Drop > 0 marks a column that may be left out when the table cannot
	// fit otherwise; the highest Drop goes first.
	Drop int
}

// Width is how wide a table may be: the terminal's width (term, when
// stdout is one: > 0), else the COLUMNS environment variable, else
// DefaultWidth.
func Width(term int, columns string) int {
	if term > 0 {
		return term
	}
	if c, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && c > 0 {
		return c
	}
	return DefaultWidth
}

// Write writes a header line and rows (each with one cell per column), no
// line wider than width (at least MinWidth).
func Write(w io.Writer, width int, cols []Column, rows [][]string) error {
	width = max(width, MinWidth)
	cols, rows = dropColumns(width, cols, rows)
	widths := layout(width, cols, rows)
	var b strings.Builder
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = c.Header
	}
	writeLine(&b, width, cols, widths, headers)
	for _, r := range rows {
		writeLine(&b, width, cols, widths, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// naturalWidths is each column's widest cell (header included).
func naturalWidths(cols []Column, rows [][]string) []int {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = RuneLen(c.Header)
		for _, r := range rows {
			widths[i] = max(widths[i], RuneLen(r[i]))
		}
	}
	return widths
}

// narrowest is the least width the columns need: fixed columns whole,
// flex columns at minCell (or less, when narrower), plus the gaps.
func narrowest(cols []Column, natural []int) int {
	n := Gap * max(len(cols)-1, 0)
	for i, c := range cols {
		if c.Flex {
			n += min(natural[i], c.least())
		} else {
			n += natural[i]
		}
	}
	return n
}

// least is the narrowest the column is squeezed to before others.
func (c Column) least() int { return max(c.Min, minCell) }

// dropColumns leaves out optional columns, highest Drop first, while the
// table cannot fit width.
func dropColumns(width int, cols []Column, rows [][]string) ([]Column, [][]string) {
	for range len(cols) {
		if narrowest(cols, naturalWidths(cols, rows)) <= width {
			break
		}
		drop := -1
		for i, c := range cols {
			if c.Drop > 0 && (drop < 0 || c.Drop > cols[drop].Drop) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		cols = append(cols[:drop:drop], cols[drop+1:]...)
		out := make([][]string, len(rows))
		for j, r := range rows {
			out[j] = append(r[:drop:drop], r[drop+1:]...)
		}
		rows = out
	}
	return cols, rows
}

// layout chooses the columns' widths: fixed columns keep their natural
// width, flex columns share the rest by weight (water-filling: one
// narrower than its share keeps its width), and when that is still too
// wide the widest column gives way, one column at a time.
func layout(width int, cols []Column, rows [][]string) []int {
	widths := naturalWidths(cols, rows)
	avail := width - Gap*max(len(cols)-1, 0)
	var flex []int
	for i, c := range cols {
		if c.Flex {
			flex = append(flex, i)
		} else {
			avail -= widths[i]
		}
	}
	shareFlex(cols, widths, flex, avail)
	total := Gap * max(len(cols)-1, 0)
	for _, n := range widths {
		total += n
	}
	for total > width {
		i := widest(cols, widths)
		if i < 0 {
			break
		}
		widths[i]--
		total--
	}
	return widths
}

// widest is the column to narrow next: the widest of those not marked
// Keep and wider than their least width, else the widest wider than 1 (-1: none).
func widest(cols []Column, widths []int) int {
	if i := widestWhere(widths, func(i int) bool { return !cols[i].Keep && widths[i] > cols[i].least() }); i >= 0 {
		return i
	}
	return widestWhere(widths, func(i int) bool { return widths[i] > 1 })
}

// widestWhere is the first of the widest columns that ok accepts (-1: none).
func widestWhere(widths []int, ok func(i int) bool) int {
	best := -1
	for i := range widths {
		if ok(i) && (best < 0 || widths[i] > widths[best]) {
			best = i
		}
	}
	return best
}

// shareFlex gives the flex columns their share of avail.
func shareFlex(cols []Column, widths, flex []int, avail int) {
	weight := func(i int) int { return max(cols[i].Weight, 1) }
	left := flex
	for len(left) > 0 {
		total := 0
		for _, i := range left {
			total += weight(i)
		}
		share := func(i int) int { return max(avail*weight(i)/total, cols[i].least()) }
		var wide []int
		for _, i := range left {
			if widths[i] <= share(i) {
				avail -= widths[i]
			} else {
				wide = append(wide, i)
			}
		}
		if len(wide) == len(left) {
			extra := avail
			for _, i := range wide {
				extra -= share(i)
			}
			for _, i := range wide {
				widths[i] = share(i)
				if extra > 0 {
					widths[i]++
					extra--
				}
			}
			return
		}
		left = wide
	}
}

// writeLine writes one line of cells at the given widths, cut at width as
// a last resort.
func writeLine(b *strings.Builder, width int, cols []Column, widths []int, cells []string) {
	var l strings.Builder
	for i, c := range cols {
		cell := cells[i]
		if RuneLen(cell) > widths[i] {
			fit := c.Fit
			if fit == nil {
				fit = TruncateWords
			}
			cell = fit(cell, widths[i])
		}
		pad := strings.Repeat(" ", max(widths[i]-RuneLen(cell), 0))
		if i > 0 {
			l.WriteString(strings.Repeat(" ", Gap))
		}
		if c.Right {
			l.WriteString(pad + cell)
		} else {
			l.WriteString(cell + pad)
		}
	}
	b.WriteString(TruncateRunes(strings.TrimRight(l.String(), " "), width) + "\n")
}

// RuneLen is the number of runes (terminal columns, for the text the CLI
// prints) of s.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// TruncateWords shortens s to at most width runes ending in "…", cut at the
// last break between words (a space, or after a hyphen); only a text
// without one (a single long host name or URL) is cut inside a word.
func TruncateWords(s string, width int) string {
	r := []rune(s)
	if len(r) <= width || width <= 1 {
		return TruncateRunes(s, width) // fits, or no room for a word
	}
	cut := width - 1
	for i := cut; i > 0; i-- {
		if r[i] == ' ' || r[i-1] == '-' {
			cut = i
			break
		}
	}
	out := strings.TrimRight(string(r[:cut]), " ,;:-/([{")
	if out == "" {
		out = string(r[:width-1])
	}
	return out + "…"
}

// FitList shortens a ", "-separated list to width: as many items as fit,
// then "+N more" for the rest (the first item truncated when even it does
// not fit).
func FitList(s string, width int) string {
	if RuneLen(s) <= width {
		return s
	}
	items := strings.Split(s, ", ")
	for n := len(items) - 1; n >= 1; n-- {
		cand := strings.Join(items[:n], ", ") + fmt.Sprintf(" +%d more", len(items)-n)
		if RuneLen(cand) <= width {
			return cand
		}
	}
	more := ""
	if len(items) > 1 {
		more = fmt.Sprintf(" +%d", len(items)-1)
	}
	if RuneLen(more)+2 > width {
		more = ""
	}
	return TruncateWords(items[0], width-RuneLen(more)) + more
}

// TruncateRunes cuts s to width runes ending in "…" (ids, URLs and
// host:port, which have no words to keep whole).
func TruncateRunes(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width <= 1 {
		return string([]rune("…")[:max(width, 0)])
	}
	return string(r[:width-1]) + "…"
}

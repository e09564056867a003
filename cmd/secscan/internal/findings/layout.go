package findings

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// DefaultWidth is the table's width when the output is not a terminal and
// COLUMNS is not set.
const DefaultWidth = 100

// minWidth is the narrowest table laid out; narrower widths get this.
const minWidth = 50

// column is one column of a terminal table.
type column struct {
	header string
	// flex columns share what the fixed ones leave of the width; a fixed
	// column is as wide as its widest cell.
	flex bool
	// weight is a flex column's share of the width relative to the other
	// flex columns (1 when 0).
	weight int
	// right-aligns the column (counts).
	right bool
	// fit shortens a cell to a width (default: truncateWords).
	fit func(s string, width int) string
}

const gap = 2

// writeColumns writes a table no line of which is wider than width: fixed
// columns keep their natural width, flex columns share the rest (each gets
// at most its natural width, the widest give way first) and their cells are
// truncated with "…" at a word boundary, so a terminal never wraps a line.
func writeColumns(w io.Writer, width int, cols []column, rows [][]string) error {
	width = max(width, minWidth)
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = runeLen(c.header)
		for _, r := range rows {
			widths[i] = max(widths[i], runeLen(r[i]))
		}
	}
	avail := width - gap*(len(cols)-1)
	var flex []int
	for i, c := range cols {
		if c.flex {
			flex = append(flex, i)
		} else {
			avail -= widths[i]
		}
	}
	// Water-filling: a flex column narrower than its share keeps its
	// width; the others split what is left by weight.
	weight := func(i int) int { return max(cols[i].weight, 1) }
	left := flex
	for len(left) > 0 {
		total := 0
		for _, i := range left {
			total += weight(i)
		}
		share := func(i int) int { return max(avail*weight(i)/total, 4) }
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
			break
		}
		left = wide
	}
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for i, c := range cols {
			cell := cells[i]
			if runeLen(cell) > widths[i] {
				fit := c.fit
				if fit == nil {
					fit = truncateWords
				}
				cell = fit(cell, widths[i])
			}
			pad := strings.Repeat(" ", max(widths[i]-runeLen(cell), 0))
			if i > 0 {
				l.WriteString(strings.Repeat(" ", gap))
			}
			if c.right {
				l.WriteString(pad + cell)
			} else {
				l.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = c.header
	}
	line(headers)
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// truncateWords shortens s to at most width runes ending in "…", cut at the
// last break between words (a space, or after a hyphen); only a text
// without one (a single long host name or URL) is cut inside a word.
func truncateWords(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width <= 1 {
		return string([]rune("…")[:max(width, 0)])
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

// fitList shortens a ", "-separated list to width: as many items as fit,
// then "+N more" for the rest (the first item truncated when even it does
// not fit).
func fitList(s string, width int) string {
	if runeLen(s) <= width {
		return s
	}
	items := strings.Split(s, ", ")
	for n := len(items) - 1; n >= 1; n-- {
		cand := strings.Join(items[:n], ", ") + fmt.Sprintf(" +%d more", len(items)-n)
		if runeLen(cand) <= width {
			return cand
		}
	}
	more := ""
	if len(items) > 1 {
		more = fmt.Sprintf(" +%d", len(items)-1)
	}
	if runeLen(more)+2 > width {
		more = ""
	}
	return truncateWords(items[0], width-runeLen(more)) + more
}

// truncateRunes cuts s to width runes ending in "…" (URLs and host:port,
// which have no words to keep whole).
func truncateRunes(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width <= 1 {
		return string([]rune("…")[:max(width, 0)])
	}
	return string(r[:width-1]) + "…"
}

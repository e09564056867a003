package table_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"secscan/cmd/secscan/internal/table"
)

// A table wider than the terminal fits 60 and 120 columns: no line is
// wider, cut cells end in "…" at a word boundary, optional columns go
// before the others are squeezed, and what fits is left whole.
func TestWriteFitsTheWidth(t *testing.T) {
	cols := []table.Column{
		{Header: "ID"}, {Header: "TITLE", Flex: true, Weight: 3}, {Header: "HOSTS", Flex: true, Fit: table.FitList},
		{Header: "COUNT", Right: true}, {Header: "CREATED", Drop: 1},
	}
	rows := [][]string{
		{"sch_01J00000000000000000000001", "Apache HTTP Server 2.4.49: path traversal and remote code execution when mod_cgi is enabled",
			"demo.test:8080, www.demo.test:8443, api.demo.test:8443", "12", "2026-11-26 07:00"},
		{"sch_01J00000000000000000000002", "Short", "demo.test", "1", "2026-11-26 07:01"},
	}
	for _, width := range []int{60, 120} {
		var buf bytes.Buffer
		if err := table.Write(&buf, width, cols, rows); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") {
			t.Fatalf("width %d: header and two rows:\n%s", width, out)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, l)
			}
		}
		if !strings.Contains(out, "…") {
			t.Errorf("width %d: nothing truncated:\n%s", width, out)
		}
		if !strings.Contains(lines[1], "sch_01J00000000000000000000001") || !strings.Contains(lines[2], "Short") {
			t.Errorf("width %d: ids and short cells must stay whole:\n%s", width, out)
		}
		// The title is cut after a whole word of the original.
		title := rows[0][1]
		i := strings.Index(lines[1], "…")
		cut := strings.TrimSpace(lines[1][len("sch_01J00000000000000000000001"):i])
		if !strings.HasPrefix(title, cut) || (title[len(cut)] != ' ' && title[len(cut)] != ':') {
			t.Errorf("width %d: title cut inside a word: %q", width, cut)
		}
		hasCreated := strings.Contains(lines[0], "CREATED")
		if hasCreated != (width == 120) {
			t.Errorf("width %d: the optional column should be dropped only when nothing else fits:\n%s", width, out)
		}
		t.Logf("width %d:\n%s", width, out)
	}
}

// A table of fixed columns that cannot fit is squeezed, widest first, and
// never wider than the terminal.
func TestWriteSqueezesFixedColumns(t *testing.T) {
	cols := []table.Column{{Header: "A"}, {Header: "B"}, {Header: "C", Right: true}}
	rows := [][]string{{strings.Repeat("a", 40), "words in a long fixed column here", "7"}}
	var buf bytes.Buffer
	if err := table.Write(&buf, 40, cols, rows); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 40 {
			t.Errorf("line of %d: %q", n, l)
		}
	}
	if !strings.Contains(buf.String(), "…") || !strings.HasSuffix(strings.TrimSpace(buf.String()), "7") {
		t.Errorf("squeezed table:\n%s", buf.String())
	}
}

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		term    int
		columns string
		want    int
	}{{132, "60", 132}, {0, "60", 60}, {0, " 120 ", 120}, {0, "", table.DefaultWidth}, {0, "wide", table.DefaultWidth}, {0, "-3", table.DefaultWidth}} {
		if got := table.Width(c.term, c.columns); got != c.want {
			t.Errorf("Width(%d, %q) = %d, want %d", c.term, c.columns, got, c.want)
		}
	}
}

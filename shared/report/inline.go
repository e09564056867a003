package report

import "strings"

// Span is a piece of a line of catalogue text: plain text, or a code span
// (text the catalogue wrote between backticks, e.g. a header or a command).
type Span struct {
	Text string
	Code bool
}

// Spans cuts one line of text into plain text and code spans, as CommonMark
// reads backticks: a run of n backticks opens a code span that the next run
// of exactly n backticks closes, the content keeps its characters verbatim
// and loses one space at each end when it has one at both; a run without
// its closing run is literal text. Descriptions and remediations are written
// in this small Markdown subset ("Send `Strict-Transport-Security`"), so
// Markdown shows them as code spans, HTML as <code> and the PDF as plain
// text: no format shows the backticks themselves.
//
// Nothing else is Markdown here: the result is still untrusted text that
// each renderer escapes for its format.
func Spans(line string) []Span {
	var out []Span
	i := 0
	for i < len(line) {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			out = appendPlain(out, line[i:])
			break
		}
		out = appendPlain(out, line[i:i+j])
		start := i + j
		n := backtickRun(line, start)
		closeAt := closingRun(line, start+n, n)
		if closeAt < 0 {
			out = appendPlain(out, line[start:start+n])
			i = start + n
			continue
		}
		if code := codeSpanText(line[start+n : closeAt]); code == "" {
			out = appendPlain(out, line[start:closeAt+n])
		} else {
			out = append(out, Span{Text: code, Code: true})
		}
		i = closeAt + n
	}
	return out
}

// appendPlain adds plain text s to out, joining it to plain text before it.
func appendPlain(out []Span, s string) []Span {
	if s == "" {
		return out
	}
	if n := len(out); n > 0 && !out[n-1].Code {
		out[n-1].Text += s
		return out
	}
	return append(out, Span{Text: s})
}

// closingRun is where the next run of exactly n backticks from line[k]
// starts, -1 when there is none.
func closingRun(line string, k, n int) int {
	for k < len(line) {
		m := strings.IndexByte(line[k:], '`')
		if m < 0 {
			return -1
		}
		k += m
		r := backtickRun(line, k)
		if r == n {
			return k
		}
		k += r
	}
	return -1
}

// codeSpanText is the content of a code span less one space at each end
// when it has one at both and is not all spaces.
func codeSpanText(code string) string {
	if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
		return code[1 : len(code)-1]
	}
	return code
}

// backtickRun is the length of the run of backticks at s[i].
func backtickRun(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// PlainText is text with its code spans written as plain text (no
// backticks), line by line: what the PDF shows of a description or a
// remediation.
func PlainText(text string) string {
	if !strings.Contains(text, "`") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		var b strings.Builder
		for _, s := range Spans(l) {
			b.WriteString(s.Text)
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
)

// csvHeader is the header row of findings.csv (CONTRACT "Reports"), in order.
var csvHeader = []string{"id", "severity", "title", "category", "host", "port", "cve", "cwe", "cvss", "evidence", "remediation", "references", "description", "confidence", "check", "issue"}

// CSV renders the findings of r as RFC 4180 CSV (CRLF line endings), one row
// per finding in report order under a fixed header row; the last two columns
// are the finding's check code and the key of its issue. A cell that a
// spreadsheet would read as a formula (it starts with =, +, -, @, tab or a
// line break, or its first non-space character is =, +, -, @) is prefixed
// with an apostrophe.
func CSV(r Report) []byte {
	var b bytes.Buffer
	b.Grow(256 + mdSizeHint(r))
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	// Writes go to a bytes.Buffer, which cannot fail: the error of Write is
	// checked once, through w.Error, after Flush.
	_ = w.Write(csvHeader)
	row := make([]string, len(csvHeader))
	for _, f := range r.Findings {
		port, cvss := "", ""
		if f.Port != nil {
			port = strconv.Itoa(*f.Port)
		}
		if f.CVSS != nil {
			cvss = strconv.FormatFloat(*f.CVSS, 'f', 1, 64)
		}
		row = append(row[:0], f.ID, string(f.Severity), f.Title, string(f.Category), f.Host, port,
			showDeref(f.CVE), showDeref(f.CWE), cvss, f.Evidence, f.Remediation, strings.Join(f.References, " "),
			f.Description, string(f.DefaultConfidence()), string(f.Check), findingIssueKey(f))
		for i, cell := range row {
			row[i] = csvCell(cell)
		}
		_ = w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		panic("report: CSV to memory: " + err.Error())
	}
	return b.Bytes()
}

// csvCell defuses formulas and normalises line breaks to LF. encoding/csv
// with UseCRLF writes a line break inside a quoted cell as CRLF and drops a
// lone CR, so a reader gets back exactly LF-separated lines.
//
// The guard runs on the normalised text, so a cell that starts with a line
// break is caught whatever its line ending, and it also looks past leading
// white space: spreadsheets skip it before reading =, +, - or @.
func csvCell(s string) string {
	s = textLF(s)
	if s == "" {
		return s
	}
	if strings.ContainsRune("\t\n", rune(s[0])) {
		return "'" + s
	}
	if t := strings.TrimLeft(s, " \t\n"); t != "" && strings.ContainsRune("=+-@", rune(t[0])) {
		return "'" + s
	}
	return s
}

package report

import (
	"bytes"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"secscan/shared/lazyre"
	"secscan/shared/scans"
)

// Markdown renders r as a Markdown document (text/markdown, GitHub flavour).
//
// Every string that came from the target or a tool goes through mdText or
// mdCell, which turn Markdown syntax and raw HTML into literal text; evidence
// goes into a fenced code block whose fence is longer than any backtick run
// in it, and references into code spans, so nothing from a target can make a
// link, an image, an HTML tag, a heading or a table cell of its own.
func Markdown(r Report) []byte {
	var b bytes.Buffer
	b.Grow(mdSizeHint(r))
	w := mdWriter{&b}

	if r.Watermark != "" {
		w.watermark(r.Watermark)
	}
	w.cover(r)
	w.executiveSummary(r)
	w.scope(r.Scope)
	w.plan(r.Plan)

	w.severities(r)
	w.issues(r)
	w.coverage(r)
	w.findingsAppendix(r)
	w.stepsAppendix(r)
	w.line("---")
	w.line()
	w.line("Generated ", showTime(r.GeneratedAt), " for scan ", mdText(r.Scan.ID), ".")
	if r.Watermark != "" {
		w.line()
		w.watermark(r.Watermark)
	}
	return b.Bytes()
}

// cover: the title, the confidentiality line and the scan facts.
func (w mdWriter) cover(r Report) {
	w.line("# Security scan report: ", mdText(textOneLine(r.Scan.Target)))
	w.line()
	w.line("**", mdText(r.Confidential), "**")
	w.line()
	w.line("| Scan | |")
	w.line("| --- | --- |")
	for _, p := range coverFacts(r) {
		v := p.value
		if !p.generated {
			v = mdCell(v)
		}
		w.line("| ", p.label, " | ", v, " |")
	}
	w.line()
}

// executiveSummary: the risk rating, the summary, the totals and the attack chains.
func (w mdWriter) executiveSummary(r Report) {
	w.line("## Executive summary")
	w.line()
	w.line("> **Risk rating: ", showRiskIcon(r.Summary.RiskRating), " ", mdText(strings.ToUpper(showRisk(r.Summary.RiskRating))), "**")
	w.line()
	if s := strings.TrimSpace(r.Summary.Summary); s != "" {
		w.line(mdParagraph(s))
		w.line()
	}
	w.line(showTotals(r.Counts), ".  ")
	w.line(showTotalsOf(r.IssueCounts, "issue"), ".")
	w.line()
	w.line("### Attack chains")
	w.line()
	if len(r.Summary.AttackChains) == 0 {
		w.line("No attack chains were identified: the findings do not combine into a path of attack.")
	}
	for i, c := range r.Summary.AttackChains {
		w.line(strconv.Itoa(i+1), ". ", mdText(textOneLine(c)))
	}
	w.line()
}

// severities: the counts by severity with a bar chart.
func (w mdWriter) severities(r Report) {
	w.line("## Severity breakdown")
	w.line()
	w.line("| Severity | Issues | Findings | Chart (issues) |")
	w.line("| --- | ---: | ---: | --- |")
	top := showMaxCount(r.IssueCounts)
	for i, c := range r.IssueCounts {
		w.line("| ", showSeverityIcon(c.Severity), " ", mdCell(showSeverity(c.Severity)), " | ", strconv.Itoa(c.Count), " | ",
			strconv.Itoa(r.Counts[i].Count), " | ", mdBar(c.Count, top), " |")
	}
	w.line()
}

// issues: the issues table, then each issue in detail.
func (w mdWriter) issues(r Report) {
	w.line("## Issues")
	w.line()
	if len(r.Issues) == 0 {
		w.line("The scan found no issues.")
		w.line()
	} else {
		w.line("Each weakness once, with every place it was found (", mdText(showIssueCount(r)), ").")
		w.line()
		w.line("| # | Severity | Confidence | Title | Count | Locations |")
		w.line("| ---: | --- | --- | --- | ---: | --- |")
		for i, is := range r.Issues {
			w.line("| ", strconv.Itoa(i+1), " | ", showSeverityIcon(is.Severity), " ", mdCell(showSeverity(is.Severity)),
				" | ", mdIssueConfidence(is.Confidence), " | ", mdCell(is.Title), " | ", strconv.Itoa(is.Count), " | ", mdCell(showLocationsShort(is)), " |")
		}
		w.line()
		for i, is := range r.Issues {
			w.issue(i+1, is)
		}
	}
}

// coverage: tools run, hosts, services and what was not tested.
func (w mdWriter) coverage(r Report) {
	w.line("## Coverage")
	w.line()
	w.line("### Tools run")
	w.line()
	w.list(r.Coverage.ToolsRun, "No tool ran.")
	w.line("### Hosts")
	w.line()
	w.list(r.Coverage.Hosts, "No host was observed.")
	w.line("### Services discovered")
	w.line()
	var services [][]string
	for _, s := range r.Coverage.Services {
		services = append(services, []string{mdCell(s.Host), strconv.Itoa(s.Port), mdCell(s.Name), mdCell(s.Banner)})
	}
	w.table("No listening service was discovered.", "| Host | Port | Service | Banner |", "| --- | ---: | --- | --- |", services)
	w.line()
	w.line("### Not tested")
	w.line()
	w.list(r.Coverage.NotTested, "Everything in the scope of this scan type and tier was tested.")
}

// findingsAppendix: every finding on one line, by issue.
func (w mdWriter) findingsAppendix(r Report) {
	w.line("## Appendix: findings")
	w.line()
	w.line("Every finding on one line, by issue (numbers as in the issues section); findings.csv has each one's evidence.")
	w.line()
	if len(r.Findings) == 0 {
		w.line("No finding was recorded.")
	} else {
		w.line("| Issue | Severity | Title | Host:port | ID |")
		w.line("| ---: | --- | --- | --- | --- |")
		for n, is := range r.Issues {
			for _, f := range is.Findings {
				w.line("| ", strconv.Itoa(n+1), " | ", mdCell(showSeverity(f.Severity)), " | ", mdCell(f.Title), " | ",
					mdCell(showHostPort(f.Host, f.Port)), " | ", mdCell(f.ID), " |")
			}
		}
	}
	w.line()
}

// stepsAppendix: the audit trail of the agent's steps.
func (w mdWriter) stepsAppendix(r Report) {
	w.line("## Appendix: agent steps")
	w.line()
	w.line("The audit trail: every step the scan agent took, in order.")
	w.line()
	var rows [][]string
	for _, s := range r.Steps {
		rows = append(rows, []string{strconv.Itoa(s.Seq), mdCell(s.Tool), mdCell(showInput(s.Input)), mdCell(s.Outcome),
			strconv.Itoa(s.FindingsAdded), strconv.Itoa(s.Credits), showDuration(s.DurationMS)})
	}
	w.table("No step was recorded.", "| Seq | Tool | Input | Outcome | Findings added | Credits | Duration |", "| ---: | --- | --- | --- | ---: | ---: | ---: |", rows)
	w.line()
}

type mdWriter struct{ b *bytes.Buffer }

// table writes a table (its header and alignment rows, one row of cells
// each), or the sentence empty when there are no rows.
func (w mdWriter) table(empty, header, align string, rows [][]string) {
	if len(rows) == 0 {
		w.line(empty)
		return
	}
	w.line(header)
	w.line(align)
	for _, cells := range rows {
		w.line("| ", strings.Join(cells, " | "), " |")
	}
}

func (w mdWriter) line(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
	w.b.WriteByte('\n')
}

func (w mdWriter) watermark(text string) {
	w.line("> **", text, "**  ")
	w.line("> This report was produced on the free plan. It is a demonstration, not evidence for an audit or a compliance programme.")
	w.line()
}

// list writes items as a bullet list, or the sentence empty when there are none.
func (w mdWriter) list(items []string, empty string) {
	if len(items) == 0 {
		w.line(empty)
	}
	for _, it := range items {
		w.line("- ", mdText(textOneLine(it)))
	}
	w.line()
}

// scope writes the scope and authorisation statement.
func (w mdWriter) scope(s Scope) {
	w.line("## Scope and authorisation")
	w.line()
	w.line(mdText(s.Ownership))
	w.line()
	w.line("- **Target:** ", mdText(textOneLine(s.Target)))
	w.line("- **Scan window:** ", mdText(s.Window))
	w.line("- **Tier and budget:** ", mdText(s.Tier), ", ", mdText(s.Budget))
	w.line("- **Hosts tested (", strconv.Itoa(len(s.Tested)), "):** ", mdText(showList(s.Tested, "none")))
	w.line("- **Discovered but not tested (", strconv.Itoa(len(s.NotTested)), "):** ", mdText(showList(s.NotTested, "none")))
	w.line()
}

// plan writes the remediation plan: one numbered action per line.
func (w mdWriter) plan(plan []Action) {
	w.line("## Remediation plan")
	w.line()
	if len(plan) == 0 {
		w.line("Nothing to remediate: no finding suggests a change.")
		w.line()
		return
	}
	w.line("The distinct actions, most urgent first; each resolves the findings it names (issue numbers as in the issues section).")
	w.line()
	for i, a := range plan {
		w.line(strconv.Itoa(i+1), ". **", mdSpans(textOneLine(a.Text)), "** (", mdText(showSeverity(a.Severity)), ") — ",
			mdText(a.Resolves()), " (", mdText(a.Numbers()), ")")
	}
	w.line()
}

// mdConfidence shows a finding's confidence; a tentative one in
// bold with a warning sign, so it stands apart from the confirmed ones.
func mdConfidence(f scans.Finding) string {
	c := f.DefaultConfidence()
	if c == scans.Tentative {
		return "⚠ **tentative**"
	}
	return mdCell(showConfidence(c))
}

// mdIssueConfidence shows an issue's confidence, tentative marked as for
// a finding.
func mdIssueConfidence(c scans.Confidence) string {
	if c == "" {
		c = scans.Certain
	}
	return mdConfidence(scans.Finding{Confidence: c})
}

// issue writes one issue: its classification, every location on a line
// of its own, the evidence of the first maxEvidence locations ("and N
// more"), description, remediation and references.
func (w mdWriter) issue(n int, is Issue) {
	w.line("### ", strconv.Itoa(n), ". ", mdText(textOneLine(is.Title)))
	w.line()
	w.line("| Severity | Confidence | Category | Findings | CWE | CVE | CVSS | Check |")
	w.line("| --- | --- | --- | ---: | --- | --- | --- | --- |")
	w.line("| ", showSeverityIcon(is.Severity), " ", mdCell(showSeverity(is.Severity)), " | ", mdIssueConfidence(is.Confidence), " | ",
		mdCell(string(is.Category)), " | ", strconv.Itoa(is.Count), " | ", mdCell(showDeref(is.CWE)), " | ", mdCell(showDeref(is.CVE)), " | ",
		showCVSS(is.CVSS), " | ", mdCell(string(is.Check)), " |")
	w.line()
	w.line("**Locations (", strconv.Itoa(len(is.Findings)), ")**")
	w.line()
	for _, f := range is.Findings {
		w.line("- ", mdText(textOneLine(showHostPort(f.Host, f.Port))), " (", mdText(textOneLine(f.ID)), ")")
	}
	w.line()
	w.line("**Evidence**")
	w.line()
	shown, more := EvidenceOf(is)
	for _, e := range shown {
		w.evidence(e)
	}
	if more > 0 {
		w.line(mdText(showMore(more)))
		w.line()
	}
	w.line("**Description**")
	w.line()
	w.line(mdParagraphOr(is.Description, "No description."))
	w.line()
	w.line("**Remediation**")
	w.line()
	w.line(mdParagraphOr(is.Remediation, "No remediation was suggested."))
	w.line()
	w.references(is.References)
}

// evidence writes the evidence of one location: its text and proof, or
// the location whose evidence it shares.
func (w mdWriter) evidence(e Evidence) {
	f := e.Finding
	w.line(mdText(textOneLine(showHostPort(f.Host, f.Port))), ":")
	w.line()
	switch {
	case e.SameAs != "":
		w.line(mdText(SameEvidence(e.SameAs)))
	case strings.TrimSpace(f.Evidence) == "":
		w.line("No evidence was recorded.")
	default:
		w.codeBlock(f.Evidence)
	}
	if proof := ProofText(f.Proof); proof != "" && e.SameAs == "" {
		w.line()
		w.codeBlock(proof)
	}
	w.line()
}

// references writes an issue's references, when it has any.
func (w mdWriter) references(refs []string) {
	if len(refs) == 0 {
		return
	}
	w.line("**References**")
	w.line()
	for _, ref := range refs {
		w.line("- ", mdCode(textOneLine(ref)))
	}
	w.line()
}

// codeBlock writes text as a fenced code block. The fence is a run of
// backticks longer than any in the text, so the text cannot close it.
func (w mdWriter) codeBlock(text string) {
	text = strings.TrimRight(textClean(textLF(text), true), "\n")
	fence := strings.Repeat("`", max(3, textLongestRun(text, '`')+1))
	w.line(fence, "text")
	w.line(text)
	w.line(fence)
}

// mdText escapes untrusted text for a Markdown paragraph, heading, list
// item or table cell, only where CommonMark or GitHub's extensions would
// otherwise read it as syntax, so that "demo.secscan.test", "CVE-2021-42013"
// and "scn_01M…" stay readable in the raw file:
//   - everywhere: a backslash, '*', '`', '[', ']', '~', '|', '$' and '<'
//     (emphasis, code, links, strikethrough, table cells, math, raw HTML and
//     <autolinks>), '&' that starts an entity, and '_' that could open or
//     close emphasis (not inside a word);
//   - the ':' of "://", the '.' of "www." and every '@', which GitHub would
//     turn into links;
//   - at the start: '#', '>', '-', '+', '=' and "1." or "1)", which would
//     start a heading, quote, list or setext underline.
//
// Line breaks and tabs become spaces and control characters U+FFFD.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	start := true // no visible character written yet
	for i, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
			continue
		case textIsControl(r):
			b.WriteRune(utf8.RuneError)
			start = false
			continue
		case r >= utf8.RuneSelf:
			b.WriteRune(r)
			start = false
			continue
		}
		if mdNeedsEscape(s, i, start) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r != ' ' {
			start = false
		}
	}
	return b.String()
}

// mdNeedsEscape reports whether the ASCII byte s[i] must be escaped; start
// is true while only spaces precede it.
func mdNeedsEscape(s string, i int, start bool) bool {
	c := s[i]
	switch {
	case strings.IndexByte(mdAlways, c) >= 0:
		return true
	case strings.IndexByte(mdAtStart, c) >= 0:
		return start
	}
	if rule, ok := mdInContext[c]; ok {
		return rule(s, i)
	}
	return false
}

const (
	// mdAlways are escaped wherever they stand.
	mdAlways = "\\*`[]~|$<@"
	// mdAtStart are escaped before any visible character: a heading, quote,
	// list or setext underline.
	mdAtStart = "#>-+="
)

// mdInContext tells, for the bytes whose escaping depends on what
// surrounds them, whether s[i] must be escaped.
var mdInContext = map[byte]func(s string, i int) bool{
	'&': func(s string, i int) bool { return mdEntity.MatchString(s[i:]) },
	// Inside a word an underscore never delimits emphasis.
	'_': func(s string, i int) bool {
		return i == 0 || i == len(s)-1 || !mdWordByte(s[i-1]) || !mdWordByte(s[i+1])
	},
	':': func(s string, i int) bool { return strings.HasPrefix(s[i:], "://") },
	'!': func(s string, i int) bool { return i+1 < len(s) && s[i+1] == '[' },
	'.': func(s string, i int) bool {
		www := i >= 3 && strings.EqualFold(s[i-3:i], "www") && (i == 3 || !mdWordByte(s[i-4]))
		return www || mdListMarker(s, i)
	},
	')': mdListMarker,
}

// mdListMarker: "2026. " or "1) " at the start would begin an ordered
// list: the digits are written, and the '.' or ')' after them escaped.
func mdListMarker(s string, i int) bool {
	if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
		return false
	}
	j := i - 1
	for j > 0 && s[j-1] >= '0' && s[j-1] <= '9' {
		j--
	}
	return strings.TrimLeft(s[:j], " ") == ""
}

// mdEntity matches an HTML entity or character reference, which CommonMark
// would decode.
var mdEntity = lazyre.New(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});`)

func mdWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf
}

// mdCell escapes untrusted text for a table cell: one line, '|' escaped.
func mdCell(s string) string {
	s = textOneLine(s)
	if s == "" {
		return "—"
	}
	return mdText(s)
}

// mdParagraph keeps the lines of untrusted text as hard line breaks. Lines are
// trimmed and empty ones dropped, so the text cannot end the paragraph or
// start an indented code block. Code spans (Spans) stay code spans, written
// with mdCode; everything else is escaped.
func mdParagraph(s string) string {
	lines := strings.Split(textLF(s), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = textOneLine(l); l != "" {
			out = append(out, mdSpans(l))
		}
	}
	return strings.Join(out, "  \n")
}

// mdSpans writes one line of untrusted text with its code spans as code
// spans (delimited by mdCode, so nothing in them can close them early) and
// the rest escaped by mdText.
func mdSpans(line string) string {
	if !strings.Contains(line, "`") {
		return mdText(line)
	}
	var b strings.Builder
	for _, sp := range Spans(line) {
		if sp.Code {
			b.WriteString(mdCode(sp.Text))
		} else {
			b.WriteString(mdText(sp.Text))
		}
	}
	return b.String()
}

func mdParagraphOr(s, empty string) string {
	if p := mdParagraph(s); p != "" {
		return p
	}
	return empty
}

// mdCode writes one line of untrusted text as a code span: shown verbatim,
// never a link. The delimiters are longer than any backtick run inside.
func mdCode(s string) string {
	s = textClean(s, false)
	if s == "" {
		return "—"
	}
	d := strings.Repeat("`", textLongestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' {
		// CommonMark strips one space at each end, so a backtick at an
		// end is not read as part of the delimiter.
		return d + " " + s + " " + d
	}
	return d + s + d
}

// mdBar is a text bar for the severity chart, at most 30 blocks long.
func mdBar(n, top int) string {
	if n == 0 {
		return "0"
	}
	blocks := n
	if top > 30 {
		blocks = max(1, (n*30+top-1)/top)
	}
	return strings.Repeat("█", blocks) + " " + strconv.Itoa(n)
}

func mdSizeHint(r Report) int {
	n := 4096 + 300*len(r.Steps)
	for _, f := range r.Findings {
		n += 600 + len(f.Title)*2 + len(f.Evidence) + len(f.Description) + len(f.Remediation)
	}
	return n
}

// The helpers below are shared by the Markdown and HTML renderers: they say
// how a value is shown, before the format's escaping.

// showPair is a labelled fact; generated values are made here from numbers
// and times (no target text), so they need no escaping.
type showPair struct {
	label, value string
	generated    bool
}

// coverFacts are the facts of the cover page, in order.
func coverFacts(r Report) []showPair {
	s := r.Scan
	return []showPair{
		{"Target", s.Target, false},
		{"Scan type", showWord(string(s.Type)), false},
		{"Tier", showWord(string(s.Tier)), false},
		{"Created", showTime(s.CreatedAt), true},
		{"Started", showTime(s.StartedAt), true},
		{"Finished", showTime(s.FinishedAt) + showRan(s.StartedAt, s.FinishedAt), true},
		{"Credits used", strconv.Itoa(s.CreditsUsed) + " of " + strconv.Itoa(s.MaxCredits), true},
		{"Scan ID", s.ID, false},
		{"Generated", showTime(r.GeneratedAt), true},
	}
}

var showSeverityLabels = map[scans.Severity]string{
	scans.Critical: "Critical", scans.High: "High", scans.Medium: "Medium", scans.Low: "Low", scans.Info: "Info",
}

func showSeverity(s scans.Severity) string {
	if l, ok := showSeverityLabels[s]; ok {
		return l
	}
	// Severities are a closed set; an unknown value is shown as such rather
	// than as whatever text it holds.
	return "Unknown"
}

// showSeverityIcon is a coloured mark for Markdown viewers; the label next to
// it carries the meaning, so colour is never the only cue.
func showSeverityIcon(s scans.Severity) string {
	switch s {
	case scans.Critical:
		return "🟥"
	case scans.High:
		return "🟧"
	case scans.Medium:
		return "🟨"
	case scans.Low:
		return "🟦"
	default:
		return "⬜"
	}
}

func showRisk(r scans.RiskRating) string {
	if r == "" {
		return "None"
	}
	return showWord(string(r))
}

func showRiskIcon(r scans.RiskRating) string {
	if r == scans.RiskNone || r == "" {
		return "🟩"
	}
	return showSeverityIcon(scans.Severity(r))
}

// showTotals is the sentence "6 findings: 1 critical, 1 high, …".
func showTotals(counts []SeverityCount) string { return showTotalsOf(counts, "finding") }

// showTotalsOf is the sentence "4 issues: 1 critical, 1 high, …".
func showTotalsOf(counts []SeverityCount, what string) string {
	total := 0
	parts := make([]string, 0, len(counts))
	for _, c := range counts {
		total += c.Count
		parts = append(parts, strconv.Itoa(c.Count)+" "+strings.ToLower(showSeverity(c.Severity)))
	}
	noun := " " + what + "s"
	if total == 1 {
		noun = " " + what
	}
	return strconv.Itoa(total) + noun + ": " + strings.Join(parts, ", ")
}

// maxEvidence is how many locations of an issue show their evidence; the
// others are listed, and their evidence is in the CSV.
const maxEvidence = 3

// Evidence is what an issue shows of one location's evidence.
type Evidence struct {
	Finding scans.Finding
	// SameAs is the host:port of an earlier location whose evidence reads
	// the same but for the host name and port; "" when the evidence is shown.
	SameAs string
}

// EvidenceOf is the evidence an issue shows: that of its first three
// locations (an evidence that only repeats an earlier one with another host
// name is said to be the same, not repeated), and how many locations follow
// without evidence ("and N more"; findings.csv has theirs).
func EvidenceOf(is Issue) ([]Evidence, int) {
	n := min(len(is.Findings), maxEvidence)
	out := make([]Evidence, n)
	seen := make([]string, 0, n)
	for i, f := range is.Findings[:n] {
		out[i].Finding = f
		norm := f.Evidence
		if hp := showHostPort(f.Host, f.Port); f.Port != nil {
			norm = strings.ReplaceAll(norm, hp, "\x00")
		}
		if f.Host != "" {
			norm = strings.ReplaceAll(norm, f.Host, "\x01")
		}
		if j := slices.Index(seen, norm); j >= 0 && strings.TrimSpace(f.Evidence) != "" {
			out[i].SameAs = showHostPort(is.Findings[j].Host, is.Findings[j].Port)
		}
		seen = append(seen, norm)
	}
	return out, len(is.Findings) - n
}

// SameEvidence is the line shown for a location whose evidence repeats
// that of an earlier one (Evidence.SameAs).
func SameEvidence(sameAs string) string {
	return "Same evidence as " + textOneLine(sameAs) + ", for this location."
}

// showMore is the line under the evidence of an issue found in more places.
func showMore(n int) string {
	loc := " more locations"
	if n == 1 {
		loc = " more location"
	}
	return "and " + strconv.Itoa(n) + loc + " (listed above; the evidence of every finding is in findings.csv)."
}

// showLocationsShort is an issue's first location and how many more.
func showLocationsShort(is Issue) string {
	if len(is.Findings) == 0 {
		return ""
	}
	f := is.Findings[0]
	s := showHostPort(f.Host, f.Port)
	if len(is.Findings) > 1 {
		s += " and " + strconv.Itoa(len(is.Findings)-1) + " more"
	}
	return s
}

// showIssueCount is "14 findings in 7 issues".
func showIssueCount(r Report) string {
	f, i := "findings", "issues"
	if len(r.Findings) == 1 {
		f = "finding"
	}
	if len(r.Issues) == 1 {
		i = "issue"
	}
	return strconv.Itoa(len(r.Findings)) + " " + f + " in " + strconv.Itoa(len(r.Issues)) + " " + i
}

func showMaxCount(counts []SeverityCount) int {
	top := 0
	for _, c := range counts {
		top = max(top, c.Count)
	}
	return top
}

func showWord(s string) string {
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

func showTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// showRan is " (ran 1 min 33 s)" when both ends of the scan are known.
func showRan(start, end time.Time) string {
	if start.IsZero() || end.IsZero() || end.Before(start) {
		return ""
	}
	return " (ran " + showDuration(end.Sub(start).Milliseconds()) + ")"
}

func showDuration(ms int64) string {
	switch {
	case ms <= 0:
		return "—"
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	default:
		return strconv.FormatInt(ms/60_000, 10) + " min " + strconv.FormatInt(ms%60_000/1000, 10) + " s"
	}
}

func showHostPort(host string, port *int) string {
	if port == nil {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(*port))
}

// showConfidence names a finding's confidence ("none" when unknown).
func showConfidence(c scans.Confidence) string {
	if c == "" {
		return "none"
	}
	return string(c)
}

// showList joins items with semicolons, or says empty.
func showList(items []string, empty string) string {
	if len(items) == 0 {
		return empty
	}
	return strings.Join(items, "; ")
}

// showCVSS writes a CVSS score with its one decimal ("7.5", "10.0").
func showCVSS(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func showCVECVSS(f scans.Finding) string {
	var parts []string
	if f.CVE != nil && *f.CVE != "" {
		parts = append(parts, *f.CVE)
	}
	if f.CVSS != nil {
		parts = append(parts, "CVSS "+showCVSS(f.CVSS))
	}
	return strings.Join(parts, " · ")
}

// showInput is a step's tool input on one line, bounded: the audit trail
// says what was asked, not every byte of it.
func showInput(in []byte) string {
	const limit = 300
	s := textOneLine(string(in))
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func showDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// textOneLine puts text on one line: every run of white space (newlines
// and tabs included) becomes one space, and control characters become U+FFFD.
func textOneLine(s string) string {
	return strings.Join(strings.Fields(textClean(s, false)), " ")
}

func textLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// textClean replaces control characters other than white space with
// U+FFFD, so that a report shown in a terminal cannot carry escape sequences.
// With keepLines, newlines and tabs stay; otherwise they become spaces.
func textClean(s string, keepLines bool) string {
	clean := func(r rune) rune { return textCleanRune(r, keepLines) }
	if strings.IndexFunc(s, func(r rune) bool { return clean(r) != r }) < 0 {
		return s
	}
	return strings.Map(clean, s)
}

// textCleanRune is r as textClean writes it.
func textCleanRune(r rune, keepLines bool) rune {
	switch {
	case r == '\n' || r == '\t' || r == '\r':
		if keepLines {
			return r
		}
		return ' '
	case textIsControl(r):
		return utf8.RuneError
	}
	return r
}

// textIsControl reports C0 and C1 control characters other than tab, newline and
// carriage return, and the bidirectional overrides that can make text read
// differently from what it is.
func textIsControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return r < 0x20 || unicode.Is(textControls, r)
}

// textControls are, above the C0 controls, DEL and the C1 controls, and the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069).
var textControls = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x7f, Hi: 0x9f, Stride: 1},
		{Lo: 0x202a, Hi: 0x202e, Stride: 1},
		{Lo: 0x2066, Hi: 0x2069, Stride: 1},
	},
	LatinOffset: 1,
}

func textLongestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

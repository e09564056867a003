package report

import (
	"bytes"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"secscan/shared/scans"
)

// HTML renders r as one self-contained HTML file: inline CSS, no script, no
// external request of any kind (the Content-Security-Policy says so too),
// printable on A4 and Letter.
//
// The page is made by html/template, whose contextual escaping treats every
// value as text; nothing here marks a string as safe HTML. Values are shaped
// first into htmlView, so the template holds no logic that could mix them up.
func HTML(r Report) []byte {
	var b bytes.Buffer
	b.Grow(mdSizeHint(r)*2 + len(htmlSource))
	if err := htmlTemplate().Execute(&b, htmlViewOf(r)); err != nil {
		// The template is fixed and its data are plain strings and numbers:
		// an error here is a bug in this file, caught by the tests.
		panic("report: HTML template: " + err.Error())
	}
	return b.Bytes()
}

type htmlView struct {
	Title     string
	Target    string
	Watermark string
	Cover     []htmlFact
	Risk      string
	RiskClass string
	Summary   string
	Totals    string
	IssueTot  string
	Chains    []string
	Bars      []htmlBar
	Issues    []htmlIssue
	IssueLine string    // "14 findings in 7 issues"
	Rows      []htmlRow // the findings appendix, by issue
	Tools     []string
	Hosts     []string
	Services  []htmlService
	NotTested []string
	Steps     []htmlStep
	Generated string
	ScanID    string
	Marking   string
	Scope     htmlScope
	Plan      []htmlAction
}

type htmlScope struct {
	Target, Ownership, Window, Tier, Budget string
	Tested, NotTested                       []string
}

type htmlAction struct {
	N                 int
	Text              []Span
	Class, Label      string
	Resolves, Numbers string
}

type htmlFact struct {
	Label, Value string
	ID           bool // a token shown whole (a mono chip that scrolls)
}

type htmlService struct {
	Host, Name, Banner string
	Port               int
}

type htmlBar struct {
	Label, Class string
	Count        int // issues
	Findings     int
	Percent      int // of the longest bar
}

// htmlIssue is one issue: its classification, locations, the evidence of
// the first few, and its catalogue text with code spans.
type htmlIssue struct {
	N                              int
	Anchor, Label, Class           string
	Title, CVE, CWE, CVSS, Check   string
	Confidence, Category           string
	Tentative                      bool
	Count                          int
	CVECVSS                        []string // "CVE-…" and "CVSS 7.5", each when known
	First                          []string // the first location cut after each dot, for <wbr>
	MoreLocations                  int      // locations after the first (issues table)
	Locations                      []htmlLocation
	Evidence                       []htmlLocation // the first maxEvidence locations, with evidence
	More                           string         // "and N more …", or ""
	Description, Remediation       []Span
	HasDescription, HasRemediation bool
	References                     []htmlRef
}

// htmlLocation is one place an issue was found.
type htmlLocation struct {
	HostPort, ID, Evidence string
	Proof                  string // ProofText, "" when the finding has none
	Same                   string // SameEvidence, when the evidence repeats an earlier one
}

// htmlRow is one line of the findings appendix.
type htmlRow struct {
	Issue                int
	Anchor, Label, Class string
	Title, ID            string
	HostParts            []string
}

// htmlRef is a reference: a link when it is a plain https URL, text otherwise.
type htmlRef struct{ Text, URL string }

type htmlStep struct {
	Seq, FindingsAdded, Credits int
	Tool, Input, Outcome        string
	Duration                    string
}

func htmlViewOf(r Report) htmlView {
	v := htmlView{
		Title:     "Security scan report: " + textOneLine(r.Scan.Target),
		Target:    textOneLine(r.Scan.Target),
		Watermark: r.Watermark,
		Risk:      strings.ToUpper(showRisk(r.Summary.RiskRating)),
		RiskClass: htmlRiskClass(r.Summary.RiskRating),
		Summary:   textClean(textLF(strings.TrimSpace(r.Summary.Summary)), true),
		Totals:    showTotals(r.Counts),
		IssueTot:  showTotalsOf(r.IssueCounts, "issue"),
		Tools:     htmlLines(r.Coverage.ToolsRun),
		Hosts:     htmlLines(r.Coverage.Hosts),
		NotTested: htmlLines(r.Coverage.NotTested),
		Generated: showTime(r.GeneratedAt),
		ScanID:    textOneLine(r.Scan.ID),
		Marking:   r.Confidential,
		Scope: htmlScope{
			Target: textOneLine(r.Scope.Target), Ownership: textOneLine(r.Scope.Ownership), Window: r.Scope.Window,
			Tier: textOneLine(r.Scope.Tier), Budget: r.Scope.Budget,
			Tested: htmlLines(r.Scope.Tested), NotTested: htmlLines(r.Scope.NotTested),
		},
	}
	for i, a := range r.Plan {
		v.Plan = append(v.Plan, htmlAction{N: i + 1, Text: htmlSpans(textOneLine(a.Text)), Class: htmlSeverityClass(a.Severity), Label: showSeverity(a.Severity),
			Resolves: textOneLine(a.Resolves()), Numbers: a.Numbers()})
	}
	for _, p := range coverFacts(r) {
		v.Cover = append(v.Cover, htmlFact{Label: p.label, Value: textOneLine(p.value), ID: p.label == "Scan ID"})
	}
	v.Chains = htmlLines(r.Summary.AttackChains)
	for _, s := range r.Coverage.Services {
		v.Services = append(v.Services, htmlService{Host: textOneLine(s.Host), Port: s.Port, Name: textOneLine(s.Name), Banner: textOneLine(s.Banner)})
	}
	v.Bars = htmlBars(r)
	v.IssueLine = showIssueCount(r)
	v.Issues = make([]htmlIssue, 0, len(r.Issues))
	v.Rows = make([]htmlRow, 0, len(r.Findings))
	for i, is := range r.Issues {
		hi, rows := htmlIssueOf(i+1, is)
		v.Issues = append(v.Issues, hi)
		v.Rows = append(v.Rows, rows...)
	}
	for _, s := range r.Steps {
		v.Steps = append(v.Steps, htmlStep{
			Seq: s.Seq, FindingsAdded: s.FindingsAdded, Credits: s.Credits,
			Tool: textOneLine(s.Tool), Input: showInput(s.Input), Outcome: textOneLine(s.Outcome), Duration: showDuration(s.DurationMS),
		})
	}
	return v
}

// htmlBars is the severity chart: issues by severity, the longest bar the
// most frequent severity, a non-zero count at least 1 %.
func htmlBars(r Report) []htmlBar {
	var bars []htmlBar
	top := showMaxCount(r.IssueCounts)
	for i, c := range r.IssueCounts {
		bar := htmlBar{Label: showSeverity(c.Severity), Class: htmlSeverityClass(c.Severity), Count: c.Count, Findings: r.Counts[i].Count}
		if top > 0 {
			bar.Percent = c.Count * 100 / top
			if c.Count > 0 {
				bar.Percent = max(bar.Percent, 1)
			}
		}
		bars = append(bars, bar)
	}
	return bars
}

// htmlIssueOf is issue number n in detail, and the findings appendix's
// rows of its findings.
func htmlIssueOf(n int, is Issue) (htmlIssue, []htmlRow) {
	hi := htmlIssue{
		N: n, Anchor: "i-" + strconv.Itoa(n), Label: showSeverity(is.Severity), Class: htmlSeverityClass(is.Severity),
		Title: textOneLine(is.Title), CVE: textOneLine(showDeref(is.CVE)), CWE: textOneLine(showDeref(is.CWE)), CVSS: htmlOptional(showCVSS(is.CVSS)),
		Check: textOneLine(string(is.Check)), Category: textOneLine(string(is.Category)), Count: is.Count,
		Confidence: textOneLine(showConfidence(is.Confidence)), Tentative: is.Confidence == scans.Tentative,
		Description: htmlSpans(textClean(textLF(strings.TrimSpace(is.Description)), true)),
		Remediation: htmlSpans(textClean(textLF(strings.TrimSpace(is.Remediation)), true)),
	}
	hi.HasDescription, hi.HasRemediation = len(hi.Description) > 0, len(hi.Remediation) > 0
	if hi.CVE != "" {
		hi.CVECVSS = append(hi.CVECVSS, hi.CVE)
	}
	if is.CVSS != nil {
		hi.CVECVSS = append(hi.CVECVSS, "CVSS "+hi.CVSS)
	}
	var rows []htmlRow
	hi.Locations = make([]htmlLocation, 0, len(is.Findings))
	for _, f := range is.Findings {
		hi.Locations = append(hi.Locations, htmlLocation{HostPort: htmlOr(textOneLine(showHostPort(f.Host, f.Port)), "—"), ID: textOneLine(f.ID)})
		row := htmlRow{Issue: n, Anchor: hi.Anchor, Label: showSeverity(f.Severity), Class: htmlSeverityClass(f.Severity),
			Title: textOneLine(f.Title), ID: textOneLine(f.ID)}
		if hp := textOneLine(showHostPort(f.Host, f.Port)); hp != "" {
			row.HostParts = strings.SplitAfter(hp, ".")
		}
		rows = append(rows, row)
	}
	if len(hi.Locations) > 0 {
		hi.First = strings.SplitAfter(hi.Locations[0].HostPort, ".")
		hi.MoreLocations = len(hi.Locations) - 1
	}
	hi.Evidence, hi.More = htmlEvidence(is, hi.Locations)
	hi.References = htmlRefs(is.References)
	return hi, rows
}

// htmlEvidence is the evidence shown of an issue, by location, and how
// many more findings' evidence is left out.
func htmlEvidence(is Issue, locations []htmlLocation) ([]htmlLocation, string) {
	var out []htmlLocation
	shown, more := EvidenceOf(is)
	for k, e := range shown {
		loc := htmlLocation{HostPort: locations[k].HostPort, ID: locations[k].ID}
		if e.SameAs != "" {
			loc.Same = SameEvidence(e.SameAs)
		} else {
			loc.Evidence = strings.TrimRight(textClean(textLF(e.Finding.Evidence), true), "\n")
			loc.Proof = ProofText(e.Finding.Proof)
		}
		out = append(out, loc)
	}
	if more > 0 {
		return out, showMore(more)
	}
	return out, ""
}

// htmlRefs are an issue's references, plain https URLs as links.
func htmlRefs(refs []string) []htmlRef {
	var out []htmlRef
	for _, ref := range refs {
		text := textOneLine(ref)
		hr := htmlRef{Text: text}
		if htmlLinkable(text) {
			hr.URL = text
		}
		out = append(out, hr)
	}
	return out
}

// htmlSpans cuts text (lines kept) into plain text and code spans, for
// <code>: the template escapes both.
func htmlSpans(text string) []Span {
	if text == "" {
		return nil
	}
	if !strings.Contains(text, "`") {
		return []Span{{Text: text}}
	}
	var out []Span
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			out = append(out, Span{Text: "\n"})
		}
		out = append(out, Spans(line)...)
	}
	return out
}

func htmlOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

// htmlOptional is "" for an absent value ("—"), which the page omits.
func htmlOptional(s string) string {
	if s == "—" {
		return ""
	}
	return s
}

// htmlLines puts each item on one line, without control characters.
func htmlLines(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = textOneLine(it)
	}
	return out
}

// htmlLinkable reports whether a reference may become a link: an absolute
// https URL with a host and no credentials. Anything else is shown as text.
// The link opens nothing by itself (a reader has to click it) and carries
// rel="noopener noreferrer", so the report's address does not leak.
func htmlLinkable(s string) bool {
	if len(s) > 2048 || strings.ContainsAny(s, " \"'<>\\`") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.Opaque == ""
}

// htmlSeverityClass maps a severity onto one of the page's fixed classes,
// so a value from the data never becomes a class name.
func htmlSeverityClass(s scans.Severity) string {
	switch s {
	case scans.Critical, scans.High, scans.Medium, scans.Low, scans.Info:
		return "sev-" + string(s)
	}
	return "sev-info"
}

func htmlRiskClass(r scans.RiskRating) string {
	switch r {
	case scans.RiskCritical, scans.RiskHigh, scans.RiskMedium, scans.RiskLow:
		return "sev-" + string(r)
	}
	return "sev-none"
}

// htmlTemplate is parsed on first use, not at start-up: only the HTML
// report's requests need it.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	t := template.Must(template.New("report").Parse(htmlSource))
	template.Must(t.New("spans").Parse(htmlSpansSource))
	return t
})

// htmlSpansSource writes catalogue text: code spans as <code>, the rest as
// text (both escaped by html/template).
const htmlSpansSource = `{{range .}}{{if .Code}}<code>{{.Text}}</code>{{else}}{{.Text}}{{end}}{{end}}`

// htmlSource is the page. Colours: critical dark red, high red-orange,
// medium amber, low blue, info grey; every coloured mark also carries its
// label, so the page reads the same in grey print and for colour-blind readers.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root {
  --ink: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --paper: #ffffff; --soft: #f5f7fa;
  --critical: #7f1d1d; --high: #c2410c; --medium: #f59e0b; --medium-ink: #3d2800; --low: #1d4ed8; --info: #6b7280; --none: #15803d;
}
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; background: var(--paper); color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif,
  "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji"; }
main { max-width: 960px; margin: 0 auto; padding: 32px 40px 48px; position: relative; z-index: 1; }
h1, h2, h3 { line-height: 1.25; color: #111827; break-after: avoid; page-break-after: avoid; }
h1 { font-size: 30px; margin: 8px 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 22px; margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--ink); }
h3 { font-size: 17px; margin: 20px 0 6px; overflow-wrap: anywhere; }
.finding h3 { margin: 0; }
h4 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 16px 0 4px; break-after: avoid; }
p { margin: 8px 0; }
.text { white-space: pre-line; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: 10px 12px; margin: 4px 0;
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; max-width: 100%; }
ul, ol { margin: 6px 0; padding-left: 22px; }
li { margin: 3px 0; overflow-wrap: anywhere; }
a { color: #1d4ed8; overflow-wrap: anywhere; }

.cover .kicker { text-transform: uppercase; letter-spacing: .12em; font-size: 12px; color: var(--muted); font-weight: 600; }
.facts { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0; margin: 18px 0 0;
  border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.facts div { padding: 8px 12px; border-top: 1px solid var(--line); border-left: 1px solid var(--line); margin: -1px 0 0 -1px; min-width: 0; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
.facts dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }

.badge { display: inline-block; padding: 1px 8px; border-radius: 3px; font-size: 11.5px; font-weight: 700;
  letter-spacing: .04em; text-transform: uppercase; color: #fff; white-space: nowrap; vertical-align: 1px; }
.sev-critical .badge, .badge.sev-critical { background: var(--critical); }
.sev-high .badge, .badge.sev-high { background: var(--high); }
.sev-medium .badge, .badge.sev-medium { background: var(--medium); color: var(--medium-ink); }
.sev-low .badge, .badge.sev-low { background: var(--low); }
.sev-info .badge, .badge.sev-info { background: var(--info); }
.badge.sev-none { background: var(--none); }

.risk { display: flex; align-items: center; gap: 20px; margin: 14px 0 16px; padding: 16px 20px; border-radius: 8px;
  border: 1px solid var(--line); border-left-width: 10px; background: var(--soft); break-inside: avoid; }
.risk.sev-critical { border-left-color: var(--critical); }
.risk.sev-high { border-left-color: var(--high); }
.risk.sev-medium { border-left-color: var(--medium); }
.risk.sev-low { border-left-color: var(--low); }
.risk.sev-none { border-left-color: var(--none); }
.risk .label { font-size: 12px; text-transform: uppercase; letter-spacing: .1em; color: var(--muted); font-weight: 600; }
.risk .rating { display: inline-block; margin-top: 2px; padding: 4px 16px; border-radius: 6px; color: #fff;
  font-size: 28px; font-weight: 800; letter-spacing: .06em; }
.risk.sev-critical .rating { background: var(--critical); }
.risk.sev-high .rating { background: var(--high); }
.risk.sev-medium .rating { background: var(--medium); color: var(--medium-ink); }
.risk.sev-low .rating { background: var(--low); }
.risk.sev-none .rating { background: var(--none); }
.risk .totals { font-size: 15px; }

.chains { list-style: none; padding: 0; counter-reset: chain; }
.chains li { counter-increment: chain; position: relative; padding: 10px 12px 10px 44px; margin: 8px 0;
  border: 1px solid var(--line); border-left: 4px solid var(--critical); border-radius: 4px; break-inside: avoid; }
.chains li::before { content: counter(chain); position: absolute; left: 12px; top: 9px; width: 22px; height: 22px;
  border-radius: 50%; background: var(--ink); color: #fff; font-size: 12px; font-weight: 700; text-align: center; line-height: 22px; }

.chart { margin: 8px 0; break-inside: avoid; }
.chart .row { display: grid; grid-template-columns: 96px 1fr 48px; align-items: center; gap: 12px; margin: 6px 0; }
.chart .track { background: var(--soft); border: 1px solid var(--line); border-radius: 3px; height: 20px; overflow: hidden; }
.chart .fill { height: 100%; min-width: 0; }
.chart .count { text-align: right; font-weight: 700; font-variant-numeric: tabular-nums; }
.sev-critical .fill { background: var(--critical); }
.sev-high .fill { background: var(--high); }
.sev-medium .fill { background: var(--medium); }
.sev-low .fill { background: var(--low); }
.sev-info .fill { background: var(--info); }

table { width: 100%; border-collapse: collapse; table-layout: fixed; margin: 8px 0 12px; font-size: 13px; }
thead { display: table-header-group; }
th { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted);
  border-bottom: 2px solid var(--line); padding: 6px 8px; vertical-align: bottom; }
td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; overflow-wrap: anywhere; word-break: break-word; }
/* Host names and ids break only where a reader expects it (after a dot or
   a hyphen), never inside a label. */
td.host { overflow-wrap: normal; word-break: normal; }
tr { break-inside: avoid; page-break-inside: avoid; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td a { text-decoration: none; color: inherit; }
td a:hover { text-decoration: underline; }

.finding { margin: 18px 0 26px; padding: 14px 16px 8px; border: 1px solid var(--line); border-left: 6px solid var(--info); border-radius: 4px; }
.finding.sev-critical { border-left-color: var(--critical); }
.finding.sev-high { border-left-color: var(--high); }
.finding.sev-medium { border-left-color: var(--medium); }
.finding.sev-low { border-left-color: var(--low); }
.finding header { break-inside: avoid; break-after: avoid; }
.finding .num { color: var(--muted); font-weight: 600; }
.meta { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 8px 0 0; font-size: 13px; }
.meta div { min-width: 0; overflow-wrap: anywhere; }
.meta dt { display: inline; color: var(--muted); }
.meta dd { display: inline; margin: 0 0 0 4px; font-weight: 600; }

.chips { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.chips li { margin: 0; padding: 2px 8px; border: 1px solid var(--line); border-radius: 12px; background: var(--soft); }

.demo { margin: 0 0 20px; padding: 10px 16px; border: 2px dashed var(--critical); border-radius: 6px; background: #fff5f5;
  color: var(--critical); text-align: center; break-inside: avoid; }
.demo strong { display: block; font-size: 18px; letter-spacing: .08em; }
.demo.bottom { margin: 32px 0 0; }
.watermark { position: fixed; inset: 0; z-index: 2; pointer-events: none; display: flex; align-items: center; justify-content: center; overflow: hidden; }
.watermark span { transform: rotate(-35deg); font-size: min(80px, 5vw); font-weight: 800; letter-spacing: .05em; white-space: nowrap;
  color: rgba(127, 29, 29, .07); user-select: none; }
.marking { background: var(--ink); color: #fff; text-align: center; font-size: 12px; letter-spacing: .04em; padding: 4px 12px; }
.idchip { display: inline-block; max-width: 100%; overflow-x: auto; white-space: nowrap; vertical-align: bottom; padding: 0 6px;
  border: 1px solid var(--line); border-radius: 4px; background: var(--soft); user-select: all; font-weight: 400; }
.scopefacts { display: grid; grid-template-columns: 200px 1fr; gap: 0; margin: 8px 0; border-top: 1px solid var(--line); }
.scopefacts div { display: contents; }
.scopefacts dt, .scopefacts dd { padding: 6px 8px; border-bottom: 1px solid var(--line); margin: 0; min-width: 0; }
.scopefacts dt { color: var(--muted); font-size: 13px; }
.scopefacts ul { margin: 0; }
.plan { padding-left: 26px; }
.plan li { margin: 6px 0; break-inside: avoid; }
.conf { white-space: nowrap; }
.tentative .conf { font-style: italic; border-bottom: 2px dotted var(--muted); }
.tentative .conf::before { content: "\26A0\FE0E  "; }
.finding.tentative { border-style: dashed; border-left-style: solid; background: repeating-linear-gradient(135deg, transparent 0 12px, rgba(95,107,122,.04) 12px 24px); }
p code, li code { background: var(--soft); border: 1px solid var(--line); border-radius: 3px; padding: 0 3px; font-size: .92em; overflow-wrap: anywhere; }
.locations { list-style: none; padding: 0; margin: 4px 0; columns: 2 22em; column-gap: 18px; }
.locations li { margin: 1px 0; break-inside: avoid; overflow-wrap: anywhere; }
.evidence .where { margin: 6px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.evidence .more { margin: 4px 0 0; }
.evidence pre.proof { font-size: 0.85em; }
table.compact td { padding: 2px 8px; }
.note { font-size: 13px; color: var(--muted); font-style: italic; margin: 8px 0 0; }
footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }

/* Printed, the marking heads every page and the page number ends it (page
   margin boxes; the value is escaped for a CSS string by html/template). */
@page { size: A4; margin: 14mm 12mm 13mm;
  @top-center { content: "{{.Marking}}"; font: 600 7pt system-ui, sans-serif; color: #5f6b7a; }
  @bottom-left { content: "{{.Marking}}"; font: 7pt system-ui, sans-serif; color: #5f6b7a; }
  @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 7pt system-ui, sans-serif; color: #5f6b7a; } }
/* Print: compact, so the demo report prints in half the pages it used to. */
@media print {
  body { font-size: 9pt; line-height: 1.35; }
  main { max-width: none; padding: 0; }
  .page { break-before: page; page-break-before: always; }
  .marking { display: none; }
  h1 { font-size: 20pt; }
  h2 { font-size: 13pt; margin: 12px 0 6px; padding-bottom: 3px; }
  h3 { font-size: 10pt; margin: 8px 0 3px; }
  h4 { font-size: 7pt; margin: 5px 0 1px; }
  p { margin: 3px 0; }
  .finding { break-inside: auto; margin: 6px 0; padding: 5px 8px 3px; border-left-width: 4px; }
  /* Labels beside their text, not above it: a line saved per part. */
  .finding { display: grid; grid-template-columns: 22mm minmax(0, 1fr); column-gap: 3mm; }
  .finding header, .finding .note { grid-column: 1 / -1; }
  .finding h4 { grid-column: 1; margin: 3px 0 0; }
  .finding > pre, .finding > p, .finding > ul, .finding > .evidence { grid-column: 2; margin: 2px 0; }
  .evidence .where { margin: 2px 0 0; }
  .finding > ul { padding-left: 12px; }
  .meta { margin-top: 2px; font-size: 8pt; gap: 0 12px; }
  pre { font-size: 7.5pt; padding: 3px 6px; margin: 2px 0; line-height: 1.3; }
  ul, ol { margin: 2px 0; }
  li { margin: 1px 0; }
  table { font-size: 8pt; margin: 4px 0 8px; }
  a { color: inherit; text-decoration: none; }
  .watermark span { font-size: 28pt; transform: rotate(-40deg); }
  th { font-size: 6.5pt; letter-spacing: .02em; padding: 3px 4px; }
  td { padding: 2px 4px; }
  td.mono, li.mono, dd.mono { font-size: 7.5pt; }
  .risk { padding: 8px 12px; margin: 8px 0; }
  .risk .rating { font-size: 18pt; }
  .chart .row { margin: 2px 0; }
  .chart .track { height: 12px; }
  .idchip { overflow: visible; border: none; padding: 0; background: none; }
  footer { margin-top: 12px; }
}
@media (max-width: 640px) {
  main { padding: 16px; }
  .risk { flex-direction: column; align-items: flex-start; }
  .facts { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
</style>
</head>
<body>
{{- if .Watermark}}
<div class="watermark" aria-hidden="true"><span>{{.Watermark}}</span></div>
{{- end}}
<div class="marking" role="note">{{.Marking}}</div>
<main>
{{- if .Watermark}}
<div class="demo" role="note"><strong>{{.Watermark}}</strong>This report was produced on the free plan. It is a demonstration, not evidence for an audit or a compliance programme.</div>
{{- end}}

<header class="cover">
<div class="kicker">Security scan report</div>
<h1>{{.Target}}</h1>
<dl class="facts">
{{- range .Cover}}
<div><dt>{{.Label}}</dt>{{if .ID}}<dd><span class="idchip mono">{{.Value}}</span></dd>{{else}}<dd>{{.Value}}</dd>{{end}}</div>
{{- end}}
</dl>
</header>

<section>
<h2>Executive summary</h2>
<div class="risk {{.RiskClass}}">
<div><div class="label">Risk rating</div><div class="rating">{{.Risk}}</div></div>
<div class="totals">{{.IssueTot}}.<br>{{.Totals}}.</div>
</div>
{{- if .Summary}}
<p class="text">{{.Summary}}</p>
{{- end}}
<h3>Attack chains</h3>
{{- if .Chains}}
<ol class="chains">
{{- range .Chains}}
<li>{{.}}</li>
{{- end}}
</ol>
{{- else}}
<p>No attack chains were identified: the findings do not combine into a path of attack.</p>
{{- end}}
</section>

<section class="scope">
<h2>Scope and authorisation</h2>
<p>{{.Scope.Ownership}}</p>
<dl class="scopefacts">
<div><dt>Target</dt><dd class="mono">{{.Scope.Target}}</dd></div>
<div><dt>Scan window</dt><dd>{{.Scope.Window}}</dd></div>
<div><dt>Tier and budget</dt><dd>{{.Scope.Tier}}, {{.Scope.Budget}}</dd></div>
<div><dt>Hosts tested ({{len .Scope.Tested}})</dt><dd>{{if .Scope.Tested}}<ul class="chips">{{range .Scope.Tested}}<li class="mono">{{.}}</li>{{end}}</ul>{{else}}none{{end}}</dd></div>
<div><dt>Discovered but not tested ({{len .Scope.NotTested}})</dt><dd>{{if .Scope.NotTested}}<ul>{{range .Scope.NotTested}}<li>{{.}}</li>{{end}}</ul>{{else}}none{{end}}</dd></div>
</dl>
</section>

<section>
<h2>Remediation plan</h2>
{{- if .Plan}}
<p class="muted">The distinct actions, most urgent first; each resolves the findings it names (issue numbers as in the issues section).</p>
<ol class="plan">
{{- range .Plan}}
<li class="{{.Class}}"><span class="badge">{{.Label}}</span> <strong>{{template "spans" .Text}}</strong> — {{.Resolves}} <span class="muted">({{.Numbers}})</span></li>
{{- end}}
</ol>
{{- else}}
<p>Nothing to remediate: no finding suggests a change.</p>
{{- end}}
</section>

<section>
<h2>Severity breakdown</h2>
<div class="chart">
{{- range .Bars}}
<div class="row {{.Class}}"><span class="badge">{{.Label}}</span><div class="track"><div class="fill" style="width: {{.Percent}}%"></div></div><span class="count">{{.Count}} <span class="muted">({{.Findings}})</span></span></div>
{{- end}}
</div>
</section>

<section>
<h2>Issues</h2>
{{- if .Issues}}
<p class="muted">Each weakness once, with every place it was found ({{.IssueLine}}).</p>
<table>
<colgroup><col style="width: 5%"><col style="width: 11%"><col style="width: 12%"><col style="width: 35%"><col style="width: 8%"><col style="width: 29%"></colgroup>
<thead><tr><th class="num">#</th><th>Severity</th><th>Confidence</th><th>Title</th><th class="num">Count</th><th>Locations</th></tr></thead>
<tbody>
{{- range $i := .Issues}}
<tr class="{{$i.Class}}{{if $i.Tentative}} tentative{{end}}"><td class="num">{{$i.N}}</td><td><span class="badge">{{$i.Label}}</span></td><td><span class="conf">{{$i.Confidence}}</span></td><td><a href="#{{$i.Anchor}}">{{$i.Title}}</a></td><td class="num">{{$i.Count}}</td><td class="mono host">{{range $i.First}}{{.}}<wbr>{{else}}—{{end}}{{if $i.MoreLocations}} <span class="muted">and {{$i.MoreLocations}} more</span>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>The scan found no issues.</p>
{{- end}}
</section>

{{- if .Issues}}
<section class="page">
<h2>Issue details</h2>
{{- range $i := .Issues}}
<article class="finding {{$i.Class}}{{if $i.Tentative}} tentative{{end}}" id="{{$i.Anchor}}">
<header>
<h3><span class="num">{{$i.N}}.</span> <span class="badge">{{$i.Label}}</span> {{$i.Title}}</h3>
<dl class="meta">
<div><dt>Found</dt><dd>{{$i.Count}} {{if eq $i.Count 1}}time{{else}}times{{end}}</dd></div>
{{- if $i.Category}}
<div><dt>Category</dt><dd>{{$i.Category}}</dd></div>
{{- end}}
<div><dt>Confidence</dt><dd><span class="conf">{{$i.Confidence}}</span></dd></div>
{{- if $i.CWE}}
<div><dt>CWE</dt><dd>{{$i.CWE}}</dd></div>
{{- end}}
{{- if $i.CVE}}
<div><dt>CVE</dt><dd>{{$i.CVE}}</dd></div>
{{- end}}
{{- if $i.CVSS}}
<div><dt>CVSS</dt><dd>{{$i.CVSS}}</dd></div>
{{- end}}
{{- if $i.Check}}
<div><dt>Check</dt><dd><span class="idchip mono">{{$i.Check}}</span></dd></div>
{{- end}}
</dl>
</header>
<h4>Locations ({{len $i.Locations}})</h4>
<ul class="locations">
{{- range $i.Locations}}
<li><span class="mono">{{.HostPort}}</span> <span class="muted mono">{{.ID}}</span></li>
{{- end}}
</ul>
<h4>Evidence</h4>
{{- if $i.Tentative}}
<p class="note">Tentative: inferred from an announced version; confirm before acting on it.</p>
{{- end}}
<div class="evidence">
{{- range $i.Evidence}}
<p class="mono where">{{.HostPort}}</p>
{{- if .Same}}
<p class="muted">{{.Same}}</p>
{{- else if .Evidence}}
<pre>{{.Evidence}}</pre>
{{- else}}
<p class="muted">No evidence was recorded.</p>
{{- end}}
{{- if .Proof}}
<pre class="proof">{{.Proof}}</pre>
{{- end}}
{{- end}}
{{- if $i.More}}
<p class="muted more">{{$i.More}}</p>
{{- end}}
</div>
<h4>Description</h4>
<p class="text">{{if $i.HasDescription}}{{template "spans" $i.Description}}{{else}}No description.{{end}}</p>
<h4>Remediation</h4>
<p class="text">{{if $i.HasRemediation}}{{template "spans" $i.Remediation}}{{else}}No remediation was suggested.{{end}}</p>
{{- if $i.References}}
<h4>References</h4>
<ul>
{{- range $i.References}}
<li>{{if .URL}}<a href="{{.URL}}" rel="noopener noreferrer" referrerpolicy="no-referrer">{{.Text}}</a>{{else}}<span class="mono">{{.Text}}</span>{{end}}</li>
{{- end}}
</ul>
{{- end}}
</article>
{{- end}}
</section>
{{- end}}

<section class="page">
<h2>Coverage</h2>
<h3>Tools run</h3>
{{- if .Tools}}
<ul class="chips">
{{- range .Tools}}
<li class="mono">{{.}}</li>
{{- end}}
</ul>
{{- else}}
<p>No tool ran.</p>
{{- end}}
<h3>Hosts</h3>
{{- if .Hosts}}
<ul>
{{- range .Hosts}}
<li class="mono">{{.}}</li>
{{- end}}
</ul>
{{- else}}
<p>No host was observed.</p>
{{- end}}
<h3>Services discovered</h3>
{{- if .Services}}
<table>
<colgroup><col style="width: 30%"><col style="width: 10%"><col style="width: 15%"><col style="width: 45%"></colgroup>
<thead><tr><th>Host</th><th class="num">Port</th><th>Service</th><th>Banner</th></tr></thead>
<tbody>
{{- range .Services}}
<tr><td class="mono">{{.Host}}</td><td class="num">{{.Port}}</td><td>{{.Name}}</td><td class="mono">{{.Banner}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>No listening service was discovered.</p>
{{- end}}
<h3>Not tested</h3>
{{- if .NotTested}}
<ul>
{{- range .NotTested}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- else}}
<p>Everything in the scope of this scan type and tier was tested.</p>
{{- end}}
</section>

<section class="page">
<h2>Appendix: findings</h2>
<p>Every finding on one line, by issue (numbers as in the issues section); findings.csv has each one's evidence.</p>
{{- if .Rows}}
<table class="compact">
<colgroup><col style="width: 7%"><col style="width: 11%"><col style="width: 38%"><col style="width: 27%"><col style="width: 17%"></colgroup>
<thead><tr><th class="num">Issue</th><th>Severity</th><th>Title</th><th>Host:port</th><th>ID</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr class="{{.Class}}"><td class="num"><a href="#{{.Anchor}}">{{.Issue}}</a></td><td>{{.Label}}</td><td>{{.Title}}</td><td class="mono host">{{range .HostParts}}{{.}}<wbr>{{else}}—{{end}}</td><td class="mono">{{.ID}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>No finding was recorded.</p>
{{- end}}
<h2>Appendix: agent steps</h2>
<p>The audit trail: every step the scan agent took, in order.</p>
{{- if .Steps}}
<table>
<colgroup><col style="width: 5%"><col style="width: 15%"><col style="width: 16%"><col style="width: 46%"><col style="width: 6%"><col style="width: 5%"><col style="width: 7%"></colgroup>
<thead><tr><th class="num">Seq</th><th>Tool</th><th>Input</th><th>Outcome</th><th class="num">New</th><th class="num">Credits</th><th class="num">Time</th></tr></thead>
<tbody>
{{- range .Steps}}
<tr><td class="num">{{.Seq}}</td><td class="mono">{{.Tool}}</td><td class="mono">{{.Input}}</td><td>{{.Outcome}}</td><td class="num">{{.FindingsAdded}}</td><td class="num">{{.Credits}}</td><td class="num">{{.Duration}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>No step was recorded.</p>
{{- end}}
</section>

<footer>{{.Marking}}. Generated {{.Generated}} for scan <span class="idchip mono">{{.ScanID}}</span>.</footer>
{{- if .Watermark}}
<div class="demo bottom" role="note"><strong>{{.Watermark}}</strong>This report was produced on the free plan. It is a demonstration, not evidence for an audit or a compliance programme.</div>
{{- end}}
</main>
</body>
</html>
`

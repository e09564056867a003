// Package checks is the one catalogue of every weakness a tool can report
// (CONTRACT "Checks and issues"): its stable code, title, category, default
// severity with the reason for it, CWE, description, remediation and
// references. A finding's identity is its check code, never its title: tools
// build findings from a catalogue entry (Check.Finding), the summary, attack
// chains, reports, SARIF rules and the issue ledger key on the code.
package checks

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"secscan/shared/scans"
)

// Check is one kind of weakness. Its code, title, category, severity and
// CWE are declared in Go (the catalogue files' define calls) and are there
// from the start; its prose (Rationale, Description, Remediation and
// References) is catalogue.json's, filled in on first use by Finding,
// Lookup and All, or by the end-of-life template (vuln.go) for its checks.
// Code that reads the prose of a check it holds calls one of those first.
type Check struct {
	Code     scans.CheckCode `json:"check"`
	Title    string          `json:"title"`
	Category scans.Category  `json:"category"`
	Severity scans.Severity  `json:"severity"`
	// Rationale says in one line why Severity is the default (the reference
	// it follows: Mozilla server-side TLS, RFC 8996, the CVE's CVSS…).
	Rationale   string   `json:"-"`
	CWE         string   `json:"cwe"`
	Description string   `json:"description"`
	Remediation string   `json:"remediation"`
	References  []string `json:"references"`
}

// Finding is a finding of this check on host and port (nil for a host-wide
// finding) with the evidence the tool collected. The tool may change the
// returned finding's severity, confidence, CVE and CVSS (saying why in the
// evidence) but not its check.
func (c *Check) Finding(host string, port *int, evidence string) scans.Finding {
	loadText()
	f := scans.Finding{
		Check:       c.Code,
		Title:       c.Title,
		Severity:    c.Severity,
		Category:    c.Category,
		Host:        host,
		Port:        port,
		Evidence:    evidence,
		Description: c.Description,
		Remediation: c.Remediation,
		References:  slices.Clone(c.References),
	}
	if f.References == nil {
		f.References = []string{}
	}
	if c.CWE != "" {
		cwe := c.CWE
		f.CWE = &cwe
	}
	return f
}

// registry is every check by code, filled by the catalogue files' variable
// declarations through define (their prose comes later: loadText).
var registry = map[scans.CheckCode]*Check{}

// define registers a check; a duplicate code is a programming error.
func define(c Check) *Check {
	if _, dup := registry[c.Code]; dup {
		panic("checks: duplicate code " + string(c.Code))
	}
	p := &c
	registry[c.Code] = p
	return p
}

// Lookup returns the check of a code.
func Lookup(code scans.CheckCode) (*Check, bool) {
	loadText()
	c, ok := registry[code]
	return c, ok
}

// All returns every check, ordered by code.
func All() []*Check {
	loadText()
	out := make([]*Check, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Check) int {
		switch {
		case a.Code < b.Code:
			return -1
		case a.Code > b.Code:
			return 1
		}
		return 0
	})
	return out
}

// Emitter is implemented by every tool: the checks its findings can carry.
// A test asserts each is in the catalogue and each finding a tool reports
// in its tests carries one of them.
type Emitter interface {
	Checks() []*Check
}

// Codes returns the codes of cs.
func Codes(cs ...*Check) []scans.CheckCode {
	out := make([]scans.CheckCode, len(cs))
	for i, c := range cs {
		out[i] = c.Code
	}
	return out
}

// maxMergedEvidence bounds the evidence of a merged finding, in bytes; each
// sighting gets an equal share, at least minMergedPart.
const (
	maxMergedEvidence = 4000
	minMergedPart     = 400
)

// Merge folds the findings of one tool call that are the same weakness at
// the same place (same check, host, port and CVE, so the same fingerprint)
// into one: the store keeps one finding per fingerprint, so without this
// the second sighting (another file, another product on the same port)
// would be dropped. The merged finding has the wording, severity and
// confidence of the most severe of them (the first among equals) and every
// evidence, each prefixed with its own title when the titles differ (the
// title then says how many more it stands for). Order is kept (by first
// sighting).
func Merge(fs []scans.Finding) []scans.Finding {
	groups := sameWeakness(fs)
	if len(groups) == len(fs) {
		return fs
	}
	out := make([]scans.Finding, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.merged(fs))
	}
	return out
}

// sighting is one weakness at one place: the findings of it (indexes,
// in order), the most severe one, and whether their titles differ.
type sighting struct {
	lead  int
	all   []int
	multi bool
}

// sameWeakness groups fs by fingerprint, in order of first sighting.
func sameWeakness(fs []scans.Finding) []*sighting {
	index := map[string]*sighting{}
	var order []*sighting
	for i, f := range fs {
		key := f.StableFingerprint()
		g, ok := index[key]
		if !ok {
			g = &sighting{lead: i}
			index[key] = g
			order = append(order, g)
		} else if f.Severity.Rank() < fs[g.lead].Severity.Rank() {
			g.lead = i
		}
		if len(g.all) > 0 && fs[g.all[0]].Title != f.Title {
			g.multi = true
		}
		g.all = append(g.all, i)
	}
	return order
}

// merged is the one finding of g: its lead with every evidence.
func (g *sighting) merged(fs []scans.Finding) scans.Finding {
	f := fs[g.lead]
	if len(g.all) == 1 {
		return f
	}
	parts := make([]string, 0, len(g.all))
	share := max(maxMergedEvidence/len(g.all), minMergedPart)
	for _, i := range g.all {
		e := cut(fs[i].Evidence, share)
		if g.multi {
			e = fs[i].Title + ": " + e
		}
		if !slices.Contains(parts, e) {
			parts = append(parts, e)
		}
	}
	f.Evidence = cut(strings.Join(parts, " | "), maxMergedEvidence)
	if g.multi {
		f.Title += fmt.Sprintf(" (and %d more)", len(g.all)-1)
	}
	return f
}

// cut shortens s to at most n bytes on a rune boundary, marked with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

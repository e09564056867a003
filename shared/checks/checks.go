// Package checks is the one catalogue of every weakness a tool can report
// (CONTRACT "Checks and issues"): its stable code, title, category, default
// severity with the reason for it, CWE, description, remediation and
// references. A finding's identity is its check code, never its title: tools
// build findings from a catalogue entry (Check.Finding), the summary, attack
// chains, reports, SARIF rules and the issue ledger key on the code.
package checks

import (
	"slices"

	"secscan/shared/scans"
)

// Check is one kind of weakness.
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

// registry is every check by code, filled by the catalogue files' init-free
// variable declarations through define.
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
	c, ok := registry[code]
	return c, ok
}

// All returns every check, ordered by code.
func All() []*Check {
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

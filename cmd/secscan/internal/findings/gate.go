// Package findings turns a scan's findings into what CI reads: the quality
// gate (severity threshold, confidence floor, baseline of known findings),
// SARIF 2.1.0 for GitHub code scanning, JUnit XML for GitLab and Jenkins,
// and a table and Markdown for people. Everything a target supplied
// (titles, hosts, evidence) is treated as untrusted text: control
// characters are removed before it reaches a terminal, and Markdown and XML
// escape it.
package findings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"secscan/cmd/secscan/internal/client"
	"secscan/shared/scans"
)

// Gate is the quality gate of a CI run.
type Gate struct {
	// FailOn is the lowest severity that fails the gate ("" = never fails).
	FailOn string
	// MinConfidence ignores findings less certain than this ("" = all count).
	MinConfidence string
	// Baseline holds the fingerprints of known findings (nil = no baseline):
	// only findings absent from it can fail the gate.
	Baseline map[string]bool
	// Triaged holds the keys of the scan's issues that its target's triage
	// takes out of the gate (WithTriage): false positives and unexpired
	// accepted risks. IncludeTriaged counts them all the same.
	Triaged        map[string]bool
	IncludeTriaged bool
}

// Validate checks the gate's values, naming the flag at fault.
func (g Gate) Validate() error {
	if g.FailOn != "" && !slices.Contains(scans.Severities[:4], scans.Severity(g.FailOn)) {
		return fmt.Errorf("--fail-on must be critical, high, medium or low, not %q", g.FailOn)
	}
	if g.MinConfidence != "" && !slices.Contains(scans.Confidences, scans.Confidence(g.MinConfidence)) {
		return fmt.Errorf("--min-confidence must be certain, firm or tentative, not %q", g.MinConfidence)
	}
	return nil
}

// IsNew says whether f is absent from the baseline (always, without one):
// matched by its fingerprint, else by the fingerprint the service gave it
// before check codes (scans.Finding.LegacyFingerprint), so a baseline saved before the
// upgrade still knows it.
func (g Gate) IsNew(f client.Finding) bool {
	if g.Baseline == nil {
		return true
	}
	if f.Fingerprint != "" && g.Baseline[f.Fingerprint] {
		return false
	}
	return !g.Baseline[f.LegacyFingerprint()]
}

// NewCount is how many of an issue's findings are new (all, without a
// baseline).
func (g Gate) NewCount(is IssueGroup) int {
	n := 0
	for _, f := range is.Findings {
		if g.IsNew(f) {
			n++
		}
	}
	return n
}

// IssueFails says whether one of the issue's findings fails the gate (the
// gate counts findings; an issue fails with any of them).
func (g Gate) IssueFails(is IssueGroup) bool {
	return slices.ContainsFunc(is.Findings, g.Fails)
}

// Counts says whether the gate considers f at all: not triaged away,
// confident enough and new relative to the baseline.
func (g Gate) Counts(f client.Finding) bool {
	if g.IsTriaged(f) {
		return false
	}
	if g.MinConfidence != "" && f.Confidence.Rank() > scans.Confidence(g.MinConfidence).Rank() {
		return false
	}
	return g.IsNew(f)
}

// Fails says whether f on its own fails the gate.
func (g Gate) Fails(f client.Finding) bool {
	return g.FailOn != "" && g.Counts(f) && f.Severity.Rank() <= scans.Severity(g.FailOn).Rank()
}

// Failures are the findings that fail the gate, in the given order.
func (g Gate) Failures(fs []client.Finding) []client.Finding {
	var out []client.Finding
	for _, f := range fs {
		if g.Fails(f) {
			out = append(out, f)
		}
	}
	return out
}

// maxBaselineFindings bounds what a baseline file may list.
const maxBaselineFindings = 100_000

// ParseBaseline reads the fingerprints of a baseline file: the JSON of
// `secscan findings --format json` (an array of findings), of
// `secscan scans show --json` or `secscan scan --wait --json` (a scan
// record), or a SARIF log written by secscan (the findings' fingerprints of
// each result: properties.fingerprints, or before issues the
// partialFingerprints of one finding per result).
func ParseBaseline(raw []byte) (map[string]bool, error) {
	fps, err := baselineFingerprints(bytes.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, fp := range fps {
		if fp == "" {
			continue
		}
		if len(set) >= maxBaselineFindings {
			return nil, fmt.Errorf("more than %d findings", maxBaselineFindings)
		}
		set[fp] = true
	}
	return set, nil
}

// baselineFingerprints are the fingerprints a baseline file lists, in
// order, empty ones included.
func baselineFingerprints(raw []byte) ([]string, error) {
	if len(raw) > 0 && raw[0] == '[' {
		var fs []client.Finding
		if err := json.Unmarshal(raw, &fs); err != nil {
			return nil, fmt.Errorf("not a JSON array of findings: %w", err)
		}
		return findingFingerprints(fs), nil
	}
	var doc struct {
		Findings *[]client.Finding `json:"findings"`
		Runs     []baselineRun     `json:"runs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	switch {
	case doc.Findings != nil:
		return findingFingerprints(*doc.Findings), nil
	case doc.Runs != nil:
		var fps []string
		for _, run := range doc.Runs {
			for _, r := range run.Results {
				fps = append(fps, r.PartialFingerprints[FingerprintKey])
				fps = append(fps, r.Properties.Fingerprints...)
			}
		}
		return fps, nil
	}
	return nil, fmt.Errorf("neither findings (secscan findings --format json), a scan record nor a SARIF log")
}

// baselineRun is what a baseline reads of a SARIF run: its results'
// fingerprints.
type baselineRun struct {
	Results []struct {
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          struct {
			Fingerprints []string `json:"fingerprints"`
		} `json:"properties"`
	} `json:"results"`
}

func findingFingerprints(fs []client.Finding) []string {
	fps := make([]string, 0, len(fs))
	for _, f := range fs {
		fps = append(fps, f.Fingerprint)
	}
	return fps
}

// Fingerprints is the baseline of a scan's findings.
func Fingerprints(fs []client.Finding) map[string]bool {
	set := make(map[string]bool, len(fs))
	for _, f := range fs {
		set[f.Fingerprint] = true
	}
	return set
}

// Location is where a finding lives: the URL a web check fetched when its
// evidence names one on the finding's host, else host:port (or the host).
func Location(f client.Finding) string {
	if u := evidenceURL(f); u != "" {
		return u
	}
	if f.Port != nil {
		return fmt.Sprintf("%s:%d", f.Host, *f.Port)
	}
	return f.Host
}

// evidenceURL is the first http(s) URL in the evidence whose host is the
// finding's host, cut at the first space, quote or query.
func evidenceURL(f client.Finding) string {
	ev := f.Evidence
	for range 20 {
		i := strings.Index(ev, "http")
		if i < 0 {
			return ""
		}
		ev = ev[i:]
		end := strings.IndexAny(ev, " \t\r\n\"'<>,;)?#")
		cand := ev
		if end >= 0 {
			cand = ev[:end]
		}
		for _, scheme := range []string{"https://", "http://"} {
			if rest, ok := strings.CutPrefix(cand, scheme); ok {
				host := rest
				if j := strings.IndexAny(host, "/:"); j >= 0 {
					host = host[:j]
				}
				if strings.EqualFold(host, f.Host) {
					return Clean(cand)
				}
			}
		}
		ev = ev[4:]
	}
	return ""
}

// Clean removes control characters but newlines (terminal escapes included,
// and bidirectional overrides) from text a target supplied, so that printing
// it cannot drive the terminal or disguise what it says.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r == '\n':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\u2028', r == '\u2029',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return -1
		}
		return r
	}, s)
}

// CleanLine is Clean with newlines turned into spaces and a length cap.
func CleanLine(s string, max int) string {
	s = Clean(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	if r := []rune(s); max > 0 && len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

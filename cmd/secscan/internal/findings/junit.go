package findings

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"secscan/cmd/secscan/internal/client"
)

// JUnit XML as GitLab, Jenkins and most CI systems read it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// DefaultJUnitGate is the threshold JUnit uses when no --fail-on is given,
// so the test report still shows every finding above info as a failure.
const DefaultJUnitGate = "low"

// WriteJUnit writes one test case per issue; an issue fails when one of its
// findings fails the gate (the --fail-on threshold, or low when none is
// set), and its failure lists those findings with their evidence.
func WriteJUnit(w io.Writer, m Meta, fs []client.Finding, g Gate) error {
	if g.FailOn == "" {
		g.FailOn = DefaultJUnitGate
	}
	suite := junitSuite{Name: "secscan", Cases: []junitCase{}}
	if m.Scan.Target != "" {
		suite.Name = "secscan " + m.Scan.Target
		suite.Properties = []junitProperty{{"scan_id", m.Scan.ID}, {"target", m.Scan.Target},
			{"scan_type", m.Scan.ScanType}, {"tier", m.Scan.Tier}, {"status", m.Scan.Status}}
		if m.Scan.FinishedAt != nil {
			suite.Timestamp = m.Scan.FinishedAt.UTC().Format("2006-01-02T15:04:05")
		}
	}
	for _, is := range Group(m.Scan.Issues, fs) {
		tc := junitCaseOf(is, g)
		if tc.Failure != nil {
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: suite.Name, Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitCaseOf is the test case of one issue: failed by its findings that
// fail the gate (listed with their evidence), the others in its output
// with why they pass.
func junitCaseOf(is IssueGroup, g Gate) junitCase {
	var failing, passing []client.Finding
	for _, f := range is.Findings {
		if g.Fails(f) {
			failing = append(failing, f)
		} else {
			passing = append(passing, f)
		}
	}
	n := is.count()
	tc := junitCase{Name: fmt.Sprintf("%s: %s (%d finding%s)", CleanLine(is.Key, 200), CleanLine(is.Title, 200), n,
		map[bool]string{true: "", false: "s"}[n == 1]), ClassName: "secscan." + string(is.Category)}
	if len(failing) > 0 {
		var text strings.Builder
		for _, f := range failing {
			fmt.Fprintf(&text, "%s (%s, %s confidence) at %s\n  evidence: %s\n  fingerprint: %s\n",
				CleanLine(f.Title, 200), f.Severity, f.Confidence, CleanLine(Location(f), 200), CleanLine(f.Evidence, 2000), f.Fingerprint)
		}
		fmt.Fprintf(&text, "remediation: %s\n", CleanLine(is.Remediation, 2000))
		tc.Failure = &junitFailure{Type: string(failing[0].Severity), Text: text.String(),
			Message: fmt.Sprintf("%d finding(s) at or above %s", len(failing), g.FailOn)}
	}
	if len(passing) > 0 {
		var out strings.Builder
		for _, f := range passing {
			fmt.Fprintf(&out, "%s (%s, %s confidence) at %s: %s\n", CleanLine(f.Title, 200), f.Severity, f.Confidence, CleanLine(Location(f), 200), passReason(is, f, g))
		}
		tc.SystemOut = out.String()
	}
	return tc
}

// passReason says why a finding of an issue passes the gate.
func passReason(is IssueGroup, f client.Finding, g Gate) string {
	switch {
	case g.IsTriaged(f) && is.Triage != nil:
		return "triaged " + is.Triage.State + ": " + CleanLine(is.Triage.Reason, 500)
	case !g.IsNew(f):
		return "known in the baseline"
	case !g.Counts(f):
		return "below the confidence floor"
	}
	return "below the gate"
}

package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"secscan/shared/lazyre"
	"secscan/shared/scans"
)

// Verification is how the account holder proved control of the target
// (CONTRACT "Targets"): the method and the last successful check.
type Verification struct {
	Method     string    // dns_txt or http_file
	VerifiedAt time.Time // zero when not on record
}

// Scope is the scope and authorisation statement: what was authorised, how
// it was proven, what was tested and what was left out, and when.
type Scope struct {
	Target string
	// Ownership says how control was proven and when, in one sentence.
	Ownership string
	Tested    []string // hosts the scan tested
	NotTested []string // "host — why", hosts discovered but not tested
	Window    string   // the scan's start and end
	Tier      string
	Budget    string // credits used of the budget
}

// Confidentiality is the marking every page of the PDF and HTML carries.
func Confidentiality(target string) string {
	return "Confidential — prepared for the account holder of " + textOneLine(target)
}

// methodNames are the verification methods (CONTRACT "Targets") in words.
var methodNames = map[string]string{
	"dns_txt":   "a DNS TXT record",
	"http_file": "a file served at /.well-known/service-challenge.txt",
}

func buildScope(r Report, v *Verification) Scope {
	s := r.Scan
	sc := Scope{
		Target:    s.Target,
		Ownership: ownershipSentence(s.Target, v),
		Tier:      showWord(string(s.Tier)),
		Budget:    strconv.Itoa(s.CreditsUsed) + " of " + strconv.Itoa(s.MaxCredits) + " credits used",
		Window:    showTime(s.StartedAt) + " to " + showTime(s.FinishedAt) + showRan(s.StartedAt, s.FinishedAt),
	}
	sc.Tested, sc.NotTested = scopeHosts(r)
	return sc
}

// ownershipSentence says how control of target was proven and when.
func ownershipSentence(target string, v *Verification) string {
	if v == nil {
		return "Ownership of " + target + " was verified before the scan started (the verification record is no longer on file)."
	}
	how := methodNames[v.Method]
	if how == "" {
		how = "the " + textOneLine(v.Method) + " method"
	}
	s := "The account holder proved control of " + target + " with " + how
	if !v.VerifiedAt.IsZero() {
		s += "; last verified successfully " + showTime(v.VerifiedAt)
	}
	return s + "."
}

// scopeHosts are the hosts the scan tested (those of its surface, services
// and findings; the target itself when there are none) and, as "host — why",
// those it discovered but left untested, each sorted.
func scopeHosts(r Report) (tested, notTested []string) {
	skipped := map[string]bool{}
	for _, h := range r.Surface.Hosts {
		if h.NotScanned != "" {
			skipped[h.Name] = true
			notTested = append(notTested, h.Name+" — "+h.NotScanned)
		}
	}
	seen := map[string]bool{}
	for _, h := range testedCandidates(r) {
		if h != "" && !skipped[h] && !seen[h] {
			seen[h] = true
			tested = append(tested, h)
		}
	}
	if len(seen) == 0 && r.Scan.Target != "" {
		tested = append(tested, r.Scan.Target)
	}
	slices.Sort(tested)
	slices.Sort(notTested)
	return tested, notTested
}

// testedCandidates are the host names the report's surface, steps and
// findings name, with repeats and blanks.
func testedCandidates(r Report) []string {
	var hosts []string
	for _, h := range r.Surface.Hosts {
		hosts = append(hosts, h.Name)
	}
	for _, st := range r.Steps {
		for _, sv := range st.Services {
			hosts = append(hosts, sv.Host)
		}
	}
	for _, f := range r.Findings {
		hosts = append(hosts, f.Host)
	}
	return hosts
}

// Action is one line of the remediation plan: a distinct thing to do, and
// the findings it resolves.
type Action struct {
	Text     string
	Severity scans.Severity // of the most severe finding it resolves
	Findings []int          // 1-based positions in Report.Findings
	Issues   []int          // 1-based numbers of their issues, distinct, in order
	Where    []string       // host:port the findings are on, in order
	// MoreWhere counts the further places beyond Where.
	MoreWhere int
}

// Resolves is "resolves 10 findings on a:8080, b:443".
func (a Action) Resolves() string {
	n := "1 finding"
	if len(a.Findings) != 1 {
		n = strconv.Itoa(len(a.Findings)) + " findings"
	}
	s := "resolves " + n
	switch {
	case len(a.Where) > 0 && a.MoreWhere > 0:
		s += " on " + strings.Join(a.Where, ", ") + " and " + strconv.Itoa(a.MoreWhere) + " more"
	case len(a.Where) > 0:
		s += " on " + strings.Join(a.Where, ", ")
	}
	return s
}

var (
	// "Upgrade Apache HTTP Server to 2.4.51 or later (…)", "Upgrade jQuery to …"
	reUpgradeTo = lazyre.New(`^Upgrade (.{1,80}?) to `)
	// "Upgrade to a supported Apache HTTP Server release (…)"
	reUpgradeSupported = lazyre.New(`^Upgrade to a supported (.{1,80}?) release`)
	reFixedVersion     = lazyre.New(`\b(\d+(?:\.\d+){1,3}) or later\b`)
)

// maxActions bounds the plan; findings beyond it are still in the tables.
// maxWhere is how many places an action names before "and N more".
const (
	maxActions = 200
	maxWhere   = 3
)

// buildPlan derives the remediation plan: findings (already in the one
// order) grouped by what fixes them, so ten CVEs of one component are one
// upgrade. An upgrade's target is the highest fixed release among the
// findings it resolves. Findings without a remediation are left out.
func buildPlan(findings []scans.Finding, issueOf []int) []Action {
	var order []*planAction
	byKey := map[string]*planAction{}
	for i, f := range findings {
		rem := strings.TrimSpace(textOneLine(f.Remediation))
		if rem == "" {
			continue
		}
		key, product := planKey(f, rem)
		a := byKey[key]
		if a == nil {
			if len(order) >= maxActions {
				continue
			}
			a = &planAction{product: product, where: map[string]bool{}}
			a.Severity = f.Severity
			a.Text = firstSentence(rem)
			byKey[key] = a
			order = append(order, a)
		}
		a.add(i, f, rem, issueOf)
	}
	out := make([]Action, 0, len(order))
	for _, a := range order {
		out = append(out, a.action())
	}
	return out
}

// planAction is an action of the plan while findings join it.
type planAction struct {
	Action
	product  string   // the product an upgrade is of, "" for other actions
	versions []string // the fixed releases the findings name
	where    map[string]bool
}

// add joins the i-th finding, whose remediation is rem, to the action.
func (a *planAction) add(i int, f scans.Finding, rem string, issueOf []int) {
	a.Findings = append(a.Findings, i+1)
	if i < len(issueOf) && issueOf[i] > 0 && !slices.Contains(a.Issues, issueOf[i]) {
		a.Issues = append(a.Issues, issueOf[i])
	}
	if m := reFixedVersion.FindStringSubmatch(rem); m != nil {
		a.versions = append(a.versions, m[1])
	}
	loc := showHostPort(f.Host, f.Port)
	if loc == "" || a.where[loc] {
		return
	}
	a.where[loc] = true
	if len(a.Where) < maxWhere {
		a.Where = append(a.Where, loc)
	} else {
		a.MoreWhere++
	}
}

// action is the finished action: an upgrade names its product and the
// highest fixed release its findings name.
func (a *planAction) action() Action {
	switch {
	case a.product == "":
	case len(a.versions) > 0:
		a.Text = "Upgrade " + a.product + " to " + slices.MaxFunc(a.versions, compareVersions) + " or later"
	default:
		a.Text = "Upgrade " + a.product + " to a supported release"
	}
	return a.Action
}

// planKey is what groups a finding into an action: its check (one fix per
// weakness, whatever its wording), except for known vulnerabilities and end
// of life, where the fix is an upgrade of the product the vuln tool names in
// its remediation ("Upgrade <product> to …"), so ten CVEs of one component are
// one upgrade. A finding recorded before check codes groups by its
// remediation's first sentence.
func planKey(f scans.Finding, rem string) (key, product string) {
	if f.Check != "" && !strings.HasPrefix(string(f.Check), "vuln.") {
		return "check " + string(f.Check), ""
	}
	if m := reUpgradeTo.FindStringSubmatch(rem); m != nil {
		product = m[1]
	} else if m := reUpgradeSupported.FindStringSubmatch(rem); m != nil {
		product = m[1]
	}
	if product != "" {
		return "upgrade " + strings.ToLower(product), product
	}
	return strings.ToLower(firstSentence(rem)), ""
}

// firstSentence is s up to the full stop that ends its first sentence (one
// followed by a space and a capital letter, outside parentheses, not "e.g."),
// without the stop: a remediation's first sentence names the action.
func firstSentence(s string) string {
	depth := 0
	for i := 0; i < len(s)-2; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case '.':
			if depth == 0 && endsSentence(s, i) {
				return s[:i]
			}
		}
	}
	return strings.TrimSuffix(s, ".")
}

// endsSentence tells whether the full stop at s[i] (i < len(s)-2) ends a
// sentence: followed by a space and a capital letter, and not that of "e.g."
// or "i.e.".
func endsSentence(s string, i int) bool {
	next := s[i+2]
	return s[i+1] == ' ' && next >= 'A' && next <= 'Z' &&
		!strings.HasSuffix(s[:i], "e.g") && !strings.HasSuffix(s[:i], "i.e")
}

// compareVersions compares dotted numeric versions.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// Numbers lists the issues the action resolves by their number in the
// report: "#1, #4 and 8 more" (at most 12 named).
func (a Action) Numbers() string {
	const shown = 12
	ns := a.Issues
	parts := make([]string, 0, min(len(ns), shown))
	for _, n := range ns[:min(len(ns), shown)] {
		parts = append(parts, "#"+strconv.Itoa(n))
	}
	s := "issue "
	if len(ns) != 1 {
		s = "issues "
	}
	s += strings.Join(parts, ", ")
	if len(ns) > shown {
		s += " and " + strconv.Itoa(len(ns)-shown) + " more"
	}
	return s
}

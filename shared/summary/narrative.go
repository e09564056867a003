package summary

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"secscan/shared/plans"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// narrative writes the summary text. Each situation (nothing found, only
// informational findings, low, medium, high, critical) has its own wording,
// so the text reads like an assessment rather than a form with blanks.
type narrative struct {
	domain   string
	scanType scans.Type
	tier     plans.Tier
	entries  []*entry // findings only (no service evidence), most important first
	chains   []chain
	cov      coverage
	partial  string
}

var scanTypePhrases = map[scans.Type]string{
	scans.Full:    "full scan",
	scans.Network: "network scan",
	scans.Web:     "web application scan",
	scans.Vuln:    "vulnerability scan",
	scans.SSL:     "TLS scan",
	scans.Code:    "code exposure scan",
}

func (n narrative) write() string {
	var issues []*entry
	for _, e := range n.entries {
		if e.rank < scans.Info.Rank() {
			issues = append(issues, e)
		}
	}
	// The narrative names findings in the report's one order (byImportance
	// is scans.CompareFindings); chains are told in their own sentence.
	var sentences []string
	switch {
	case len(n.entries) == 0:
		sentences = n.nothingFound()
	case len(issues) == 0:
		sentences = n.onlyInformational()
	default:
		sentences = n.issuesFound(issues)
	}
	kept := slices.DeleteFunc(sentences, func(s string) bool { return s == "" })
	return boundText(strings.Join(kept, " "), maxSummary)
}

// boundText keeps whole sentences up to max runes.
func boundText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := string([]rune(s)[:max])
	if i := strings.LastIndex(cut, ". "); i > 0 {
		return cut[:i+1]
	}
	return safetext.Line(s, max)
}

// scope names what was scanned: "The full scan of example.com (standard tier)".
func (n narrative) scope() string {
	what, ok := scanTypePhrases[n.scanType]
	if !ok {
		what = "scan"
	}
	target := n.domain
	if target == "" {
		target = "the target"
	}
	s := "The " + what + " of " + target
	switch n.tier {
	case plans.Quick, plans.Standard, plans.Deep:
		s += " (" + string(n.tier) + " tier)"
	}
	return s
}

func (n narrative) nothingFound() []string {
	out := []string{n.scope() + " found no security issues."}
	if n.cov.steps == 0 {
		out = append(out, "The audit trail records no checks, so this result says little about the target's security.")
	} else {
		out = append(out, n.coverageSentence(true))
	}
	out = append(out, n.partialSentence(true))
	out = append(out, "A clean result is not proof of security: the scan only reports what its checks can observe from outside, and "+n.deeperAdvice()+" may still find problems.")
	return out
}

func (n narrative) onlyInformational() []string {
	groups := topGroups(n.entries, 2)
	var first string
	if len(n.entries) == 1 {
		first = n.scope() + " found no vulnerabilities: its only finding, " + groups[0].phrase(false) + ", is informational and needs no action on its own."
	} else {
		var named []string
		for _, g := range groups {
			named = append(named, g.phrase(false))
		}
		if len(n.entries) == 2 {
			first = n.scope() + " found no vulnerabilities: both findings, " + joinAnd(named) +
				", are informational and need no urgent action."
		} else {
			first = n.scope() + " found no vulnerabilities: all " + plural(len(n.entries), "finding", "findings") +
				" are informational, such as " + joinAnd(named) + ", and need no urgent action."
		}
	}
	out := []string{first}
	if n.cov.steps > 0 {
		out = append(out, n.coverageSentence(true))
	}
	out = append(out, n.partialSentence(true))
	out = append(out, "That is not proof of security: the scan only reports what its checks can observe from outside, and "+n.deeperAdvice()+" may still find problems.")
	return out
}

func (n narrative) deeperAdvice() string {
	switch n.tier {
	case plans.Quick:
		return "a standard or deep scan, authenticated testing or a manual review"
	case plans.Standard:
		return "a deep scan, authenticated testing or a manual review"
	}
	return "authenticated testing or a manual review"
}

// opening is how the summary opens for the severity of the top issue: the
// verdict, the lead-in of the top issues, and the advice to fix the top one.
type opening struct {
	// one and many count the issues of the top severity in the verdict
	// ("a critical issue", "3 critical issues"); "" when it names no count.
	one, many string
	verdict   string // the verdict after the scope (and the count)
	lead      string // before the top issue
	then      string // before the others named
	fix       string // the advice, when there are other issues
	fixOnly   string // the advice, when it is the only issue
}

// openings are the openings by severity; openingLow for low and info.
var openings = map[scans.Severity]opening{
	scans.Critical: {one: "a critical issue", many: "critical issues",
		verdict: ", so the overall risk is critical and the first fix should not wait.",
		lead:    "The most serious is ", then: ", followed by ",
		fix: "Fix it first, today if possible, because ", fixOnly: "Fix it today if possible, because "},
	scans.High: {one: "a high-severity issue", many: "high-severity issues",
		verdict: ", so the overall risk is high: there are realistic ways in that should be closed within days.",
		lead:    "The most pressing is ", then: ", followed by ",
		fix: "Fix it first, because ", fixOnly: "Fix it promptly, because "},
	scans.Medium: {verdict: " found weaknesses but nothing rated high or critical, so the overall risk is medium.",
		lead: "The most important is ", then: ", then ",
		fix: "Start there, because ", fixOnly: "It is worth fixing soon, because "},
}

var openingLow = opening{verdict: " turned up only low-severity issues, so the overall risk is low.",
	lead: "The most notable is ", then: ", along with ",
	fix: "None of it is urgent, but that one is worth fixing first, because ", fixOnly: "It is not urgent, but worth fixing, because "}

// verdictOf is the opening sentence, worst counting the issues of the top severity.
func (o opening) verdictOf(scope string, worst int) string {
	if o.one == "" {
		return scope + o.verdict
	}
	return scope + " found " + countOr(worst, o.one, o.many) + o.verdict
}

func (n narrative) issuesFound(issues []*entry) []string {
	top := issues[0]
	worst := countSeverity(issues, top.sev)
	o, ok := openings[top.sev]
	if !ok {
		o = openingLow
	}
	lead, fix := o.lead, o.fix
	if len(issues) == 1 {
		lead, fix = "The only issue is ", o.fixOnly
	}
	out := []string{o.verdictOf(n.scope(), worst), topIssues(lead, o.then, topGroups(issues, 3)) + "."}
	why, viaChain := n.why(top)
	out = append(out, fix+why+".")
	if r := remediationFor(top, issues); r != "" {
		out = append(out, capitalize(firstSentence(r, maxRemediation)))
	}
	out = append(out, n.chainSentence(viaChain))
	out = append(out, countsSentence(n.entries))
	if n.cov.steps > 0 {
		out = append(out, n.coverageSentence(false))
	}
	out = append(out, n.partialSentence(false))
	return out
}

// countSeverity is how many entries have severity sev.
func countSeverity(entries []*entry, sev scans.Severity) int {
	n := 0
	for _, e := range entries {
		if e.sev == sev {
			n++
		}
	}
	return n
}

// topIssues names the top groups of issues: the first after lead, the
// others after then.
func topIssues(lead, then string, groups []group) string {
	var named []string
	for _, g := range groups {
		named = append(named, g.phrase(true))
	}
	s := lead + named[0]
	if len(named) > 1 {
		s += then + joinAnd(named[1:])
	}
	return s
}

// countOr writes "a critical issue" for one and "3 critical issues" for more.
func countOr(k int, one, many string) string {
	if k == 1 {
		return one
	}
	return strconv.Itoa(k) + " " + many
}

// remediationFor is the top finding's remediation, or that of another
// finding with the same title (tools often write it once per check).
func remediationFor(top *entry, issues []*entry) string {
	if top.src.Remediation != "" {
		return top.src.Remediation
	}
	for _, e := range issues[:min(len(issues), 1000)] {
		if e.src.Remediation != "" && e.titleKey == top.titleKey {
			return e.src.Remediation
		}
	}
	return ""
}

// why explains why the top finding comes first; viaChain reports that the
// reason was the first attack chain.
func (n narrative) why(e *entry) (reason string, viaChain bool) {
	for i, c := range n.chains {
		if !slices.Contains(c.members, e) {
			continue
		}
		if partner := partnerOf(c, e); partner != nil {
			return "together with " + quote(partner.title) + " on " + partner.location() + " it opens a path to " + c.impact, i == 0
		}
		// A chain of one finding (an expired certificate, a dangling
		// CNAME): the finding's own reason says more than the chain's name.
		break
	}
	return n.reasonByKind(e), false
}

// partnerOf is a link of chain c to name with its member e: a finding of
// another title, preferably one on the same host; nil when there is none.
func partnerOf(c chain, e *entry) *entry {
	var partner *entry
	for _, m := range c.members {
		if otherFinding(m, e) && (partner == nil || m.host == e.host && partner.host != e.host) {
			partner = m
		}
	}
	return partner
}

// otherFinding reports whether m is a finding (not a service) of another
// title than e.
func otherFinding(m, e *entry) bool {
	return m != e && !m.synthetic && m.titleKey != e.titleKey
}

func (n narrative) reasonByKind(e *entry) string {
	for _, r := range kindReasons {
		if r.kind == 0 && e.cve != "" {
			return "it has a published vulnerability (" + e.cve + ") that attackers can look up as easily as you can"
		}
		if r.kind != 0 && e.is(r.kind) {
			return r.reason
		}
	}
	return severityReason(e.sev)
}

// severityReason says why the top finding matters when no kind of it
// does: its severity.
func severityReason(sev scans.Severity) string {
	switch sev {
	case scans.Critical, scans.High:
		return "it is the most severe finding of this scan"
	case scans.Medium:
		return "it is the most significant weakness found"
	}
	return "it is the most significant of the minor issues found"
}

// kindReasons say why a finding of a kind matters, the first that applies;
// the entry without a kind stands for a finding with a CVE.
var kindReasons = []struct {
	kind   kind
	reason string
}{
	{kindBackdoor, "that release is known to contain a backdoor"},
	{kindSecret, "a leaked credential stays usable by anyone who saw it until it is rotated"},
	{kindRepoExposed, "anyone can download the site's source code and history from it"},
	{kindNoAuth, "it answers anyone without asking for credentials"},
	{kindDatabase, "the database accepts connections from the whole internet"},
	{kindDanglingCNAME, "whoever claims the dangling resource can publish content under your name"},
	{kindCORSCredentials, "other websites can read your users' data with their own sessions"},
	{kindBadCertificate, "every visitor sees a browser warning and learns to click through it"},
	{kindCleartextLogin, "logins cross the network in cleartext"},
	{kindVulnerableJS, "the library has known cross-site scripting flaws"},
	{0, ""}, // a published CVE
	{kindOutdated, "outdated software carries known, published vulnerabilities"},
	{kindSPFMissing | kindSPFWeak | kindDMARC, "anyone can send mail in your domain's name"},
	{kindOpenRedirect, "your own links can be used to send people to phishing pages"},
	{kindNoHSTS | kindNoHTTPSRedirect | kindInsecureCookie, "visitors can be kept on plain HTTP, where their traffic can be read and changed"},
	{kindNoCSP, "nothing limits what injected script could do"},
}

// chainSentence points to the attack chains; named says the first one was
// already mentioned as the reason to fix the top finding.
func (n narrative) chainSentence(named bool) string {
	switch {
	case len(n.chains) == 0:
		return ""
	case len(n.chains) == 1 && named:
		return "The attack chain spells that path out step by step."
	case len(n.chains) == 1:
		return "The findings also line up into an attack path leading to " + n.chains[0].impact + ", set out in the attack chains."
	case named:
		var others []string
		for _, c := range n.chains[1:] {
			others = append(others, c.impact)
		}
		return "In all the findings line up into " + plural(len(n.chains), "attack path", "attack paths") +
			"; the others lead to " + joinAnd(others) + "."
	}
	return "The findings also line up into " + plural(len(n.chains), "attack path", "attack paths") +
		", the most serious leading to " + n.chains[0].impact + "; they are set out in the attack chains."
}

var severityWords = map[scans.Severity]string{
	scans.Critical: "critical", scans.High: "high", scans.Medium: "medium", scans.Low: "low", scans.Info: "informational",
}

// countsSentence phrases the counts by severity, naming only the
// severities that occur.
func countsSentence(entries []*entry) string {
	if len(entries) < 2 {
		return ""
	}
	parts := severityCounts(entries)
	if len(parts) == 1 && len(entries) == 2 {
		return "Both findings are rated " + severityWords[entries[0].sev] + "."
	}
	if len(parts) == 1 {
		return "All " + plural(len(entries), "finding", "findings") + " are rated " + severityWords[entries[0].sev] + "."
	}
	return "Altogether the scan recorded " + plural(len(entries), "finding", "findings") + ": " + joinAnd(parts) + "."
}

// severityCounts are "<n> <severity>" for each severity that occurs, most
// severe first.
func severityCounts(entries []*entry) []string {
	counts := map[scans.Severity]int{}
	for _, e := range entries {
		counts[e.sev]++
	}
	var parts []string
	for _, s := range scans.Severities {
		if counts[s] > 0 {
			parts = append(parts, strconv.Itoa(counts[s])+" "+severityWords[s])
		}
	}
	return parts
}

// coverageSentence says what the audit trail shows was done; listTools adds
// the tools by name (for results without issues, where coverage is the point).
func (n narrative) coverageSentence(listTools bool) string {
	c := n.cov
	s := toolsRun(c, listTools)
	if c.hosts > 0 {
		s += " across " + plural(c.hosts, "host", "hosts")
	}
	if c.services > 0 {
		s += " and found " + plural(c.services, "listening service", "listening services")
	}
	return s + "."
}

// toolsRun begins the coverage sentence: the tools run (by name when
// listTools, the first six) and the steps, or the steps alone.
func toolsRun(c coverage, listTools bool) string {
	if len(c.tools) == 0 {
		return "It took " + plural(c.steps, "step", "steps")
	}
	s := "It ran " + plural(len(c.tools), "tool", "tools")
	if listTools {
		s += " (" + toolNames(c.tools) + ")"
	}
	if c.steps != len(c.tools) {
		s += " in " + plural(c.steps, "step", "steps")
	}
	return s
}

// toolNames names the first six tools, and how many others there are.
func toolNames(tools []string) string {
	names := tools[:min(len(tools), 6)]
	if rest := len(tools) - len(names); rest > 0 {
		names = append(slices.Clip(names), plural(rest, "other", "others"))
	}
	return joinAnd(names)
}

// partialSentence notes cut-short coverage and steps that did not complete.
func (n narrative) partialSentence(clean bool) string {
	incomplete := incompleteSteps(n.cov)
	consequence := ", so parts of the target went unchecked and the real picture may be worse."
	if clean {
		consequence = ", so this result only speaks for the parts that were checked."
	}
	reason := decapitalize(strings.TrimRight(n.partial, ".;: "))
	switch {
	case reason != "" && incomplete != "":
		return "Coverage was cut short (" + reason + ") and " + incomplete + consequence
	case reason != "":
		return "Coverage was cut short (" + reason + ")" + consequence
	case incomplete != "" && clean:
		return "Not every check ran to completion: " + incomplete + consequence
	case incomplete != "":
		return "Not every check ran to completion: " + incomplete + ", so coverage is narrower than planned."
	}
	return ""
}

// incompleteSteps says how many steps were refused, failed or timed out
// ("" when none).
func incompleteSteps(c coverage) string {
	switch {
	case c.incomplete == 0:
		return ""
	case c.steps == 1:
		return "the only step was refused, failed or timed out"
	case c.incomplete == 1:
		return "1 of the " + plural(c.steps, "step", "steps") + " was refused, failed or timed out"
	}
	return strconv.Itoa(c.incomplete) + " of the " + plural(c.steps, "step", "steps") + " were refused, failed or timed out"
}

// group is one issue title with the places it was found.
type group struct {
	title string
	sev   scans.Severity
	locs  []string
	more  int
	seen  map[string]bool
}

// phrase names the group: “Title” (high) on host:port and host2.
func (g group) phrase(withSeverity bool) string {
	s := quote(g.title)
	if withSeverity {
		s += " (" + string(g.sev) + ")"
	}
	locs := g.locs
	if g.more > 0 {
		locs = append(slices.Clip(locs), plural(g.more, "other location", "other locations"))
	}
	return s + " on " + joinAnd(locs)
}

// topGroups returns the first limit distinct titles of sorted entries, each
// with up to two locations and a count of the rest.
func topGroups(sorted []*entry, limit int) []group {
	var groups []group
	at := map[string]int{}
	for _, e := range sorted {
		key := e.titleKey
		i, ok := at[key]
		if !ok {
			if len(groups) == limit {
				continue
			}
			i = len(groups)
			at[key] = i
			groups = append(groups, group{title: e.title, sev: e.sev, seen: map[string]bool{}})
		}
		g := &groups[i]
		loc := e.location()
		if g.seen[loc] {
			continue
		}
		g.seen[loc] = true
		if len(g.locs) < 2 {
			g.locs = append(g.locs, loc)
		} else {
			g.more++
		}
	}
	return groups
}

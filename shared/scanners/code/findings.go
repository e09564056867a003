package code

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// maxListed bounds the further secrets and places one finding lists.
	maxListed = 3
	// maxHostsListed bounds the out-of-scope hosts the outcome names.
	maxHostsListed = 5
)

// group is one finding: a rule's secrets in one file, and the other places
// the same secrets were seen.
type group struct {
	rule     string
	file     *file
	first    sighting
	severity scans.Severity
	note     string
	secrets  [][32]byte
	// others are further secrets of the rule in the file; elsewhere the
	// same secrets in other files; unlisted counts both past maxListed.
	others, elsewhere []string
	unlisted          int
}

// groups merges the files' sightings, in the files' order, into one group
// per rule and file; a secret seen again in another file (a bundle and its
// source map) joins the group where it was first seen: it is one issue.
func (c *collector) groups() []*group {
	var out []*group
	byFile := map[string]*group{}
	bySecret := map[string]*group{}
	for _, f := range c.files {
		for _, s := range f.sightings {
			secretKey := s.rule + "\x00" + string(s.id[:])
			if g, ok := bySecret[secretKey]; ok {
				g.add(s, &g.elsewhere, fmt.Sprintf("%s line %d", s.where, s.line))
				continue
			}
			fileKey := s.rule + "\x00" + fileID(f)
			g, ok := byFile[fileKey]
			if !ok {
				g = &group{rule: s.rule, file: f, first: s, severity: s.severity, note: s.note}
				byFile[fileKey] = g
				out = append(out, g)
			} else {
				g.add(s, &g.others, fmt.Sprintf("%s on line %d", s.redacted, s.line))
			}
			g.secrets = append(g.secrets, s.id)
			bySecret[secretKey] = g
		}
	}
	slices.SortStableFunc(out, func(a, b *group) int { return cmp.Compare(a.severity.Rank(), b.severity.Rank()) })
	return out
}

// add records another sighting in a group: the more severe judgement wins
// (an AWS key seen with its secret in one of the places).
func (g *group) add(s sighting, list *[]string, entry string) {
	if s.severity.Rank() < g.severity.Rank() {
		g.severity = s.severity
		if s.pair != "" && g.first.pair == "" {
			g.first.pair, g.first.pairLine = s.pair, s.pairLine
		}
	}
	if len(*list) < maxListed {
		*list = append(*list, entry)
	} else {
		g.unlisted++
	}
}

// fileID identifies the file a finding is about; a page's inline scripts
// are apart from the page's other content.
func fileID(f *file) string {
	if f.kind == kindPage {
		return display(f.url) + " inline"
	}
	return display(f.url)
}

func (g *group) finding() scans.Finding {
	host, port := httpprobe.HostPort(g.file.url)
	name := ruleName(g.rule)
	where := "in " + httpprobe.Clean(g.file.url.EscapedPath(), 120)
	if g.file.kind == kindPage {
		where = "in an inline script of " + httpprobe.Clean(g.file.url.EscapedPath(), 120)
	}

	s := g.first
	description := fmt.Sprintf("%s %s. %s", exposure[g.file.kind], strings.TrimSuffix(s.description, "."), consequence(g))
	if g.note != "" {
		description += " " + g.note
	}
	f := checks.Secret.Finding(host, &port, httpprobe.Clean(g.evidence(), 1500))
	if g.file.resp != nil {
		f.Proof = g.file.resp.Proof(s.raw, g.file.secrets()...)
	}
	f.Title = fmt.Sprintf("%s exposed %s", name, where)
	f.Severity = g.severity
	f.Description = description
	f.Remediation = remediation(g)
	if g.rule == ruleAWSKey {
		f.References = append(f.References, "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html")
	}
	return f
}

// evidence places the group's first sighting (and its AWS pair) and lists
// the group's other places.
func (g *group) evidence() string {
	s := g.first
	evidence := fmt.Sprintf("%s line %d, column %d: %s (gitleaks rule %s: %s)", s.where, s.line, s.col, s.redacted, s.rule, s.description)
	if s.pair != "" {
		evidence += fmt.Sprintf(", with a secret access key %s on line %d", s.pair, s.pairLine)
	}
	if len(g.others) > 0 {
		evidence += "; also " + strings.Join(g.others, ", ")
	}
	if len(g.elsewhere) > 0 {
		evidence += "; the same secret also in " + strings.Join(g.elsewhere, ", ")
	}
	if g.unlisted > 0 {
		evidence += fmt.Sprintf(" (+%d more)", g.unlisted)
	}
	return evidence
}

// exposure says how the site hands out the file, by kind.
var exposure = map[fileKind]string{
	kindPage:   "An inline script of a public page contains a secret that gitleaks reports as:",
	kindScript: "A script the site serves to every visitor contains a secret that gitleaks reports as:",
	kindMap:    "A public source map ships the site's original source code, and a secret with it, that gitleaks reports as:",
	kindGit:    "The site serves its /.git/ directory, and the repository metadata contains a secret that gitleaks reports as:",
	kindConfig: "The site serves a configuration file to anyone who asks, and it contains a secret reported as:",
}

func consequence(g *group) string {
	switch {
	case g.severity == scans.Critical && g.rule == ruleAWSKey:
		return "An access key id with its secret access key is a working AWS credential: anyone who reads the file can call AWS with the key's permissions."
	case g.severity == scans.Low || g.rule == ruleGeneric:
		return "Anyone who loads the site can read the value."
	}
	return "Anyone who loads the site can read it and use it with the permissions it carries."
}

func remediation(g *group) string {
	name := strings.ToLower(ruleName(g.rule)[:1]) + ruleName(g.rule)[1:]
	var r string
	switch {
	case g.rule == ruleAWSKey:
		r = "Deactivate and delete the access key in IAM now (it has been public: assume it is compromised), review CloudTrail for its use, " +
			"and never ship AWS credentials to browsers: upload through presigned URLs or Cognito identity pools, and keep keys on servers."
	case g.severity == scans.Low:
		r = "Restrict the key in the provider's console (allowed sites, APIs and scopes) and rotate it if it was unrestricted."
	case g.rule == ruleGeneric:
		r = "Check what the value is: if it is a credential, revoke it, issue a new one and keep it on the server side; otherwise no action is needed."
	default:
		r = fmt.Sprintf("Revoke the %s now and issue a new one (it has been public: assume it is compromised), check the provider's logs for use you do not recognise, "+
			"and keep the new one on the server side: browser code cannot keep a secret.", name)
	}
	switch g.file.kind {
	case kindMap:
		r += " Stop deploying source maps with sourcesContent to production, and purge the published ones from caches and CDNs."
	case kindGit:
		r += " Deny access to /.git/ at the web server and deploy without the repository metadata."
	case kindConfig:
		r += " Deny access to the file at the web server and move it out of the document root."
	default:
		r += " Remove it from the code and the build, and purge the published files from caches and CDNs."
	}
	return r
}

// ruleNames are the names of common rules as a reader knows them; others
// are derived from the rule id.
var ruleNames = map[string]string{
	ruleAWSKey:                "AWS access key",
	ruleGeneric:               "Possible secret (generic API key pattern)",
	ruleJWT:                   "JSON Web Token",
	"gcp-api-key":             "Google API key",
	"github-pat":              "GitHub personal access token",
	"github-fine-grained-pat": "GitHub fine-grained personal access token",
	"github-oauth":            "GitHub OAuth token",
	"github-app-token":        "GitHub app token",
	"slack-webhook-url":       "Slack webhook URL",
	"stripe-access-token":     "Stripe secret key",
	"private-key":             "Private key",
	"openai-api-key":          "OpenAI API key",
	"npm-access-token":        "npm access token",
	ruleDatabaseURL:           "Database connection URL with password",
}

var acronyms = map[string]string{
	"aws": "AWS", "api": "API", "gcp": "GCP", "jwt": "JWT", "url": "URL", "id": "ID", "pat": "personal access token",
	"oauth": "OAuth", "cicd": "CI/CD", "ci": "CI", "sdk": "SDK", "tf": "Terraform", "pypi": "PyPI", "npm": "npm",
}

// ruleName is a rule's name for titles, e.g. "Slack webhook URL".
func ruleName(id string) string {
	if n, ok := ruleNames[id]; ok {
		return n
	}
	words := strings.Split(id, "-")
	for i, w := range words {
		if a, ok := acronyms[w]; ok {
			words[i] = a
		}
	}
	n := strings.Join(words, " ")
	if n == "" {
		return "Secret"
	}
	return strings.ToUpper(n[:1]) + n[1:]
}

func (c *collector) result() tools.Result {
	var findings []scans.Finding
	for _, g := range c.groups() {
		findings = append(findings, g.finding())
	}
	host, port := httpprobe.HostPort(c.home.URL)
	return tools.Result{
		Outcome:  c.outcome(len(findings)),
		Findings: findings,
		Services: []scans.Service{{Host: host, Port: port, Name: c.home.URL.Scheme,
			Banner: httpprobe.Clean(c.home.Header.Get("Server"), 120)}},
	}
}

// outcome summarises what was read, found, set aside and left out.
func (c *collector) outcome(reported int) string {
	t := c.tally()
	read := fmt.Sprintf("read %s: %d inline %s, %d %s, %d source %s (%d original %s)",
		display(c.home.URL), t.inline, plural(t.inline, "script", "scripts"), t.scripts, plural(t.scripts, "script", "scripts"),
		t.maps, plural(t.maps, "map", "maps"), t.sources, plural(t.sources, "source", "sources"))
	if len(t.git) > 0 {
		read += ", exposed /.git/ (" + strings.Join(t.git, ", ") + ")"
	}
	parts := []string{read + fmt.Sprintf("; %d KiB scanned", (t.bytesRead+1023)/1024)}
	if reported == 0 {
		parts = append(parts, "no secrets found")
	} else {
		parts = append(parts, fmt.Sprintf("%d %s reported (redacted)", reported, plural(reported, "secret finding", "secret findings")))
	}
	var set dropped
	for _, f := range c.files {
		set.add(f.dropped)
	}
	if set.placeholders+set.public+set.identifiers > 0 {
		parts = append(parts, fmt.Sprintf("set aside: %d placeholders, %d public identifiers or site keys, %d code references", set.placeholders, set.public, set.identifiers))
	}
	if hosts := compactHosts(c.outOfScope); hosts != "" {
		parts = append(parts, "outside the scope, not fetched: "+hosts)
	}
	parts = append(parts, c.leftOut(t)...)
	return httpprobe.Clean(strings.Join(parts, "; "), 1000)
}

// fileTally counts the files of a call by kind and by what stopped them.
type fileTally struct {
	scripts, maps, sources, inline, failed, limited, cut, truncated, bytesRead int
	git                                                                        []string // exposed /.git/ files read
}

func (c *collector) tally() fileTally {
	var t fileTally
	for _, f := range c.files {
		t.bytesRead += f.read
		t.failed += count(f.failed)
		t.limited += count(f.limited)
		t.cut += count(f.cut)
		t.truncated += count(f.truncated && f.valid)
		t.addContent(f)
	}
	return t
}

// addContent counts what f brought by its kind: the page's inline
// scripts, a valid script's or map's sources, a valid git file.
func (t *fileTally) addContent(f *file) {
	switch {
	case f.kind == kindPage:
		t.inline += f.inline
	case !f.valid:
	case f.kind == kindScript:
		t.scripts++
		t.sources += f.sources
	case f.kind == kindMap:
		t.maps++
		t.sources += f.sources
	case f.kind == kindGit:
		t.git = append(t.git, strings.TrimPrefix(f.url.Path, "/.git/"))
	}
}

// count is 1 for true.
func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// leftOut are the outcome's sentences on what was not read in full: cut at
// the size limit, over the script or file limits, failed, out of time.
func (c *collector) leftOut(t fileTally) []string {
	var parts []string
	if t.truncated > 0 {
		parts = append(parts, fmt.Sprintf("%d %s cut at the size limit (%d MiB per file, %d MiB per call)", t.truncated, plural(t.truncated, "file", "files"), maxFileBytes>>20, maxTotalBytes>>20))
	}
	if c.extra > 0 {
		parts = append(parts, fmt.Sprintf("%d more scripts not read (limit %d)", c.extra, maxScripts))
	}
	if t.limited > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not read (limit of %d files and %d MiB per call)", t.limited, plural(t.limited, "file", "files"), maxFiles, maxTotalBytes>>20))
	}
	if t.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d %s failed", t.failed, plural(t.failed, "request", "requests")))
	}
	if t.cut+c.notRun > 0 {
		parts = append(parts, fmt.Sprintf("time ran out: %d scans cut short, %d files not read", t.cut, c.notRun))
	}
	return parts
}

// compactHosts lists distinct hosts with their counts, at most
// maxHostsListed of them.
func compactHosts(hosts []string) string {
	counts := map[string]int{}
	var order []string
	for _, h := range hosts {
		if counts[h] == 0 {
			order = append(order, h)
		}
		counts[h]++
	}
	var out []string
	for i, h := range order {
		if i == maxHostsListed {
			out = append(out, fmt.Sprintf("and %d more hosts", len(order)-maxHostsListed))
			break
		}
		out = append(out, fmt.Sprintf("%s (%d)", httpprobe.Clean(h, 100), counts[h]))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

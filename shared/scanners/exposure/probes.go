package exposure

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/proof"
)

// probe is one sensitive path and how to recognise the real thing there.
// match sees a 200 body that is not the site's soft-404 page and returns
// the evidence line (secrets redacted) when the content is what the path
// promises; a catch-all page never matches, because every matcher looks
// for content specific to the file.
type probe struct {
	path  string
	title string // the finding's title: the check's, naming the path
	check *checks.Check
	match func(body []byte) (string, bool)
}

const sourceMapsPath = "*.js.map"

func vcsProbe(path, title string, check *checks.Check, match func([]byte) (string, bool)) probe {
	return probe{path: path, title: title, check: check, match: match}
}

func envProbe(path string) probe {
	return probe{path: path, title: "Exposed environment file (" + path + ")", check: checks.ExposedEnv, match: matchEnvFile}
}

func listingProbe(path string) probe {
	return probe{path: path, title: "Directory listing of " + path, check: checks.DirectoryListing, match: matchDirectoryListing}
}

func dumpProbe(path string) probe {
	return probe{path: path, title: "Exposed database dump (" + path + ")", check: checks.ExposedDatabaseDump, match: matchSQLDump}
}

func archiveProbe(path string) probe {
	return probe{path: path, title: "Exposed backup archive (" + path + ")", check: checks.ExposedBackupArchive, match: matchArchive}
}

func sourceBackupProbe(path string) probe {
	return probe{path: path, title: "Exposed PHP source backup (" + path + ")", check: checks.ExposedSourceBackup, match: matchPHPSource}
}

func phpinfoProbe(path string) probe {
	return probe{path: path, title: "phpinfo() page exposed (" + path + ")", check: checks.ExposedPHPInfo, match: matchPHPInfo}
}

// builtin is the list of paths the tool knows, in probe order.
var builtin = []probe{
	vcsProbe("/.git/HEAD", "Exposed Git repository (/.git/HEAD)", checks.ExposedGit, matchGitHEAD),
	vcsProbe("/.git/config", "Exposed Git configuration (/.git/config)", checks.ExposedGit, matchGitConfig),
	vcsProbe("/.svn/entries", "Exposed Subversion metadata (/.svn/entries)", checks.ExposedSVN, matchSVNEntries),
	vcsProbe("/.svn/wc.db", "Exposed Subversion database (/.svn/wc.db)", checks.ExposedSVN, matchPrefix("SQLite format 3\x00", "SQLite database (Subversion working copy)")),
	vcsProbe("/.hg/requires", "Exposed Mercurial repository (/.hg/requires)", checks.ExposedHg, matchHgRequires),
	envProbe("/.env"),
	envProbe("/.env.local"),
	envProbe("/.env.production"),
	{
		path: "/.aws/credentials", title: "Exposed AWS credentials file", check: checks.ExposedAWSCredentials,
		match: matchCredentialLine(awsKeyLine, " = "),
	},
	{
		path: "/.npmrc", title: "Exposed npm configuration with auth token (/.npmrc)", check: checks.ExposedNpmrc,
		match: matchCredentialLine(npmToken, "="),
	},
	{
		path: "/.htpasswd", title: "Exposed password file (/.htpasswd)", check: checks.ExposedHtpasswd,
		match: matchHtpasswd,
	},
	listingProbe("/backup/"),
	listingProbe("/backups/"),
	dumpProbe("/backup.sql"),
	dumpProbe("/dump.sql"),
	dumpProbe("/database.sql"),
	dumpProbe("/db.sql"),
	archiveProbe("/backup.zip"),
	archiveProbe("/backup.tar.gz"),
	sourceBackupProbe("/index.php.bak"),
	sourceBackupProbe("/config.php.bak"),
	sourceBackupProbe("/wp-config.php.bak"),
	{
		path: "/server-status", title: "Apache server-status page exposed", check: checks.ExposedServerStatus,
		match: matchContains("Apache Server Status for"),
	},
	{
		path: "/server-info", title: "Apache server-info page exposed", check: checks.ExposedServerInfo,
		match: matchContains("Apache Server Information"),
	},
	phpinfoProbe("/phpinfo.php"),
	phpinfoProbe("/info.php"),
	{
		path: "/debug", title: "Debug error page exposed (/debug)", check: checks.DebugMode,
		match: matchDebugPage,
	},
	{
		path: "/debug/pprof/", title: "Go pprof profiling endpoint exposed", check: checks.ExposedPprof,
		match: matchAny("Types of profiles available", "<title>/debug/pprof/</title>"),
	},
	{
		path: "/debug/vars", title: "Go expvar endpoint exposed", check: checks.ExposedExpvar,
		match: matchExpvar,
	},
	{
		path: "/actuator/env", title: "Spring Boot actuator env endpoint exposed", check: checks.ExposedActuatorEnv,
		match: matchActuatorEnv,
	},
	{
		path: "/.DS_Store", title: "Exposed .DS_Store file", check: checks.ExposedDSStore,
		match: matchPrefix("\x00\x00\x00\x01Bud1", "Finder .DS_Store (Bud1 signature)"),
	},
	{
		path: sourceMapsPath, title: "JavaScript source map exposed", check: checks.ExposedSourceMap,
	},
}

// builtinPaths lists the paths of builtin, for the schema and refusals.
func builtinPaths() []string {
	out := make([]string, len(builtin))
	for i, p := range builtin {
		out[i] = p.path
	}
	return out
}

// lines splits a body into at most maxLines lines without their line
// endings.
func lines(body []byte, maxLines int) []string {
	var out []string
	for line := range strings.SplitSeq(string(body), "\n") {
		if len(out) == maxLines {
			break
		}
		out = append(out, strings.TrimRight(line, "\r"))
	}
	return out
}

// looksLikeMarkup reports a body that starts like HTML or XML, which no
// dotfile, dump or config matched here does.
func looksLikeMarkup(body []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(body), []byte("<"))
}

var (
	gitRef      = lazyre.New(`^ref: refs/\S+$`)
	gitSHA      = lazyre.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	remoteURL   = lazyre.New(`^\s*url\s*=\s*(\S+)`)
	credInURL   = lazyre.New(`(://)[^/@\s]+@`)
	envLine     = lazyre.New(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$`)
	secretKey   = lazyre.New(`(?i)(secret|password|passwd|pwd|token|api_?key|access_?key|private|credential|auth|dsn|database_url)`)
	sqlLine     = lazyre.New(`^(?:(-- (?:MySQL dump|PostgreSQL database dump|phpMyAdmin SQL Dump|MariaDB dump)).*|(CREATE TABLE|INSERT INTO|DROP TABLE IF EXISTS|DROP TABLE)\s+([^\s(]{1,64}))`)
	phpDefine   = lazyre.New(`define\(\s*['"]([A-Za-z_][A-Za-z0-9_]{0,40})['"]`)
	phpinfoHTML = lazyre.New(`(?i)<title>[^<]{0,80}phpinfo\(\)[^<]{0,40}</title>`)
	phpVersion  = lazyre.New(`PHP Version \d+\.\d+\.\d+`)
	htpasswd    = lazyre.New(`^([^:\s]{1,64}):(\$apr1\$|\$2[aby]\$|\{SHA\}|\$1\$|\$5\$|\$6\$)(\S*)$`)
	listing     = lazyre.New(`(?i)<(?:title|h1)>\s*(Index of /[^<]{0,100})</`)
	awsKeyLine  = lazyre.New(`^\s*(aws_access_key_id|aws_secret_access_key|aws_session_token)\s*=\s*(\S+)`)
	npmToken    = lazyre.New(`^\s*(\S*_authToken)\s*=\s*(\S+)`)
)

// redact shows the first characters of a secret and its length, never
// enough to use it: at most 4 characters and at most a third of it.
func redact(v string) string { return proof.RedactValue(v) }

func matchGitHEAD(body []byte) (string, bool) {
	first := strings.TrimSpace(lines(body, 1)[0])
	if gitRef.MatchString(first) || gitSHA.MatchString(first) {
		return first, true
	}
	return "", false
}

func matchGitConfig(body []byte) (string, bool) {
	if looksLikeMarkup(body) {
		return "", false
	}
	core, remote := gitConfigLines(body)
	if !core {
		return "", false
	}
	if remote != "" {
		return "[core] section; remote url = " + remote, true
	}
	return "[core] section", true
}

// gitConfigLines reads the first lines of a git config: whether it has a
// [core] section, and its first remote URL, credentials redacted.
func gitConfigLines(body []byte) (core bool, remote string) {
	for _, l := range lines(body, 200) {
		if strings.TrimSpace(l) == "[core]" {
			core = true
		}
		if m := remoteURL.FindStringSubmatch(l); m != nil && remote == "" {
			remote = credInURL.ReplaceAllString(m[1], "${1}[credentials redacted]@")
		}
	}
	return core, remote
}

func matchSVNEntries(body []byte) (string, bool) {
	if bytes.Contains(body, []byte("<wc-entries")) {
		return "<wc-entries> (Subversion working copy, XML format)", true
	}
	ls := lines(body, 2)
	first := strings.TrimSpace(ls[0])
	if n, err := strconv.Atoi(first); err == nil && n >= 8 && n <= 12 && len(bytes.TrimSpace(body)) < 64<<10 {
		return first + " (Subversion entries format number)", true
	}
	return "", false
}

// hgRequirements are the tokens Mercurial writes into .hg/requires.
var hgRequirements = map[string]bool{
	"revlogv1": true, "store": true, "fncache": true, "dotencode": true, "generaldelta": true,
	"sparserevlog": true, "share-safe": true, "persistent-nodemap": true, "revlog-compression-zstd": true,
	"treemanifest": true, "shared": true, "relshared": true, "largefiles": true, "lfs": true,
}

func matchHgRequires(body []byte) (string, bool) {
	seen, ok := hgTokens(body)
	if !ok || len(seen) < 2 || (!slices.Contains(seen, "revlogv1") && !slices.Contains(seen, "store")) {
		return "", false
	}
	return strings.Join(seen, " "), true
}

// hgTokens are the requirement tokens on the first lines of body; ok is
// false when a line holds anything else.
func hgTokens(body []byte) (tokens []string, ok bool) {
	for _, l := range lines(body, 50) {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !hgRequirements[t] && !strings.HasPrefix(t, "exp-") {
			return nil, false
		}
		tokens = append(tokens, t)
	}
	return tokens, true
}

// matchEnvFile accepts a body whose meaningful lines are KEY=VALUE
// assignments (at least two, and at least four in five lines), and shows
// one assignment with its value redacted — a secret-looking key first.
func matchEnvFile(body []byte) (string, bool) {
	if looksLikeMarkup(body) || !utf8.Valid(body) {
		return "", false
	}
	evidence, total, assignments := envAssignments(body)
	if assignments < 2 || assignments*5 < total*4 {
		return "", false
	}
	return fmt.Sprintf("%s (%d variables in the file, values redacted)", evidence, assignments), true
}

// envAssignments counts the meaningful lines of body (not blank, not a
// comment) and the KEY=VALUE assignments among them, and shows one
// assignment with its value redacted: the first with a secret-looking key,
// else the first.
func envAssignments(body []byte) (evidence string, total, assignments int) {
	secret := false
	for _, l := range lines(body, 500) {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		total++
		m := envLine.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		assignments++
		if evidence == "" || (!secret && secretKey.MatchString(m[1])) {
			evidence = m[1] + "=" + redact(m[2])
			secret = secretKey.MatchString(m[1])
		}
	}
	return evidence, total, assignments
}

func matchDirectoryListing(body []byte) (string, bool) {
	if m := listing.FindSubmatch(body); m != nil {
		return strings.TrimSpace(string(m[1])), true
	}
	return "", false
}

func matchSQLDump(body []byte) (string, bool) {
	if looksLikeMarkup(body) {
		return "", false
	}
	for _, l := range lines(body, 400) {
		m := sqlLine.FindStringSubmatch(strings.TrimSpace(l))
		switch {
		case m == nil:
		case m[1] != "":
			return m[1], true // a dump tool's header comment: no data in it
		default:
			return m[2] + " " + m[3] + " … (statement cut; data not shown)", true
		}
	}
	return "", false
}

func matchArchive(body []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(body, []byte("PK\x03\x04")):
		return "ZIP archive (PK\\x03\\x04 signature)", true
	case bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
		return "gzip archive (\\x1f\\x8b signature)", true
	}
	return "", false
}

func matchPHPSource(body []byte) (string, bool) {
	if !bytes.Contains(body, []byte("<?php")) {
		return "", false
	}
	evidence := "PHP source starting with <?php"
	var names []string
	for _, m := range phpDefine.FindAllSubmatch(body, 5) {
		names = append(names, string(m[1]))
	}
	if len(names) > 0 {
		evidence += "; defines " + strings.Join(names, ", ") + " (values not shown)"
	}
	return evidence, true
}

func matchPHPInfo(body []byte) (string, bool) {
	m := phpinfoHTML.Find(body)
	if m == nil {
		return "", false
	}
	evidence := string(m)
	if v := phpVersion.Find(body); v != nil {
		evidence += "; " + string(v)
	}
	return evidence, true
}

// debugSignatures are texts only framework debug pages contain.
var debugSignatures = []string{
	"Werkzeug Debugger",
	"You're seeing this error because you have <code>DEBUG = True</code>",
	"Whoops! There was an error.",
	"Symfony Exception",
}

func matchDebugPage(body []byte) (string, bool) {
	for _, s := range debugSignatures {
		if bytes.Contains(body, []byte(s)) {
			return s, true
		}
	}
	return "", false
}

func matchExpvar(body []byte) (string, bool) {
	t := bytes.TrimSpace(body)
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"cmdline":`)) && bytes.Contains(t, []byte(`"memstats":`)) {
		return `JSON with "cmdline" and "memstats" (values not shown)`, true
	}
	return "", false
}

func matchActuatorEnv(body []byte) (string, bool) {
	t := bytes.TrimSpace(body)
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"propertySources"`)) && bytes.Contains(t, []byte(`"activeProfiles"`)) {
		return fmt.Sprintf(`JSON with "activeProfiles" and %d "propertySources" entries (values not shown)`,
			bytes.Count(t, []byte(`"name"`))), true
	}
	return "", false
}

// matchCredentialLine accepts a body (no markup) with a line among its
// first 200 that line matches, the key and its secret value as the first
// two groups, and shows the first such line: key, sep and the value
// redacted.
func matchCredentialLine(line *lazyre.Regexp, sep string) func([]byte) (string, bool) {
	return func(body []byte) (string, bool) {
		if looksLikeMarkup(body) {
			return "", false
		}
		for _, l := range lines(body, 200) {
			if m := line.FindStringSubmatch(l); m != nil {
				return m[1] + sep + redact(m[2]), true
			}
		}
		return "", false
	}
}

func matchHtpasswd(body []byte) (string, bool) {
	evidence, users := "", 0
	for _, l := range lines(body, 200) {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		m := htpasswd.FindStringSubmatch(t)
		if m == nil {
			return "", false
		}
		users++
		if evidence == "" {
			evidence = m[1] + ":" + redact(m[2]+m[3])
		}
	}
	if users == 0 {
		return "", false
	}
	return fmt.Sprintf("%s (%d users, hashes redacted)", evidence, users), true
}

func matchPrefix(prefix, evidence string) func([]byte) (string, bool) {
	return func(body []byte) (string, bool) {
		return evidence, bytes.HasPrefix(body, []byte(prefix))
	}
}

func matchContains(s string) func([]byte) (string, bool) {
	return func(body []byte) (string, bool) {
		return s, bytes.Contains(body, []byte(s))
	}
}

func matchAny(ss ...string) func([]byte) (string, bool) {
	return func(body []byte) (string, bool) {
		for _, s := range ss {
			if bytes.Contains(body, []byte(s)) {
				return s, true
			}
		}
		return "", false
	}
}

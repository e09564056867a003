package code

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
	"github.com/zricethezav/gitleaks/v8/report"

	"secscan/shared/lazyre"
	"secscan/shared/proof"
	"secscan/shared/scans"
)

// decodeDepth is how many decoding passes (base64, hex, percent-encoding)
// gitleaks makes over a text to find encoded secrets. Its command line
// makes 5; here none: site code is mostly minified literals, its base64
// is mostly images and fonts, and one pass costs a quarter more time per
// MiB (BenchmarkScan1MiB), which a call's budget cannot spare on a small
// Lambda.
const decodeDepth = 0

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
)

// sharedDetector returns the process's detector, built on first use: the
// default configuration is parsed through viper's global state, which is
// not safe for concurrent use, and building it takes tens of milliseconds
// (BenchmarkDetectorSetup). A built detector is safe for concurrent scans:
// DetectContext only reads its rules.
func sharedDetector() (*detect.Detector, error) {
	detectorOnce.Do(func() { detector, detectorErr = buildDetector() })
	return detector, detectorErr
}

func buildDetector() (*detect.Detector, error) {
	// gitleaks logs rejected candidates, secret included, at trace level;
	// nothing of it may reach the scanner's logs.
	logging.Logger = logging.Logger.Level(zerolog.Disabled)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("load gitleaks default rules: %w", err)
	}
	cfg := d.Config
	// The default AWS rule ignores keys ending in EXAMPLE (AWS's
	// documentation keys). A site that ships one still ships credentials
	// in its code, and the demo target does so on purpose: they are
	// reported, marked as the documentation's example (see classify).
	if r, ok := cfg.Rules[ruleAWSKey]; ok {
		r.Allowlists = slices.DeleteFunc(slices.Clone(r.Allowlists), func(a *config.Allowlist) bool {
			return slices.ContainsFunc(a.Regexes, func(re *glregexp.Regexp) bool { return strings.Contains(re.String(), "EXAMPLE") })
		})
		cfg.Rules[ruleAWSKey] = r
	}
	d = detect.NewDetector(cfg)
	d.MaxDecodeDepth = decodeDepth
	return d, nil
}

// Rule ids with a meaning of their own here.
const (
	ruleAWSKey  = "aws-access-token"
	ruleGeneric = "generic-api-key"
	ruleJWT     = "jwt"
)

// document is one text scanned for secrets.
type document struct {
	// where names the file for evidence, without the line: the URL
	// (query left out), plus "(inline script)" or "(original source …)".
	where string
	// pathHint is the file's path as gitleaks' path allowlists see it
	// (e.g. a map's webpack:///./node_modules/… source is vendored code).
	pathHint string
	// firstLine and firstColumn place the text's start in its file
	// (inline scripts start inside the page); 1 and 1 otherwise.
	firstLine, firstColumn int
	text                   string
	// code marks JavaScript-like source, where a secret is a string
	// literal: an unquoted match of the generic rule is an identifier.
	code bool
}

// sighting is one secret seen in one place. It never holds the secret
// itself: id identifies it (a hash), redacted shows it.
type sighting struct {
	// where is the document's place for evidence (see document.where).
	where       string
	rule        string
	description string
	id          [32]byte
	redacted    string
	line, col   int
	severity    scans.Severity
	note        string
	// pair is the AWS secret access key seen next to an access key id:
	// its redacted form and line.
	pair     string
	pairLine int
	// raw and pairRaw are the secrets themselves, kept only to centre the
	// proof's excerpt on them and redact them there; never shown.
	raw, pairRaw string
}

// dropped counts candidates that are not reported, by reason.
type dropped struct {
	placeholders, public, identifiers int
}

// count counts a candidate set aside for reason, and reports whether it
// was (keep is not).
func (d *dropped) count(reason dropReason) bool {
	switch reason {
	case dropPlaceholder:
		d.placeholders++
	case dropPublic:
		d.public++
	case dropIdentifier:
		d.identifiers++
	default:
		return false
	}
	return true
}

// pairAWS makes s, an AWS access key id at offset (n bytes long), a
// critical key pair when its secret access key stands next to it, and
// reports whether it did.
func (s *sighting) pairAWS(doc document, lines lineIndex, offset, n int) bool {
	secret, at, ok := awsSecretNear(doc.text, offset, n)
	if !ok {
		return false
	}
	s.severity = scans.Critical
	s.pair, s.pairRaw = redact(secret), secret
	s.pairLine, _ = doc.position(lines, at)
	return true
}

func (d *dropped) add(o dropped) {
	d.placeholders += o.placeholders
	d.public += o.public
	d.identifiers += o.identifiers
}

// scanDocument runs the detector over doc and returns what is reported and
// what was set aside.
func scanDocument(ctx context.Context, det *detect.Detector, doc document) ([]sighting, dropped) {
	if strings.TrimSpace(doc.text) == "" {
		return nil, dropped{}
	}
	d := &docScan{doc: doc, lines: newlines(doc.text), seen: map[string]bool{}}
	for _, seg := range segments(doc.text) {
		if ctx.Err() != nil {
			break
		}
		segLines := newlines(seg.text)
		for _, f := range det.DetectContext(ctx, detect.Fragment{Raw: seg.text, FilePath: doc.pathHint}) {
			if f.Secret == "" || strings.HasPrefix(f.Match, "file detected:") {
				continue // a path-only rule: the file's name, not a secret in it
			}
			d.add(f, seg.start+segLines.offset(f.StartLine, f.StartColumn))
		}
	}
	// A paired AWS secret key is part of the AWS finding, not a second,
	// generic one.
	out := slices.DeleteFunc(d.out, func(s sighting) bool {
		return s.rule == ruleGeneric && slices.Contains(d.paired, s.id)
	})
	return out, d.skip
}

// docScan is the state of scanning one document.
type docScan struct {
	doc   document
	lines lineIndex
	// seen holds rule and offset of what was added: pieces of long lines
	// overlap.
	seen map[string]bool
	// paired are the ids of AWS secret keys paired with their key id.
	paired [][32]byte
	out    []sighting
	skip   dropped
}

// add records gitleaks' finding f at offset in the document, once per rule
// and offset, unless classify sets it aside.
func (d *docScan) add(f report.Finding, offset int) {
	key := fmt.Sprintf("%s\x00%d", f.RuleID, offset)
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	s, reason := classify(f, d.doc)
	if d.skip.count(reason) {
		return
	}
	s.where = d.doc.where
	s.line, s.col = d.doc.position(d.lines, offset)
	if f.RuleID == ruleAWSKey && s.pairAWS(d.doc, d.lines, offset, len(f.Match)) {
		d.paired = append(d.paired, sha256.Sum256([]byte(s.pairRaw)))
	}
	d.out = append(d.out, s)
}

// lineIndex holds the offsets of a text's newlines.
type lineIndex []int

func newlines(text string) lineIndex {
	var idx lineIndex
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		idx = append(idx, i+j)
		i += j + 1
	}
	return idx
}

// offset converts gitleaks' 0-based line and column of a match into its
// offset in the text. gitleaks counts columns from 1 on the first line, and
// from the preceding newline (so from 2) on the others.
func (idx lineIndex) offset(line, col int) int {
	if line <= 0 || line > len(idx) {
		return max(0, col-1)
	}
	return idx[line-1] + col - 1
}

// position returns the file's line and column (from 1) of an offset in
// the document's text.
func (d document) position(idx lineIndex, offset int) (int, int) {
	n, _ := slices.BinarySearch(idx, offset) // the newlines before offset
	if n == 0 {
		return d.firstLine, d.firstColumn + offset
	}
	return d.firstLine + n, offset - idx[n-1]
}

const (
	// maxSegmentLine is the longest line handed to gitleaks whole: it
	// checks every candidate against the whole line it sits on, so one
	// 1 MiB line of minified code would cost a pass over the line per
	// candidate. Longer lines are cut into pieces.
	maxSegmentLine = 8 << 10
	// segmentOverlap is repeated at the start of the next piece of a long
	// line, so a secret on a cut is whole in one of the pieces.
	segmentOverlap = 512
)

// segment is a part of a text, at offset start.
type segment struct {
	start int
	text  string
}

// segments splits text for the detector: runs of ordinary lines stay
// together (a private key spans lines), and each line longer than
// maxSegmentLine becomes overlapping pieces, cut after a statement or
// list delimiter where one is near.
func segments(text string) []segment {
	var out []segment
	runStart := 0
	for lineStart := 0; lineStart < len(text); {
		end := len(text)
		if j := strings.IndexByte(text[lineStart:], '\n'); j >= 0 {
			end = lineStart + j
		}
		if end-lineStart > maxSegmentLine {
			if lineStart > runStart {
				out = append(out, segment{runStart, text[runStart:lineStart]})
			}
			out = append(out, splitLine(text, lineStart, end)...)
			runStart = min(end+1, len(text))
		}
		lineStart = end + 1
	}
	if runStart < len(text) {
		out = append(out, segment{runStart, text[runStart:]})
	}
	return out
}

// splitLine cuts text[from:to], one long line, into overlapping pieces.
func splitLine(text string, from, to int) []segment {
	var out []segment
	for start := from; start < to; {
		end := min(to, start+maxSegmentLine)
		if end < to {
			window := text[end-maxSegmentLine/4 : end]
			if i := strings.LastIndexAny(window, ";},"); i >= 0 {
				end = end - len(window) + i + 1
			}
		}
		out = append(out, segment{start, text[start:end]})
		if end == to {
			break
		}
		start = end - segmentOverlap
	}
	return out
}

type dropReason int

const (
	keep dropReason = iota
	dropPlaceholder
	dropPublic
	dropIdentifier
)

var (
	// placeholder matches values written to be replaced, not used.
	placeholder = lazyre.New(`(?i)x{6,}|\*{4,}|your[_-]|<[a-z_ -]{2,40}>|\$\{|\{\{|placeholder|changeme|replace[_-]?me|dummy|insert[_-]?your|redacted`)
	// recaptchaSiteKey is the public half of a reCAPTCHA key pair, which
	// pages must embed.
	recaptchaSiteKey = lazyre.New(`^6L[\w-]{38}$`)
)

// publicIdentifiers are rules for values that identify an account or an
// application but grant nothing alone (OAuth client ids, public keys):
// browser code carries them by design.
var publicIdentifiers = map[string]bool{
	"adobe-client-id": true, "asana-client-id": true, "bitbucket-client-id": true, "discord-client-id": true,
	"linkedin-client-id": true, "looker-client-id": true, "messagebird-client-id": true, "plaid-client-id": true,
	"sendbird-access-id": true, "sumologic-access-id": true, "new-relic-user-api-id": true,
	"flutterwave-public-key": true, "lob-pub-api-key": true, "mailgun-pub-key": true,
}

// browserKeys are rules for keys made to be used from a browser (Google
// API keys of Maps and Firebase, Mapbox public tokens, New Relic browser
// keys): not a leak by themselves, but worth restricting.
var browserKeys = map[string]string{
	"gcp-api-key":                 "Google API keys are often meant for browser use (Maps, Firebase); such a key is safe only when restricted to the site's HTTP referrers and to the APIs it needs, or anyone can spend the project's quota with it.",
	"mapbox-api-token":            "Mapbox public tokens (pk.) are made for browser use; make sure it is restricted to the site's URLs and carries no secret scopes.",
	"new-relic-browser-api-token": "New Relic browser keys are made for browser use; make sure it is only the browser ingest key.",
}

// classify turns a gitleaks finding into a sighting, or says why it is
// not reported.
func classify(f report.Finding, doc document) (sighting, dropReason) {
	s := sighting{
		rule:        f.RuleID,
		description: f.Description,
		id:          sha256.Sum256([]byte(f.Secret)),
		redacted:    redact(f.Secret),
		raw:         f.Secret,
		severity:    scans.High,
	}
	if reason := setAside(f); reason != keep {
		return s, reason
	}
	if note, ok := browserKeys[f.RuleID]; ok {
		s.severity, s.note = scans.Low, note
		return s, keep
	}
	switch f.RuleID {
	case ruleAWSKey:
		if awsExample(f) {
			s.note = awsExampleNote(f.Secret)
		}
	case ruleGeneric:
		return classifyGeneric(f, doc, s)
	case ruleJWT:
		return classifyJWT(f.Secret, s), keep
	}
	return s, keep
}

// setAside says why f is not reported whatever its rule says: its value is
// a placeholder (AWS's documentation keys excepted: see buildDetector), or
// its rule finds public identifiers. keep when neither.
func setAside(f report.Finding) dropReason {
	if placeholder.MatchString(f.Secret) && !awsExample(f) {
		return dropPlaceholder
	}
	if publicIdentifiers[f.RuleID] {
		return dropPublic
	}
	return keep
}

// awsExample reports an AWS access key id with the documentation's EXAMPLE
// suffix.
func awsExample(f report.Finding) bool {
	return f.RuleID == ruleAWSKey && strings.HasSuffix(f.Secret, "EXAMPLE")
}

// classifyJWT marks a JWT whose role claim is anon or public as a low
// finding: a key issued for browser use.
func classifyJWT(token string, s sighting) sighting {
	if role := jwtRole(token); role == "anon" || role == "public" {
		s.severity = scans.Low
		s.note = fmt.Sprintf("The token's role claim is %q: Supabase and similar services issue such keys for browser use; they are safe only when row-level security guards every table.", role)
	}
	return s
}

// classifyGeneric judges a finding of gitleaks' generic rule: a reCAPTCHA
// site key is public, a name in code an identifier; what is left is a
// medium finding to check.
func classifyGeneric(f report.Finding, doc document, s sighting) (sighting, dropReason) {
	if recaptchaSiteKey.MatchString(f.Secret) {
		return s, dropPublic
	}
	if doc.code && (!quoted(f.Match, f.Secret) || camelCase(f.Secret)) {
		// apiKey: props.apiKey, or a property name in a string
		// ("DeliveryS3KeyPrefix"): code, not a value.
		return s, dropIdentifier
	}
	s.severity = scans.Medium
	s.note = "Found by gitleaks' generic rule (a secret-like name assigned a high-entropy value), not by a service-specific pattern: check the value before rotating."
	return s, keep
}

// awsExampleNote explains an AWS key id with the documentation's EXAMPLE
// suffix.
func awsExampleNote(keyID string) string {
	if keyID == "AKIA"+"IOSFODNN7EXAMPLE" { // split so secret scanners reading this file pass it
		return "This access key id is the example key of AWS's documentation: it is not a working credential, but the code that embeds it is where real keys end up — check the build for live ones."
	}
	return "This access key id ends in EXAMPLE, like the example keys of AWS's documentation: it is probably not a working credential, but the code that embeds it is where real keys end up — check the build for live ones."
}

// quoted reports whether secret appears in match as a string literal (the
// character before it is a quote).
func quoted(match, secret string) bool {
	i := strings.LastIndex(match, secret)
	return i > 0 && strings.ContainsRune("'\"`", rune(match[i-1]))
}

var (
	camelWords = lazyre.New(`^(?:[A-Z]?[a-z]{2,}|[A-Z0-9]{1,3})+$`)
	lowerRun   = lazyre.New(`[a-z]{3,}`)
)

// camelCase reports an identifier made of words ("arnForExecuteApiV2"):
// runs of lowercase letters joined by capitals and a digit or two. Random
// keys mix cases and digits too often to read so.
func camelCase(v string) bool {
	digits := 0
	for _, r := range v {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits <= 2 && camelWords.MatchString(v) && len(lowerRun.FindAllString(v, 3)) >= 2
}

// jwtRole returns the role claim of a JWT, "" when it has none or cannot
// be read.
func jwtRole(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(parts[1]) > 4096 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Role string `json:"role"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Role
}

// awsSecretKey matches an AWS secret access key assigned to a name that
// says so (secretAccessKey: "…", AWS_SECRET_ACCESS_KEY=…, "secret_key": …).
var awsSecretKey = lazyre.New(`(?i)secret[\w.-]{0,30}['"\x60]?\s*(?::|=|=>|:=)\s*['"\x60]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)

// awsSecretWindow is how far from an access key id its secret key is
// looked for: a few lines of a config object, or of minified code.
const awsSecretWindow = 1024

// awsSecretNear looks for a secret access key near an access key id at
// offset in text and returns it with its offset.
func awsSecretNear(text string, offset, length int) (string, int, bool) {
	lo, hi := max(0, offset-awsSecretWindow), min(len(text), offset+length+awsSecretWindow)
	if m := awsSecretKey.FindStringSubmatchIndex(text[lo:hi]); m != nil {
		return text[lo+m[2] : lo+m[3]], lo + m[2], true
	}
	return "", 0, false
}

// redact shows the first characters of a secret and its length, never
// enough to use it: at most 4 characters and at most a third of it.
func redact(v string) string { return proof.RedactValue(v) }

// codeExtensions are the file types whose secrets are string literals.
var codeExtensions = map[string]bool{
	"": true, ".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".ts": true, ".tsx": true, ".mts": true,
	".cts": true, ".vue": true, ".svelte": true, ".coffee": true, ".html": true, ".htm": true,
}

// isCode reports whether a file name is JavaScript-like source.
func isCode(name string) bool {
	name, _, _ = strings.Cut(name, "?")
	return codeExtensions[strings.ToLower(path.Ext(name))]
}

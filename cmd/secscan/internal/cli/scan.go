package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/progress"
)

// gateFlags are the quality-gate and output flags of scan and findings.
type gateFlags struct {
	failOn         string
	minConfidence  string
	baseline       string
	format         string
	output         string
	sarif          string
	junit          string
	markdown       string
	byFinding      bool
	includeTriaged bool
}

// needWait says whether a flag that only a finished scan can serve is set:
// the gate, the baseline or one of the files.
func (g gateFlags) needWait() bool {
	return g.failOn != "" || g.baseline != "" || g.sarif != "" || g.junit != "" || g.markdown != ""
}

func (g *gateFlags) register(cmd *cobra.Command, withFiles bool) {
	f := cmd.Flags()
	f.StringVar(&g.failOn, "fail-on", "", "exit 1 when a finding at or above this severity exists: critical, high, medium or low (counts findings, not issues; triaged issues aside)")
	f.StringVar(&g.minConfidence, "min-confidence", "", "the gate ignores findings less certain than this: certain, firm or tentative (default: all count)")
	f.BoolVar(&g.includeTriaged, "include-triaged", false, "the gate also counts findings of issues triaged as false_positive or accepted_risk (by default it ignores them)")
	f.StringVar(&g.baseline, "baseline", "", "a scan id or a file (findings JSON, scan JSON or SARIF, also from before fingerprints changed): only findings not in it can fail the gate")
	f.StringVar(&g.format, "format", "table", "findings on stdout: table (one line per issue), json (the findings), sarif, junit or markdown")
	f.BoolVar(&g.byFinding, "by-finding", false, "the table lists every finding on its own line instead of one line per issue")
	f.StringVarP(&g.output, "output", "o", "", "write the --format output to this file instead of stdout")
	if withFiles {
		f.StringVar(&g.sarif, "sarif", "", "also write SARIF 2.1.0 to this file (for GitHub code scanning)")
		f.StringVar(&g.junit, "junit", "", "also write JUnit XML to this file (for GitLab, Jenkins)")
		f.StringVar(&g.markdown, "markdown", "", "also write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
	}
}

var formats = map[string]bool{"table": true, "json": true, "sarif": true, "junit": true, "markdown": true}

// gatedClient is the API client and the quality gate of the flags (checked,
// its baseline read): what the commands that gate need before they start.
func (a *app) gatedClient(g gateFlags) (*client.Client, findings.Gate, error) {
	c, err := a.client()
	if err != nil {
		return nil, findings.Gate{}, err
	}
	gate, err := a.gate(c, g)
	return c, gate, err
}

// gate builds the quality gate, reading the baseline (a file, else a scan).
func (a *app) gate(c *client.Client, g gateFlags) (findings.Gate, error) {
	gate := findings.Gate{FailOn: strings.ToLower(g.failOn), MinConfidence: strings.ToLower(g.minConfidence),
		IncludeTriaged: g.includeTriaged}
	if err := gate.Validate(); err != nil {
		return gate, withCode(ExitError, err)
	}
	if !formats[g.format] {
		return gate, usageError("--format must be table, json, sarif, junit or markdown, not %q", g.format)
	}
	if g.baseline == "" {
		return gate, nil
	}
	var err error
	gate.Baseline, err = a.baseline(c, g.baseline)
	return gate, err
}

// baseline reads the fingerprints of --baseline: a file (findings JSON,
// scan JSON or SARIF), else a completed scan's id.
func (a *app) baseline(c *client.Client, arg string) (map[string]bool, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return baselineFile(arg, st.Size())
	}
	if !strings.HasPrefix(arg, "scn_") {
		return nil, usageError("--baseline %q is neither a file nor a scan id (scn_…)", arg)
	}
	base, err := c.Scan(a.ctx, arg)
	if err != nil {
		return nil, apiError(fmt.Errorf("baseline scan %s: %w", arg, err))
	}
	if base.Status != client.Completed {
		return nil, usageError("baseline scan %s is %s; a baseline must be a completed scan", base.ID, base.Status)
	}
	return findings.Fingerprints(base.Findings), nil
}

// baselineFile reads the fingerprints of a baseline file of size bytes.
func baselineFile(path string, size int64) (map[string]bool, error) {
	if size > 64<<20 {
		return nil, usageError("baseline %s is larger than 64 MiB", path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	fps, err := findings.ParseBaseline(raw)
	if err != nil {
		return nil, usageError("baseline %s: %v", path, err)
	}
	return fps, nil
}

func (a *app) scanCommand() *cobra.Command {
	var (
		req               client.ScanRequest
		key               string
		wait              bool
		timeout           time.Duration
		cancelOnInterrupt bool
		g                 gateFlags
	)
	cmd := &cobra.Command{
		Use:   "scan <domain>",
		Short: "Start a scan of a verified target, and optionally wait for it",
		Long: `scan starts a scan of a verified target. Without --wait it prints the scan's id
and returns; 'secscan scans show <id>' follows it.

With --wait it follows the scan until it ends: on a terminal, a status line is
redrawn in place (current step, steps done, credits, findings by severity,
elapsed time); otherwise one line is printed per agent step. Then the issues
are printed (--format; one line per issue, --by-finding for one per finding),
written to the --sarif, --junit and --markdown files, and the quality gate sets
the exit code (0 pass, 1 gate failed, 3 the scan failed or was cancelled). The
gate counts findings: --fail-on high fails on every new high finding, whichever
issue it belongs to, except the findings of issues the target's ledger triaged
as false_positive or as accepted_risk that has not expired ('secscan triage');
--include-triaged counts those too. With --json (and no --format) the scan record is printed
instead: id, status, risk_rating, summary, issues, findings and the rest.

Ctrl-C while waiting asks whether to cancel the scan (on a terminal), cancels it
(--cancel-on-interrupt), or leaves it running and exits 2 (no terminal to ask).
--timeout cancels the scan when it has not ended in time (exit 3).`,
		Example: `  secscan scan example.com --type web --tier quick
  secscan scan example.com --type full --tier standard --wait --fail-on high
  secscan scan example.com --wait --fail-on medium --min-confidence firm \
      --baseline last-scan.json --sarif secscan.sarif --junit secscan.xml
  secscan scan example.com --wait --idempotency-key "$CI_PIPELINE_ID" --cancel-on-interrupt
  secscan scan example.com --wait --json | jq '.issues[] | {key, severity, count}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Target = args[0]
			if !wait && g.needWait() {
				return usageError("--fail-on, --baseline, --sarif, --junit and --markdown need --wait")
			}
			if timeout <= 0 {
				return usageError("--timeout must be positive")
			}
			c, gate, err := a.gatedClient(g)
			if err != nil {
				return err
			}
			s, err := c.CreateScan(a.ctx, req, key)
			if err != nil {
				return apiError(err)
			}
			if !wait {
				return a.showf(s, "Started %s (%s %s scan of %s, up to %d credits).\nFollow it with: secscan scans show %s\n",
					s.ID, s.ScanType, s.Tier, s.Target, s.MaxCredits, s.ID)
			}
			a.info("Started %s (%s %s scan of %s, up to %d credits).", s.ID, s.ScanType, s.Tier, s.Target, s.MaxCredits)
			done, err := a.wait(c, s.ID, timeout, cancelOnInterrupt)
			if err != nil {
				return err
			}
			return a.finish(done, gate, g)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.ScanType, "type", "full", "scan type: full, network, web, vuln, ssl or code")
	f.StringVar(&req.Tier, "tier", "standard", "tier: quick, standard or deep (full needs standard or deep)")
	f.IntVar(&req.MaxCredits, "max-credits", 0, "credit cap (default and ceiling: the tier's)")
	f.StringVar(&req.CallbackURL, "callback-url", "", "https URL that receives the signed webhook when the scan ends")
	f.StringVar(&key, "idempotency-key", "", "the same key within 24 h returns the same scan instead of a new one (retried CI jobs)")
	f.BoolVar(&wait, "wait", false, "follow the scan until it ends, then print findings and apply the gate")
	f.DurationVar(&timeout, "timeout", 30*time.Minute, "with --wait: cancel the scan if it has not ended after this long")
	f.BoolVar(&cancelOnInterrupt, "cancel-on-interrupt", false, "with --wait: Ctrl-C (or SIGTERM) cancels the scan without asking")
	g.register(cmd, true)
	return cmd
}

// Polling: quick at first (a quick scan ends in about a second), slower
// later, so a long scan stays well under the 60 requests a minute limit.
const (
	firstPoll  = 200 * time.Millisecond
	maxPoll    = 2 * time.Second
	tick       = 250 * time.Millisecond
	cancelWait = 2 * time.Minute // how long to wait for a cancellation to land
)

// wait follows a scan until it is terminal, showing progress on stderr.
// Interrupts and the timeout may cancel it; the returned scan is terminal.
func (a *app) wait(c *client.Client, id string, timeout time.Duration, cancelOnInterrupt bool) (client.Scan, error) {
	rep, hide := a.showProgress()
	defer hide()
	interrupts, release := a.claimInterrupts()
	defer release()
	w := &waiter{a: a, c: c, id: id, rep: rep, interrupts: interrupts, cancelOnInterrupt: cancelOnInterrupt}

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	p := newPoller(a.ctx, c, id)
	defer p.stop()
	for {
		var err error // a cancellation that could not be asked, or a second interrupt
		select {
		case <-a.ctx.Done():
			return client.Scan{}, withCode(ExitError, a.ctx.Err())
		case <-ticker.C:
			rep.Tick()
		case <-deadline.C:
			err = w.timedOut(timeout)
		case <-interrupts:
			err = w.interrupted()
		case <-p.timer.C:
			p.fetch()
		case res := <-p.results:
			if s, done, err := w.received(res, p); done {
				return s, err
			}
		}
		if err != nil {
			return client.Scan{}, err
		}
	}
}

// received handles one poll's answer: done with the scan once it is
// terminal (or the error that ends the wait), else the next poll is
// scheduled. A poll cut by the wait's end is ignored: the ctx.Done case
// reports it.
func (w *waiter) received(res polled, p *poller) (client.Scan, bool, error) {
	if errors.Is(res.err, context.Canceled) {
		return client.Scan{}, false, nil
	}
	if s, done, err := w.polled(res.scan, res.err); done {
		return s, true, err
	}
	p.later()
	return client.Scan{}, false, nil
}

// polled is the answer of one poll.
type polled struct {
	scan client.Scan
	err  error
}

// poller reads the scan when its timer fires, beside the wait loop, so
// that Ctrl-C is answered at once even while a request is slow or waits
// out a 429; the interval grows from firstPoll to maxPoll.
type poller struct {
	c        *client.Client
	id       string
	ctx      context.Context
	stop     context.CancelFunc
	timer    *time.Timer
	interval time.Duration
	results  chan polled
}

// newPoller is a poller whose first poll is due at once; stop ends it.
func newPoller(ctx context.Context, c *client.Client, id string) *poller {
	p := &poller{c: c, id: id, timer: time.NewTimer(0), interval: firstPoll, results: make(chan polled, 1)}
	var cancel context.CancelFunc
	p.ctx, cancel = context.WithCancel(ctx)
	p.stop = func() {
		p.timer.Stop()
		cancel()
	}
	return p
}

// fetch starts one poll; its answer arrives on results.
func (p *poller) fetch() {
	go func() {
		s, err := p.c.Scan(p.ctx, p.id)
		p.results <- polled{s, err}
	}()
}

// later schedules the next poll, a little later than the last.
func (p *poller) later() {
	p.timer.Reset(p.interval)
	p.interval = min(p.interval*3/2, maxPoll)
}

// showProgress makes a progress display the one informational messages
// go through (live on a terminal, plain lines otherwise); hide ends it.
func (a *app) showProgress() (rep progress.Reporter, hide func()) {
	if a.env.StderrTerminal && !a.jsonOut {
		rep = progress.NewLive(a.env.Stderr, a.env.TermWidth)
	} else {
		rep = progress.NewPlain(a.env.Stderr)
	}
	a.mu.Lock()
	a.display = rep
	a.mu.Unlock()
	return rep, func() {
		a.mu.Lock()
		a.display = nil
		a.mu.Unlock()
		rep.Done()
	}
}

// waiter is the state of one wait: the scan followed and whether (when)
// its cancellation was requested.
type waiter struct {
	a                 *app
	c                 *client.Client
	id                string
	rep               progress.Reporter
	interrupts        <-chan os.Signal
	cancelOnInterrupt bool
	cancelAsked       time.Time
}

// requestCancel asks the API to cancel the scan (an ended scan's 409 is
// no error) and remembers when.
func (w *waiter) requestCancel(why string) error {
	w.a.info("%s: cancelling %s…", why, w.id)
	if _, err := w.c.CancelScan(w.a.ctx, w.id); err != nil && client.StatusOf(err) != 409 { // 409: it already ended
		return apiError(err)
	}
	w.cancelAsked = time.Now()
	return nil
}

// timedOut cancels the scan once the timeout has passed, unless that was
// asked already.
func (w *waiter) timedOut(timeout time.Duration) error {
	if !w.cancelAsked.IsZero() {
		return nil
	}
	return w.requestCancel(fmt.Sprintf("timed out after %s", timeout))
}

// interrupted answers Ctrl-C: a second one stops waiting; the first
// cancels (--cancel-on-interrupt), asks on a terminal, or stops waiting.
// A non-nil error ends the wait.
func (w *waiter) interrupted() error {
	a, id := w.a, w.id
	if !w.cancelAsked.IsZero() {
		w.rep.Pause()
		a.info("Interrupted again: no longer waiting; cancellation of %s was requested.", id)
		return withCode(ExitError, nil)
	}
	switch {
	case w.cancelOnInterrupt:
		return w.requestCancel("interrupted")
	case a.env.StdinTerminal:
		w.rep.Pause()
		yes, err := a.ask(fmt.Sprintf("Cancel scan %s? [y/N] ", id), w.interrupts)
		if err != nil { // a second Ctrl-C while asking
			a.info("\nNo longer waiting; %s continues. Cancel it with: secscan scans cancel %s", id, id)
			return withCode(ExitError, nil)
		}
		if yes {
			return w.requestCancel("cancel confirmed")
		}
		a.info("Still waiting for %s.", id)
		return nil
	default:
		w.rep.Pause()
		a.info("Interrupted: no longer waiting; %s continues. Cancel it with: secscan scans cancel %s (or pass --cancel-on-interrupt)", id, id)
		return withCode(ExitError, nil)
	}
}

// polled shows a poll's answer; done when the wait ends with s and err: a
// terminal scan, an API error, or a cancellation that has not landed in
// cancelWait.
func (w *waiter) polled(s client.Scan, err error) (client.Scan, bool, error) {
	if err != nil {
		return client.Scan{}, true, apiError(err)
	}
	w.rep.Update(s)
	if s.Terminal() {
		return s, true, nil
	}
	if !w.cancelAsked.IsZero() && time.Since(w.cancelAsked) > cancelWait {
		return s, true, withCode(ExitError, fmt.Errorf("cancellation of %s requested %s ago, still %s", w.id, cancelWait, s.Status))
	}
	return s, false, nil
}

// ask reads a yes/no answer from stdin; another interrupt aborts it.
func (a *app) ask(question string, interrupts <-chan os.Signal) (bool, error) {
	fmt.Fprint(a.env.Stderr, question)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(a.env.Stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		l := strings.ToLower(strings.TrimSpace(line))
		return l == "y" || l == "yes", nil
	case <-interrupts:
		return false, errors.New("interrupted")
	case <-a.ctx.Done():
		return false, a.ctx.Err()
	}
}

// finish prints a terminal scan, writes the report files and applies the
// gate: exit 3 for a failed or cancelled scan, 1 for a failed gate.
func (a *app) finish(s client.Scan, gate findings.Gate, g gateFlags) error {
	gate = gate.WithTriage(s.Issues, time.Now())
	meta := findings.Meta{Scan: s, CLIVersion: a.env.Version}
	if err := a.writeFiles(meta, s.Findings, gate, g); err != nil {
		return err
	}
	if s.Status != client.Completed {
		// The findings recorded before the end, in the same format as ever.
		if err := a.writeResult(meta, s.Findings, gate, g); err != nil {
			return err
		}
		why := ""
		if s.Error != nil && *s.Error != "" {
			why = ": " + findings.CleanLine(*s.Error, 500)
		}
		return withCode(ExitFailed, fmt.Errorf("scan %s %s%s", s.ID, s.Status, why))
	}
	if err := a.writeResult(meta, s.Findings, gate, g); err != nil {
		return err
	}
	return a.verdict(s, gate)
}

// writeResult writes what scan --wait prints: with --json and no --format,
// the scan record (to stdout or --output); else the findings in --format.
func (a *app) writeResult(m findings.Meta, fs []client.Finding, gate findings.Gate, g gateFlags) error {
	if !a.jsonOut || g.format != "table" {
		return a.writeFindings(m, fs, gate, g)
	}
	rec, err := scanRecord(m.Scan)
	if err != nil {
		return withCode(ExitError, err)
	}
	write := func(w io.Writer) error {
		var buf bytes.Buffer
		if err := json.Indent(&buf, rec, "", "  "); err != nil {
			return err
		}
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	if g.output != "" && g.output != "-" {
		if err := writeFile(g.output, reportMode, write); err != nil {
			return withCode(ExitError, fmt.Errorf("writing %s: %w", g.output, err))
		}
		return nil
	}
	return write(a.out())
}

// scanRecord is the scan record as the API sent it; from a server that
// predates issues, with the issues (and issues_count) the CLI grouped.
func scanRecord(s client.Scan) ([]byte, error) {
	raw := bytes.TrimSpace(s.Raw)
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(s); err != nil {
			return nil, err
		}
	}
	if s.Issues != nil {
		return raw, nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("scan record: %w", err)
	}
	if _, ok := probe["issues"]; ok { // null from the server: keep it as sent
		return raw, nil
	}
	_, hasCount := probe["issues_count"]
	extra, err := groupedIssues(s.Findings, !hasCount)
	if err != nil {
		return nil, err
	}
	// Splice the fields in before the record's closing brace, keeping the
	// order and the fields this client does not model.
	out := append([]byte{}, raw[:len(raw)-1]...)
	if len(probe) > 0 {
		out = append(out, ',')
	}
	out = append(out, extra[1:]...)
	return out, nil
}

// groupedIssues is the JSON object of the issues the CLI groups from fs
// ("issues"), with their count ("issues_count") when withCount.
func groupedIssues(fs []client.Finding, withCount bool) ([]byte, error) {
	issues := []client.Issue{}
	for _, g := range findings.Group(nil, fs) {
		issues = append(issues, g.Issue)
	}
	if !withCount {
		return json.Marshal(struct {
			Issues []client.Issue `json:"issues"`
		}{issues})
	}
	return json.Marshal(struct {
		Issues      []client.Issue `json:"issues"`
		IssuesCount int            `json:"issues_count"`
	}{issues, len(issues)})
}

// verdict reports the gate on stderr and returns exit 1 when it failed.
func (a *app) verdict(s client.Scan, gate findings.Gate) error {
	if !a.jsonOut {
		summary := "none"
		if s.Summary != nil {
			summary = s.Summary.RiskRating
		}
		a.info("%s %s: %d findings in %d issues (%s); risk %s; %d of %d credits.", s.ID, s.Status, len(s.Findings),
			len(findings.Group(s.Issues, s.Findings)), findings.SeverityLine(s.Findings), summary, s.CreditsUsed, s.MaxCredits)
	}
	if gate.FailOn == "" {
		return nil
	}
	failures := gate.Failures(s.Findings)
	scope := ""
	if gate.Baseline != nil {
		scope = " new"
	}
	return a.gateVerdict(gate, failures, gate.TriagedFailures(s.Findings), scope)
}

// gateVerdict says whether the gate passed, and how many findings it set
// aside because their issue is triaged; exit 1 when it failed.
func (a *app) gateVerdict(gate findings.Gate, failures, triaged []client.Finding, scope string) error {
	aside := ""
	if len(triaged) > 0 {
		aside = fmt.Sprintf(" (%d triaged finding(s) ignored: false positives and accepted risks; --include-triaged counts them)", len(triaged))
	}
	if len(failures) == 0 {
		a.info("Quality gate passed: no%s finding at or above %s%s.", scope, gate.FailOn, aside)
		return nil
	}
	a.info("Quality gate failed: %d%s finding(s) at or above %s%s.", len(failures), scope, gate.FailOn, aside)
	return withCode(ExitGate, nil)
}

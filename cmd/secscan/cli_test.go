package main_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/cmd/secscan/internal/sariftest"
	"secscan/shared/scans"
	"secscan/shared/syncio"
)

// findingView is what the tests read of a finding in the CLI's JSON.
type findingView struct {
	Title       string `json:"title"`
	Severity    string `json:"severity"`
	Confidence  string `json:"confidence"`
	Fingerprint string `json:"fingerprint"`
}

var scanIDPattern = regexp.MustCompile(`scn_[0-9A-HJKMNP-TV-Z]{26}`)

// TestCLI drives the CLI end to end against one local stack: targets,
// scans with --wait, every gate, baselines, SARIF, JUnit, reports,
// interrupts, webhook verification and the error messages.
func TestCLI(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	token := s.newUser(t, "starter", nil)
	c := s.cli(token)

	// Targets: add prints the challenge; verify fails (exit 2, the API's
	// detail and status) until it is published, then succeeds by domain.
	r := c.run(t, "targets", "add", s.demo.Domain(), "--method", "http_file")
	expectCode(t, r, 0)
	if !strings.Contains(r.stdout, "/.well-known/service-challenge.txt") || !strings.Contains(r.stdout, "secscan targets verify demo.test") {
		t.Fatalf("add printed no instructions:\n%s", r.stdout)
	}
	r = c.run(t, "targets", "verify", "demo.test")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 400)") || !strings.Contains(r.stderr, "error: ") {
		t.Fatalf("verify failure: %s", r.stderr)
	}
	r = c.run(t, "targets", "list", "--json")
	expectCode(t, r, 0)
	var targets []struct {
		ID       string `json:"id"`
		Token    string `json:"verification_token"`
		Verified bool   `json:"verified"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &targets); err != nil || len(targets) != 1 || targets[0].Verified {
		t.Fatalf("targets list --json: %v %s", err, r.stdout)
	}
	if err := s.demo.PublishChallenge(targets[0].Token); err != nil {
		t.Fatal(err)
	}
	expectCode(t, c.run(t, "targets", "verify", "demo.test"), 0)
	r = c.run(t, "targets", "list")
	if !strings.Contains(r.stdout, "demo.test") || !strings.Contains(r.stdout, "true") {
		t.Fatalf("targets list:\n%s", r.stdout)
	}

	// A quick scan with --wait, as CI runs it: plain progress lines on a
	// non-terminal, the gate's exit code, and the SARIF, JUnit and Markdown files.
	dir := t.TempDir()
	sarifPath, junitPath, mdPath := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.xml"), filepath.Join(dir, "out.md")
	start := time.Now()
	r = c.run(t, "scan", "demo.test", "--type", "web", "--tier", "quick", "--wait", "--fail-on", "high",
		"--sarif", sarifPath, "--junit", junitPath, "--markdown", mdPath)
	t.Logf("scan --wait (quick web) to exit: %v", time.Since(start).Round(time.Millisecond))
	expectCode(t, r, 1)
	first := scanIDPattern.FindString(r.stderr)
	// What the scan recorded decides what the CLI must have said: the
	// expectations follow the demo target and the planner, not a fixed list.
	rec := showScan(t, c, first)
	atOrAbove := func(sev string) int {
		n := 0
		for _, f := range rec.Findings {
			if f.Severity.Rank() <= scans.Severity(sev).Rank() {
				n++
			}
		}
		return n
	}
	high := atOrAbove("high")
	if high == 0 || len(rec.Steps) < 2 {
		t.Fatalf("the demo's quick web scan found %d high findings in %d steps", high, len(rec.Steps))
	}
	wants := []string{"Started " + first, first + " completed", fmt.Sprintf("Quality gate failed: %d finding(s) at or above high.", high)}
	for _, st := range rec.Steps {
		wants = append(wants, fmt.Sprintf("step %d %s %s", st.Seq, st.Tool, st.Status))
	}
	for _, want := range wants {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\x1b[") {
		t.Errorf("escape codes on a non-terminal:\n%q", r.stderr)
	}
	if !strings.Contains(r.stdout, "SEVERITY") || !strings.Contains(r.stdout, "COUNT") {
		t.Errorf("issues table:\n%s", r.stdout)
	}
	sarifRaw, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sarifRaw)
	issues := findings.Group(rec.Issues, rec.Findings)
	failingIssues := 0
	for _, is := range issues {
		if (findings.Gate{FailOn: "high"}).IssueFails(is) {
			failingIssues++
		}
	}
	checkJUnit(t, junitPath, failingIssues, len(issues))
	if md, _ := os.ReadFile(mdPath); !bytes.Contains(md, []byte(fmt.Sprintf("Quality gate (fail on findings at or above high): **failed**: %d finding(s)", high))) {
		t.Errorf("markdown summary:\n%s", md)
	}
	exitFor := func(sev string) int {
		if atOrAbove(sev) > 0 {
			return 1
		}
		return 0
	}

	// Every gate on the same scan (findings re-reads it).
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 0},
		{[]string{"--fail-on", "critical"}, exitFor("critical")},
		{[]string{"--fail-on", "high"}, 1},
		{[]string{"--fail-on", "medium"}, 1},
		{[]string{"--fail-on", "low"}, 1},
		{[]string{"--fail-on", "high", "--min-confidence", "certain"}, 1},
		{[]string{"--fail-on", "severe"}, 2},
		{[]string{"--fail-on", "high", "--min-confidence", "sure"}, 2},
	} {
		r := c.run(t, append([]string{"findings", first}, tc.args...)...)
		if r.code != tc.code {
			t.Errorf("findings %v: exit %d, want %d\n%s", tc.args, r.code, tc.code, r.stderr)
		}
	}

	// Baselines: a second scan finds the same weaknesses, so with the first
	// as baseline (by id, or as a JSON or SARIF file) nothing is new.
	r = c.run(t, "scan", "demo.test", "--type", "web", "--tier", "quick", "--wait", "--json",
		"--baseline", first, "--fail-on", "low", "--sarif", filepath.Join(dir, "second.sarif"))
	expectCode(t, r, 0)
	second := scanIDPattern.FindString(r.stderr)
	if second == "" || second == first {
		t.Fatalf("second scan id %q:\n%s", second, r.stderr)
	}
	var secondRecord struct {
		ID       string          `json:"id"`
		Status   string          `json:"status"`
		Findings []findingView   `json:"findings"`
		Issues   []client.Issue  `json:"issues"`
		Summary  *client.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &secondRecord); err != nil || secondRecord.ID != second ||
		len(secondRecord.Findings) < 10 || len(secondRecord.Issues) == 0 || len(secondRecord.Issues) > len(secondRecord.Findings) {
		t.Fatalf("--json record: %v\n%.500s", err, r.stdout)
	}
	baselineJSON := filepath.Join(dir, "baseline.json")
	expectCode(t, c.run(t, "findings", first, "--format", "json", "-o", baselineJSON), 0)
	expectCode(t, c.run(t, "findings", second, "--baseline", baselineJSON, "--fail-on", "low"), 0)
	expectCode(t, c.run(t, "findings", second, "--baseline", sarifPath, "--fail-on", "low"), 0)
	if raw, _ := os.ReadFile(filepath.Join(dir, "second.sarif")); bytes.Contains(raw, []byte(`"baselineState": "new"`)) ||
		!bytes.Contains(raw, []byte(`"baselineState": "unchanged"`)) {
		t.Errorf("second SARIF: every result should be unchanged relative to the baseline")
	}
	// Dropping one high finding from the baseline makes exactly it new.
	var base []findingView
	raw, _ := os.ReadFile(baselineJSON)
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	var dropped string
	var kept []findingView
	for _, f := range base {
		if f.Severity == "high" && dropped == "" {
			dropped = f.Title
			continue
		}
		kept = append(kept, f)
	}
	raw, _ = json.Marshal(kept)
	os.WriteFile(baselineJSON, raw, 0o600)
	r = c.run(t, "findings", second, "--baseline", baselineJSON, "--fail-on", "high")
	expectCode(t, r, 1)
	if !strings.Contains(r.stderr, "Quality gate failed: 1 finding(s)") || strings.Count(r.stdout, "FAIL") != 1 ||
		!strings.Contains(r.stdout, "BASELINE") || !strings.Contains(r.stdout, "COUNT") {
		t.Errorf("one new finding (%s) should fail:\n%s\n%s", dropped, r.stdout, r.stderr)
	}
	expectCode(t, c.run(t, "findings", second, "--baseline", baselineJSON, "--fail-on", "critical"), 0)
	r = c.run(t, "findings", second, "--baseline", "no-such-file.json")
	expectCode(t, r, 2)

	// Scans and reports.
	r = c.run(t, "scans", "list", "--limit", "1")
	expectCode(t, r, 0)
	if !strings.Contains(r.stdout, second) || strings.Contains(r.stdout, first) {
		t.Errorf("scans list --limit 1 (newest first):\n%s", r.stdout)
	}
	r = c.run(t, "scans", "show", first)
	if !strings.Contains(r.stdout, "Agent steps:") || rec.Summary == nil || !strings.Contains(r.stdout, "Risk: "+rec.Summary.RiskRating) {
		t.Errorf("scans show:\n%s", r.stdout)
	}
	report := filepath.Join(dir, "r.pdf")
	expectCode(t, c.run(t, "report", first, "--format", "pdf", "-o", report), 0)
	if raw, _ := os.ReadFile(report); !bytes.HasPrefix(raw, []byte("%PDF-")) {
		t.Errorf("report.pdf starts with %q", raw[:min(len(raw), 8)])
	}
	r = c.run(t, "report", first, "--format", "md", "-o", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "demo.test") {
		t.Errorf("report md to stdout: %d %s", r.code, r.stderr)
	}
	r = c.run(t, "report", "scn_01J00000000000000000000000", "--format", "md")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 404)") {
		t.Errorf("unknown scan: %s", r.stderr)
	}

	// A failed scan exits 3: one credit is not enough for any step.
	r = c.run(t, "scan", "demo.test", "--type", "web", "--tier", "quick", "--max-credits", "1", "--wait", "--fail-on", "critical")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "Credit budget exceeded: 0 of 1 credits used") {
		t.Errorf("failed scan: %s", r.stderr)
	}

	// The standard full scan the figures are about: its time and SARIF size.
	start = time.Now()
	full := filepath.Join(dir, "full.sarif")
	r = c.run(t, "scan", "demo.test", "--type", "full", "--tier", "standard", "--wait", "--fail-on", "critical", "--sarif", full)
	t.Logf("scan --wait (full standard) to exit: %v", time.Since(start).Round(time.Millisecond))
	expectCode(t, r, 1)
	raw, _ = os.ReadFile(full)
	validateSARIF(t, raw)
	t.Logf("SARIF of the full standard scan: %d bytes", len(raw))

	// Cancelling an ended scan is the API's 409; removing the target keeps its scans.
	r = c.run(t, "scans", "cancel", first)
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 409)") {
		t.Errorf("cancel of a completed scan: %s", r.stderr)
	}
	expectCode(t, c.run(t, "targets", "rm", "demo.test"), 0)
	if r = c.run(t, "targets", "list"); !strings.Contains(r.stdout, "No targets.") {
		t.Errorf("after rm:\n%s", r.stdout)
	}
	expectCode(t, c.run(t, "targets", "rm", "demo.test"), 2)
	expectCode(t, c.run(t, "findings", first), 0)
}

// validateSARIF checks a log against the official SARIF 2.1.0 schema
// (sariftest) and GitHub's needs.
func validateSARIF(t *testing.T, raw []byte) {
	t.Helper()
	run := sariftest.OneRun(t, raw)
	ids := map[string]bool{}
	for _, rule := range run.Tool.Driver.Rules {
		if ids[rule.ID] {
			t.Errorf("rule %s twice", rule.ID)
		}
		ids[rule.ID] = true
		if rule.Help["text"] == "" || !strings.Contains(fmt.Sprint(rule.Help["text"]), "Remediation:") {
			t.Errorf("rule %s: no help with remediation", rule.ID)
		}
		if _, ok := rule.Properties["security-severity"].(string); !ok {
			t.Errorf("rule %s: no security-severity", rule.ID)
		}
	}
	if len(run.Results) == 0 {
		t.Fatal("SARIF without results")
	}
	for _, res := range run.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result of %s points at rule %d", res.RuleID, res.RuleIndex)
		}
		if len(res.PartialFingerprints[findings.IssueFingerprintKey]) < 16 || len(res.Locations) == 0 ||
			res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result of %s: fingerprints %v, locations %+v", res.RuleID, res.PartialFingerprints, res.Locations)
		}
	}
}

// checkJUnit parses a JUnit report: one test case per issue (wantTests),
// the issues with a finding at or above the gate failed.
func checkJUnit(t *testing.T, path string, wantFailures, wantTests int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
		Fails   int      `xml:"failures,attr"`
		Suites  []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, raw)
	}
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != doc.Tests || doc.Tests != wantTests {
		t.Fatalf("JUnit: %d suites, tests=%d, want %d", len(doc.Suites), doc.Tests, wantTests)
	}
	failed := 0
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed++
			if !strings.Contains(c.Failure.Text, "evidence:") || !strings.Contains(c.Failure.Text, "remediation:") {
				t.Errorf("failure of %s: %s", c.Name, c.Failure.Text)
			}
		}
	}
	if failed != wantFailures || doc.Fails != wantFailures {
		t.Errorf("JUnit: %d failed cases (attribute %d), want %d", failed, doc.Fails, wantFailures)
	}
}

// Login writes the configuration file (0600) that later commands use, and
// an expired token is refused with the API's message and what to do.
func TestLoginAndExpiredToken(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	token := s.newUser(t, "free", nil)
	cfgDir := t.TempDir()
	c := &cliRun{s: s, configDir: cfgDir, stdin: strings.NewReader(token + "\n"),
		env: map[string]string{"SECSCAN_TOKEN": ""}}
	r := c.run(t, "login", "--api-url", s.base)
	expectCode(t, r, 0)
	path := filepath.Join(cfgDir, "secscan", "config.json")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file %v: %v", st, err)
	}
	if raw, _ := os.ReadFile(path); !bytes.Contains(raw, []byte(token)) {
		t.Fatal("config lacks the token")
	}
	// No flags, no environment: the file is used.
	c = &cliRun{s: s, configDir: cfgDir, env: map[string]string{"SECSCAN_API_URL": "", "SECSCAN_TOKEN": ""}}
	r = c.run(t, "targets", "list")
	expectCode(t, r, 0)

	past := time.Now().Add(-time.Minute)
	expired := s.newUser(t, "starter", &past)
	r = s.cli(expired).run(t, "scans", "list")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "error: Invalid or expired token (HTTP 401)") || !strings.Contains(r.stderr, "secscan login") {
		t.Fatalf("expired token: %s", r.stderr)
	}
	r = s.cli(expired).run(t, "scans", "list", "--json")
	var e struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.stderr), &e); err != nil || e.Status != 401 {
		t.Fatalf("--json error: %v %s", err, r.stderr)
	}
	// login refuses a bad token and writes nothing.
	c = &cliRun{s: s, configDir: t.TempDir(), stdin: strings.NewReader(expired + "\n"), env: map[string]string{"SECSCAN_TOKEN": ""}}
	expectCode(t, c.run(t, "login", "--api-url", s.base), 2)
	if _, err := os.Stat(filepath.Join(c.configDir, "secscan", "config.json")); err == nil {
		t.Fatal("login saved a refused token")
	}
	// Usage errors exit 2.
	expectCode(t, s.cli(token).run(t, "scan"), 2)
	expectCode(t, s.cli(token).run(t, "findings", "x", "--format", "yaml"), 2)
	expectCode(t, s.cli(token).run(t, "no-such-command"), 2)
}

// buildCLI builds the secscan binary as go install would (stripped, as a
// release would ship it) and logs its size.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "secscan")
	out, err := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if st, err := os.Stat(bin); err == nil {
		t.Logf("secscan binary (stripped, %s): %.1f MB", runtime.GOOS+"/"+runtime.GOARCH, float64(st.Size())/1e6)
	}
	return bin
}

// A delivery saved by a receiver verifies with the right secret, and a
// tampered body, a wrong secret or an old timestamp do not.
func TestWebhookVerify(t *testing.T) {
	t.Parallel()
	secret := "whsec_test0123456789"
	body := `{"scan_id":"scn_01J00000000000000000000000","status":"completed","target":"demo.test","tier":"quick","credits_used":15,"findings_count":21,"summary":{"risk_rating":"high","summary":"x","attack_chains":[]}}`
	delivery := func(ts int64, body string) string {
		mac := hmac.New(sha256.New, []byte(secret))
		fmt.Fprintf(mac, "%d.%s", ts, body)
		return fmt.Sprintf("POST /hooks/scans HTTP/1.1\r\nHost: ci.example.com\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
			"X-Service-Webhook-Timestamp: %d\r\nX-Service-Signature: t=%d,v1=%s\r\nX-Service-Delivery: dlv_1\r\n\r\n%s\n",
			len(body), ts, ts, hex.EncodeToString(mac.Sum(nil)), body)
	}
	now := time.Now().Unix()
	run := func(stdin string, args ...string) result {
		c := &cliRun{s: &stack{}, stdin: strings.NewReader(stdin)}
		return c.run(t, append([]string{"webhook", "verify"}, args...)...)
	}
	r := run(delivery(now, body), "--secret", secret)
	expectCode(t, r, 0)
	if !strings.Contains(r.stdout, "valid: delivery dlv_1 for scan scn_01J00000000000000000000000 (completed)") {
		t.Fatalf("valid delivery: %s", r.stdout)
	}
	r = run(strings.Replace(delivery(now, body), `"credits_used":15`, `"credits_used":0`, 1), "--secret", secret)
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, "invalid: signature does not match") {
		t.Fatalf("tampered: %s", r.stdout)
	}
	expectCode(t, run(delivery(now, body), "--secret", "whsec_other"), 1)
	old := now - 3600
	r = run(delivery(old, body), "--secret", secret)
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, "timestamp outside the tolerance") {
		t.Fatalf("stale: %s", r.stdout)
	}
	expectCode(t, run(delivery(old, body), "--secret", secret, "--at", fmt.Sprint(old+10)), 0)
	// Headers and body without a request line, the secret from the environment.
	c := &cliRun{s: &stack{}, stdin: strings.NewReader(strings.SplitN(delivery(now, body), "\r\n", 2)[1]),
		env: map[string]string{"SECSCAN_WEBHOOK_SECRET": secret}}
	expectCode(t, c.run(t, "webhook", "verify"), 0)
	expectCode(t, run("not a delivery", "--secret", secret), 2)
	expectCode(t, run(delivery(now, body)), 2) // no secret
}

// Interrupting a wait: --cancel-on-interrupt cancels the scan (exit 3); on
// a terminal the CLI asks first; without a terminal it leaves the scan
// running (exit 2), and scans cancel stops it.
func TestInterruptedWait(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	token := s.newUser(t, "free", nil)
	c := s.cli(token)
	r := c.run(t, "targets", "add", "slow.test")
	expectCode(t, r, 0)
	tok := regexp.MustCompile(`service-verify-[0-9A-Za-z]+`).FindString(r.stdout)
	s.dns.Add(t, fmt.Sprintf("_service-challenge.slow.test. 60 IN TXT %q", tok))
	expectCode(t, c.run(t, "targets", "verify", "slow.test"), 0)

	// interrupt starts a --wait run in the background and sends it Ctrl-C
	// once the scan is running.
	interrupt := func(terminal bool, stdin string, args ...string) result {
		cr := &cliRun{s: s, token: token, interrupts: make(chan os.Signal, 2), terminal: terminal,
			stdin: strings.NewReader(stdin), stderr: &syncio.Buffer{}}
		done := make(chan result, 1)
		go func() {
			done <- cr.run(t, append([]string{"scan", "slow.test", "--type", "web", "--tier", "quick", "--wait"}, args...)...)
		}()
		await(t, "the scan to run", func() bool { return strings.Contains(cr.stderr.String(), " running: ") })
		cr.interrupts <- syscall.SIGINT
		select {
		case r := <-done:
			return r
		case <-time.After(time.Minute):
			t.Fatalf("no exit after the interrupt:\n%s", cr.stderr.String())
		}
		return result{}
	}

	// The real binary, a real SIGINT: --cancel-on-interrupt cancels.
	bin := buildCLI(t)
	cmd := exec.Command(bin, "scan", "slow.test", "--type", "web", "--tier", "quick", "--wait", "--cancel-on-interrupt")
	cmd.Env = append(os.Environ(), "SECSCAN_API_URL="+s.base, "SECSCAN_TOKEN="+token)
	stderr := &syncio.Buffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, "the scan to run", func() bool { return strings.Contains(stderr.String(), " running: ") })
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	t.Logf("SIGINT to exit with --cancel-on-interrupt (cancellation lands after the step in progress): %v", time.Since(start).Round(time.Millisecond))
	if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(stderr.String(), "interrupted: cancelling") ||
		!strings.Contains(stderr.String(), " cancelled") {
		t.Fatalf("exit %d (%v):\n%s", cmd.ProcessState.ExitCode(), err, stderr.String())
	}

	// --timeout cancels a scan that has not ended in time.
	r = c.run(t, "scan", "slow.test", "--type", "web", "--tier", "quick", "--wait", "--timeout", "500ms")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "timed out after 500ms: cancelling") || !strings.Contains(r.stderr, " cancelled") {
		t.Fatalf("--timeout:\n%s", r.stderr)
	}

	r = interrupt(true, "y\n")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "Cancel scan scn_") || !strings.Contains(r.stderr, " cancelled") {
		t.Fatalf("asked on a terminal:\n%s", r.stderr)
	}

	r = interrupt(false, "")
	expectCode(t, r, 2)
	id := scanIDPattern.FindString(r.stderr)
	if !strings.Contains(r.stderr, id+" continues") {
		t.Fatalf("interrupted without a terminal:\n%s", r.stderr)
	}
	r = c.run(t, "scans", "show", id, "--json")
	if !strings.Contains(r.stdout, `"status": "running"`) && !strings.Contains(r.stdout, `"status":"running"`) {
		t.Fatalf("the scan should still run: %.300s", r.stdout)
	}
	// While it runs, the record names the step running now (current_step),
	// which is recorded under that number and tool once it ends.
	var running *client.CurrentStep
	for range 40 {
		if running = showScan(t, c, id).CurrentStep; running != nil {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if running == nil || running.Seq < 1 || running.Tool == "" || running.StartedAt.IsZero() {
		t.Fatalf("a running scan names no current step: %+v", running)
	}
	expectCode(t, c.run(t, "scans", "cancel", id), 0)
	// scans show polls gently (the API allows 60 requests a minute).
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(c.run(t, "scans", "show", id).stdout, "— cancelled") {
		if time.Now().After(deadline) {
			t.Fatalf("%s not cancelled after a minute", id)
		}
		time.Sleep(300 * time.Millisecond)
	}
	ended := showScan(t, c, id)
	if ended.CurrentStep != nil || len(ended.Steps) < running.Seq || ended.Steps[running.Seq-1].Tool != running.Tool {
		t.Errorf("current step %+v; the ended scan: current %+v, steps %+v", running, ended.CurrentStep, ended.Steps)
	}
}

// showScan reads a scan record as the CLI's --json prints it.
func showScan(t *testing.T, c *cliRun, id string) client.Scan {
	t.Helper()
	r := c.run(t, "scans", "show", id, "--json")
	expectCode(t, r, 0)
	var sc client.Scan
	if err := json.Unmarshal([]byte(r.stdout), &sc); err != nil {
		t.Fatalf("scans show --json: %v\n%s", err, r.stdout)
	}
	return sc
}

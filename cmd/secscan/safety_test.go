package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"

	"secscan/cmd/secscan/internal/cli"
)

// fakeAPI is a minimal API on 127.0.0.1 for the CLI's safety rules: it
// accepts one token, records the Authorization headers it is sent, and
// serves a scan whose text a hostile target chose.
type fakeAPI struct {
	*httptest.Server
	token string
	mu    sync.Mutex
	auth  []string
}

// hostile is target-chosen text: GitHub workflow commands after newlines
// and carriage returns, ANSI and OSC escapes, a bidi override.
const hostile = "Open port\n::set-output name=token::pwned\r::add-mask::x\n  ::error::fake\x1b[31mred\x1b[0m\x1b]0;title\x07 ##[set-output name=a;]b \u202eevil"

func newFakeAPI(t *testing.T, token string) *fakeAPI {
	f := &fakeAPI{token: token}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"detail":"Invalid or expired token"}`)
			return
		}
		switch r.URL.Path {
		case "/api/auth/me":
			fmt.Fprint(w, `{"id":"usr_1","email":"dev@example.com","plan":"starter","is_admin":false}`)
		case "/api/targets":
			fmt.Fprint(w, `[]`)
		case "/api/scans/scn_hostile":
			port, errText := 8080, hostile
			scan := map[string]any{"id": "scn_hostile", "target": "demo.test", "scan_type": "full", "tier": "quick",
				"status": "completed", "credits_used": 3, "max_credits": 10, "created_at": "2026-01-01T00:00:00Z",
				"error": errText,
				"findings": []map[string]any{{"id": "f1", "title": hostile, "severity": "high", "category": "network",
					"host": "demo.test\n::warning::h", "port": port, "evidence": hostile, "remediation": hostile,
					"confidence": "firm", "fingerprint": "fp1", "references": []string{}}},
				"agent_steps": []map[string]any{{"seq": 1, "tool": "port_scan\n::x::", "status": "ok", "outcome": hostile,
					"credits": 3, "started_at": "2026-01-01T00:00:00Z"}},
				"summary": map[string]any{"risk_rating": "high", "summary": hostile, "attack_chains": []string{hostile}}}
			_ = json.NewEncoder(w).Encode(scan)
		default:
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"detail": "Not found: " + hostile})
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// authorizations returns the Authorization headers received so far.
func (f *fakeAPI) authorizations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...)
}

type secscanRun struct {
	code           int
	stdout, stderr string
}

// runSecscan runs the CLI in process with env as its whole environment,
// stdin holding stdin, and configDir as the user configuration directory.
func runSecscan(env map[string]string, configDir, stdin string, args ...string) secscanRun {
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		Getenv:    func(k string) string { return env[k] },
		ConfigDir: func() (string, error) { return configDir, nil },
		Version:   "test",
	})
	return secscanRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// A token saved by login is bound to the API URL it was saved for: another
// URL (flag or environment) does not receive it, and the CLI says to log in.
func TestSavedLoginIsBoundToItsAPIURL(t *testing.T) {
	t.Parallel()
	a := newFakeAPI(t, "pt_tokenForA")
	b := newFakeAPI(t, "pt_tokenForB")
	cfg := t.TempDir()
	if r := runSecscan(nil, cfg, "pt_tokenForA\n", "login", "--api-url", a.URL); r.code != 0 {
		t.Fatalf("login to A: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runSecscan(nil, cfg, "", "targets", "list"); r.code != 0 {
		t.Fatalf("targets list with the saved login: exit %d\n%s", r.code, r.stderr)
	}
	for name, r := range map[string]secscanRun{
		"--api-url":       runSecscan(nil, cfg, "", "targets", "list", "--api-url", b.URL),
		"SECSCAN_API_URL": runSecscan(map[string]string{"SECSCAN_API_URL": b.URL + "/"}, cfg, "", "targets", "list"),
	} {
		if r.code != 2 || !strings.Contains(r.stderr, "secscan login --api-url "+b.URL) || !strings.Contains(r.stderr, a.URL) {
			t.Errorf("%s of another API with A's saved login: exit %d\n%s", name, r.code, r.stderr)
		}
	}
	for _, h := range b.authorizations() {
		if strings.Contains(h, "pt_tokenForA") {
			t.Errorf("B received A's token: %q", h)
		}
	}
	// The same API written differently is the same login.
	same := strings.Replace(a.URL, "http://", "HTTP://", 1) + "/"
	if r := runSecscan(map[string]string{"SECSCAN_API_URL": same}, cfg, "", "targets", "list"); r.code != 0 {
		t.Errorf("targets list on %s: exit %d\n%s", same, r.code, r.stderr)
	}
	// A token given for B explicitly still works.
	if r := runSecscan(map[string]string{"SECSCAN_API_URL": b.URL, "SECSCAN_TOKEN": "pt_tokenForB"}, cfg, "", "targets", "list"); r.code != 0 {
		t.Errorf("targets list on B with SECSCAN_TOKEN: exit %d\n%s", r.code, r.stderr)
	}
}

// A redirect from the API to another origin does not carry the token, and
// the CLI says why it stopped.
func TestCLIDoesNotFollowARedirectWithTheToken(t *testing.T) {
	t.Parallel()
	other := newFakeAPI(t, "pt_other")
	api := httptest.NewServer(http.RedirectHandler(other.URL+"/api/targets", http.StatusTemporaryRedirect))
	t.Cleanup(api.Close)
	r := runSecscan(map[string]string{"SECSCAN_API_URL": api.URL, "SECSCAN_TOKEN": "pt_secret"}, t.TempDir(), "", "targets", "list")
	if r.code != 2 || !strings.Contains(r.stderr, "another origin") {
		t.Errorf("targets list through a cross-origin redirect: exit %d\n%s", r.code, r.stderr)
	}
	for _, h := range other.authorizations() {
		if h != "" {
			t.Errorf("the other origin received Authorization %q", h)
		}
	}
}

// What the CLI prints for a CI log never holds a workflow command or a
// control character, whatever the scanned target put in the scan.
func TestCLIOutputIsSafeForCILogs(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, "pt_ci")
	env := map[string]string{"SECSCAN_API_URL": api.URL, "SECSCAN_TOKEN": "pt_ci"}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"scans", "show", "scn_hostile"},
		{"scans", "show", "scn_hostile", "--json"},
		{"findings", "scn_hostile"},
		{"findings", "scn_hostile", "--format", "markdown"},
		{"findings", "scn_hostile", "--format", "json"},
		{"findings", "scn_hostile", "--format", "sarif"},
		{"findings", "scn_hostile", "--format", "junit"},
		{"findings", "scn_hostile", "--fail-on", "low"},
		{"scans", "show", "scn_missing"},
		{"scans", "show", "scn_missing", "--json"},
	} {
		r := runSecscan(env, dir, "", args...)
		if r.stdout+r.stderr == "" {
			t.Errorf("%v printed nothing", args)
		}
		for stream, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if bad := unsafeForCILog(text); bad != "" {
				t.Errorf("%v: %s %s\n%s", args, stream, bad, text)
			}
		}
	}
}

// unsafeForCILog names what in text a CI runner or terminal would act on.
func unsafeForCILog(text string) string {
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			return fmt.Sprintf("line %d is a workflow command: %q", i+1, line)
		}
		if strings.Contains(line, "##[") {
			return fmt.Sprintf("line %d holds ##[: %q", i+1, line)
		}
		for _, c := range line {
			if c != '\t' && (unicode.IsControl(c) || c == '\u202e' || c == '\u2028' || c == '\u2029') {
				return fmt.Sprintf("line %d holds control character %U: %q", i+1, c, line)
			}
		}
	}
	return ""
}

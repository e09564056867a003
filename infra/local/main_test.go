package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"secscan/shared/syncio"
)

// stackProc is `go run ./infra/local` as a user runs it: its own process,
// in its own process group (as a terminal's foreground job).
type stackProc struct {
	cmd  *exec.Cmd
	out  *syncio.Buffer
	base string
}

// buildStack builds the local stack's binary once per test.
func buildStack(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "local")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startProc starts the binary on addr with data in dataDir (no demo target
// unless env says so: its fixed ports are `make run`'s) and waits until it
// serves.
func startProc(t *testing.T, bin, addr, dataDir string, env ...string) *stackProc {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	p := &stackProc{out: &syncio.Buffer{}, base: "http://" + addr}
	p.cmd = exec.Command(bin, "-root", root)
	p.cmd.Env = append(os.Environ(), "ADDR="+addr, "LOCAL_DATA="+dataDir, "DEMO_TARGET=false",
		"BOOTSTRAP_ADMIN_EMAIL=", "BOOTSTRAP_ADMIN_TOKEN=", "DYNAMODB_ENDPOINT=", "JWT_JWKS_URL=")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			_ = p.cmd.Wait()
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if strings.Contains(p.out.String(), "Press Ctrl-C to stop.") {
			return p
		}
		if p.cmd.ProcessState != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the stack did not start:\n%s", p.out.String())
	return nil
}

// interrupt is Ctrl-C: SIGINT to the whole process group. It returns how
// long the stack took to exit and what it printed after the signal.
func (p *stackProc) interrupt(t *testing.T) (time.Duration, string) {
	t.Helper()
	before := len(p.out.String())
	start := time.Now()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the stack exited with %v after Ctrl-C", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the stack did not stop within 30 s of Ctrl-C:\n%s", p.out.String())
	}
	return time.Since(start), p.out.String()[before:]
}

func (p *stackProc) call(t *testing.T, method, path, bearer, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, b
}

// TestRestartKeepsSessionsAndData runs the stack as `make run` does, twice
// on one data folder: Ctrl-C stops it within 10 s with one line and no error
// or stack trace; after the restart the browser session, the target and the
// local admin's token (printed with how to use it) still work; a second
// stack on the same folder is refused.
func TestRestartKeepsSessionsAndData(t *testing.T) {
	bin := buildStack(t)
	data := filepath.Join(t.TempDir(), "data")
	// The same address after the restart: it is the sessions' issuer.
	addr := freeAddr(t)
	p := startProc(t, bin, addr, data)

	if !strings.Contains(p.out.String(), "Local admin: admin@example.com") || !strings.Contains(p.out.String(), "export TOKEN=$(cat "+filepath.Join(data, "admin-token")+")") {
		t.Errorf("the banner does not say how to act as the local admin:\n%s", p.out.String())
	}
	adminToken, err := os.ReadFile(filepath.Join(data, "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(string(adminToken))
	if code, body := p.call(t, "GET", "/api/auth/me", admin, ""); code != 200 || !strings.Contains(string(body), `"is_admin":true`) {
		t.Fatalf("admin token: %d %s", code, body)
	}
	code, body := p.call(t, "POST", "/dev/session", "", `{"email":"you@example.com"}`)
	var sess struct{ Token string }
	if code != 200 || json.Unmarshal(body, &sess) != nil || sess.Token == "" {
		t.Fatalf("dev session: %d %s", code, body)
	}
	code, body = p.call(t, "POST", "/api/targets", admin, `{"target":"example.com","method":"dns_txt"}`)
	var target struct{ ID string }
	if code != 201 || json.Unmarshal(body, &target) != nil {
		t.Fatalf("create target: %d %s", code, body)
	}

	// A second stack on the same folder is refused, and says what to do.
	second := exec.Command(bin, "-root", "../..")
	second.Env = append(os.Environ(), "ADDR="+freeAddr(t), "LOCAL_DATA="+data, "DEMO_TARGET=false")
	if out, err := second.CombinedOutput(); err == nil || !strings.Contains(string(out), "another local stack is using") {
		t.Errorf("a second stack on the same data folder: %v\n%s", err, out)
	}

	took, after := p.interrupt(t)
	t.Logf("Ctrl-C: stopped in %s", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("Ctrl-C took %s, want at most 10 s", took)
	}
	checkQuietStop(t, after)

	p = startProc(t, bin, addr, data)
	if code, body := p.call(t, "GET", "/api/auth/me", sess.Token, ""); code != 200 || !strings.Contains(string(body), "you@example.com") {
		t.Errorf("the session of before the restart: %d %s", code, body)
	}
	if code, body := p.call(t, "GET", "/api/targets", admin, ""); code != 200 || !strings.Contains(string(body), target.ID) {
		t.Errorf("the target of before the restart: %d %s", code, body)
	}
	if code, _ := p.call(t, "GET", "/api/auth/me", admin, ""); code != 200 {
		t.Errorf("the admin token of before the restart: %d", code)
	}
	_, after = p.interrupt(t)
	checkQuietStop(t, after)
}

// checkQuietStop: what the stack prints after Ctrl-C is its one line (and
// request logs of requests still finishing), never an error, a Java
// exception or a Go stack trace.
func checkQuietStop(t *testing.T, after string) {
	t.Helper()
	var last string
	sc := bufio.NewScanner(strings.NewReader(after))
	for sc.Scan() {
		line := sc.Text()
		for _, bad := range []string{`"level":"ERROR"`, "panic:", "goroutine ", "Exception", "npm ERR", "local stack:"} {
			if strings.Contains(line, bad) {
				t.Errorf("after Ctrl-C the stack printed %q", line)
			}
		}
		if strings.TrimSpace(line) != "" {
			last = line
		}
	}
	if !strings.HasPrefix(last, "Stopped the API, the scan runner, the demo target and DynamoDB Local") {
		t.Errorf("last line after Ctrl-C is %q, want the one stop line", last)
	}
}

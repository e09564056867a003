// Command coldstart measures how long each Lambda of functions/ takes from
// exec to its first request for an invocation (lambda.Start reaching the
// Runtime API), against a hello-world Lambda built the same way, on this
// machine, in one run. It is a benchmark, not a test: it prints medians.
//
//	go run ./infra/local/cmd/coldstart -n 15                 # every function
//	go run ./infra/local/cmd/coldstart -root /tmp/old health # another checkout
//
// Each binary is built for this machine's OS and architecture with the
// Lambda build flags of the Makefile. Runs are interleaved (hello, f1, f2,
// …, hello, f1, …) so that drift in the machine's load hits every binary
// alike. The process gets a deployed function's environment, with its
// endpoints on loopback: a fake Runtime API that records the first
// /invocation/next, a JWKS server that counts fetches (none is expected
// before the first JWT), and a DynamoDB endpoint nothing listens on (no
// client may connect at start-up).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run() error {
	n := flag.Int("n", 15, "runs per binary")
	root := flag.String("root", ".", "repository whose functions/ to build")
	flag.Parse()
	names, err := functionNames(*root, flag.Args())
	if err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	if err := buildAll(*root, bin, names); err != nil {
		return err
	}
	rt, err := newRuntimeAPI()
	if err != nil {
		return err
	}
	defer rt.srv.Close()
	all := append([]string{"hello"}, names...)
	times, err := rt.measure(bin, all, *n)
	if err != nil {
		return err
	}
	printTimes(all, times)
	fmt.Printf("%d runs each on %d CPUs; JWKS fetched %d times during start-up\n", *n, runtime.NumCPU(), rt.jwksHits.Load())
	return nil
}

// functionNames are the functions to measure: those named on the command
// line, else every directory of root's functions/.
func functionNames(root string, args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	entries, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// buildAll builds the hello baseline and each function into bin.
func buildAll(root, bin string, names []string) error {
	self, err := filepath.Abs("infra/local/cmd/coldstart/hello")
	if err != nil {
		return err
	}
	if err := build(".", self, filepath.Join(bin, "hello")); err != nil {
		return err
	}
	for _, name := range names {
		if err := build(root, "./functions/"+name, filepath.Join(bin, name)); err != nil {
			return err
		}
	}
	return nil
}

// measure starts each binary of bin n times, round after round, and
// returns the start-up times by name.
func (rt *runtimeAPI) measure(bin string, names []string, n int) (map[string][]time.Duration, error) {
	times := map[string][]time.Duration{}
	for range n {
		for _, name := range names {
			d, err := rt.startUp(filepath.Join(bin, name))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			times[name] = append(times[name], d)
		}
	}
	return times, nil
}

// printTimes prints each binary's median, minimum and maximum start-up
// time and its median's ratio to hello's.
func printTimes(names []string, times map[string][]time.Duration) {
	hello := median(times["hello"])
	fmt.Printf("%-24s %10s %10s %10s %7s\n", "binary", "median", "min", "max", "ratio")
	for _, name := range names {
		m := median(times[name])
		fmt.Printf("%-24s %10s %10s %10s %6.2fx\n", name, ms(m), ms(slices.Min(times[name])), ms(slices.Max(times[name])),
			float64(m)/float64(hello))
	}
}

// build compiles pkg (relative to dir) with the Makefile's Lambda flags for
// this machine.
func build(dir, pkg, out string) error {
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w -buildid=", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// runtimeAPI fakes the Lambda Runtime API (and a JWKS) on loopback.
type runtimeAPI struct {
	srv      *http.Server
	addr     string
	next     chan time.Time
	jwksHits atomic.Int32
}

func newRuntimeAPI() (*runtimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rt := &runtimeAPI{addr: ln.Addr().String(), next: make(chan time.Time, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case rt.next <- time.Now():
		default:
		}
		<-r.Context().Done() // no invocation: the process is killed
	})
	mux.HandleFunc("GET /jwks.json", func(w http.ResponseWriter, r *http.Request) {
		rt.jwksHits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"keys":[]}`))
	})
	rt.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = rt.srv.Serve(ln) }()
	return rt, nil
}

// startUp runs path until it asks for its first invocation.
func (rt *runtimeAPI) startUp(path string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Env = []string{
		"PATH=/usr/bin:/bin", "HOME=" + os.TempDir(),
		"AWS_LAMBDA_RUNTIME_API=" + rt.addr,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDCOLDSTART", "AWS_SECRET_ACCESS_KEY=coldstart",
		"AWS_LAMBDA_FUNCTION_NAME=coldstart", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"TABLE_NAME=secscan", "DYNAMODB_ENDPOINT=http://127.0.0.1:1",
		"STATE_MACHINE_ARN=arn:aws:states:us-east-1:123456789012:stateMachine:scan",
		"STEPFUNCTIONS_ENDPOINT=http://127.0.0.1:1",
		"JWT_JWKS_URL=http://" + rt.addr + "/jwks.json", "JWT_ISSUER=https://idp.test/", "JWT_AUDIENCE=coldstart",
		"ADMIN_EMAILS=admin@example.com", "VERSION=coldstart", "LOG_LEVEL=WARN",
		"OIDC_AUTHORIZE_URL=https://idp.test/authorize", "OIDC_TOKEN_URL=https://idp.test/token", "OIDC_CLIENT_ID=coldstart",
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case at := <-rt.next:
		_ = cmd.Process.Kill()
		<-exited
		return at.Sub(start), nil
	case err := <-exited:
		return 0, fmt.Errorf("exited before asking for an invocation (%v): %s", err, out.String())
	case <-ctx.Done():
		return 0, fmt.Errorf("no request for an invocation within 10 s: %s", out.String())
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

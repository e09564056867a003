// Command secscan is the command-line client of the security scanning
// service, for people and CI pipelines: targets, scans with live progress,
// reports, and findings as SARIF, JUnit or Markdown with a quality gate.
//
//	go install secscan/cmd/secscan@latest   # from a checkout: go install ./cmd/secscan
//	secscan --help
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"

	"secscan/cmd/secscan/internal/cli"
)

// version is set at build time (-ldflags "-X main.version=…"); otherwise
// the module version go install recorded, or "dev".
var version = ""

func main() {
	interrupts := make(chan os.Signal, 2)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	stdin, stdout, stderr := int(os.Stdin.Fd()), int(os.Stdout.Fd()), int(os.Stderr.Fd())
	code := cli.Run(context.Background(), os.Args[1:], cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv:         os.Getenv,
		Interrupts:     interrupts,
		StdinTerminal:  term.IsTerminal(stdin),
		StderrTerminal: term.IsTerminal(stderr),
		TermWidth: func() int {
			w, _, err := term.GetSize(stderr)
			if err != nil {
				return 0
			}
			return w
		},
		StdoutWidth: func() int {
			if !term.IsTerminal(stdout) {
				return 0
			}
			w, _, err := term.GetSize(stdout)
			if err != nil {
				return 0
			}
			return w
		},
		ReadSecret: func() (string, error) {
			b, err := term.ReadPassword(stdin)
			return string(b), err
		},
		ConfigDir: os.UserConfigDir,
		Version:   buildVersion(),
	})
	os.Exit(code)
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

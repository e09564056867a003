// Command with-dynamodb runs a command with a DynamoDB Local started for it:
// DYNAMODB_ENDPOINT is set in the command's environment, and the emulator
// stops when the command ends. `make test` uses it so every test package
// shares one emulator instead of starting its own.
//
//	go run ./infra/local/cmd/with-dynamodb -- go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"secscan/infra/local/dynamolocal"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: with-dynamodb -- command [args...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		log, err := os.CreateTemp("", "dynamodb-local-*.log")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.Remove(log.Name())
		srv, err := dynamolocal.Start(ctx, "infra/local", log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "with-dynamodb:", err)
			return 1
		}
		defer srv.Stop()
		os.Setenv("DYNAMODB_ENDPOINT", srv.Endpoint)
		fmt.Fprintln(os.Stderr, "with-dynamodb: DynamoDB Local on", srv.Endpoint)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-dynamodb:", err)
		return 1
	}
	return 0
}

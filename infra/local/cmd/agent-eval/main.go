// Command agent-eval scans the local demo target with a model and with the
// playbook and prints the comparison (package agenteval):
//
//	make agent-eval MODEL=scripted
//	make agent-eval MODEL=us.anthropic.claude-3-5-sonnet-20241022-v2:0   # Amazon Bedrock (AWS credentials, AWS_REGION)
//	make agent-eval MODEL=http://127.0.0.1:11434/v1 AGENT_EVAL_OPENAI_MODEL=qwen2.5:14b   # OpenAI-compatible
//
// It needs DYNAMODB_ENDPOINT (the make target starts DynamoDB Local).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"secscan/infra/local/agenteval"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "agent-eval:", err)
		os.Exit(1)
	}
}

func run() error {
	model := flag.String("model", os.Getenv("MODEL"), "scripted, a Bedrock model id, or an OpenAI-compatible base URL")
	scanType := flag.String("type", "full", "scan type of both scans")
	tier := flag.String("tier", "standard", "tier of both scans")
	logs := flag.String("logs", "", "file for the stacks' logs (default: none)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := agenteval.RepoRoot()
	if err != nil {
		return err
	}
	cfg := agenteval.Config{Model: *model, OpenAIModel: os.Getenv("AGENT_EVAL_OPENAI_MODEL"), OpenAIKey: os.Getenv("AGENT_OPENAI_API_KEY"),
		Root: root, DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"), ScanType: *scanType, Tier: *tier, DemoHost: os.Getenv("AGENT_EVAL_DEMO_HOST")}
	if cfg.DynamoDBEndpoint == "" {
		return fmt.Errorf("DYNAMODB_ENDPOINT is not set: run it through make agent-eval or infra/local/cmd/with-dynamodb")
	}
	if *logs != "" {
		f, err := os.Create(*logs)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.Logs = f
	}
	fmt.Printf("Scanning the demo target (%s/%s) with %s and with the playbook…\n\n", cfg.ScanType, cfg.Tier, *model)
	results, err := agenteval.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := agenteval.Table(os.Stdout, results); err != nil {
		return err
	}
	fmt.Println("\nDollar figures are estimates at approximate published token prices; real-model figures depend on the model.")
	return nil
}

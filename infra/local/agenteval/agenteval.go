// Package agenteval is the harness behind `make agent-eval`: it scans the
// local demo target (loopback only) twice on the local stack, once with a
// configured model planning and once with the playbook alone, and compares
// what each found and what it cost (Table). Teams with model access use it
// to compare models before enabling one; MODEL=scripted runs a scripted
// model (modeltest.Verifier) behind the Bedrock wire protocol, offline.
//
// Each run is the real service: DynamoDB Local, the API's handlers over
// HTTP on 127.0.0.1, the scan state machine on aws-local-stepfunctions, the
// real tools through the guarded dialer against the demo's servers.
package agenteval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"secscan/infra/local/demotarget"
	"secscan/infra/local/modeltest"
	"secscan/shared/syncio"
)

// Scripted is the MODEL value that runs the scripted model.
const Scripted = "scripted"

// ScriptedModelID is the model id the scripted model answers as; its
// family prices its tokens in credits and dollars like a real model's.
const ScriptedModelID = "us.anthropic.claude-3-5-sonnet-20241022-v2:0"

// Config is one evaluation.
type Config struct {
	// Model is "scripted", a Bedrock model or inference-profile id, or the
	// base URL of an OpenAI-compatible API (http:// or https://).
	Model string
	// OpenAIModel is the model name to ask at an OpenAI-compatible URL.
	OpenAIModel string
	// OpenAIKey is that API's key (sent in the Authorization header only).
	OpenAIKey string
	// Root is the repository root (template.yaml, infra/local/node_modules).
	Root string
	// DynamoDBEndpoint is DynamoDB Local's URL.
	DynamoDBEndpoint string
	// ScanType and Tier of both scans (default full and standard).
	ScanType, Tier string
	// DemoHost is the loopback address of the demo target (default
	// 127.0.0.9, its default ports: one a run, so runs do not collide).
	DemoHost string
	// Logs receives the stacks' logs (default: discarded).
	Logs io.Writer
	// Timeout bounds each scan (default 15 minutes).
	Timeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.ScanType == "" {
		c.ScanType = "full"
	}
	if c.Tier == "" {
		c.Tier = "standard"
	}
	if c.DemoHost == "" {
		c.DemoHost = "127.0.0.9"
	}
	if c.Logs == nil {
		c.Logs = io.Discard
	}
	// Both stacks and their runners log to it at once.
	c.Logs = syncio.NewWriter(c.Logs)
	if c.Timeout == 0 {
		c.Timeout = 15 * time.Minute
	}
	return c
}

// Run scans the demo target with the model and with the playbook, and
// returns the two results in that order.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("MODEL is required: scripted, a Bedrock model id, or an OpenAI-compatible base URL")
	}
	demo, err := demotarget.Start(ctx, demotarget.Config{
		Domain: "eval.test", Host: cfg.DemoHost, DNSAddr: cfg.DemoHost + ":0",
		HTTPPort: demotarget.DefaultHTTPPort, HTTPSPort: demotarget.DefaultHTTPSPort, MySQLPort: demotarget.DefaultMySQLPort,
		FTPPort: demotarget.DefaultFTPPort, SSHPort: demotarget.DefaultSSHPort, RedisPort: demotarget.DefaultRedisPort,
		ExporterPort: demotarget.DefaultExporterPort,
	})
	if err != nil {
		return nil, fmt.Errorf("start the demo target on %s: %w", cfg.DemoHost, err)
	}
	defer demo.Close()
	planner, cleanup, err := modelPlanner(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var out []Result
	for _, p := range []plannerSetup{planner, {label: "playbook"}} {
		r, err := runOne(ctx, cfg, demo, p)
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.label, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// modelPlanner is the configuration of the model run, and what stops the
// scripted model when there is one.
func modelPlanner(cfg Config) (plannerSetup, func(), error) {
	m := strings.TrimSpace(cfg.Model)
	switch {
	case m == Scripted:
		srv, err := modeltest.Serve((&modeltest.Verifier{}).Script(), false)
		if err != nil {
			return plannerSetup{}, nil, err
		}
		// The Bedrock client of this process reaches the scripted server
		// (the SDK's standard endpoint variable, dummy credentials).
		for k, v := range map[string]string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": srv.URL, "AWS_REGION": "us-east-1",
			"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull} {
			if err := os.Setenv(k, v); err != nil {
				srv.Close()
				return plannerSetup{}, nil, err
			}
		}
		return plannerSetup{label: "model: scripted", provider: "bedrock", model: ScriptedModelID}, srv.Close, nil
	case strings.HasPrefix(m, "http://") || strings.HasPrefix(m, "https://"):
		if cfg.OpenAIModel == "" {
			return plannerSetup{}, nil, errors.New("an OpenAI-compatible MODEL URL needs the model name in AGENT_EVAL_OPENAI_MODEL")
		}
		return plannerSetup{label: "model: " + cfg.OpenAIModel, provider: "openai", model: cfg.OpenAIModel, baseURL: m, apiKey: cfg.OpenAIKey}, func() {}, nil
	}
	return plannerSetup{label: "model: " + m, provider: "bedrock", model: m}, func() {}, nil
}

// plannerSetup is how one run plans: a model (provider, model) or the
// playbook (model empty).
type plannerSetup struct {
	label, provider, model, baseURL, apiKey string
}

// repoRoot finds the directory holding template.yaml from dir upwards.
func repoRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "template.yaml")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no template.yaml above %s", dir)
		}
	}
}

// RepoRoot is the repository root above the working directory.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return repoRoot(wd)
}

func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

package agenteval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"secscan/infra/local/demotarget"
	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/localstack"
	"secscan/infra/local/testseed"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/ids"
	"secscan/shared/samtemplate"
	"secscan/shared/scans"
	"secscan/shared/store"
	"secscan/shared/tools"
)

// stack is one local service: its own table and state machine runner, the
// API's handlers on 127.0.0.1, and a pro user with an API token.
type stack struct {
	base, token string
	client      *http.Client
	close       []func()
}

func (s *stack) Close() {
	for i := len(s.close) - 1; i >= 0; i-- {
		s.close[i]()
	}
}

// startStack builds the service for one planner setup.
func startStack(ctx context.Context, cfg Config, demo *demotarget.Target, p plannerSetup) (*stack, error) {
	s := &stack{client: &http.Client{Timeout: 30 * time.Second}}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	tpl, err := samtemplate.Load(filepath.Join(cfg.Root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	idp, err := devidp.New("https://idp.agent-eval/", "agent-eval")
	if err != nil {
		return nil, err
	}
	keys, err := idp.Keyfunc()
	if err != nil {
		return nil, err
	}
	c := serviceConfig(cfg, demo, idp, p)
	if err := createTables(ctx, tpl, c); err != nil {
		return nil, err
	}
	runner, err := localstack.StartScans(ctx, cfg.Root, tpl, cfg.Logs)
	if err != nil {
		return nil, err
	}
	s.close = append(s.close, runner.Close)
	c.StepFunctionsEndpoint, c.StateMachineARN = runner.Endpoint(), runner.StateMachineARN()
	svc, err := app.Build(ctx, c, app.Options{SessionKeys: keys, Logger: newLogger(cfg.Logs), ScanRootCAs: demo.RootCAs(),
		WebPorts: tools.Ports{HTTP: demo.Config().HTTPPort, HTTPS: demo.Config().HTTPSPort, DNS: demo.DNSPort()}})
	if err != nil {
		return nil, err
	}
	runner.Serve(svc.Agent)
	h, err := localstack.Mount(tpl, svc.API, nil, nil, nil) // no dashboard or identity provider here
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	s.close = append(s.close, srv.Close)
	s.base = srv.URL
	if _, s.token, err = testseed.NewUser(ctx, svc.API.Store, testseed.User{Plan: "pro", EmailDomain: "agent-eval.test", TokenName: "agent-eval"}); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// createTables creates the template's tables, named after c's, in c's
// DynamoDB.
func createTables(ctx context.Context, tpl *samtemplate.Template, c config.Config) error {
	db, err := store.NewClient(ctx, c.DynamoDBEndpoint)
	if err != nil {
		return err
	}
	return dynamolocal.CreateTables(ctx, db, tpl, c.TableName)
}

// serviceConfig is the service's configuration for one planner setup: a
// new table, the demo's DNS, the identity provider and, for a model
// planner, its provider and model on every tier.
func serviceConfig(cfg Config, demo *demotarget.Target, idp *devidp.Provider, p plannerSetup) config.Config {
	c := config.Config{DynamoDBEndpoint: cfg.DynamoDBEndpoint, TableName: "agent-eval-" + strings.ToLower(ids.New("t", time.Now())),
		DNSServer: demo.DNSAddr(), AllowPrivateNetworks: true, JWTIssuer: idp.Issuer, JWTAudience: idp.Audience, Version: "agent-eval"}
	if p.model != "" {
		c.AgentProvider, c.AgentOpenAIBaseURL, c.AgentOpenAIAPIKey = p.provider, p.baseURL, p.apiKey
		c.AgentModelQuick, c.AgentModelStandard, c.AgentModelDeep = p.model, p.model, p.model
	}
	return c
}

// call sends one API request and decodes a 2xx answer into out.
func (s *stack) call(ctx context.Context, method, path string, body, out any) error {
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, in)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %.300s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// scan registers and verifies the demo's domain, runs one scan and returns
// its record.
func (s *stack) scan(ctx context.Context, cfg Config, demo *demotarget.Target) (record, error) {
	var tgt struct {
		ID    string `json:"id"`
		Token string `json:"verification_token"`
	}
	if err := s.call(ctx, http.MethodPost, "/api/targets", map[string]any{"target": demo.Domain(), "method": "dns_txt"}, &tgt); err != nil {
		return record{}, err
	}
	if err := demo.PublishChallenge(tgt.Token); err != nil {
		return record{}, err
	}
	if err := s.call(ctx, http.MethodPost, "/api/targets/"+url.PathEscape(tgt.ID)+"/verify", nil, &struct{}{}); err != nil {
		return record{}, err
	}
	var sc struct {
		ID string `json:"id"`
	}
	if err := s.call(ctx, http.MethodPost, "/api/scans", map[string]any{"target": demo.Domain(), "scan_type": cfg.ScanType, "tier": cfg.Tier}, &sc); err != nil {
		return record{}, err
	}
	return s.await(ctx, sc.ID, cfg.Timeout)
}

// await polls the scan until it ends (its record) or timeout passes.
func (s *stack) await(ctx context.Context, id string, timeout time.Duration) (record, error) {
	deadline := time.Now().Add(timeout)
	for {
		var r record
		if err := s.call(ctx, http.MethodGet, "/api/scans/"+url.PathEscape(id), nil, &r); err != nil {
			return record{}, err
		}
		if scans.Status(r.Status).Terminal() {
			return r, nil
		}
		if time.Now().After(deadline) {
			return record{}, fmt.Errorf("scan %s still %s after %s", id, r.Status, timeout)
		}
		select {
		case <-ctx.Done():
			return record{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// runOne scans the demo with one planner setup.
func runOne(ctx context.Context, cfg Config, demo *demotarget.Target, p plannerSetup) (Result, error) {
	s, err := startStack(ctx, cfg, demo, p)
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	start := time.Now()
	r, err := s.scan(ctx, cfg, demo)
	if err != nil {
		return Result{}, err
	}
	return resultOf(p, r, time.Since(start)), nil
}

// record is the part of a scan record the harness reads.
type record struct {
	Status      string          `json:"status"`
	Error       *string         `json:"error"`
	CreditsUsed int             `json:"credits_used"`
	MaxCredits  int             `json:"max_credits"`
	Findings    []recordFinding `json:"findings"`
	Issues      []struct {
		Key string `json:"key"`
	} `json:"issues"`
	Steps []struct {
		Status string `json:"status"`
		Model  *struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"model"`
		Reasoning string `json:"reasoning"`
	} `json:"agent_steps"`
}

// recordFinding is the part of a finding the harness reads.
type recordFinding struct {
	Host       string  `json:"host"`
	Port       *int    `json:"port"`
	CVE        *string `json:"cve"`
	Evidence   string  `json:"evidence"`
	Confidence string  `json:"confidence"`
}

// promotions counts the certain findings that confirm a tentative one (see
// confirms).
func (r record) promotions() int {
	n := 0
	for _, c := range r.Findings {
		if slices.ContainsFunc(r.Findings, c.confirms) {
			n++
		}
	}
	return n
}

// confirms says whether c, a certain finding with a CVE and a port,
// confirms the tentative finding t: the same host and port, and t's CVE or
// evidence names c's CVE (confirm_cve's confirmed path traversal,
// typically).
func (c recordFinding) confirms(t recordFinding) bool {
	if c.Confidence != string(scans.Certain) || c.CVE == nil || c.Port == nil {
		return false
	}
	return t.Confidence == string(scans.Tentative) && t.Host == c.Host && t.Port != nil && *t.Port == *c.Port &&
		((t.CVE != nil && *t.CVE == *c.CVE) || strings.Contains(t.Evidence, *c.CVE))
}

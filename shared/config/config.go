// Package config reads the service's settings from the environment, with the
// names CONTRACT.md fixes. It only parses; building clients is the wiring's job.
package config

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is every setting a function or the local stack reads.
type Config struct {
	TableName        string // TABLE_NAME
	DynamoDBEndpoint string // DYNAMODB_ENDPOINT; empty means AWS
	DNSServer        string // DNS_SERVER host:port; empty means the system resolver

	StateMachineARN       string // STATE_MACHINE_ARN: the scan state machine
	StepFunctionsEndpoint string // STEPFUNCTIONS_ENDPOINT: a local Step Functions; empty means AWS
	// RetestFunction (RETEST_FUNCTION) is the function that runs retests,
	// invoked asynchronously; LambdaEndpoint (AWS_ENDPOINT_URL_LAMBDA) a
	// local Lambda Invoke API, empty meaning AWS.
	RetestFunction string
	LambdaEndpoint string

	AllowPrivateNetworks   bool // ALLOW_PRIVATE_NETWORKS
	AllowInsecureCallbacks bool // ALLOW_INSECURE_CALLBACKS

	JWTJWKSURL  string // JWT_JWKS_URL
	JWTIssuer   string // JWT_ISSUER
	JWTAudience string // JWT_AUDIENCE
	// AdminEmails (ADMIN_EMAILS, comma-separated) become admins on their
	// first verified sign-in (auth.AdminEmails).
	AdminEmails string

	BootstrapAdminEmail string // BOOTSTRAP_ADMIN_EMAIL
	BootstrapAdminToken string // BOOTSTRAP_ADMIN_TOKEN

	// The model-driven agent: a model id per tier (AGENT_MODEL_QUICK,
	// AGENT_MODEL_STANDARD, AGENT_MODEL_DEEP; empty = the playbook alone),
	// AGENT_PROVIDER (bedrock or openai) and, for openai,
	// AGENT_OPENAI_BASE_URL and AGENT_OPENAI_API_KEY. Bedrock's endpoint is
	// the SDK's own AWS_ENDPOINT_URL_BEDROCK_RUNTIME.
	AgentModelQuick, AgentModelStandard, AgentModelDeep string
	AgentProvider                                       string
	AgentOpenAIBaseURL, AgentOpenAIAPIKey               string

	// Scheduled scans, deployed: the stack's EventBridge Scheduler group
	// (SCHEDULE_GROUP; empty: the local stack fires schedules itself), the
	// function its schedules invoke (SCHEDULED_SCAN_FUNCTION_ARN) and the
	// role they invoke it as (SCHEDULER_ROLE_ARN).
	ScheduleGroup, ScheduledScanFunctionARN, SchedulerRoleARN string
	// LocalSchedulerInterval (LOCAL_SCHEDULER_INTERVAL, a Go duration,
	// default 30s) is how often the local stack looks for due schedules.
	LocalSchedulerInterval time.Duration

	Version  string // VERSION, shown by /health
	LogLevel string // LOG_LEVEL: DEBUG, INFO, WARN, ERROR
}

// parseTyped reads the settings that are not plain strings: the booleans
// and the scheduler interval.
func (c *Config) parseTyped(getenv func(string) string) error {
	var err error
	if c.AllowPrivateNetworks, err = parseBool(getenv, "ALLOW_PRIVATE_NETWORKS"); err != nil {
		return err
	}
	if c.AllowInsecureCallbacks, err = parseBool(getenv, "ALLOW_INSECURE_CALLBACKS"); err != nil {
		return err
	}
	if v := strings.TrimSpace(getenv("LOCAL_SCHEDULER_INTERVAL")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("LOCAL_SCHEDULER_INTERVAL must be a positive duration such as 30s, got %q", v)
		}
		c.LocalSchedulerInterval = d
	}
	return nil
}

// validate checks the settings that depend on each other, rule by rule in
// this order.
func (c Config) validate() error {
	for _, rule := range []func(Config) error{validDNSServer, validBootstrapAdmin, validAgentProvider, validJWT} {
		if err := rule(c); err != nil {
			return err
		}
	}
	return nil
}

// validDNSServer: DNS_SERVER, when set, is host:port.
func validDNSServer(c Config) error {
	if c.DNSServer == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(c.DNSServer); err != nil {
		return fmt.Errorf("DNS_SERVER must be host:port, got %q", c.DNSServer)
	}
	return nil
}

// validBootstrapAdmin: the bootstrap admin's e-mail and token come
// together, the token a personal token (pt_).
func validBootstrapAdmin(c Config) error {
	if (c.BootstrapAdminEmail == "") != (c.BootstrapAdminToken == "") {
		return fmt.Errorf("BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_TOKEN must be set together")
	}
	if c.BootstrapAdminToken != "" && !strings.HasPrefix(c.BootstrapAdminToken, "pt_") {
		return fmt.Errorf("BOOTSTRAP_ADMIN_TOKEN must start with pt_")
	}
	return nil
}

// validAgentProvider: the model provider is bedrock, or openai with its
// base URL.
func validAgentProvider(c Config) error {
	switch c.AgentProvider {
	case "bedrock":
	case "openai":
		if c.AgentOpenAIBaseURL == "" {
			return fmt.Errorf("AGENT_PROVIDER=openai needs AGENT_OPENAI_BASE_URL")
		}
	default:
		return fmt.Errorf("AGENT_PROVIDER must be bedrock or openai, got %q", c.AgentProvider)
	}
	return nil
}

// validJWT: a JWKS URL comes with the issuer and audience it checks.
func validJWT(c Config) error {
	if c.JWTJWKSURL != "" && (c.JWTIssuer == "" || c.JWTAudience == "") {
		return fmt.Errorf("JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE")
	}
	return nil
}

// FromEnv reads the configuration from the process environment.
func FromEnv() (Config, error) { return Parse(os.Getenv) }

// Parse reads the configuration through getenv, so tests can pass a map.
func Parse(getenv func(string) string) (Config, error) {
	c := Config{
		TableName:                strings.TrimSpace(getenv("TABLE_NAME")),
		DynamoDBEndpoint:         strings.TrimSpace(getenv("DYNAMODB_ENDPOINT")),
		DNSServer:                strings.TrimSpace(getenv("DNS_SERVER")),
		StateMachineARN:          strings.TrimSpace(getenv("STATE_MACHINE_ARN")),
		StepFunctionsEndpoint:    strings.TrimSpace(getenv("STEPFUNCTIONS_ENDPOINT")),
		RetestFunction:           strings.TrimSpace(getenv("RETEST_FUNCTION")),
		LambdaEndpoint:           strings.TrimSpace(getenv("AWS_ENDPOINT_URL_LAMBDA")),
		JWTJWKSURL:               strings.TrimSpace(getenv("JWT_JWKS_URL")),
		JWTIssuer:                strings.TrimSpace(getenv("JWT_ISSUER")),
		JWTAudience:              strings.TrimSpace(getenv("JWT_AUDIENCE")),
		AdminEmails:              strings.TrimSpace(getenv("ADMIN_EMAILS")),
		BootstrapAdminEmail:      strings.TrimSpace(getenv("BOOTSTRAP_ADMIN_EMAIL")),
		BootstrapAdminToken:      strings.TrimSpace(getenv("BOOTSTRAP_ADMIN_TOKEN")),
		AgentModelQuick:          strings.TrimSpace(getenv("AGENT_MODEL_QUICK")),
		AgentModelStandard:       strings.TrimSpace(getenv("AGENT_MODEL_STANDARD")),
		AgentModelDeep:           strings.TrimSpace(getenv("AGENT_MODEL_DEEP")),
		AgentProvider:            strings.ToLower(strings.TrimSpace(getenv("AGENT_PROVIDER"))),
		AgentOpenAIBaseURL:       strings.TrimSpace(getenv("AGENT_OPENAI_BASE_URL")),
		AgentOpenAIAPIKey:        strings.TrimSpace(getenv("AGENT_OPENAI_API_KEY")),
		ScheduleGroup:            strings.TrimSpace(getenv("SCHEDULE_GROUP")),
		ScheduledScanFunctionARN: strings.TrimSpace(getenv("SCHEDULED_SCAN_FUNCTION_ARN")),
		SchedulerRoleARN:         strings.TrimSpace(getenv("SCHEDULER_ROLE_ARN")),
		LocalSchedulerInterval:   30 * time.Second,
		Version:                  strings.TrimSpace(getenv("VERSION")),
		LogLevel:                 strings.ToUpper(strings.TrimSpace(getenv("LOG_LEVEL"))),
	}
	if err := c.parseTyped(getenv); err != nil {
		return Config{}, err
	}
	c.TableName = cmp.Or(c.TableName, "secscan")
	c.Version = cmp.Or(c.Version, "dev")
	c.AgentProvider = cmp.Or(c.AgentProvider, "bedrock")
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func parseBool(getenv func(string) string, name string) (bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, got %q", name, v)
	}
	return b, nil
}

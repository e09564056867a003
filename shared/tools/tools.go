// Package tools defines what a tool of the scan agent is: a named, described
// check with a JSON-schema input, a published credit cost and a hard time
// bound, run against one verified domain through the guarded dialer. The
// planner (a playbook or a model) picks tools by name; the agent validates
// the input, charges the cost, runs the tool within its bound and records
// the result. Scanners implement Tool; nothing here touches the network.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/plans"
	"secscan/shared/resolver"
	"secscan/shared/scans"
)

// MaxCallDuration bounds every tool call, so a cancellation requested while
// a tool runs lands within the spec's 30 seconds.
const MaxCallDuration = 20 * time.Second

// Tool is one capability of the agent.
type Tool interface {
	// Name is the stable identifier used in plans, agent steps and the cost
	// table, e.g. "port_scan".
	Name() string
	// Description tells a planner what the tool does and when to use it.
	Description() string
	// InputSchema is the JSON Schema (an object schema) of the input.
	InputSchema() json.RawMessage
	// Cost is the published price of one call, in credits.
	Cost() int
	// Timeout is the tool's own bound for one call; at most MaxCallDuration.
	Timeout() time.Duration
	// Run performs one call. Input is untrusted (a model may have written
	// it): a tool validates it and returns an *InputError, without
	// connecting anywhere, when it is out of scope, out of range or too big.
	// Any other error means the tool could not do its job (the agent records
	// the step and goes on); findings must come with collected evidence.
	Run(ctx context.Context, env Env, input json.RawMessage) (Result, error)
}

// Env is what a tool may use for one call.
type Env struct {
	// Domain is the scan's verified domain; only it and its subdomains are
	// in scope.
	Domain string
	// Tier is the scan's tier: tools refuse inputs beyond its limits
	// (plans.Limits). Empty outside a scan's steps, where none apply.
	Tier     plans.Tier
	Dialer   *netguard.Dialer
	Resolver *resolver.Resolver
	// Ports are the well-known ports web and TLS checks use; zero values mean
	// 80 and 443 (the local stack maps them to its demo target's ports).
	Ports Ports
	// Known is what earlier steps of this scan discovered.
	Known []scans.Service
	// Surface is the scan's attack surface so far.
	Surface scans.Surface
}

// Ports are the ports of the standard web services and of DNS zone
// transfers (the local stack's demo target listens on unprivileged ones).
type Ports struct {
	HTTP, HTTPS int
	// DNS is where name servers answer zone transfers; zero means 53.
	DNS int
}

// DNSPort is the port of DNS over TCP.
func (p Ports) DNSPort() int { return cmpOr(p.DNS, 53) }

// HTTPPort is the port of plain HTTP.
func (p Ports) HTTPPort() int { return cmpOr(p.HTTP, 80) }

// HTTPSPort is the port of HTTPS.
func (p Ports) HTTPSPort() int { return cmpOr(p.HTTPS, 443) }

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// InScope reports whether host is the scan's domain or one of its subdomains.
func (e Env) InScope(host string) bool { return domainname.InScope(host, e.Domain) }

// ScopedHost is a tool's host input as a normalised name: the scan's domain
// when host is empty, else host if it is a valid name inside the scope. Any
// other input is refused (an input error), before anything is dialled.
func (e Env) ScopedHost(host string) (string, error) {
	if host == "" {
		host = e.Domain
	}
	name, err := domainname.Normalize(host)
	if err != nil {
		return "", Refuse("host: %v", err)
	}
	if !e.InScope(name) {
		return "", Refuse("host %s is outside the scan's domain %s", name, e.Domain)
	}
	return name, nil
}

// Result is what one call observed.
type Result struct {
	// Outcome is one short line for the audit trail, e.g. "3 of 100 ports
	// open: 22/ssh, 80/http, 443/https".
	Outcome  string
	Findings []scans.Finding
	Services []scans.Service
	// Surface is what the call discovered of the attack surface (hosts,
	// services, web origins), in scope only; the agent merges it into the
	// scan's.
	Surface scans.Surface
}

// InputError is a refused input: nothing was run.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "input refused: " + e.Reason }

// Refuse returns an *InputError.
func Refuse(format string, args ...any) error {
	return &InputError{Reason: fmt.Sprintf(format, args...)}
}

// IsInputError reports whether err is a refused input.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// DecodeInput decodes a tool's JSON input strictly (unknown fields refused,
// at most 16 KiB) into v.
func DecodeInput(input json.RawMessage, v any) error {
	const maxInput = 16 << 10
	if len(input) > maxInput {
		return Refuse("input is %d bytes, the limit is %d", len(input), maxInput)
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Refuse("input does not match the schema: %v", err)
	}
	return nil
}

// Registry is the set of tools an agent may call, by name.
type Registry struct {
	byName map[string]Tool
	order  []string
}

// NewRegistry returns a registry of ts. It panics on a duplicate name, a
// non-positive cost or a bound above MaxCallDuration: those are programming
// errors, caught by the first test that builds the registry.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		name := t.Name()
		if _, dup := r.byName[name]; dup {
			panic("tools: duplicate tool " + name)
		}
		if t.Cost() < 1 {
			panic("tools: tool " + name + " has no cost")
		}
		if t.Timeout() <= 0 || t.Timeout() > MaxCallDuration {
			panic("tools: tool " + name + " is not bounded by MaxCallDuration")
		}
		r.byName[name] = t
		r.order = append(r.order, name)
	}
	return r
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Names lists the tools in registration order.
func (r *Registry) Names() []string { return slices.Clone(r.order) }

// HostPort is the input of the tools that audit one service: {"host",
// "port"}.
type HostPort struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// DecodeHostPort decodes a HostPort input strictly and checks it: the host
// in the scan's scope, the port defaultPort when absent (0: none, the port is
// required) and within 1-65535. It returns the scoped host and the port.
func DecodeHostPort(env Env, raw json.RawMessage, defaultPort int) (string, int, error) {
	var in HostPort
	if err := DecodeInput(raw, &in); err != nil {
		return "", 0, err
	}
	host, err := env.ScopedHost(in.Host)
	if err != nil {
		return "", 0, err
	}
	if in.Port == 0 {
		in.Port = defaultPort
	}
	if in.Port < 1 || in.Port > 65535 {
		return "", 0, Refuse("port %d is out of range (1-65535)", in.Port)
	}
	return host, in.Port, nil
}

// Package tooldef holds what every scanner tool declares the same way:
// its name, its cost in credits and its time bound (the Name, Cost and
// Timeout of tools.Tool), and the frame of a probe of one host and port
// (RunOnHostPort) or of one resolved host (ResolveProbed). A tool embeds Base and adds Description, InputSchema
// and Run.
package tooldef

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/tools"
)

// Base implements Name, Cost and Timeout of tools.Tool.
type Base struct {
	name    string
	cost    int
	timeout time.Duration
}

// New returns the Base of the tool called name, costing cost credits and
// bounded by timeout.
func New(name string, cost int, timeout time.Duration) Base {
	return Base{name: name, cost: cost, timeout: timeout}
}

// Name implements tools.Tool.
func (b Base) Name() string { return b.name }

// Cost implements tools.Tool.
func (b Base) Cost() int { return b.cost }

// Timeout implements tools.Tool.
func (b Base) Timeout() time.Duration { return b.timeout }

// RunOnHostPort runs probe against the host and port the input names (a
// tools.HostPort; defaultPort when it names none) through env's guarded
// dialer, within the tool's timeout less a second, unless the name is
// aliased outside the scope (a third party's: no probe). probe's error
// names the tool and the target.
func (b Base) RunOnHostPort(ctx context.Context, env tools.Env, raw json.RawMessage, defaultPort int,
	probe func(ctx context.Context, host string, port int) (tools.Result, error)) (tools.Result, error) {
	host, port, err := tools.DecodeHostPort(env, raw, defaultPort)
	if err != nil {
		return tools.Result{}, err
	}
	if env.Dialer == nil {
		return tools.Result{}, errors.New(b.name + ": the environment has no dialer")
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout-time.Second)
	defer cancel()
	if _, err := env.ProbedHost(ctx, host); err != nil {
		return tools.Result{}, err
	}
	res, err := probe(ctx, host, port)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s %s:%d: %w", b.name, host, port, err)
	}
	return res, nil
}

// ResolveProbed resolves host once for a probe of it and returns its first
// address. It refuses host when it is aliased outside the scope (a third
// party's) and, before any connection, when any of its addresses is
// forbidden by the dialer's policy, as the dialer itself would (the
// refusal names the host, never the address), and when the address is
// beyond the tier's cap of distinct addresses (tools.Env.CheckAddressCap).
// env must have a dialer and a resolver.
func (b Base) ResolveProbed(ctx context.Context, env tools.Env, host string) (netip.Addr, error) {
	if env.Dialer == nil || env.Resolver == nil {
		return netip.Addr{}, errors.New(b.name + ": the environment has no dialer or resolver")
	}
	if _, err := env.ProbedHost(ctx, host); err != nil {
		return netip.Addr{}, err
	}
	ips, err := env.Resolver.LookupIP(ctx, host)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%s: resolve %s: %w", b.name, host, err)
	}
	policy := env.Dialer.Policy()
	for _, ip := range ips {
		var refused *netguard.AddressError
		if err := policy.CheckResolved(host, ip); errors.As(err, &refused) {
			return netip.Addr{}, tools.Refuse("%s", refused.Plain())
		}
	}
	// The tier's cap of distinct addresses probed in one scan.
	if err := env.CheckAddressCap(host, ips[0]); err != nil {
		return netip.Addr{}, err
	}
	return ips[0], nil
}

package httpprobe

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/tools"
)

// Options are the settings every web tool accepts.
type Options struct {
	// RootCAs verifies certificates instead of the system pool (tests).
	RootCAs *x509.CertPool
}

// Option configures a web tool.
type Option func(*Options)

// WithRootCAs verifies certificates with pool instead of the system pool.
func WithRootCAs(pool *x509.CertPool) Option { return func(o *Options) { o.RootCAs = pool } }

// NewOptions applies opts.
func NewOptions(opts []Option) Options {
	var o Options
	for _, apply := range opts {
		apply(&o)
	}
	return o
}

// PageSchema is the input schema of a tool that looks at one page:
// {"url"?}, where what says what the page is for.
func PageSchema(what string) json.RawMessage {
	desc := strconv.Quote("http(s) URL of a page on the scan's domain or a subdomain" + what +
		"; default: https://<domain>/, falling back to http://<domain>/")
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "url": {"type": "string", "maxLength": ` + strconv.Itoa(MaxURLLength) + `, "description": ` + desc + `}
  },
  "additionalProperties": false
}`)
}

// PageInput decodes the input of PageSchema strictly and returns its URL,
// validated with ParseTarget, or nil when none was given.
func PageInput(env tools.Env, raw json.RawMessage) (*url.URL, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := tools.DecodeInput(raw, &in); err != nil || in.URL == "" {
		return nil, err
	}
	return ParseTarget(env, in.URL)
}

// Tool is what every web tool shares: its name, cost and time bound, and
// the options it was built with. A tool embeds it and adds Description,
// InputSchema, Checks and Run.
type Tool struct {
	tooldef.Base
	// Opts are the options the tool was built with.
	Opts Options
}

// NewTool returns the shared part of a web tool.
func NewTool(name string, cost int, timeout time.Duration, opts []Option) Tool {
	return Tool{Base: tooldef.New(name, cost, timeout), Opts: NewOptions(opts)}
}

// Session opens the guarded client of one call made with opts and bounds
// ctx by the call budget of bound (CallBudget); done closes the client and
// ends the bound.
func Session(ctx context.Context, env tools.Env, opts Options, bound time.Duration) (_ context.Context, _ *Client, done func(), _ error) {
	client, err := NewClient(env, opts.RootCAs)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, CallBudget(bound))
	return ctx, client, func() { cancel(); client.Close() }, nil
}

// Session opens one call of the tool: Session with its options and time
// bound. Its error names the tool.
func (t Tool) Session(ctx context.Context, env tools.Env) (_ context.Context, _ *Client, done func(), _ error) {
	ctx, client, done, err := Session(ctx, env, t.Opts, t.Timeout())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", t.Name(), err)
	}
	return ctx, client, done, nil
}

// Admit applies the third-party rule to a call of tool starting at target
// (nil: the scan's domain's home page) before anything but the one lookup
// of its CNAME chain: tools.Env.AdmitURL with what the tool declares its
// calls do (tools.ReachOf). Give the access to the call's client
// (Client.Admitted).
func Admit(ctx context.Context, env tools.Env, tool tools.Tool, target *url.URL) (tools.Access, error) {
	return env.AdmitURL(ctx, target, tools.ReachOf(tool))
}

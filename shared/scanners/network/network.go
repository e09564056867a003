// Package network owns the port_scan tool: a TCP connect scan of one
// in-scope host through the guarded dialer, a banner grab on every open
// port, service identification from the banner (or the port number when the
// service says nothing), and findings for risky exposures (databases,
// caches, remote administration, cleartext protocols) and for outdated or
// backdoored software announced in banners.
//
// One call scans at most MaxPortsPerCall listed ports, or a range of at most
// MaxRangePerCall consecutive ports, within its time bound; the quick and
// standard tiers use the top100 and top1000 presets, and a deep scan of all
// 65,535 ports is a series of SweepCalls range calls per address.
//
// Rate: every call (one address) starts at most ConnectsPerSecond connection
// attempts a second, evenly spaced, with at most 100 (lists and presets) or
// SweepConcurrency (ranges) attempts in flight; a range call gives a silent
// (filtered) port SweepConnectTimeout to answer. A full sweep of one
// address is therefore at least 65,535 / ConnectsPerSecond ≈ 218 s of
// connection attempts, spread over 16 calls.
package network

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/plans"
	"secscan/shared/scanners/internal/tooldef"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	// MaxPortsPerCall bounds one call: a scan of every port is split by the
	// planner into ranges of at most this many ports.
	MaxPortsPerCall = 1000

	// MaxRangePerCall bounds a range call: the deep tier's sweep of every
	// port is SweepCalls calls of at most this many consecutive ports.
	MaxRangePerCall = 4096
	// SweepCalls is how many range calls cover every port of an address.
	SweepCalls = (MaxPort + MaxRangePerCall - 1) / MaxRangePerCall

	// ConnectsPerSecond bounds the connection attempts one call (one
	// address) starts per second, whatever it scans: 4,096 ports take at
	// least 13.7 s, within the call's time bound.
	ConnectsPerSecond = 300
	// SweepConcurrency bounds the attempts in flight in a range call: with
	// SweepConnectTimeout it keeps the rate when every port is filtered
	// (320 / 1 s ≥ 300 a second).
	SweepConcurrency = 320
	// SweepConnectTimeout is how long a range call waits for a silent port.
	SweepConnectTimeout = time.Second
	// rateBurst is how many attempts a feeder that fell behind may start
	// at once to catch up.
	rateBurst = 10

	// MaxPort is the highest TCP port.
	MaxPort = 65535

	toolName = "port_scan"
	toolCost = 5

	// callTimeout leaves the agent 2 s of tools.MaxCallDuration to record
	// the step.
	callTimeout = 18 * time.Second

	// defaultConcurrency and defaultConnectTimeout size the scan so that
	// 1,000 silently filtered ports (every SYN dropped) still fit the call:
	// 1000/100 rounds × 1.5 s = 15 s.
	defaultConcurrency    = 100
	defaultConnectTimeout = 1500 * time.Millisecond
	// defaultBannerTimeout is how long an open port has to say something.
	defaultBannerTimeout = 2 * time.Second
	// bannerTail is how much longer we read once the first bytes arrived:
	// banners come in one or two segments, and most services then wait.
	bannerTail = 250 * time.Millisecond
	// maxBannerBytes caps what we read from any port.
	maxBannerBytes = 512
	// maxBannerShown caps a banner in services and evidence.
	maxBannerShown = 200
	// endMargin keeps the last connection attempts clear of the deadline,
	// so results are assembled before the call's bound.
	endMargin = 250 * time.Millisecond
	// maxListed caps the services named in the outcome line.
	maxListed = 20
)

// Scanner is the port_scan tool. Build it with New.
type Scanner struct {
	tooldef.Base
	connectTimeout time.Duration
	bannerTimeout  time.Duration
	concurrency    int
	// sweepConcurrency and sweepConnectTimeout apply to range calls.
	sweepConcurrency    int
	sweepConnectTimeout time.Duration
	// rate is the most connection attempts a call starts per second.
	rate int
	// dial connects through the guarded dialer; tests wrap it to observe
	// the attempts.
	dial func(ctx context.Context, d *netguard.Dialer, network, address string) (net.Conn, error)
	// hints names the service usually found on a port; it picks the probe
	// sent to client-speaks-first services and names services that stay
	// silent. Tests replace it to map their ephemeral ports.
	hints map[int]string
}

// New returns the port_scan tool.
func New() tools.Tool { return newScanner() }

func newScanner() *Scanner {
	return &Scanner{
		Base:           tooldef.New(toolName, toolCost, callTimeout),
		connectTimeout: defaultConnectTimeout,
		bannerTimeout:  defaultBannerTimeout,
		concurrency:    defaultConcurrency,
		hints:          wellKnownPorts,

		sweepConcurrency:    SweepConcurrency,
		sweepConnectTimeout: SweepConnectTimeout,
		rate:                ConnectsPerSecond,
		dial: func(ctx context.Context, d *netguard.Dialer, network, address string) (net.Conn, error) {
			return d.DialContext(ctx, network, address)
		},
	}
}

// Description implements tools.Tool.
func (*Scanner) Description() string {
	return "TCP connect scan of one in-scope host (default: the scan's domain). Give exactly one of " +
		"`ports` (a list of at most 1000), `preset` (\"top100\" or \"top1000\": nmap's most common TCP ports, " +
		"the default is top100; \"exposures\": the default ports of databases, caches and remote administration, " +
		"some of which nmap's lists miss; \"top100+exposures\" and \"top1000+exposures\": both in one call) or `range` ({\"from\": a, \"to\": b}, at most 4096 ports; scan all 65,535 ports " +
		"as 16 calls of consecutive ranges: 1-4096, 4097-8192, ..., 61441-65535; deep scans only: other tiers scan at most 1000 ports a call). " +
		"A range, or a list of ports outside the presets, is refused on an address nothing ties to the domain (the domain's own address, " +
		"a TLS certificate naming an in-scope name, an HTTP answer for an in-scope host, an in-scope reverse DNS name): in-scope names may " +
		"point at anyone's machines. At most 300 connection attempts a second. Open ports are banner-grabbed and identified (ssh, ftp, smtp, http, " +
		"mysql, postgresql, redis, memcached, elasticsearch, mongodb, vnc, telnet, ...) and returned as services " +
		"for later steps (tls_check on TLS ports, web checks on HTTP ports). Findings: databases, caches and " +
		"remote administration reachable from the network, cleartext protocols (FTP, Telnet), services that " +
		"answer without authentication, and end-of-life or backdoored versions seen in banners."
}

// InputSchema implements tools.Tool.
func (*Scanner) InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }

const inputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "host": {"type": "string", "description": "Host to scan: the scan's domain or one of its subdomains. Default: the scan's domain."},
    "ports": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 65535}, "minItems": 1, "maxItems": 1000, "description": "Ports to scan, at most 1000."},
    "preset": {"type": "string", "enum": ["top100", "top1000", "exposures", "top100+exposures", "top1000+exposures", "web"], "description": "top100/top1000: nmap's 100 or 1000 most common TCP ports; exposures: the default ports of databases, caches, remote administration and cluster admin APIs (Redis, MongoDB, memcached, etcd, kubelet, CouchDB, Solr, RabbitMQ, ... which nmap's lists partly miss); top100+exposures/top1000+exposures: both lists in one call; web: the HTTP and HTTPS ports (80, 443, 8080, 8443). Default when no ports or range is given: top100."},
    "range": {
      "type": "object",
      "additionalProperties": false,
      "required": ["from", "to"],
      "properties": {
        "from": {"type": "integer", "minimum": 1, "maximum": 65535},
        "to": {"type": "integer", "minimum": 1, "maximum": 65535}
      },
      "description": "Consecutive ports from..to inclusive, at most 4096 (all 65,535 ports: 16 calls of 4096)."
    }
  }
}`

// Checks implements checks.Emitter.
func (*Scanner) Checks() []*checks.Check { return emitted() }

// Run implements tools.Tool.
func (s *Scanner) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	host, ports, err := parseInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, s.Timeout())
	defer cancel()
	if err := s.CheckTier(env.Tier, raw); err != nil {
		return tools.Result{}, err
	}
	// A name aliased outside the scope is a third party's: no port scan.
	ip, err := s.ResolveProbed(callCtx, env, host)
	if err != nil {
		return tools.Result{}, err
	}
	addr, err := tiedAddress(callCtx, env, raw, host, ip, ports)
	if err != nil {
		return tools.Result{}, err
	}
	sc := s.withWebHints(env)
	if isRange(raw) {
		sc = sc.forSweep()
	}
	results := sc.scan(callCtx, env.Dialer, host, ip, envPorts(env, raw, ports))
	if err := ctx.Err(); err != nil {
		// The scan itself was cancelled, not merely bounded: say so.
		return tools.Result{}, fmt.Errorf("port_scan %s: %w", host, err)
	}
	res := report(host, ip, results)
	res.Surface.Addresses = []scans.Address{addr}
	if others := namesSharing(env.Surface, host, ip); len(others) > 0 {
		// The playbook scans each address once: say for which names.
		res.Outcome += fmt.Sprintf("; covers %s, which share%s the address", strings.Join(others, ", "), map[bool]string{true: "s", false: ""}[len(others) == 1])
	}
	return res, nil
}

// CheckTier implements tools.TierBound: below the deep tier a range call
// scans at most a port list's worth of ports.
func (*Scanner) CheckTier(tier plans.Tier, raw json.RawMessage) error {
	var in input
	if tier == "" || json.Unmarshal(raw, &in) != nil || in.Range == nil {
		return nil
	}
	lim := tier.Limits()
	if n := in.Range.To - in.Range.From + 1; n > lim.MaxRange {
		return tools.DeepOnly(tier, fmt.Sprintf("a range of %d ports (a %s scan scans at most %d ports a call)", n, tier, lim.MaxRange))
	}
	return nil
}

// tiedAddress is the surface entry of ip, probed, with what ties it to the
// domain. Any in-scope address gets the usual port lists (the presets, or
// ports of them); a range, or a list with other ports, is a sweep beyond
// them and is refused on an address nothing ties to the domain
// (tools.AddressTie). The lookups that can tie an address (the domain's
// own addresses, reverse DNS) are made once, when a scan's port scans
// first probe it, or for a sweep of an address they never probed.
func tiedAddress(ctx context.Context, env tools.Env, raw json.RawMessage, host string, ip netip.Addr, ports []int) (scans.Address, error) {
	sweep := isRange(raw) || !usualPorts(env, ip, ports)
	entry := scans.Address{Address: ip.String()}
	if tie, name := tools.AddressTie(env.Surface, env.Domain, entry.Address); tie != "" {
		entry.TiedBy, entry.TiedName = tie, name
	} else if sweep || env.Tier != "" {
		entry = env.LookupTie(ctx, ip)
	}
	if sweep && entry.TiedBy == "" {
		return scans.Address{}, tools.Refuse("%s's address is not tied to %s (it is not the domain's, serves no certificate naming "+
			"an in-scope name, answered HTTP for no in-scope host and has no in-scope reverse DNS name): only the usual port lists "+
			"(presets) are scanned on it, no range", host, env.Domain)
	}
	entry.Probed = true
	return entry, nil
}

// usualPorts reports whether every port of a list is one the usual lists
// scan on any in-scope address: the largest preset (top1000 and the
// exposures), the environment's web ports and those the scan already found
// on ip. A preset's ports always are.
func usualPorts(env tools.Env, ip netip.Addr, ports []int) bool {
	for _, p := range ports {
		if slices.Contains(topPorts[:], p) || slices.Contains(exposurePorts, p) || p == env.Ports.HTTPPort() || p == env.Ports.HTTPSPort() {
			continue
		}
		if !slices.ContainsFunc(env.Surface.Services, func(v scans.ServiceInfo) bool { return v.Address == ip.String() && v.Port == p }) {
			return false
		}
	}
	return true
}

// envPorts are the ports the input asked for (nil: the "web" preset) as
// this environment serves them.
func envPorts(env tools.Env, raw json.RawMessage, ports []int) []int {
	if ports == nil { // the "web" preset: the ports this deployment serves web on
		return webPorts(env)
	}
	if isCommonPreset(raw) {
		// In an environment that names its own web ports (the local stack's
		// demo), those are its 80 and 443: a common-ports scan includes them.
		return withEnvWebPorts(ports, env)
	}
	return ports
}

// namesSharing are the other hosts of the surface that resolve to ip (at
// most 10 named), sorted.
func namesSharing(sf scans.Surface, host string, ip netip.Addr) []string {
	var out []string
	for _, h := range sf.Hosts {
		if h.Name != host && h.CNAME == "" && slices.Contains(h.Addresses, ip.String()) {
			out = append(out, h.Name)
		}
	}
	slices.Sort(out)
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("and %d more", len(out)-10))
	}
	return out
}

// isRange reports whether the input asks for a range of ports.
func isRange(raw json.RawMessage) bool {
	var in struct {
		Range json.RawMessage `json:"range"`
	}
	return json.Unmarshal(raw, &in) == nil && len(in.Range) > 0 && string(in.Range) != "null"
}

// forSweep returns the scanner as a range call uses it: more attempts in
// flight and a shorter wait for silent ports, so 4,096 ports fit the call
// at the rate bound even when every port is filtered.
func (s *Scanner) forSweep() *Scanner {
	c := *s
	c.concurrency, c.connectTimeout = s.sweepConcurrency, s.sweepConnectTimeout
	return &c
}

// input is the tool's JSON input.
type input struct {
	Host   string     `json:"host"`
	Ports  []int      `json:"ports"`
	Preset string     `json:"preset"`
	Range  *portRange `json:"range"`
}

type portRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// parseInput validates the untrusted input: it returns the host to scan and
// the ports in scan order, or an *tools.InputError.
func parseInput(env tools.Env, raw json.RawMessage) (string, []int, error) {
	var in input
	if err := tools.DecodeInput(raw, &in); err != nil {
		return "", nil, err
	}
	host, err := env.ScopedHost(in.Host)
	if err != nil {
		return "", nil, err
	}
	ports, err := in.ports()
	return host, ports, err
}

// ports are the ports the input selects with the one of ports, range and
// preset it gives (the top100 preset when none).
func (in input) ports() ([]int, error) {
	given := 0
	for _, set := range []bool{in.Ports != nil, in.Preset != "", in.Range != nil} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, tools.Refuse("give only one of ports, preset and range")
	case in.Ports != nil:
		return portList(in.Ports)
	case in.Range != nil:
		return in.Range.ports()
	}
	return preset(in.Preset)
}

func portList(list []int) ([]int, error) {
	if len(list) == 0 {
		return nil, tools.Refuse("ports is empty")
	}
	if len(list) > MaxPortsPerCall {
		return nil, tools.Refuse("ports lists %d ports; one call scans at most %d", len(list), MaxPortsPerCall)
	}
	seen := make(map[int]bool, len(list))
	out := make([]int, 0, len(list))
	for _, p := range list {
		if p < 1 || p > MaxPort {
			return nil, tools.Refuse("port %d is out of range (1-%d)", p, MaxPort)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func (r portRange) ports() ([]int, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	out := make([]int, 0, r.To-r.From+1)
	for p := r.From; p <= r.To; p++ {
		out = append(out, p)
	}
	return out, nil
}

// check refuses a range outside 1-MaxPort, empty, or longer than
// MaxRangePerCall.
func (r portRange) check() error {
	if r.From < 1 || r.From > MaxPort || r.To < 1 || r.To > MaxPort {
		return tools.Refuse("range %d-%d is out of range (1-%d)", r.From, r.To, MaxPort)
	}
	if r.From > r.To {
		return tools.Refuse("range %d-%d is empty: from is above to", r.From, r.To)
	}
	if n := r.To - r.From + 1; n > MaxRangePerCall {
		return tools.Refuse("range %d-%d has %d ports; one call scans at most %d", r.From, r.To, n, MaxRangePerCall)
	}
	return nil
}

// exposurePorts are the default ports of the services whose exposure is a
// finding. nmap's top lists are about what is commonly open, not what is
// dangerous: top1000 lacks Redis (6379), memcached (11211) and MongoDB
// (27017), so a playbook adds this preset to a top100 or top1000 scan.
var exposurePorts = []int{21, 23, 445, 1433, 1521, 2375, 3306, 3389, 5432, 5900, 5901, 5902, 5903, 6379, 9200, 11211, 27017,
	// Cluster and admin APIs nmap's top1000 lacks (etcd, CouchDB, Kubernetes
	// API server, Solr, kubelet, RabbitMQ management): http_fingerprint
	// identifies them.
	2379, 5984, 6443, 8983, 10250, 15672}

func preset(name string) ([]int, error) {
	switch name {
	case "", "top100":
		return slices.Clone(topPorts[:100]), nil
	case "top1000":
		return slices.Clone(topPorts[:]), nil
	case "exposures":
		return slices.Clone(exposurePorts), nil
	case "top100+exposures", "top1000+exposures":
		// One call per address instead of two (the playbook's port scan):
		// the top list, then the exposure ports it lacks.
		top, _ := preset(strings.TrimSuffix(name, "+exposures"))
		return appendMissing(top, exposurePorts), nil
	case "web":
		return nil, nil // resolved against the environment in Run
	}
	return nil, tools.Refuse("preset %q is unknown; use top100, top1000, exposures, top100+exposures, top1000+exposures or web", name)
}

// appendMissing appends the ports of more that list lacks, in order.
func appendMissing(list, more []int) []int {
	for _, p := range more {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

// withWebHints returns the scanner with the environment's web ports named
// http and https (the local stack serves its demo on unprivileged ports,
// where a TLS server would otherwise pass for plain HTTP).
func (s *Scanner) withWebHints(env tools.Env) *Scanner {
	if env.Ports.HTTP == 0 && env.Ports.HTTPS == 0 {
		return s
	}
	c := *s
	c.hints = make(map[int]string, len(s.hints)+2)
	for p, name := range s.hints {
		c.hints[p] = name
	}
	c.hints[env.Ports.HTTPPort()] = "http"
	c.hints[env.Ports.HTTPSPort()] = "https"
	return &c
}

// isCommonPreset reports whether the input asks for a top100 or top1000
// scan, alone or with the exposures (the default when nothing is given).
func isCommonPreset(raw json.RawMessage) bool {
	var in struct {
		Ports  []int           `json:"ports"`
		Preset string          `json:"preset"`
		Range  json.RawMessage `json:"range"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Ports != nil || in.Range != nil {
		return false
	}
	switch in.Preset {
	case "", "top100", "top1000", "top100+exposures", "top1000+exposures":
		return true
	}
	return false
}

// withEnvWebPorts adds the environment's own web ports to ports.
func withEnvWebPorts(ports []int, env tools.Env) []int {
	if env.Ports.HTTP == 0 && env.Ports.HTTPS == 0 {
		return ports
	}
	out := slices.Clone(ports)
	for _, p := range []int{env.Ports.HTTPPort(), env.Ports.HTTPSPort()} {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// webPorts are the HTTP and HTTPS ports of the environment (80 and 443,
// and then the common alternates 8080 and 8443, unless the environment
// names its own), for scans that look at web services only.
func webPorts(env tools.Env) []int {
	out := []int{env.Ports.HTTPPort(), env.Ports.HTTPSPort()}
	if env.Ports.HTTP != 0 || env.Ports.HTTPS != 0 {
		return out // the deployment's own web ports (the local stack's demo)
	}
	for _, p := range []int{8080, 8443} {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// portState is what a connection attempt found.
type portState int

const (
	stateSkipped  portState = iota // not tried: the call's time ran out
	stateClosed                    // refused or unreachable
	stateFiltered                  // no answer within the connect timeout
	stateOpen
)

type portResult struct {
	port  int
	state portState
	obs   observation // set when open
}

// scan probes every port with bounded concurrency and returns the results
// in the order of ports.
func (s *Scanner) scan(ctx context.Context, dialer *netguard.Dialer, host string, ip netip.Addr, ports []int) []portResult {
	results := make([]portResult, len(ports))
	for i, p := range ports {
		results[i] = portResult{port: p, state: stateSkipped}
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(callTimeout)
	}
	// Ports not started by then are reported as not scanned: an attempt
	// started later could outlive the call.
	lastStart := deadline.Add(-s.connectTimeout - endMargin)

	// At most s.concurrency attempts in flight (the workers) and at most
	// s.rate started a second: the feeder hands port i out no earlier than
	// its slot, start + i/rate. A feeder that fell behind (a busy machine)
	// catches up by at most rateBurst slots, so any one second holds at
	// most rate + rateBurst starts.
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(s.concurrency, len(ports)) {
		wg.Go(func() {
			for i := range jobs {
				results[i] = s.probePort(ctx, dialer, host, ip, ports[i], lastStart, deadline)
			}
		})
	}
	s.feed(ctx, jobs, len(ports), lastStart)
	wg.Wait()
	return results
}

// feed hands the indexes 0..n-1 out on jobs at most s.rate a second (see
// scan), and stops early when ctx ends or no attempt started any later
// could finish by lastStart. It closes jobs.
func (s *Scanner) feed(ctx context.Context, jobs chan<- int, n int, lastStart time.Time) {
	defer close(jobs)
	var interval time.Duration
	if s.rate > 0 {
		interval = time.Second / time.Duration(s.rate)
	}
	next := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := range n {
		if interval > 0 && i > 0 {
			next = nextStart(next, interval)
			if !sleepUntil(ctx, timer, next) {
				return // the rest stay skipped
			}
		}
		if ctx.Err() != nil || time.Now().After(lastStart) {
			return // the rest could not finish within the call
		}
		jobs <- i
	}
}

// nextStart is when the attempt after one due at prev may start: interval
// later, but never more than rateBurst intervals in the past (a late
// schedule catches up in a bounded burst, not all at once).
func nextStart(prev time.Time, interval time.Duration) time.Time {
	next := prev.Add(interval)
	if floor := time.Now().Add(-rateBurst * interval); next.Before(floor) {
		return floor
	}
	return next
}

// sleepUntil waits on timer until t; false when ctx ended first.
func sleepUntil(ctx context.Context, timer *time.Timer, t time.Time) bool {
	wait := time.Until(t)
	if wait <= 0 {
		return true
	}
	timer.Reset(wait)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Scanner) probePort(ctx context.Context, dialer *netguard.Dialer, host string, ip netip.Addr, port int, lastStart, deadline time.Time) portResult {
	res := portResult{port: port, state: stateSkipped}
	if ctx.Err() != nil || time.Now().After(lastStart) {
		return res
	}
	dialCtx, cancel := context.WithTimeout(ctx, s.connectTimeout)
	conn, err := s.dial(dialCtx, dialer, "tcp", netip.AddrPortFrom(ip, uint16(port)).String())
	cancel()
	if err != nil {
		res.state = dialState(ctx, err)
		return res
	}
	defer conn.Close()
	res.state = stateOpen
	res.obs = s.grab(conn, host, port, deadline.Add(-endMargin/2))
	return res
}

// dialState classifies a failed connection attempt.
func dialState(ctx context.Context, err error) portState {
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		return stateSkipped
	case errors.Is(err, syscall.ECONNREFUSED):
		return stateClosed
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return stateFiltered
	default:
		return stateClosed // unreachable, reset: nothing listening for us
	}
}

// report turns the results into the tool's result: services, findings and
// the outcome line.
func report(host string, ip netip.Addr, results []portResult) tools.Result {
	var (
		res tools.Result
		t   = tally{firstSkipped: -1, total: len(results)}
	)
	for _, r := range results {
		t.count(r)
		if r.state != stateOpen {
			continue
		}
		res.Services = append(res.Services, scans.Service{Host: host, Port: r.port, Name: r.obs.Name, Banner: r.obs.Banner})
		res.Surface.Services = append(res.Surface.Services, scans.ServiceInfo{Host: host, Address: ip.String(), Port: r.port,
			Transport: "tcp", Protocol: r.obs.Name, Product: r.obs.Product, Version: r.obs.Version})
		res.Findings = append(res.Findings, findingsFor(host, ip, r.port, r.obs)...)
	}
	slices.SortFunc(res.Services, func(a, b scans.Service) int { return a.Port - b.Port })
	res.Outcome = t.outcome(host, ip, listedServices(res.Services))
	return res
}

// tally counts the ports of a call by state.
type tally struct {
	open, filtered, skipped, total int
	firstSkipped                   int // -1: none
}

func (t *tally) count(r portResult) {
	switch r.state {
	case stateFiltered:
		t.filtered++
	case stateSkipped:
		t.skipped++
		if t.firstSkipped < 0 {
			t.firstSkipped = r.port
		}
	case stateOpen:
		t.open++
	}
}

// outcome is the call's outcome line, listing the open services listed.
func (t *tally) outcome(host string, ip netip.Addr, listed []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d ports open on %s (%s)", t.open, t.total-t.skipped, host, ip)
	if len(listed) > 0 {
		b.WriteString(": " + strings.Join(listed, ", "))
	}
	if t.filtered > 0 {
		fmt.Fprintf(&b, "; %d filtered (no answer)", t.filtered)
	}
	if t.skipped > 0 {
		fmt.Fprintf(&b, "; %d of %d ports not scanned within the time bound (from port %d on, in the order given): scan them in another call",
			t.skipped, t.total, t.firstSkipped)
	}
	return b.String()
}

// listedServices names the services as port/name, at most maxListed of
// them and then how many more.
func listedServices(services []scans.Service) []string {
	var listed []string
	for i, svc := range services {
		if i == maxListed {
			return append(listed, fmt.Sprintf("and %d more", len(services)-maxListed))
		}
		listed = append(listed, fmt.Sprintf("%d/%s", svc.Port, svc.Name))
	}
	return listed
}

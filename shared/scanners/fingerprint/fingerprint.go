// Package fingerprint owns the http_fingerprint tool: it names the product
// behind one HTTP(S) service, on whatever port the port scan found it, from
// what the service answers to a small, fixed set of read-only GETs (the
// root, /metrics, /version, Consul's /v1/agent/self, /actuator, Go's debug
// handlers, and a product's own API once the root hints at it), and reports
// the admin, metrics and debug endpoints that answer without
// authentication, each by its own check code with the one GET that proves
// it as evidence. Products that ask for credentials (401/403) are no
// finding; the surface records them as technologies. Requests go through
// the guarded dialer in scope (package httpprobe), bodies are read at most
// 64 KiB, nothing is written and nothing is followed out of the service.
package fingerprint

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/tools"
)

const (
	// Name is the tool's name in plans and the cost table.
	Name = "http_fingerprint"
	// cost: about 8 small GETs, priced like the other web tools
	// (http_check: 5 credits for about 20 requests).
	cost    = 2
	timeout = 15 * time.Second
	// maxBody bounds each body read: identification needs the first
	// fields of a JSON document or the first lines of a metrics page.
	maxBody = 64 << 10
)

// Tool is the http_fingerprint tool.
type Tool struct{ httpprobe.Tool }

// New returns the http_fingerprint tool.
func New(opts ...httpprobe.Option) tools.Tool {
	return &Tool{httpprobe.NewTool(Name, cost, timeout, opts)}
}

// Description implements tools.Tool.
func (*Tool) Description() string {
	return "Identifies the product behind one HTTP(S) service on any port (give its origin, e.g. http://host:9100/) " +
		"from what it answers to GET / and a few read-only product GETs (/metrics, /version, /v1/agent/self, " +
		"/actuator, /debug/pprof/, /debug/vars, and /api/json, /api/health, /solr/admin/info/system, /api/overview, " +
		"/pods, /_all_dbs when the root points at Jenkins, Grafana, Solr, RabbitMQ, a kubelet or CouchDB): " +
		"Prometheus exporters, Elasticsearch/OpenSearch, Docker Engine API, Kubernetes API server and kubelet, etcd, " +
		"Consul, Jenkins, Grafana, Spring Boot actuator, Apache Solr, CouchDB, RabbitMQ management, Go pprof/expvar. " +
		"Reports the ones that answer without authentication; records the product in the surface. At most 11 GETs."
}

// InputSchema implements tools.Tool.
func (*Tool) InputSchema() json.RawMessage {
	return httpprobe.PageSchema(" serving HTTP on any port; only its origin (scheme, host, port) is used")
}

// Checks implements checks.Emitter.
func (*Tool) Checks() []*checks.Check {
	return []*checks.Check{
		checks.ExposedMetrics, checks.ExposedActuator, checks.ExposedActuatorEnv, checks.ExposedPprof, checks.ExposedExpvar,
		checks.ElasticsearchNoAuth, checks.DockerNoAuth, checks.EtcdExposed, checks.ConsulNoAuth, checks.KubeletNoAuth,
		checks.KubernetesAPINoAuth, checks.JenkinsNoAuth, checks.GrafanaAnonymous, checks.SolrNoAuth, checks.CouchDBNoAuth,
		checks.RabbitMQNoAuth,
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	target, err := httpprobe.PageInput(env, raw)
	if err != nil {
		return tools.Result{}, err
	}
	// Its product GETs are probes: a third party's name is refused.
	access, err := httpprobe.Admit(ctx, env, t, target)
	if err != nil {
		return tools.Result{}, err
	}
	ctx, client, done, err := t.Session(ctx, env)
	if err != nil {
		return tools.Result{}, err
	}
	defer done()
	client.Admitted(access)

	s := &scan{client: client, got: map[string]*httpprobe.Response{}}
	if err := s.findRoot(ctx, candidates(env, target)); err != nil {
		return tools.Result{}, fmt.Errorf("%s: %s", Name, httpprobe.Describe(err))
	}
	s.run(ctx)
	return s.result(ctx, env), nil
}

// candidates are the origins to identify: the target's, or by default
// the scan's domain over https, then http.
func candidates(env tools.Env, target *url.URL) []*url.URL {
	if target != nil {
		return []*url.URL{httpprobe.Origin(target)}
	}
	httpsURL, httpURL := httpprobe.DefaultURLs(env)
	return []*url.URL{httpsURL, httpURL}
}

// findRoot sets the scan's base and root to the first candidate that
// answers "/"; else it returns the first error.
func (s *scan) findRoot(ctx context.Context, candidates []*url.URL) error {
	var firstErr error
	for _, base := range candidates {
		s.base = base
		root, err := s.get(ctx, "/")
		if err == nil && base.Scheme == "http" && wantsTLS(root) {
			// A TLS service answered plain HTTP with its "use https" error
			// (the port scan speaks plaintext): ask it over https.
			s.base = &url.URL{Scheme: "https", Host: base.Host, Path: "/"}
			s.note = "the port answered plain HTTP with a request to use HTTPS; identified over https"
			root, err = s.get(ctx, "/")
		}
		if err == nil {
			s.root = root
			return nil
		}
		firstErr = cmpErr(firstErr, err)
	}
	return firstErr
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// wantsTLS reports a plain-HTTP answer that says the port speaks HTTPS (Go's
// and nginx's wording).
func wantsTLS(r *httpprobe.Response) bool {
	if r.Status != http.StatusBadRequest {
		return false
	}
	b := strings.ToLower(string(r.Body))
	return strings.Contains(b, "http request to an https server") || strings.Contains(b, "plain http request was sent to https port")
}

// scan is the state of one call.
type scan struct {
	client *httpprobe.Client
	base   *url.URL
	root   *httpprobe.Response
	note   string

	mu       sync.Mutex
	got      map[string]*httpprobe.Response // by path, the answers received
	requests int
	failed   int
	seen     []sighting
}

// get makes one GET of path on the service, counting it.
func (s *scan) get(ctx context.Context, path string) (*httpprobe.Response, error) {
	u, err := s.base.Parse(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.requests++
	s.mu.Unlock()
	resp, err := s.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: maxBody, Header: http.Header{"Accept": {"application/json, text/plain;q=0.9, */*;q=0.5"}}})
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed++
		return nil, err
	}
	s.got[path] = resp
	return resp, nil
}

// getAll GETs paths concurrently (the client bounds requests in flight).
func (s *scan) getAll(ctx context.Context, paths []string) {
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Go(func() { _, _ = s.get(ctx, p) })
	}
	wg.Wait()
}

// response returns the answer to path, nil when none came.
func (s *scan) response(path string) *httpprobe.Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[path]
}

func (s *scan) run(ctx context.Context) {
	// Round 1: the fixed set, plus a product's own API when the root hints
	// at the product.
	s.getAll(ctx, roundOne(s.root))
	s.identify(identifiers)
	// Round 2: one more GET for a product round 1 identified, to learn
	// whether it answers anonymous requests.
	if more := nextPaths(s.seen); len(more) > 0 && ctx.Err() == nil {
		s.getAll(ctx, more)
		s.identify(followers)
	}
}

// identify adds what ids see in the answers so far.
func (s *scan) identify(ids []identifier) {
	for _, id := range ids {
		s.seen = append(s.seen, id(s)...)
	}
}

// nextPaths are the distinct paths the sightings ask to GET next.
func nextPaths(seen []sighting) []string {
	var more []string
	for _, sg := range seen {
		if sg.next != "" && !slices.Contains(more, sg.next) {
			more = append(more, sg.next)
		}
	}
	return more
}

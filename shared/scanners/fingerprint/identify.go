package fingerprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"secscan/shared/checks"
	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/machine"
	"secscan/shared/scans"
)

// Paths of the identification requests.
const (
	pathRoot        = "/"
	pathMetrics     = "/metrics"
	pathVersion     = "/version"
	pathConsul      = "/v1/agent/self"
	pathActuator    = "/actuator"
	pathPprof       = "/debug/pprof/"
	pathExpvar      = "/debug/vars"
	pathJenkins     = "/api/json"
	pathGrafana     = "/api/health"
	pathSolr        = "/solr/admin/info/system?wt=json"
	pathRabbitMQ    = "/api/overview"
	pathKubelet     = "/pods"
	pathGrafanaAnon = "/api/search?limit=1"
	pathCouchDBDBs  = "/_all_dbs"
	pathActuatorEnv = "/actuator/env"
)

// always are GET on every service: the products they identify do not say
// who they are at the root.
var always = []string{pathMetrics, pathVersion, pathConsul, pathActuator, pathPprof, pathExpvar}

// roundOne is always plus the product APIs the root hints at.
func roundOne(root *httpprobe.Response) []string {
	out := slices.Clone(always)
	rh := rootHints{resp: root, body: strings.ToLower(string(root.Body))}
	if root.Location != nil {
		rh.loc = strings.ToLower(root.Location.Path)
	}
	for _, h := range hintedPaths {
		if h.hinted(rh) {
			out = append(out, h.path)
		}
	}
	return out
}

// rootHints is the root's response as hintedPaths read it: its body and
// redirect path, lowercased.
type rootHints struct {
	resp      *httpprobe.Response
	body, loc string
}

// hintedPaths are the product APIs asked for when the root hints at the
// product, in order.
var hintedPaths = []struct {
	path   string
	hinted func(rootHints) bool
}{
	{pathJenkins, func(h rootHints) bool { return h.resp.Header.Get("X-Jenkins") != "" }},
	{pathGrafana, func(h rootHints) bool {
		return strings.HasSuffix(h.loc, "/login") || strings.Contains(h.body, "grafana")
	}},
	{pathSolr, func(h rootHints) bool {
		return strings.HasPrefix(h.loc, "/solr") || strings.Contains(h.body, "solr admin")
	}},
	{pathRabbitMQ, func(h rootHints) bool { return strings.Contains(h.body, "rabbitmq") }},
	// The kubelet (and its read-only port) answers the root with Go's
	// plain not-found page.
	{pathKubelet, func(h rootHints) bool {
		return h.resp.Status == http.StatusNotFound && strings.TrimSpace(h.body) == "404 page not found"
	}},
}

// sighting is one product seen, and the weakness it shows when it has one.
type sighting struct {
	product, version string
	check            *checks.Check // nil: the product only
	resp             *httpprobe.Response
	detail           string
	// auth: the product asked for credentials (no finding).
	auth bool
	// title and severity override the check's, saying why in detail.
	title    string
	severity scans.Severity
	// next is a GET that tells whether the product answers anonymously.
	next string
	// endpointOnly: a technology of the service, not its product (Go's
	// debug handlers, the actuator of an application).
	endpointOnly bool
}

type identifier func(s *scan) []sighting

// identifiers run after round one, most specific product first (the
// service's product is the first sighting's).
var identifiers = []identifier{
	idElasticsearch, idDocker, idEtcd, idKubernetes, idKubelet, idConsul, idCouchDB,
	idJenkins, idGrafana, idSolr, idRabbitMQ, idPrometheus, idActuator, idGoDebug,
}

// followers read the round-two answers.
var followers = []identifier{idGrafanaAnonymous, idCouchDBNoAuth, idActuatorEnv}

// ok200 returns the response to path when it is a 200.
func (s *scan) ok200(path string) *httpprobe.Response {
	if r := s.response(path); r != nil && r.Status == http.StatusOK {
		return r
	}
	return nil
}

func denied(r *httpprobe.Response) bool {
	return r != nil && (r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden)
}

// jsonObject decodes r's body as a JSON object; nil when it is none.
func jsonObject(r *httpprobe.Response) map[string]json.RawMessage {
	if r == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(r.Body), &m) != nil {
		return nil
	}
	return m
}

// str returns m[key] when it is a JSON string.
func str(m map[string]json.RawMessage, key string) string {
	var v string
	if raw, ok := m[key]; ok && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return ""
}

func obj(m map[string]json.RawMessage, key string) map[string]json.RawMessage {
	var v map[string]json.RawMessage
	if raw, ok := m[key]; ok && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return nil
}

func quote(s string) string { return fmt.Sprintf("%q", httpprobe.Clean(s, 80)) }

// Elasticsearch and OpenSearch answer GET / with the cluster's name,
// version and tagline; behind security they answer 401 with a Basic
// challenge for realm "security".
func idElasticsearch(s *scan) []sighting {
	r := s.root
	if elasticSecured(r) {
		return []sighting{{product: machine.Elasticsearch, resp: r, auth: true}}
	}
	if r.Status != http.StatusOK {
		return nil
	}
	m := jsonObject(r)
	tagline, cluster := str(m, "tagline"), str(m, "cluster_name")
	version := obj(m, "version")
	isES := strings.Contains(tagline, "You Know, for Search")
	isOS := strings.Contains(tagline, "OpenSearch") || str(version, "distribution") == "opensearch"
	if !isES && !isOS {
		return nil
	}
	sg := sighting{product: machine.Elasticsearch, version: str(version, "number"), check: checks.ElasticsearchNoAuth, resp: r,
		detail: fmt.Sprintf("the cluster information without authentication: cluster_name %s, version %s, tagline %s",
			quote(cluster), quote(str(version, "number")), quote(tagline))}
	if isOS {
		sg.product, sg.title = machine.OpenSearch, "OpenSearch API answers without authentication"
	}
	return []sighting{sg}
}

// elasticSecured reports whether r is Elasticsearch's (or OpenSearch's)
// denial behind its security plugin.
func elasticSecured(r *httpprobe.Response) bool {
	return denied(r) && (r.Header.Get("X-Elastic-Product") != "" || strings.Contains(r.Header.Get("WWW-Authenticate"), `realm="security"`))
}

// The Docker Engine API answers GET /version with ApiVersion, Os, Arch…
func idDocker(s *scan) []sighting {
	r := s.ok200(pathVersion)
	m := jsonObject(r)
	if str(m, "ApiVersion") == "" || (str(m, "Os") == "" && str(m, "MinAPIVersion") == "") {
		return nil
	}
	return []sighting{{product: machine.Docker, version: str(m, "Version"), check: checks.DockerNoAuth, resp: r,
		detail: fmt.Sprintf("the Docker Engine version without authentication: Version %s, ApiVersion %s, Os %s, KernelVersion %s",
			quote(str(m, "Version")), quote(str(m, "ApiVersion")), quote(str(m, "Os")), quote(str(m, "KernelVersion")))}}
}

// etcd answers GET /version with {"etcdserver":"3.5.9","etcdcluster":"3.5.0"}.
func idEtcd(s *scan) []sighting {
	r := s.ok200(pathVersion)
	m := jsonObject(r)
	if str(m, "etcdserver") == "" {
		return nil
	}
	return []sighting{{product: machine.Etcd, version: str(m, "etcdserver"), check: checks.EtcdExposed, resp: r,
		detail: fmt.Sprintf("the etcd client API answered without a client certificate: etcdserver %s, etcdcluster %s",
			quote(str(m, "etcdserver")), quote(str(m, "etcdcluster")))}}
}

// The Kubernetes API server answers GET /version (public by default) with
// gitVersion and platform, and GET / with its API paths only to callers
// allowed more than public information.
func idKubernetes(s *scan) []sighting {
	v := jsonObject(s.ok200(pathVersion))
	root := jsonObject(s.root)
	if !kubeVersion(v) && !kubeDenial(s.root, root) {
		return nil
	}
	sg := sighting{product: machine.KubernetesAPI, version: str(v, "gitVersion"), resp: s.root}
	if paths, ok := apiPaths(s.root, root); ok {
		sg.check = checks.KubernetesAPINoAuth
		sg.detail = fmt.Sprintf("an anonymous request was answered with the API's %d paths (e.g. %s)", len(paths),
			httpprobe.Clean(strings.Join(paths[:min(len(paths), 6)], ", "), 200))
	} else {
		sg.auth = denied(s.root)
	}
	return []sighting{sg}
}

// kubeVersion reports the Kubernetes API server's /version document.
func kubeVersion(v map[string]json.RawMessage) bool {
	return strings.HasPrefix(str(v, "gitVersion"), "v") && str(v, "platform") != "" && str(v, "major") != ""
}

// kubeDenial reports the API server's v1 Status refusing a request at the
// root (r, whose JSON object is root).
func kubeDenial(r *httpprobe.Response, root map[string]json.RawMessage) bool {
	return str(root, "kind") == "Status" && str(root, "apiVersion") == "v1" && denied(r)
}

// apiPaths are the API paths the Kubernetes API server listed at the root
// (r, whose JSON object is root); false when it did not answer with them.
func apiPaths(r *httpprobe.Response, root map[string]json.RawMessage) ([]string, bool) {
	var paths []string
	ok := r.Status == http.StatusOK && json.Unmarshal(root["paths"], &paths) == nil && slices.Contains(paths, "/api")
	return paths, ok
}

var podList = lazyre.New(`"kind"\s*:\s*"PodList"`)

// The kubelet lists its pods at /pods; with authentication on it answers
// 401 Unauthorized.
func idKubelet(s *scan) []sighting {
	r := s.response(pathKubelet)
	switch {
	case r == nil:
		return nil
	case r.Status == http.StatusOK && podList.Match(r.Body):
		n := bytes.Count(r.Body, []byte(`"podIP"`))
		return []sighting{{product: machine.Kubelet, check: checks.KubeletNoAuth, resp: r,
			detail: fmt.Sprintf("an anonymous request was answered with the node's PodList (at least %d pods with an address in the first %d bytes)", n, len(r.Body))}}
	}
	return nil
}

// consulDenial is Consul behind ACLs when the denial r is an ACL's.
func consulDenial(r *httpprobe.Response) []sighting {
	b := strings.ToLower(string(r.Body))
	if strings.Contains(b, "permission denied") || strings.Contains(b, "acl not found") {
		return []sighting{{product: machine.Consul, resp: r, auth: true}}
	}
	return nil
}

var scriptChecks = lazyre.New(`"Enable(?:Remote)?ScriptChecks"\s*:\s*true`)

// Consul answers GET /v1/agent/self with its Config and Member; with ACLs
// on, it answers 403 "Permission denied" (or "ACL not found").
func idConsul(s *scan) []sighting {
	r := s.response(pathConsul)
	if r == nil {
		return nil
	}
	if denied(r) {
		return consulDenial(r)
	}
	m := jsonObject(r)
	if r.Status != http.StatusOK || m["Config"] == nil || m["Member"] == nil {
		return nil
	}
	cfg := obj(m, "Config")
	sg := sighting{product: machine.Consul, version: str(cfg, "Version"), check: checks.ConsulNoAuth, resp: r,
		detail: fmt.Sprintf("the agent's configuration without an ACL token: Datacenter %s, NodeName %s, Version %s",
			quote(str(cfg, "Datacenter")), quote(str(cfg, "NodeName")), quote(str(cfg, "Version")))}
	if m := scriptChecks.Find(r.Body); m != nil {
		sg.severity = scans.Critical
		sg.detail += "; raised to critical: the agent has script checks enabled (" + string(m) + "), so registering a check runs a command"
	}
	return []sighting{sg}
}

// CouchDB answers GET / with {"couchdb":"Welcome","version":…} whatever its
// security; /_all_dbs tells whether anonymous requests are admin.
func idCouchDB(s *scan) []sighting {
	m := jsonObject(s.ok200(pathRoot))
	if str(m, "couchdb") != "Welcome" {
		return nil
	}
	return []sighting{{product: machine.CouchDB, version: str(m, "version"), resp: s.root, next: pathCouchDBDBs}}
}

func idCouchDBNoAuth(s *scan) []sighting {
	if !s.identified(machine.CouchDB) {
		return nil
	}
	r := s.response(pathCouchDBDBs)
	if r == nil || r.Status != http.StatusOK {
		s.markAuth(machine.CouchDB, denied(r))
		return nil
	}
	var dbs []string
	if json.Unmarshal(bytes.TrimSpace(r.Body), &dbs) != nil {
		return nil
	}
	return []sighting{{product: machine.CouchDB, check: checks.CouchDBNoAuth, resp: r,
		detail: fmt.Sprintf("an anonymous request was answered with the list of %d databases (e.g. %s)", len(dbs),
			httpprobe.Clean(strings.Join(dbs[:min(len(dbs), 5)], ", "), 200))}}
}

// Jenkins sends X-Jenkins on every answer; /api/json answers anonymous
// readers with the instance's jobs.
func idJenkins(s *scan) []sighting {
	version := s.root.Header.Get("X-Jenkins")
	if version == "" {
		return nil
	}
	sg := sighting{product: machine.Jenkins, version: httpprobe.Clean(version, 40), resp: s.root, auth: true}
	if r := s.ok200(pathJenkins); r != nil {
		m := jsonObject(r)
		var jobs []json.RawMessage
		_ = json.Unmarshal(m["jobs"], &jobs)
		if strings.HasPrefix(str(m, "_class"), "hudson.model.Hudson") || m["jobs"] != nil {
			sg.auth, sg.check, sg.resp = false, checks.JenkinsNoAuth, r
			sg.detail = fmt.Sprintf("the remote API answered an anonymous request: _class %s, mode %s, %d jobs listed",
				quote(str(m, "_class")), quote(str(m, "mode")), len(jobs))
		}
	}
	return []sighting{sg}
}

// Grafana answers /api/health (public by design) with its version and
// database state; /api/search answers anonymous users only when anonymous
// access is on.
func idGrafana(s *scan) []sighting {
	m := jsonObject(s.ok200(pathGrafana))
	if m["database"] == nil || str(m, "version") == "" {
		return nil
	}
	return []sighting{{product: machine.Grafana, version: str(m, "version"), resp: s.response(pathGrafana), next: pathGrafanaAnon}}
}

func idGrafanaAnonymous(s *scan) []sighting {
	if !s.identified(machine.Grafana) {
		return nil
	}
	r := s.response(pathGrafanaAnon)
	body := bytes.TrimSpace(nilBody(r))
	if r == nil || r.Status != http.StatusOK || !bytes.HasPrefix(body, []byte("[")) {
		s.markAuth(machine.Grafana, denied(r))
		return nil
	}
	var items []struct {
		Title string `json:"title"`
		Type  string `json:"type"`
	}
	_ = json.Unmarshal(body, &items)
	detail := "the search API answered an anonymous request (anonymous access is on)"
	if len(items) > 0 {
		detail += fmt.Sprintf("; first result: %s %s", httpprobe.Clean(items[0].Type, 30), quote(items[0].Title))
	}
	return []sighting{{product: machine.Grafana, check: checks.GrafanaAnonymous, resp: r, detail: detail}}
}

func nilBody(r *httpprobe.Response) []byte {
	if r == nil {
		return nil
	}
	return r.Body
}

// unlessDenied is the response to path, nil when there is none or when it
// asked for credentials; then denial is the sighting of product behind
// authentication.
func (s *scan) unlessDenied(path, product string) (r *httpprobe.Response, denial []sighting) {
	r = s.response(path)
	if r != nil && denied(r) {
		return nil, []sighting{{product: product, resp: r, auth: true}}
	}
	return r, nil
}

// Solr answers its system information with the Lucene and Solr versions.
func idSolr(s *scan) []sighting {
	r, denial := s.unlessDenied(pathSolr, machine.Solr)
	if r == nil {
		return denial
	}
	m := jsonObject(r)
	lucene := obj(m, "lucene")
	if r.Status != http.StatusOK || lucene == nil || (str(lucene, "solr-spec-version") == "" && str(m, "solr_home") == "") {
		return nil
	}
	return []sighting{{product: machine.Solr, version: str(lucene, "solr-spec-version"), check: checks.SolrNoAuth, resp: r,
		detail: fmt.Sprintf("the admin API answered an anonymous request with the system information: solr-spec-version %s, mode %s",
			quote(str(lucene, "solr-spec-version")), quote(str(m, "mode")))}}
}

// RabbitMQ's management plugin answers /api/overview only with
// credentials (401 otherwise).
func idRabbitMQ(s *scan) []sighting {
	r, denial := s.unlessDenied(pathRabbitMQ, machine.RabbitMQ)
	if r == nil {
		return denial
	}
	m := jsonObject(r)
	if r.Status != http.StatusOK || str(m, "rabbitmq_version") == "" {
		return nil
	}
	return []sighting{{product: machine.RabbitMQ, version: str(m, "rabbitmq_version"), check: checks.RabbitMQNoAuth, resp: r,
		detail: fmt.Sprintf("the management API answered a request without credentials: rabbitmq_version %s, cluster_name %s",
			quote(str(m, "rabbitmq_version")), quote(str(m, "cluster_name")))}}
}

var (
	promType = lazyre.New(`(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)\s*$`)
	promHelp = lazyre.New(`(?m)^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* `)
	// buildInfo is the *_build_info gauge most exporters publish.
	buildInfo = lazyre.New(`(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)_build_info\{[^}\n]*\bversion="([^"\n]{1,40})"`)
)

// idPrometheus: /metrics in the Prometheus text exposition format.
func idPrometheus(s *scan) []sighting {
	landing, isLanding := machine.Landing(s.root)
	r := s.response(pathMetrics)
	if r != nil && denied(r) && isLanding {
		return []sighting{{product: landing, resp: r, auth: true}}
	}
	types := exposition(r)
	if len(types) == 0 {
		return nil
	}
	product, version := promProduct(r.Body)
	if isLanding && product == machine.PromExporter {
		product = landing
	}
	return []sighting{{product: product, version: version, check: checks.ExposedMetrics, resp: r,
		detail: promDetail(types, r.Truncated)}}
}

// exposition returns the metric types (# TYPE lines) of r when it is a 200
// answer in the Prometheus text exposition format (with # HELP lines too,
// and no page for browsers), else nil.
func exposition(r *httpprobe.Response) [][][]byte {
	if r == nil || r.Status != http.StatusOK || machine.ServesPages(r) || !promHelp.Match(r.Body) {
		return nil
	}
	return promType.FindAllSubmatch(r.Body, -1)
}

// promProduct names what serves the metrics body from its *_build_info
// gauge: Prometheus, a named exporter, or an exporter of any kind.
func promProduct(body []byte) (product, version string) {
	m := buildInfo.FindSubmatch(body)
	if m == nil {
		return machine.PromExporter, ""
	}
	switch name := string(m[1]); {
	case name == "prometheus":
		return machine.Prometheus, string(m[2])
	case strings.HasSuffix(name, "_exporter"):
		return httpprobe.Clean(name, 60), string(m[2])
	}
	return machine.PromExporter, string(m[2])
}

// promDetail describes the metric families found (types: the # TYPE
// lines' matches) in a body, truncated or not.
func promDetail(types [][][]byte, truncated bool) string {
	var names []string
	for _, t := range types[:min(len(types), 5)] {
		names = append(names, string(t[1])+" "+string(t[2]))
	}
	more := ""
	if truncated {
		more = " in the first 64 KiB"
	}
	return fmt.Sprintf("Prometheus text exposition format without authentication: %d metric families%s (# TYPE %s …)",
		len(types), more, httpprobe.Clean(strings.Join(names, "; "), 300))
}

// idActuator: the Spring Boot actuator index (HAL links to its endpoints).
func idActuator(s *scan) []sighting {
	r := s.ok200(pathActuator)
	m := jsonObject(r)
	links := obj(m, "_links")
	if links == nil || links["self"] == nil {
		return nil
	}
	var names []string
	for name := range links {
		if name != "self" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	sg := sighting{product: machine.SpringActuator, check: checks.ExposedActuator, resp: r, endpointOnly: true,
		detail: fmt.Sprintf("the actuator index lists %d endpoints without authentication: %s", len(names),
			httpprobe.Clean(strings.Join(names, ", "), 300))}
	if links["env"] != nil {
		sg.next = pathActuatorEnv
	}
	return []sighting{sg}
}

func idActuatorEnv(s *scan) []sighting {
	r := s.ok200(pathActuatorEnv)
	m := jsonObject(r)
	var sources []struct {
		Name string `json:"name"`
	}
	if m == nil || json.Unmarshal(m["propertySources"], &sources) != nil {
		return nil
	}
	var names []string
	for _, src := range sources[:min(len(sources), 6)] {
		names = append(names, src.Name)
	}
	return []sighting{{product: machine.SpringActuator, check: checks.ExposedActuatorEnv, resp: r, endpointOnly: true,
		detail: fmt.Sprintf("the env endpoint answered without authentication with %d property sources (values not shown): %s",
			len(sources), httpprobe.Clean(strings.Join(names, ", "), 300))}}
}

// idGoDebug: net/http/pprof's index and expvar's JSON.
func idGoDebug(s *scan) []sighting {
	var out []sighting
	if r := s.ok200(pathPprof); r != nil && (bytes.Contains(r.Body, []byte("Types of profiles available")) ||
		bytes.Contains(r.Body, []byte("<title>/debug/pprof/</title>"))) {
		out = append(out, sighting{product: machine.GoDebugEndpoints, check: checks.ExposedPprof, resp: r, endpointOnly: true,
			detail: "the net/http/pprof index answered without authentication (goroutine, heap and CPU profiles, the command line)"})
	}
	if r := s.ok200(pathExpvar); r != nil {
		m := jsonObject(r)
		if m["cmdline"] != nil && m["memstats"] != nil {
			out = append(out, sighting{product: machine.GoDebugEndpoints, check: checks.ExposedExpvar, resp: r, endpointOnly: true,
				detail: "the expvar JSON answered without authentication: cmdline, memstats" + expvarExtra(m)})
		}
	}
	return out
}

func expvarExtra(m map[string]json.RawMessage) string {
	var names []string
	for k := range m {
		if k != "cmdline" && k != "memstats" {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return " and " + httpprobe.Clean(strings.Join(names[:min(len(names), 8)], ", "), 200)
}

// identified reports whether a sighting of product was recorded.
func (s *scan) identified(product string) bool {
	return slices.ContainsFunc(s.seen, func(sg sighting) bool { return sg.product == product })
}

// markAuth records that product asked for credentials.
func (s *scan) markAuth(product string, auth bool) {
	if !auth {
		return
	}
	for i := range s.seen {
		if s.seen[i].product == product && s.seen[i].check == nil {
			s.seen[i].auth = true
		}
	}
}

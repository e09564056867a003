package fingerprint

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"net/http"
	"net/http/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/machine"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scanners/web"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

var allow = netguard.Policy{AllowPrivate: true}

// run fingerprints the plain-HTTP service of site and checks every finding
// against the catalogue and the one-GET evidence rule.
func run(t *testing.T, site *scantest.Site, host string) tools.Result {
	t.Helper()
	tool := New()
	input, _ := json.Marshal(map[string]string{"url": site.URL("http", host, "/")})
	start := time.Now()
	res, err := tool.Run(context.Background(), site.Env, input)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("outcome (%v): %s", time.Since(start).Round(time.Millisecond), res.Outcome)
	scantest.CheckFindings(t, tool, res.Findings)
	for _, f := range res.Findings {
		if !strings.HasPrefix(f.Evidence, "GET http://"+host+":") || strings.Count(f.Evidence, "GET ") != 1 {
			t.Errorf("%s: evidence is not one GET: %s", f.Check, f.Evidence)
		}
		if f.Host != host || f.Port == nil || *f.Port != site.Env.Ports.HTTP {
			t.Errorf("%s: location %s:%v", f.Check, f.Host, f.Port)
		}
	}
	return res
}

func codesOf(fs []scans.Finding) []scans.CheckCode {
	var out []scans.CheckCode
	for _, f := range fs {
		out = append(out, f.Check)
	}
	slices.Sort(out)
	return out
}

// TestIdentifiesProducts: recorded answers of real products (fixtures_test.go
// names the documentation each comes from) are identified, their
// unauthenticated APIs reported by their own codes, and the ones that ask
// for credentials only named in the surface.
func TestIdentifiesProducts(t *testing.T) {
	t.Parallel()
	notFound := func(a answer) *answer { return &a }
	tests := []struct {
		name     string
		answers  map[string]answer
		notFound *answer
		want     []*checks.Check
		product  string // the service's product in the surface
		tech     string // a technology of the origin (substring)
		title    string // the first finding's title, when not the check's
		severity scans.Severity
	}{
		{name: "Elasticsearch without security", answers: map[string]answer{"/": js(esRoot)},
			want: []*checks.Check{checks.ElasticsearchNoAuth}, product: machine.Elasticsearch, tech: "Elasticsearch 8.13.0"},
		{name: "Elasticsearch with security", answers: map[string]answer{"/": esDenied}, notFound: &esDenied,
			product: machine.Elasticsearch, tech: "Elasticsearch (authentication required)"},
		{name: "OpenSearch without security", answers: map[string]answer{"/": js(osRoot)},
			want: []*checks.Check{checks.ElasticsearchNoAuth}, product: machine.OpenSearch, title: "OpenSearch API answers without authentication"},
		{name: "Docker Engine API", answers: map[string]answer{"/version": dockerVersion}, notFound: &dockerNotFound,
			want: []*checks.Check{checks.DockerNoAuth}, product: machine.Docker, tech: "Docker Engine API 17.03.1-ce"},
		{name: "etcd", answers: map[string]answer{"/version": js(etcdVersion)},
			want: []*checks.Check{checks.EtcdExposed}, product: machine.Etcd, tech: "etcd 3.5.0"},
		{name: "Kubernetes API server, anonymous forbidden", answers: map[string]answer{"/": k8sForbidden, "/version": js(k8sVersion)}, notFound: &k8sForbidden,
			product: machine.KubernetesAPI, tech: "Kubernetes API server v1.29.0 (authentication required)"},
		{name: "Kubernetes API server, anonymous discovery", answers: map[string]answer{"/": js(k8sPaths), "/version": js(k8sVersion)},
			want: []*checks.Check{checks.KubernetesAPINoAuth}, product: machine.KubernetesAPI},
		{name: "kubelet with anonymous auth", answers: map[string]answer{"/pods": js(kubeletPods)},
			want: []*checks.Check{checks.KubeletNoAuth}, product: machine.Kubelet},
		{name: "kubelet with authentication", answers: map[string]answer{"/pods": {status: 401, header: map[string]string{"Content-Type": "text/plain"}, body: "Unauthorized"}}},
		{name: "Consul without ACLs, script checks on", answers: map[string]answer{"/v1/agent/self": js(consulSelf)},
			want: []*checks.Check{checks.ConsulNoAuth}, product: machine.Consul, tech: "Consul 1.15.2", severity: scans.Critical},
		{name: "Consul with ACLs", answers: map[string]answer{"/v1/agent/self": consulDenied},
			product: machine.Consul, tech: "Consul (authentication required)"},
		{name: "CouchDB admin party", answers: map[string]answer{"/": couchRoot, "/_all_dbs": js(couchAllDBs)},
			want: []*checks.Check{checks.CouchDBNoAuth}, product: machine.CouchDB, tech: "CouchDB 2.2.0"},
		{name: "CouchDB with an admin", answers: map[string]answer{"/": couchRoot, "/_all_dbs": couchDenied},
			product: machine.CouchDB, tech: "CouchDB 2.2.0 (authentication required)"},
		{name: "Jenkins with anonymous read", answers: map[string]answer{
			"/":         {header: jenkinsHeaders, body: "<html><head><title>Dashboard [Jenkins]</title></head></html>"},
			"/api/json": {header: jenkinsHeaders, body: jenkinsAPI}},
			want: []*checks.Check{checks.JenkinsNoAuth}, product: machine.Jenkins, tech: "Jenkins 2.426.1"},
		{name: "Jenkins with login required", answers: map[string]answer{}, notFound: &jenkinsDenied,
			product: machine.Jenkins, tech: "Jenkins 2.426.1 (authentication required)"},
		{name: "Grafana with anonymous access", answers: map[string]answer{"/": grafanaRoot, "/api/health": js(grafanaHealth), "/api/search?limit=1": js(grafanaSearch)},
			want: []*checks.Check{checks.GrafanaAnonymous}, product: machine.Grafana, tech: "Grafana 5.1.3"},
		{name: "Grafana with login", answers: map[string]answer{"/": grafanaRoot, "/api/health": js(grafanaHealth), "/api/search?limit=1": grafanaUnauthorized},
			product: machine.Grafana, tech: "Grafana 5.1.3 (authentication required)"},
		{name: "Spring Boot actuator with env", answers: map[string]answer{"/actuator": actuatorIndex, "/actuator/env": actuatorEnv}, notFound: &springNotFound,
			want: []*checks.Check{checks.ExposedActuator, checks.ExposedActuatorEnv}, tech: machine.SpringActuator},
		{name: "Apache Solr without authentication", answers: map[string]answer{"/": solrRoot, "/solr/admin/info/system?wt=json": js(solrSystem)},
			want: []*checks.Check{checks.SolrNoAuth}, product: machine.Solr, tech: "Apache Solr 9.4.0"},
		{name: "Apache Solr with authentication", answers: map[string]answer{"/": solrRoot, "/solr/admin/info/system?wt=json": {status: 401, body: ""}},
			product: machine.Solr, tech: "Apache Solr (authentication required)"},
		{name: "RabbitMQ management with login", answers: map[string]answer{"/": rabbitRoot, "/api/overview": rabbitDenied},
			product: machine.RabbitMQ, tech: "RabbitMQ management (authentication required)"},
		{name: "RabbitMQ management without credentials", answers: map[string]answer{"/": rabbitRoot, "/api/overview": js(rabbitOverview)},
			want: []*checks.Check{checks.RabbitMQNoAuth}, product: machine.RabbitMQ, tech: "RabbitMQ management 3.12.10"},
		{name: "a web site answering 200 everywhere", answers: map[string]answer{}, notFound: notFound(html("<html><head><title>Shop</title></head><body>Welcome</body></html>"))},
		{name: "a JSON API answering 200 everywhere", answers: map[string]answer{}, notFound: notFound(js(`{"status":"ok","version":"1.2.3","message":"Welcome"}`))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := scantest.NewSite(t, "svc.test", allow, product(tc.answers, tc.notFound), nil)
			res := run(t, site, "svc.test")
			want := checks.Codes(tc.want...)
			slices.Sort(want)
			if got := codesOf(res.Findings); !slices.Equal(got, want) {
				t.Errorf("findings %v, want %v", got, want)
			}
			if len(res.Surface.Services) != 1 || res.Surface.Services[0].Product != tc.product {
				t.Errorf("surface services %+v, want product %q", res.Surface.Services, tc.product)
			}
			if tc.tech != "" && (len(res.Surface.Web) != 1 || !slices.ContainsFunc(res.Surface.Web[0].Technologies, func(s string) bool { return strings.Contains(s, tc.tech) })) {
				t.Errorf("surface web %+v, want a technology %q", res.Surface.Web, tc.tech)
			}
			if len(res.Findings) > 0 {
				f := res.Findings[0]
				if tc.title != "" && f.Title != tc.title {
					t.Errorf("title %q, want %q", f.Title, tc.title)
				}
				if tc.severity != "" && f.Severity != tc.severity {
					t.Errorf("severity %s, want %s (%s)", f.Severity, tc.severity, f.Evidence)
				}
			}
			if strings.Contains(strings.Join(evidences(res.Findings), " "), "******") {
				t.Errorf("evidence shows property values")
			}
		})
	}
}

func evidences(fs []scans.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Evidence)
	}
	return out
}

// exporter is a Prometheus exporter as real ones are built: promhttp
// serving a registry with the Go and process collectors and a build-info
// gauge, behind node_exporter's landing page; debug adds Go's pprof and
// expvar handlers, auth puts /metrics behind basic auth.
func exporter(debug, auth bool) http.Handler {
	reg := prometheus.NewRegistry()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "node_exporter_build_info",
		Help: "A metric with a constant '1' value labeled by version, revision, branch, goversion from which node_exporter was built."},
		[]string{"version", "revision", "branch", "goversion"})
	build.WithLabelValues("1.5.0", "1b48970ffcf5630534fb00bb0687d73c66d1c959", "HEAD", "go1.19.3").Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build)
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		if auth {
			if u, p, ok := r.BasicAuth(); !ok || u != "prometheus" || p != "scrape-secret" {
				w.Header().Set("WWW-Authenticate", `Basic realm="node_exporter"`)
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
		}
		metrics.ServeHTTP(w, r)
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, nodeExporterLanding) })
	if debug {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.Handle("/debug/vars", expvar.Handler())
	}
	return mux
}

// TestPrometheusExporter: a real promhttp exporter on a non-standard port
// is reported as web.exposed-metrics with one GET as evidence, named in the
// surface, and http_check draws no header findings from it, whether it
// learns that from the surface or from the landing page.
func TestPrometheusExporter(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "metrics.test", allow, exporter(true, false), nil)
	res := run(t, site, "metrics.test")
	want := checks.Codes(checks.ExposedMetrics, checks.ExposedPprof, checks.ExposedExpvar)
	slices.Sort(want)
	if got := codesOf(res.Findings); !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	for _, f := range res.Findings {
		if f.Check == checks.ExposedMetrics.Code && (!strings.Contains(f.Evidence, "/metrics → 200") || !strings.Contains(f.Evidence, "metric families") ||
			!strings.Contains(f.Evidence, "go_gc_duration_seconds summary")) {
			t.Errorf("metrics evidence: %s", f.Evidence)
		}
	}
	if svc := res.Surface.Services[0]; svc.Product != "node_exporter" || svc.Version != "1.5.0" || svc.Address != "127.0.0.1" {
		t.Errorf("service %+v, want node_exporter 1.5.0 on 127.0.0.1", svc)
	}
	if !strings.Contains(res.Outcome, "GET requests") {
		t.Errorf("outcome does not count the requests: %s", res.Outcome)
	}

	for _, known := range []bool{true, false} {
		env := site.Env
		if known {
			env.Surface = res.Surface
		}
		input, _ := json.Marshal(map[string]string{"url": site.URL("http", "metrics.test", "/")})
		wres, err := web.New().Run(context.Background(), env, input)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("http_check (surface known: %v): %s", known, wres.Outcome)
		for _, f := range wres.Findings {
			switch f.Check {
			case checks.HeaderCSP.Code, checks.HeaderFrameOptions.Code, checks.HeaderNoSniff.Code, checks.HeaderReferrerPolicy.Code,
				checks.HeaderPermissionsPolicy.Code, checks.HeaderHSTS.Code, checks.SecurityTxt.Code, checks.HTTPSRedirect.Code:
				t.Errorf("http_check on the exporter (surface known: %v): %s: %s", known, f.Check, f.Evidence)
			}
		}
		if !strings.Contains(wres.Outcome, "header checks skipped") {
			t.Errorf("http_check does not say why the headers were skipped: %s", wres.Outcome)
		}
	}
}

// TestProtectedMetrics: an exporter whose /metrics asks for credentials is
// no finding; the surface notes it.
func TestProtectedMetrics(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "metrics.test", allow, exporter(false, true), nil)
	res := run(t, site, "metrics.test")
	if len(res.Findings) != 0 {
		t.Errorf("findings on a protected exporter: %v", codesOf(res.Findings))
	}
	if w := res.Surface.Web; len(w) != 1 || !slices.Contains(w[0].Technologies, "Node Exporter (authentication required)") {
		t.Errorf("surface web %+v", w)
	}
}

// TestHTMLWithoutHeadersStillReported: a plain HTML page without any
// hardening header, on a non-standard port, keeps its header findings
// (http_fingerprint identified nothing there).
func TestHTMLWithoutHeadersStillReported(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "app.test", allow, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><head><title>Intranet</title></head><body><a href=/metrics>x</a></body></html>")
	}), nil)
	res := run(t, site, "app.test")
	if len(res.Findings) != 0 || res.Surface.Services[0].Product != "" {
		t.Fatalf("a plain page identified: %v %+v", codesOf(res.Findings), res.Surface.Services)
	}
	env := site.Env
	env.Surface = res.Surface
	input, _ := json.Marshal(map[string]string{"url": site.URL("http", "app.test", "/")})
	wres, err := web.New().Run(context.Background(), env, input)
	if err != nil {
		t.Fatal(err)
	}
	got := codesOf(wres.Findings)
	for _, c := range []*checks.Check{checks.HeaderCSP, checks.HeaderFrameOptions, checks.HeaderNoSniff} {
		if !slices.Contains(got, c.Code) {
			t.Errorf("http_check on an HTML page without headers: %v, want %s", got, c.Code)
		}
	}
}

// TestPlainHTTPOnATLSPort: a TLS service the port scan saw answering
// plaintext with Go's "use HTTPS" error is identified over https.
func TestPlainHTTPOnATLSPort(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "tls.test", allow, nil, product(map[string]answer{"/version": js(etcdVersion)}, nil))
	input, _ := json.Marshal(map[string]string{"url": site.URL("http", "tls.test", "/")})
	// The http URL on the https server's port.
	input = []byte(strings.Replace(string(input), fmt.Sprint(site.Env.Ports.HTTP), fmt.Sprint(site.Env.Ports.HTTPS), 1))
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, input)
	if err != nil {
		t.Fatal(err)
	}
	if got := codesOf(res.Findings); !slices.Equal(got, checks.Codes(checks.EtcdExposed)) || !strings.Contains(res.Outcome, "identified over https") {
		t.Errorf("findings %v; outcome %s", got, res.Outcome)
	}
}

// TestRefusesOutOfScope: inputs outside the scan's domain are refused
// before anything is dialled.
func TestRefusesOutOfScope(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "svc.test", allow, product(nil, nil), nil)
	for _, in := range []string{`{"url":"http://evil.example:9100/"}`, `{"url":"http://127.0.0.1:9100/"}`, `{"url":"gopher://svc.test/"}`, `{"host":"svc.test"}`} {
		if _, err := New().Run(context.Background(), site.Env, json.RawMessage(in)); !tools.IsInputError(err) {
			t.Errorf("%s: %v, want an input error", in, err)
		}
	}
}

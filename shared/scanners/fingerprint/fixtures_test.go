package fingerprint

import (
	"fmt"
	"net/http"
)

// answer is one recorded HTTP answer of a real product.
type answer struct {
	status int
	header map[string]string
	body   string
}

// product serves recorded answers by request URI (path and query); every
// other request gets Go's plain 404, or notFound when set.
func product(answers map[string]answer, notFound *answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.RequestURI()]
		if !ok && notFound != nil {
			a, ok = *notFound, true
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(cmpStatus(a.status))
		fmt.Fprint(w, a.body)
	})
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

func js(body string) answer { return answer{body: body} }

// The fixtures below are the products' own documented answers (the source
// of each is named above it), trimmed to the fields the tool reads plus a
// few around them; nothing here is invented beyond host names.

// Elasticsearch 8.x GET /: the "Check that Elasticsearch is running" example
// of the Elasticsearch Reference (https://www.elastic.co/guide/en/elasticsearch/reference/current/getting-started.html).
const esRoot = `{
  "name" : "instance-0000000000",
  "cluster_name" : "my_cluster",
  "cluster_uuid" : "5QaxoN0pRZuOmWSxstBBwQ",
  "version" : {
    "number" : "8.13.0",
    "build_flavor" : "default",
    "build_type" : "docker",
    "build_snapshot" : false,
    "lucene_version" : "9.10.0",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "You Know, for Search"
}`

// Elasticsearch with security on: 401 and the Basic challenge for realm
// "security" (Elasticsearch Reference, "Security settings" / the 401 every
// unauthenticated REST call gets).
var esDenied = answer{status: 401, header: map[string]string{
	"WWW-Authenticate": `Basic realm="security" charset="UTF-8"`, "X-elastic-product": "Elasticsearch"},
	body: `{"error":{"root_cause":[{"type":"security_exception","reason":"missing authentication credentials for REST request [/]"}],"type":"security_exception","reason":"missing authentication credentials for REST request [/]"},"status":401}`}

// OpenSearch GET /: the quickstart's example (https://opensearch.org/docs/latest/getting-started/quickstart/).
const osRoot = `{
  "name" : "opensearch-node1",
  "cluster_name" : "opensearch-cluster",
  "cluster_uuid" : "W0B8gPotTAajhMPbC9D4ww",
  "version" : {
    "distribution" : "opensearch",
    "number" : "2.11.0",
    "build_type" : "tar",
    "lucene_version" : "9.7.0",
    "minimum_wire_compatibility_version" : "7.10.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "The OpenSearch Project: https://opensearch.org/"
}`

// Docker Engine API GET /version over the socket, with its headers: the
// transcript in https://gist.github.com/marcelbirkner/b2cf79283a697eaa415a113488654840
// (fields as in the Engine API's SystemVersion schema, https://docs.docker.com/reference/api/engine/).
var dockerVersion = answer{header: map[string]string{"Api-Version": "1.27", "Server": "Docker/17.03.1-ce (linux)", "Docker-Experimental": "false"},
	body: `{"Version":"17.03.1-ce","ApiVersion":"1.27","MinAPIVersion":"1.12","GitCommit":"c6d412e","GoVersion":"go1.7.5","Os":"linux","Arch":"amd64","KernelVersion":"4.4.0-79-generic","BuildTime":"2017-03-27T17:14:09.765618756+00:00"}`}

// Docker's answer for a path it does not serve ({"message": …}, Engine API
// error body).
var dockerNotFound = answer{status: 404, header: map[string]string{"Api-Version": "1.27", "Server": "Docker/17.03.1-ce (linux)"},
	body: `{"message":"page not found"}`}

// etcd GET /version: "curl -L http://127.0.0.1:2379/version" in the etcd
// documentation (https://etcd.io/docs/v3.5/op-guide/maintenance/ and the
// v3.5 upgrade guide).
const etcdVersion = `{"etcdserver":"3.5.0","etcdcluster":"3.5.0"}`

// Kubernetes API server GET /version (public to anonymous users by the
// system:public-info-viewer role): the example of "kubectl get --raw /version"
// (https://kubernetes.io/docs/reference/using-api/health-checks/ and the
// API's version endpoint).
const k8sVersion = `{
  "major": "1",
  "minor": "29",
  "gitVersion": "v1.29.0",
  "gitCommit": "3f7a50f38688eb332e2a1b013678c6435d539ae6",
  "gitTreeState": "clean",
  "buildDate": "2023-12-13T08:43:42Z",
  "goVersion": "go1.21.5",
  "compiler": "gc",
  "platform": "linux/amd64"
}`

// The API server's answer to an anonymous GET / (a v1 Status, 403), as
// documented under "Anonymous requests"
// (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#anonymous-requests).
var k8sForbidden = answer{status: 403,
	body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"system:anonymous\" cannot get path \"/\"","reason":"Forbidden","details":{},"code":403}`}

// GET / by a caller allowed to discover the API: the path list.
const k8sPaths = `{"paths":["/.well-known/openid-configuration","/api","/api/v1","/apis","/apis/apps","/healthz","/livez","/metrics","/openapi/v2","/readyz","/version"]}`

// Kubelet GET /pods with anonymous auth on (the PodList of the core v1 API,
// https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodList).
const kubeletPods = `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"kube-proxy-7xkq2","namespace":"kube-system"},"spec":{"containers":[{"name":"kube-proxy","image":"registry.k8s.io/kube-proxy:v1.29.0"}]},"status":{"phase":"Running","hostIP":"10.0.0.4","podIP":"10.0.0.4"}}]}`

// Consul GET /v1/agent/self: the "Read configuration" sample response of
// https://developer.hashicorp.com/consul/api-docs/agent#read-configuration
// (trimmed), with script checks on in DebugConfig.
const consulSelf = `{
  "Config": {"Datacenter": "dc1", "PrimaryDatacenter": "dc1", "NodeName": "foobar", "NodeID": "9d754d17-d864-b1d3-e758-f3fe25a9874f", "Revision": "deadbeef", "Server": true, "Version": "1.15.2"},
  "DebugConfig": {"Bootstrap": true, "Datacenter": "dc1", "EnableRemoteScriptChecks": true},
  "Coord": {"Adjustment": 0, "Error": 1.5, "Vec": [0, 0, 0, 0, 0, 0, 0, 0]},
  "Member": {"Name": "foobar", "Addr": "10.1.10.12", "Port": 8301, "Tags": {"build": "1.15.2:deadbeef", "dc": "dc1", "role": "consul"}, "Status": 1},
  "Meta": {"instance_type": "i2.xlarge"}
}`

// Consul with ACLs on and no token: 403 "Permission denied" (ACL system docs).
var consulDenied = answer{status: 403, header: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, body: "Permission denied"}

// CouchDB GET /: the API reference's example for CouchDB 2.2
// (https://docs.couchdb.org/en/stable/api/server/common.html#get--).
var couchRoot = answer{header: map[string]string{"Server": "CouchDB/2.2.0 (Erlang OTP/20)", "Cache-Control": "must-revalidate"},
	body: `{"couchdb":"Welcome","version":"2.2.0","git_sha":"2a16ec4","features":["pluggable-storage-engines","scheduler"],"vendor":{"name":"The Apache Software Foundation"}}`}

// GET /_all_dbs: the tour's answer (https://docs.couchdb.org/en/stable/intro/tour.html).
const couchAllDBs = `["_global_changes","_replicator","_users"]`

// CouchDB 3's answer to an anonymous /_all_dbs.
var couchDenied = answer{status: 401, body: `{"error":"unauthorized","reason":"You are not a server admin."}`}

// Jenkins: every answer carries X-Jenkins; GET /api/json of the remote
// access API (https://www.jenkins.io/doc/book/using/remote-access-api/).
var jenkinsHeaders = map[string]string{"X-Jenkins": "2.426.1", "X-Hudson": "1.395", "X-Jenkins-Session": "3b1a5c2e"}

const jenkinsAPI = `{"_class":"hudson.model.Hudson","assignedLabels":[{"name":"built-in"}],"mode":"NORMAL","nodeDescription":"the Jenkins controller's built-in node","nodeName":"","numExecutors":2,"description":null,"jobs":[{"_class":"hudson.model.FreeStyleProject","name":"deploy-production","url":"http://jenkins.example:8080/job/deploy-production/","color":"blue"}],"quietingDown":false,"slaveAgentPort":50000,"useCrumbs":true,"useSecurity":true}`

// Jenkins without anonymous read: 403 on every page, with the login link.
var jenkinsDenied = answer{status: 403, header: jenkinsHeaders,
	body: "<html><head><meta http-equiv='refresh' content='1;url=/login?from=%2F'/></head><body>Authentication required</body></html>"}

// Grafana: GET / sends anonymous visitors to /login; GET /api/health is
// the Health API example (https://grafana.com/docs/grafana/latest/developers/http_api/other/#health-api).
var grafanaRoot = answer{status: 302, header: map[string]string{"Location": "/login", "Content-Type": "text/html; charset=utf-8"},
	body: `<a href="/login">Found</a>.`}

const grafanaHealth = `{"commit": "087143285", "database": "ok", "version": "5.1.3"}`

// GET /api/search: the Folder/Dashboard Search API example
// (https://grafana.com/docs/grafana/latest/developers/http_api/folder_dashboard_search/).
const grafanaSearch = `[{"id":163,"uid":"000000163","title":"Folder","url":"/dashboards/f/000000163/folder","type":"dash-folder","tags":[],"isStarred":false,"uri":"db/folder"}]`

var grafanaUnauthorized = answer{status: 401, body: `{"message":"Unauthorized"}`}

// Spring Boot actuator: the index and env responses of the Actuator API
// reference (https://docs.spring.io/spring-boot/api/rest/actuator/index.html,
// .../actuator/env.html), trimmed.
var actuatorIndex = answer{header: map[string]string{"Content-Type": "application/vnd.spring-boot.actuator.v3+json"},
	body: `{"_links":{"self":{"href":"http://localhost:8080/actuator","templated":false},"health":{"href":"http://localhost:8080/actuator/health","templated":false},"env":{"href":"http://localhost:8080/actuator/env","templated":false},"env-toMatch":{"href":"http://localhost:8080/actuator/env/{toMatch}","templated":true},"metrics":{"href":"http://localhost:8080/actuator/metrics","templated":false}}}`}

var actuatorEnv = answer{header: map[string]string{"Content-Type": "application/vnd.spring-boot.actuator.v3+json"},
	body: `{"activeProfiles":[],"propertySources":[{"name":"servletContextInitParams","properties":{}},{"name":"systemProperties","properties":{"java.vm.vendor":{"value":"Eclipse Adoptium"}}},{"name":"systemEnvironment","properties":{"DB_PASSWORD":{"value":"******","origin":"System Environment Property \"DB_PASSWORD\""}}},{"name":"Config resource 'class path resource [application.properties]'","properties":{}}]}`}

// A Spring Boot application's answer for an unmapped path (Whitelabel JSON).
var springNotFound = answer{status: 404, body: `{"timestamp":"2024-01-10T10:00:00.000+00:00","status":404,"error":"Not Found","path":"/"}`}

// Apache Solr: GET / redirects to the admin UI; the system information
// handler answers as in the Solr Reference Guide's "System Information"
// (https://solr.apache.org/guide/solr/latest/deployment-guide/system-info-handlers.html), trimmed.
var solrRoot = answer{status: 302, header: map[string]string{"Location": "/solr/", "Content-Type": "text/html;charset=utf-8"}, body: ""}

const solrSystem = `{"responseHeader":{"status":0,"QTime":12},"mode":"std","solr_home":"/var/solr/data","core_root":"/var/solr/data","lucene":{"solr-spec-version":"9.4.0","solr-impl-version":"9.4.0 71e101de9ac3b4ac4b3ee0d76d6a33a0d9e6f1e4 - stillalex - 2023-10-17 16:22:29","lucene-spec-version":"9.8.0","lucene-impl-version":"9.8.0 d914b3722bd5b8ef31ccf7e8ddc638a87fd648db - 2023-09-21 21:57:47"},"jvm":{"version":"17.0.9 17.0.9+9","name":"Eclipse Adoptium OpenJDK 64-Bit Server VM"}}`

// RabbitMQ management: the UI's page title, and /api/overview without
// credentials (401, "Not_Authorized") and with them (HTTP API reference,
// https://www.rabbitmq.com/docs/http-api-reference#get-apioverview), trimmed.
var rabbitRoot = answer{header: map[string]string{"Content-Type": "text/html"},
	body: `<!DOCTYPE html><html><head><title>RabbitMQ Management</title><script src="js/ejs-1.0.min.js" type="text/javascript"></script></head><body><div id="outer"></div></body></html>`}

var rabbitDenied = answer{status: 401, header: map[string]string{"WWW-Authenticate": `Basic realm="RabbitMQ Management"`},
	body: `{"error":"not_authorized","reason":"Not_Authorized"}`}

const rabbitOverview = `{"management_version":"3.12.10","rates_mode":"basic","exchange_types":[{"name":"direct"}],"product_version":"3.12.10","product_name":"RabbitMQ","rabbitmq_version":"3.12.10","cluster_name":"rabbit@mq-1","erlang_version":"26.1.2"}`

// nodeExporterLanding is node_exporter 1.5's landing page (Debian bookworm's
// prometheus-node-exporter), as its exporter-toolkit landing page renders
// without styles.
const nodeExporterLanding = `<html>
<head><title>Node Exporter</title></head>
<body>
<h1>Node Exporter</h1>
<p><a href="/metrics">Metrics</a></p>
</body>
</html>`

func html(body string) answer {
	return answer{header: map[string]string{"Content-Type": "text/html; charset=utf-8"}, body: body}
}

// Package machine tells machine endpoints (metrics exporters, search and
// container APIs, cluster agents) from web pages people browse, for the web
// scanners: http_fingerprint names the product of every HTTP service, and
// http_check leaves the browser hardening headers out on services that serve
// no pages to browsers (a Prometheus exporter does not need a CSP).
package machine

import (
	"slices"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// Products http_fingerprint records as a service's product. The ones in
// endpoints are machine endpoints; the others (Consul, CouchDB, Jenkins,
// Grafana, RabbitMQ's management UI, Solr's admin UI) serve real pages to
// browsers and keep their header checks on those pages.
const (
	Prometheus       = "Prometheus"
	PromExporter     = "Prometheus exporter"
	Elasticsearch    = "Elasticsearch"
	OpenSearch       = "OpenSearch"
	Docker           = "Docker Engine API"
	KubernetesAPI    = "Kubernetes API server"
	Kubelet          = "Kubelet"
	Etcd             = "etcd"
	Consul           = "Consul"
	Jenkins          = "Jenkins"
	Grafana          = "Grafana"
	SpringActuator   = "Spring Boot actuator"
	Solr             = "Apache Solr"
	CouchDB          = "CouchDB"
	RabbitMQ         = "RabbitMQ management"
	GoDebugEndpoints = "Go debug handlers"
)

// endpoints are the products that serve no pages to browsers at their root.
// Consul, CouchDB and the web applications have browser UIs (their JSON
// answers are no HTML, which ServesPages already tells).
var endpoints = []string{Prometheus, PromExporter, Elasticsearch, OpenSearch, Docker, KubernetesAPI, Kubelet, Etcd}

// IsEndpoint reports whether product (as http_fingerprint records it, or a
// name ending in "exporter") is a machine endpoint.
func IsEndpoint(product string) bool {
	p := strings.ToLower(strings.TrimSpace(product))
	if p == "" {
		return false
	}
	return strings.HasSuffix(p, "exporter") || slices.ContainsFunc(endpoints, func(e string) bool { return strings.EqualFold(e, p) })
}

// KnownEndpoint returns the product of the service at host:port when the
// surface records it as a machine endpoint.
func KnownEndpoint(sf scans.Surface, host string, port int) (string, bool) {
	for _, v := range sf.Services {
		if v.Host == host && v.Port == port && IsEndpoint(v.Product) {
			return v.Product, true
		}
	}
	return "", false
}

var (
	titlePattern   = lazyre.New(`(?is)<title[^>]*>\s*(.*?)\s*</title>`)
	metricsLink    = lazyre.New(`(?i)href\s*=\s*["']?(?:\./|/)?metrics["'\s>]`)
	exporterTitle  = lazyre.New(`(?i)\bexporter\b|^prometheus\b|pushgateway`)
	maxLandingSize = 64 << 10
)

// Landing recognises the HTML landing page of a metrics exporter (the
// Prometheus exporter-toolkit page, or the classic "<h1>Node Exporter</h1>
// <a href='/metrics'>Metrics</a>"): a small page whose title names an
// exporter and that links to /metrics. It returns the page's title.
func Landing(r *httpprobe.Response) (string, bool) {
	if r == nil || r.Status != 200 || len(r.Body) > maxLandingSize || !metricsLink.Match(r.Body) {
		return "", false
	}
	m := titlePattern.FindSubmatch(r.Body)
	if m == nil {
		return "", false
	}
	title := strings.Join(strings.Fields(string(m[1])), " ")
	if !exporterTitle.MatchString(title) {
		return "", false
	}
	return httpprobe.Clean(title, 80), true
}

// ServesPages reports whether r is something a browser renders as a page:
// an HTML (or XHTML) document. JSON, text and binary answers are not.
func ServesPages(r *httpprobe.Response) bool {
	ct := r.ContentType()
	if ct == "text/html" || ct == "application/xhtml+xml" {
		return true
	}
	if ct != "" {
		return false
	}
	// No Content-Type: browsers sniff; an HTML body renders as a page.
	head := strings.ToLower(strings.TrimSpace(string(r.Body[:min(len(r.Body), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

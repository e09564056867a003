package machine

import (
	"net/http"
	"net/url"
	"testing"

	"secscan/shared/scanners/internal/httpprobe"
)

func resp(ct, body string) *httpprobe.Response {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return &httpprobe.Response{Method: "GET", URL: &url.URL{Scheme: "http", Host: "x.test:9100", Path: "/"}, Status: 200, Header: h, Body: []byte(body)}
}

func TestLandingAndPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		r             *httpprobe.Response
		landing, page bool
	}{
		{"node_exporter landing", resp("text/html; charset=utf-8", `<html><head><title>Node Exporter</title></head><body><a href="/metrics">Metrics</a></body></html>`), true, true},
		{"exporter-toolkit landing, relative link", resp("text/html", `<title>Blackbox Exporter</title><a href="./metrics">Metrics</a>`), true, true},
		{"Prometheus server", resp("text/html", `<title>Prometheus Time Series Collection and Processing Server</title><a href='/metrics'>`), true, true},
		{"a site linking to its metrics page", resp("text/html", `<title>Sales dashboard</title><a href="/metrics">Our metrics</a>`), false, true},
		{"an exporter page without the link", resp("text/html", `<title>Node Exporter</title>`), false, true},
		{"JSON", resp("application/json", `{"status":"ok"}`), false, false},
		{"metrics text", resp("text/plain; version=0.0.4", "# HELP up x\n# TYPE up gauge\nup 1\n"), false, false},
		{"HTML without a Content-Type", resp("", "<!DOCTYPE html><html><body>x</body></html>"), false, true},
		{"text without a Content-Type", resp("", "404 page not found"), false, false},
	}
	for _, tc := range tests {
		if _, got := Landing(tc.r); got != tc.landing {
			t.Errorf("%s: Landing %v, want %v", tc.name, got, tc.landing)
		}
		if got := ServesPages(tc.r); got != tc.page {
			t.Errorf("%s: ServesPages %v, want %v", tc.name, got, tc.page)
		}
	}
	for product, want := range map[string]bool{"node_exporter": true, "Node Exporter": true, Prometheus: true, Kubelet: true,
		Grafana: false, Jenkins: false, Consul: false, "": false, "Apache": false} {
		if got := IsEndpoint(product); got != want {
			t.Errorf("IsEndpoint(%q) = %v, want %v", product, got, want)
		}
	}
}

package demotarget

import (
	"expvar"
	"fmt"
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The demo's metrics exporter: a Prometheus exporter as it is found on real
// perimeters (prometheus-node-exporter left on 0.0.0.0:9100), served by the
// real promhttp handler, with Go's pprof and expvar debug handlers mounted
// on the same listener and no authentication anywhere. http_fingerprint
// reports web.exposed-metrics, web.exposed-pprof and web.exposed-expvar on
// it; http_check draws no header findings from it.
const (
	DefaultExporterPort = 9100 // node_exporter's port, in nmap's top1000
	EnvExporterPort     = "DEMO_EXPORTER_PORT"
	// ExporterVersion is the node_exporter release the exporter claims.
	ExporterVersion = "1.5.0"
)

// exporterHandler serves the landing page, /metrics and the debug handlers.
func exporterHandler(domain string) http.Handler {
	reg := prometheus.NewRegistry()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "node_exporter_build_info",
		Help: "A metric with a constant '1' value labeled by version, revision, branch, and goversion from which node_exporter was built.",
	}, []string{"version", "revision", "branch", "goversion"})
	build.WithLabelValues(ExporterVersion, "1b48970ffcf5630534fb00bb0687d73c66d1c959", "HEAD", "go1.19.8").Set(1)
	// What a node exporter tells anyone who asks: the host's name, kernel
	// and file systems (all invented here).
	uname := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "node_uname_info", Help: "Labeled system information as provided by the uname system call.",
	}, []string{"domainname", "machine", "nodename", "release", "sysname", "version"})
	uname.WithLabelValues("(none)", "x86_64", "db-primary-1."+domain, "6.1.0-18-amd64", "Linux", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1").Set(1)
	fs := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "node_filesystem_avail_bytes", Help: "Filesystem space available to non-root users in bytes.",
	}, []string{"device", "fstype", "mountpoint"})
	fs.WithLabelValues("/dev/sda1", "ext4", "/").Set(21474836480)
	fs.WithLabelValues("/dev/sdb1", "ext4", "/var/lib/mysql").Set(53687091200)
	fs.WithLabelValues("/dev/sdc1", "ext4", "/srv/backups/customers").Set(107374182400)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build, uname, fs)

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		fmt.Fprint(w, `<html>
<head><title>Node Exporter</title></head>
<body>
<h1>Node Exporter</h1>
<p><a href="/metrics">Metrics</a></p>
</body>
</html>`)
	})
	return mux
}

// ExporterURL is the metrics exporter's base URL, "" when it is off.
func (t *Target) ExporterURL() string { return urlOf("http", t.exporterAddr) }

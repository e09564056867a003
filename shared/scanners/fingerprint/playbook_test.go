package fingerprint_test

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"net"
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
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
	"secscan/shared/scanners"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// serve starts h on addr, or skips the test when the address is taken.
func serve(t *testing.T, addr string, h http.Handler) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// TestStandardPlaybookFindsEndpoints runs the standard full playbook with
// the real tools against a host that serves a page on its web port (8080)
// and, on 9100, a Prometheus exporter (promhttp) with Go's pprof and expvar
// handlers mounted, as node_exporter with debug handlers is found on real
// perimeters: the port scan finds 9100, http_fingerprint reports the
// exporter's metrics, pprof and expvar by their codes there, and no header
// finding lands on 9100 while the page on 8080 keeps its own.
func TestStandardPlaybookFindsEndpoints(t *testing.T) {
	t.Parallel()
	const domain, ip = "endpoints.test", "127.0.0.77" // all of 127/8 is loopback on Linux
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Node Exporter</title></head><body><h1>Node Exporter</h1><p><a href="/metrics">Metrics</a></p></body></html>`)
	})
	serve(t, ip+":9100", mux)
	serve(t, ip+":8080", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>Endpoints Inc.</title></head><body>Welcome</body></html>")
	}))

	dns := resolvertest.Start(t)
	dns.Add(t, domain+". A "+ip)
	res, err := resolver.New(dns.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Domain: domain, Dialer: netguard.New(res, netguard.Policy{AllowPrivate: true}), Resolver: res,
		Ports: tools.Ports{HTTP: 8080, HTTPS: 8443}}
	registry := scanners.Registry()
	pb := planner.Playbook{Tools: registry}
	st := planner.State{Scan: scans.Scan{ID: "scn_test", Target: domain, Type: scans.Full, Tier: plans.Standard,
		MaxCredits: plans.CreditCeiling[plans.Standard]}}
	seen := map[string]bool{}
	start := time.Now()
	for seq := 1; seq <= 200; seq++ {
		d, err := pb.Next(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			break
		}
		tool, _ := registry.Get(d.Tool)
		if st.Scan.CreditsUsed+tool.Cost() > st.Scan.MaxCredits {
			t.Fatalf("step %d %s: over budget", seq, d.Tool)
		}
		ctx, cancel := context.WithTimeout(context.Background(), tool.Timeout())
		e := env
		e.Surface = st.Surface
		began := time.Now()
		r, err := tool.Run(ctx, e, d.Input)
		cancel()
		st.Scan.CreditsUsed += tool.Cost()
		outcome := r.Outcome
		if err != nil {
			outcome = err.Error()
		}
		if d.Tool == planner.HTTPFingerprint || testing.Verbose() {
			t.Logf("step %d %s %s (%v, %d credits): %s", seq, d.Tool, d.Input, time.Since(began).Round(time.Millisecond), tool.Cost(), outcome)
		}
		st.Steps = append(st.Steps, scans.Step{Seq: seq, Tool: d.Tool, Input: d.Input, Status: scans.StepOK, Outcome: outcome})
		for _, f := range r.Findings {
			if key := f.StableFingerprint(); !seen[key] {
				seen[key] = true
				f.ID = fmt.Sprintf("f%03d", len(st.Findings))
				st.Findings = append(st.Findings, f)
			}
		}
		st.Surface.Merge(r.Surface)
	}
	t.Logf("standard playbook: %d steps, %d of %d credits, %d findings, %v", len(st.Steps), st.Scan.CreditsUsed, st.Scan.MaxCredits,
		len(st.Findings), time.Since(start).Round(100*time.Millisecond))

	on := func(port int) []scans.CheckCode {
		var out []scans.CheckCode
		for _, f := range st.Findings {
			if f.Host == domain && f.Port != nil && *f.Port == port {
				out = append(out, f.Check)
			}
		}
		return out
	}
	exporter, site := on(9100), on(8080)
	for _, c := range []*checks.Check{checks.ExposedMetrics, checks.ExposedPprof, checks.ExposedExpvar} {
		if !slices.Contains(exporter, c.Code) {
			t.Errorf("port 9100: %v, want %s", exporter, c.Code)
		}
	}
	for _, c := range exporter {
		if strings.HasPrefix(string(c), "web.header.") || c == checks.SecurityTxt.Code || c == checks.HTTPSRedirect.Code {
			t.Errorf("port 9100 drew %s", c)
		}
	}
	if !slices.Contains(site, checks.HeaderCSP.Code) {
		t.Errorf("port 8080 (an HTML page without headers): %v, want %s", site, checks.HeaderCSP.Code)
	}
	i := slices.IndexFunc(st.Surface.Services, func(v scans.ServiceInfo) bool { return v.Port == 9100 })
	if i < 0 || st.Surface.Services[i].Product != "Node Exporter" || st.Surface.Services[i].Address != ip {
		t.Errorf("surface services %+v, want Node Exporter on %s:9100", st.Surface.Services, ip)
	}
	var fps []string
	for _, s := range st.Steps {
		if s.Tool == planner.HTTPFingerprint {
			var in struct{ URL string }
			_ = json.Unmarshal(s.Input, &in)
			fps = append(fps, in.URL)
		}
	}
	if !slices.Contains(fps, "http://"+domain+":9100/") {
		t.Errorf("http_fingerprint calls %v, want one of :9100", fps)
	}
}

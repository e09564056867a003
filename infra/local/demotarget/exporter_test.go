package demotarget

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/scanners/fingerprint"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// The demo's exporter is what http_fingerprint reports: its metrics, pprof
// and expvar, by their codes, on the exporter's port of the demo domain.
func TestExporterIsFingerprinted(t *testing.T) {
	t.Parallel()
	target := startTest(t, nil)
	if !strings.Contains(target.Summary(), target.ExporterURL()) {
		t.Errorf("Summary misses the exporter:\n%s", target.Summary())
	}
	res, err := resolver.New(target.DNSAddr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Domain: testDomain, Dialer: netguard.New(res, netguard.Policy{AllowPrivate: true}), Resolver: res}
	u, _ := url.Parse(target.ExporterURL())
	input, _ := json.Marshal(map[string]string{"url": "http://" + testDomain + ":" + u.Port() + "/"})
	out, err := fingerprint.New().Run(context.Background(), env, input)
	if err != nil {
		t.Fatal(err)
	}
	var got []scans.CheckCode
	for _, f := range out.Findings {
		got = append(got, f.Check)
	}
	for _, c := range []*checks.Check{checks.ExposedMetrics, checks.ExposedPprof, checks.ExposedExpvar} {
		if !slices.Contains(got, c.Code) {
			t.Errorf("findings %v, want %s (outcome: %s)", got, c.Code, out.Outcome)
		}
	}
	if s := out.Surface.Services; len(s) != 1 || s[0].Product != "node_exporter" || s[0].Version != ExporterVersion {
		t.Errorf("surface services %+v", s)
	}
}

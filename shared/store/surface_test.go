package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"secscan/shared/scans"
)

// The surface is merged entry by entry beside the scan: sources and
// addresses unite, a later version fills a service, a re-delivered
// fragment changes nothing, out-of-scope names are counted once, and the
// single-scan read returns it with the rest.
func TestMergeSurface(t *testing.T) {
	t.Parallel()
	st, ctx, now := newStore(t), context.Background(), time.Now()
	u := newUser(t, st, "surface@example.com")
	sc := queuedScan(t, st, u.ID, now)
	first := scans.Surface{
		Hosts: []scans.Host{
			{Name: "example.com", Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceApex}},
			{Name: "legacy.example.com", Addresses: []string{"192.0.2.1"}, Sources: []scans.HostSource{scans.SourceAXFR}},
		},
		Services:        []scans.ServiceInfo{{Host: "example.com", Address: "192.0.2.1", Port: 6379, Transport: "tcp", Protocol: "redis"}},
		OutOfScopeNames: []string{"evil.example", "cdn.other.example"},
	}
	for range 2 { // a re-delivered step
		if err := st.MergeSurface(ctx, sc.ID, first); err != nil {
			t.Fatal(err)
		}
	}
	second := scans.Surface{
		Hosts:           []scans.Host{{Name: "legacy.example.com", Sources: []scans.HostSource{scans.SourceCertificate}, NotScanned: "credit budget"}},
		Services:        []scans.ServiceInfo{{Host: "example.com", Address: "192.0.2.1", Port: 6379, Protocol: "redis", Product: "Redis", Version: "6.0.9"}},
		Web:             []scans.WebOrigin{{Origin: "https://example.com/", Title: "Home", Server: "nginx"}},
		OutOfScopeNames: []string{"evil.example"},
	}
	if err := st.MergeSurface(ctx, sc.ID, second); err != nil {
		t.Fatal(err)
	}
	if err := st.MergeSurface(ctx, sc.ID, scans.Surface{}); err != nil {
		t.Fatal(err)
	}
	d, err := st.GetScanDetail(ctx, u.ID, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sf := d.Surface
	if len(sf.Hosts) != 2 || len(sf.Services) != 1 || len(sf.Web) != 1 || sf.OutOfScope != 2 {
		t.Fatalf("surface %+v", sf)
	}
	legacy, _ := sf.Host("legacy.example.com")
	if !slices.Equal(legacy.Sources, []scans.HostSource{scans.SourceAXFR, scans.SourceCertificate}) ||
		!slices.Equal(legacy.Addresses, []string{"192.0.2.1"}) || legacy.NotScanned != "credit budget" {
		t.Errorf("merged host %+v", legacy)
	}
	if v := sf.Services[0]; v.Product != "Redis" || v.Version != "6.0.9" || v.Transport != "tcp" {
		t.Errorf("merged service %+v", v)
	}
	if got, err := st.Surface(ctx, sc.ID); err != nil || len(got.Hosts) != 2 {
		t.Errorf("Surface: %+v %v", got, err)
	}
	// The steps and findings of the scan are read as before, beside it.
	if len(d.Steps) != 0 || len(d.Findings) != 0 {
		t.Errorf("surface items read as steps or findings: %d, %d", len(d.Steps), len(d.Findings))
	}
}

package scans

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestSurfaceMerge pins Merge's rules: hosts by name (addresses and
// sources united, a later reason or alias wins), services by host, address
// and port (a known protocol kept, a later version wins with its product,
// empty fields filled), web origins by origin (empty fields filled,
// technologies united), out-of-scope names once, the count never lower,
// the caps, and the result sorted.
func TestSurfaceMerge(t *testing.T) {
	t.Parallel()
	s := Surface{
		Hosts: []Host{{Name: "b.example", Addresses: []string{"192.0.2.2"}, Sources: []HostSource{SourceApex}}},
		Services: []ServiceInfo{
			{Host: "b.example", Address: "192.0.2.2", Port: 6379, Transport: "tcp", Protocol: "unknown"},
			{Host: "b.example", Address: "192.0.2.2", Port: 22, Protocol: "ssh", Product: "OpenSSH", Version: "8.9"},
			{Host: "b.example", Address: "192.0.2.2", Port: 80, Protocol: "http"},
		},
		Web:             []WebOrigin{{Origin: "https://b.example/", Server: "nginx", Technologies: []string{"PHP"}}},
		OutOfScope:      5,
		OutOfScopeNames: []string{"x.test"},
	}
	s.Merge(Surface{
		Hosts: []Host{
			{Name: "b.example", Addresses: []string{"192.0.2.2", "192.0.2.3"}, Sources: []HostSource{SourceWWW}, NotScanned: "credit budget"},
			{Name: "a.example", CNAME: "a.cdn.test", NotProbed: "third party"},
		},
		Services: []ServiceInfo{
			{Host: "b.example", Address: "192.0.2.2", Port: 6379, Protocol: "redis", Product: "Redis", Version: "7.2"},
			{Host: "b.example", Address: "192.0.2.2", Port: 22, Transport: "tcp", Protocol: "unknown", Product: "Dropbear"},
			{Host: "b.example", Address: "192.0.2.2", Port: 80, Product: "nginx"},
			{Host: "a.example", Address: "192.0.2.9", Port: 443, Protocol: "https"},
		},
		Web: []WebOrigin{
			{Origin: "https://b.example/", Title: "Shop", Server: "Apache", Technologies: []string{"WordPress", "PHP"}},
			{Origin: "http://a.example/"},
		},
		OutOfScope:      2,
		OutOfScopeNames: []string{"y.test", "x.test"},
	})
	want := Surface{
		Hosts: []Host{
			{Name: "a.example", CNAME: "a.cdn.test", NotProbed: "third party"},
			{Name: "b.example", Addresses: []string{"192.0.2.2", "192.0.2.3"}, Sources: []HostSource{SourceApex, SourceWWW}, NotScanned: "credit budget"},
		},
		Services: []ServiceInfo{
			{Host: "a.example", Address: "192.0.2.9", Port: 443, Protocol: "https"},
			{Host: "b.example", Address: "192.0.2.2", Port: 22, Transport: "tcp", Protocol: "ssh", Product: "OpenSSH", Version: "8.9"},
			{Host: "b.example", Address: "192.0.2.2", Port: 80, Protocol: "http", Product: "nginx"},
			{Host: "b.example", Address: "192.0.2.2", Port: 6379, Transport: "tcp", Protocol: "redis", Product: "Redis", Version: "7.2"},
		},
		Web: []WebOrigin{
			{Origin: "http://a.example/"},
			{Origin: "https://b.example/", Title: "Shop", Server: "nginx", Technologies: []string{"PHP", "WordPress"}},
		},
		OutOfScope:      5,
		OutOfScopeNames: []string{"x.test", "y.test"},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Merge =\n%+v\nwant\n%+v", s, want)
	}

	// The caps: a full surface takes no new entries, but still merges into
	// the ones it has; the out-of-scope count follows the names kept.
	var full, more Surface
	for i := range MaxSurfaceHosts {
		full.Hosts = append(full.Hosts, Host{Name: fmt.Sprintf("h%03d.example", i)})
	}
	for i := range MaxSurfaceServices {
		full.Services = append(full.Services, ServiceInfo{Host: "h000.example", Port: i + 1})
	}
	for i := range MaxSurfaceWeb {
		full.Web = append(full.Web, WebOrigin{Origin: fmt.Sprintf("https://w%03d.example/", i)})
	}
	full.Sort()
	more.Hosts = []Host{{Name: "zzz.example"}, {Name: "h000.example", Addresses: []string{"192.0.2.1"}}}
	more.Services = []ServiceInfo{{Host: "zzz.example", Port: 1}}
	more.Web = []WebOrigin{{Origin: "https://zzz.example/"}}
	for i := range 1005 {
		more.OutOfScopeNames = append(more.OutOfScopeNames, fmt.Sprintf("o%04d.test", i))
	}
	full.Merge(more)
	if len(full.Hosts) != MaxSurfaceHosts || len(full.Services) != MaxSurfaceServices || len(full.Web) != MaxSurfaceWeb {
		t.Errorf("a full surface grew: %d hosts, %d services, %d origins", len(full.Hosts), len(full.Services), len(full.Web))
	}
	if h, _ := full.Host("h000.example"); len(h.Addresses) != 1 {
		t.Errorf("a full surface did not merge into a known host: %+v", h)
	}
	if len(full.OutOfScopeNames) != 1000 || full.OutOfScope != 1000 {
		t.Errorf("out of scope: %d names, count %d; want 1000 and 1000", len(full.OutOfScopeNames), full.OutOfScope)
	}
}

// Addresses merge by address: probed once probed, the first tie stays; a
// host's not_probed_reason from the address cap is kept.
func TestMergeAddressesAndNotProbed(t *testing.T) {
	t.Parallel()
	var sf Surface
	sf.Merge(Surface{Addresses: []Address{{Address: "192.0.2.2", TiedBy: TieCertificate, TiedName: "a.example.com"}}, Hosts: []Host{{Name: "a.example.com"}}})
	sf.Merge(Surface{Addresses: []Address{{Address: "192.0.2.2", Probed: true, TiedBy: TieReverseDNS, TiedName: "b.example.com"}, {Address: "192.0.2.1", Probed: true}}})
	sf.Merge(Surface{Hosts: []Host{{Name: "a.example.com", NotProbed: NotProbedAddressCap}}})
	want := []Address{{Address: "192.0.2.1", Probed: true}, {Address: "192.0.2.2", Probed: true, TiedBy: TieCertificate, TiedName: "a.example.com"}}
	if !slices.Equal(sf.Addresses, want) {
		t.Errorf("addresses %+v, want %+v", sf.Addresses, want)
	}
	if h, _ := sf.Host("a.example.com"); h.NotProbed != NotProbedAddressCap {
		t.Errorf("host %+v: not_probed_reason lost", h)
	}
}

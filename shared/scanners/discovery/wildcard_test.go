package discovery

import (
	"slices"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

func wildcardFindings(t *testing.T, res tools.Result) map[string]scans.Finding {
	t.Helper()
	scantest.CheckFindings(t, New(), res.Findings)
	out := map[string]scans.Finding{}
	for _, f := range res.Findings {
		if f.Check == checks.DNSWildcard.Code {
			out[f.Host] = f
		}
	}
	return out
}

// A wildcard under a subdomain (*.dev.example.test): reported for that
// subzone only, and the common labels tried under it do not become
// phantom hosts, while a real host under it with its own address does.
func TestWildcardUnderSubdomain(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "example.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.DNS.Add(t,
		"www.example.test. A 127.0.0.1",
		"dev.example.test. A 127.0.0.1",
		"*.dev.example.test. A 127.0.0.7",
		"api.dev.example.test. A 127.0.0.8",
	)
	before := site.DNS.Queries("udp") + site.DNS.Queries("tcp")
	start := time.Now()
	res := discover(t, site.Env, `{"sources":["wordlist"]}`)
	t.Logf("wall time %v, %d DNS queries", time.Since(start).Round(time.Millisecond), site.DNS.Queries("udp")+site.DNS.Queries("tcp")-before)
	found := wildcardFindings(t, res)
	f, ok := found["dev.example.test"]
	if !ok || len(found) != 1 {
		t.Fatalf("wildcard findings %v, want dev.example.test only", found)
	}
	if f.Severity != scans.Low || f.Category != scans.CategoryDNS || f.Port != nil ||
		!strings.Contains(f.Evidence, "127.0.0.7") || !strings.Contains(f.Evidence, "*.dev.example.test") ||
		!strings.Contains(f.Evidence, "guessed names under it") {
		t.Errorf("finding %+v", f)
	}
	hosts := hostsOf(res)
	var names []string
	for n := range hosts {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"api.dev.example.test", "dev.example.test", "example.test", "www.example.test"}
	if !slices.Equal(names, want) {
		t.Errorf("hosts %v, want %v (no phantom under the wildcard)", names, want)
	}
	if !strings.Contains(res.Outcome, "wildcard DNS: *.dev.example.test") {
		t.Errorf("outcome: %s", res.Outcome)
	}
}

// A wildcard only under an empty non-terminal (dev has no address of its
// own) is still found: the wordlist sees dev exists without records.
func TestWildcardUnderEmptyNonTerminal(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "example.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.DNS.Add(t, "*.dev.example.test. A 127.0.0.7")
	res := discover(t, site.Env, `{"sources":["wordlist"]}`)
	if found := wildcardFindings(t, res); len(found) != 1 || found["dev.example.test"].Host == "" {
		t.Errorf("wildcard findings %v", found)
	}
	if hosts := hostsOf(res); len(hosts) != 1 {
		t.Errorf("hosts %v, want the apex only", res.Surface.Hosts)
	}
}

// A wildcard at the apex is one finding for the apex, not one more for
// every subdomain it also answers under.
func TestWildcardAtApex(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "wild.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.DNS.Add(t, "*.wild.test. A 127.0.0.9", "mail.wild.test. A 127.0.0.1")
	res := discover(t, site.Env, `{"sources":["wordlist"]}`)
	found := wildcardFindings(t, res)
	if len(found) != 1 || found["wild.test"].Host == "" {
		t.Errorf("wildcard findings %v, want wild.test only", found)
	}
}

// A zone without wildcard: no finding, the same hosts as before (labels
// under dev are tried only with evidence that dev has children: a
// wildcard, a *.dev name, an empty non-terminal or a known name under it).
func TestNoWildcardNoFinding(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "example.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.DNS.Add(t, "www.example.test. A 127.0.0.1", "dev.example.test. A 127.0.0.1", "api.dev.example.test. A 127.0.0.1")
	before := site.DNS.Queries("udp") + site.DNS.Queries("tcp")
	start := time.Now()
	res := discover(t, site.Env, `{"sources":["wordlist"]}`)
	t.Logf("wall time %v, %d DNS queries", time.Since(start).Round(time.Millisecond), site.DNS.Queries("udp")+site.DNS.Queries("tcp")-before)
	if len(res.Findings) != 0 {
		t.Errorf("findings %+v", res.Findings)
	}
	if hosts := hostsOf(res); len(hosts) != 3 || hosts["dev.example.test"].Name == "" {
		t.Errorf("hosts %v", res.Surface.Hosts)
	}
}

func TestBetween(t *testing.T) {
	t.Parallel()
	if got := between("a.b.c.example.com", "example.com"); !slices.Equal(got, []string{"b.c.example.com", "c.example.com"}) {
		t.Errorf("between: %v", got)
	}
	if got := between("www.example.com", "example.com"); len(got) != 0 {
		t.Errorf("between: %v", got)
	}
}

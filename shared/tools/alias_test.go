package tools

import (
	"net/url"
	"strings"
	"testing"

	"secscan/shared/scans"
)

// What a request does to its host: only a GET of "/" without a query on
// its scheme's standard port (or the port the environment maps it to) is
// the home page; an alias leaving the scope is refused anything else.
func TestRequestReachAndTheThirdPartyRule(t *testing.T) {
	env := Env{Domain: "shop.test", Ports: Ports{HTTPS: 8443}}
	for _, tc := range []struct {
		method, url string
		want        Reach
	}{
		{"", "https://status.shop.test/", HomePage},
		{"GET", "https://status.shop.test", HomePage},
		{"GET", "https://status.shop.test:443/", HomePage},
		{"GET", "https://status.shop.test:8443/", HomePage},
		{"GET", "http://status.shop.test:80/", HomePage},
		{"GET", "http://status.shop.test:8443/", Probe},
		{"GET", "https://status.shop.test:9100/", Probe},
		{"GET", "https://status.shop.test/admin", Probe},
		{"GET", "https://status.shop.test/?next=/", Probe},
		{"GET", "https://status.shop.test/?", Probe},
		{"TRACE", "https://status.shop.test/", Probe},
		{"HEAD", "https://status.shop.test/", Probe},
		{"GET", "ftp://status.shop.test/", Probe},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := env.RequestReach(tc.method, u); got != tc.want {
			t.Errorf("RequestReach(%s %s) = %v, want %v", tc.method, tc.url, got, tc.want)
		}
	}
	opaque := &url.URL{Scheme: "https", Host: "status.shop.test", Opaque: "//status.shop.test/icons/.%2e/%2e%2e/etc/passwd"}
	if got := env.RequestReach("GET", opaque); got != Probe {
		t.Errorf("a verbatim request target is %v, want a probe", got)
	}

	alias := Access{Host: "status.shop.test", Alias: "status.vendor.example"}
	if err := alias.Check(HomePage); err != nil {
		t.Errorf("the home page of an alias: %v", err)
	}
	err := alias.Check(Probe)
	if !IsInputError(err) || !strings.Contains(err.Error(), "status.vendor.example") || !strings.Contains(err.Error(), scans.NotProbedThirdParty) {
		t.Errorf("a probe of an alias: %v, want an input error naming the alias and the reason", err)
	}
	if err := (Access{Host: "www.shop.test"}).Check(Probe); err != nil {
		t.Errorf("a probe of a name of the scope's own: %v", err)
	}
	if got := env.CallReach(HomePage, &url.URL{Scheme: "https", Host: "status.shop.test", Path: "/login"}); got != Probe {
		t.Errorf("a home-page tool started elsewhere does %v, want a probe", got)
	}
	if got := ReachOf(nil); got != Probe {
		t.Errorf("a tool that declares nothing does %v, want a probe", got)
	}
}

package takeover

import (
	"testing"

	"github.com/miekg/dns"
)

func TestServiceOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"foo.herokuapp.com.":                        "Heroku",
		"FOO.GitHub.IO":                             "GitHub Pages",
		"x.blob.core.windows.net":                   "Azure Blob Storage",
		"bucket.s3.amazonaws.com":                   "Amazon S3",
		"bucket.s3.eu-west-1.amazonaws.com":         "Amazon S3",
		"bucket.s3-website-us-east-1.amazonaws.com": "Amazon S3",
		"ec2-1-2-3-4.compute-1.amazonaws.com":       "",
		"s3.amazonaws.com":                          "", // the suffix itself is no customer name
		"herokuapp.com":                             "",
		"notherokuapp.com":                          "",
		"github.io.evil.test":                       "",
		"d111.cloudfront.net":                       "Amazon CloudFront",
	} {
		if got := ServiceOf(name); got != want {
			t.Errorf("ServiceOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// One finding per dead target, on its first name, listing the others.
func TestFindingsGroupByDeadTarget(t *testing.T) {
	t.Parallel()
	var aliases []Alias
	for _, name := range []string{"a.shop.test", "b.shop.test", "a.shop.test"} {
		a, ok := Dangling(name, []string{"gone.herokuapp.com."}, dns.RcodeNameError)
		if !ok {
			t.Fatalf("%s: not dangling", name)
		}
		aliases = append(aliases, a)
	}
	if _, ok := Dangling("c.shop.test", []string{"gone.herokuapp.com."}, dns.RcodeSuccess); ok {
		t.Error("an alias that resolves is dangling")
	}
	if _, ok := Dangling("d.shop.test", []string{"gone.example-cdn.test."}, dns.RcodeNameError); ok {
		t.Error("a dead alias outside the services is dangling")
	}
	fs := Findings(aliases)
	if len(fs) != 1 || fs[0].Host != "a.shop.test" || fs[0].Evidence != "a.shop.test → gone.herokuapp.com → NXDOMAIN (CNAME chain through the configured resolver; Heroku has no such name); the same target is the alias of b.shop.test" {
		t.Errorf("findings %+v", fs)
	}
}

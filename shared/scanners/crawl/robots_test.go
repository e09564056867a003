package crawl

import "testing"

func TestRobots(t *testing.T) {
	t.Parallel()
	const file = `# comments are ignored
User-agent: Googlebot
Disallow: /

User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Disallow: /search
Allow: /search/help
Disallow:

Sitemap: https://example.test/sitemap.xml
`
	const named = `User-agent: *
Disallow: /

user-agent: OtherBot
User-Agent: SecScan
Disallow: /admin
`
	tests := []struct {
		name, body, path string
		want             bool
	}{
		{"open path", file, "/", true},
		{"disallowed prefix", file, "/private/x", false},
		{"prefix needs the slash", file, "/privateer", true},
		{"end anchor", file, "/docs/a.pdf", false},
		{"end anchor does not match a longer path", file, "/docs/a.pdf?x=1", true},
		{"prefix covers queries", file, "/search?q=x", false},
		{"longer allow wins", file, "/search/help", true},
		{"other agents' groups do not apply", file, "/anything", true},
		{"our group replaces *", named, "/", true},
		{"our group's rule", named, "/admin/users", false},
		{"empty file", "", "/x", true},
		{"garbage", "\x00\xff not robots\n<html>", "/x", true},
		{"wildcard in the middle", "User-agent: *\nDisallow: /*/edit\n", "/posts/7/edit", false},
		{"wildcard not matching", "User-agent: *\nDisallow: /*/edit\n", "/posts/7", true},
		{"equal length: allow wins", "User-agent: *\nDisallow: /a\nAllow: /a\n", "/a", true},
	}
	for _, tc := range tests {
		if got := parseRobots([]byte(tc.body), "secscan").allowed(tc.path); got != tc.want {
			t.Errorf("%s: allowed(%q) = %v, want %v", tc.name, tc.path, got, tc.want)
		}
	}
	if (&robotsRules{disallowAll: true}).allowed("/") {
		t.Error("disallowAll allowed a path")
	}
}

func TestRobotsMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/anything", true},
		{"/a*b", "/axxb", true},
		{"/a*b", "/ab", true},
		{"/a*b", "/a", false},
		{"/a*b$", "/axbxb", true},
		{"/a*b$", "/axbx", false},
		{"/*a*b*c", "/xaybzc", true},
		{"/*a*b*c", "/xcybza", false},
		{"/exact$", "/exact", true},
		{"/exact$", "/exact/", false},
		{"*", "/", true},
	}
	for _, tc := range tests {
		if got := robotsMatch(tc.pattern, tc.path); got != tc.want {
			t.Errorf("robotsMatch(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

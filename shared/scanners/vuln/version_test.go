package vuln

import (
	"testing"
)

func TestVersionCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"1.12.4", "1.12.4", 0},
		{"1.12.4", "1.9.1", 1},
		{"1.2", "1.12.4", -1},
		{"3.5.0", "3.5", 0},
		{"3.5.1", "3.5", 1},
		{"2.4.49", "2.4.50", -1},
		{"2.4.49", "2.4.9", 1},
		// OpenSSH portable: p-levels are later releases of the same version.
		{"7.2p2", "7.2", 1},
		{"7.2p2", "7.2p1", 1},
		{"7.2p2", "7.3", -1},
		{"7.2p2", "7.3p1", -1},
		{"9.8p1", "9.8p1", 0},
		{"9.7p1", "9.8p1", -1},
		{"8.5p1", "8.5", 1},
		{"4.3p2", "4.4p1", -1},
		// OpenSSL letter releases.
		{"1.0.1f", "1.0.1g", -1},
		{"1.0.1", "1.0.1a", -1},
		{"1.0.2", "1.0.1g", 1},
		{"1.0.2k-fips", "1.0.2k", 0},
		// Distribution and vendor suffixes are not part of the version.
		{"5.5.62-0ubuntu0.14.04.1", "5.5.62", 0},
		{"5.5.62-0ubuntu0.14.04.1", "5.5.63", -1},
		{"10.3.34-MariaDB", "10.3.34", 0},
		{"2.4.49 (Unix)", "2.4.49", 0},
		{"1.2.3+build.7", "1.2.3", 0},
		{"v3.4.1", "3.4.1", 0},
		// Pre-releases sort before the release.
		{"3.0.0-rc.1", "3.0.0", -1},
		{"3.0.0-beta1", "3.0.0-rc1", -1},
		{"3.0.0-alpha", "3.0.0-beta", -1},
		{"4.0.0rc1", "4.0.0", -1},
		{"3.0.0-rc1", "2.9.9", 1},
	}
	for _, tc := range tests {
		a, err := ParseVersion(tc.a)
		if err != nil {
			t.Fatalf("ParseVersion(%q): %v", tc.a, err)
		}
		b, err := ParseVersion(tc.b)
		if err != nil {
			t.Fatalf("ParseVersion(%q): %v", tc.b, err)
		}
		if got := a.Compare(b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := b.Compare(a); got != -tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d (antisymmetry)", tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestParseVersionRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "-1.2", "1..2", "1.2.3." + string(make([]byte, 80)), "123456789012345678901.0"} {
		if v, err := ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", s, v)
		}
	}
}

func TestRangeContains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    Range
		v    string
		want bool
	}{
		{Range{Introduced: "2.4.49", Fixed: "2.4.51"}, "2.4.49", true},
		{Range{Introduced: "2.4.49", Fixed: "2.4.51"}, "2.4.50", true},
		{Range{Introduced: "2.4.49", Fixed: "2.4.51"}, "2.4.51", false},
		{Range{Introduced: "2.4.49", Fixed: "2.4.51"}, "2.4.48", false},
		{Range{Fixed: "3.5.0"}, "1.12.4", true},
		{Range{Introduced: "2.3.4", LastAffected: "2.3.4"}, "2.3.4", true},
		{Range{Introduced: "2.3.4", LastAffected: "2.3.4"}, "2.3.5", false},
		{Range{Introduced: "8.5p1", Fixed: "9.8p1"}, "8.9p1", true},
		{Range{Introduced: "8.5p1", Fixed: "9.8p1"}, "9.8p1", false},
		{Range{Introduced: "8.5p1", Fixed: "9.8p1"}, "8.4p1", false},
		{Range{Fixed: "7.8"}, "7.7p1", true},
		{Range{Introduced: "1.0.1", Fixed: "1.0.1g"}, "1.0.1f", true},
		{Range{Introduced: "1.0.1", Fixed: "1.0.1g"}, "1.0.1g", false},
	}
	for _, tc := range tests {
		if got := tc.r.Contains(MustParseVersion(tc.v)); got != tc.want {
			t.Errorf("%v contains %s = %v, want %v", tc.r, tc.v, got, tc.want)
		}
	}
}

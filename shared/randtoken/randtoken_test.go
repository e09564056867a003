package randtoken

import (
	"regexp"
	"testing"
)

func TestBase62(t *testing.T) {
	t.Parallel()
	for n, width := range map[int]int{24: 33, 32: 43} {
		seen := map[string]bool{}
		for range 200 {
			s, err := Base62(n)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^[0-9a-zA-Z]+$`).MatchString(s) || len(s) != width {
				t.Fatalf("Base62(%d) = %q (len %d), want %d base62 characters", n, s, len(s), width)
			}
			if seen[s] {
				t.Fatalf("repeated value %q", s)
			}
			seen[s] = true
		}
	}
}

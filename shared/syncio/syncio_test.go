package syncio_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"secscan/shared/syncio"
)

// Lines written concurrently arrive whole, each once (run with -race).
func TestConcurrentWritesStayWhole(t *testing.T) {
	var plain bytes.Buffer
	w := syncio.NewWriter(&plain)
	var b syncio.Buffer
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			line := strings.Repeat(string(rune('a'+i%26)), 100) + "\n"
			_, _ = w.Write([]byte(line))
			_, _ = b.Write([]byte(line))
			_ = b.String()
		})
	}
	wg.Wait()
	for name, got := range map[string]string{"Writer": plain.String(), "Buffer": b.String()} {
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != 50 {
			t.Fatalf("%s: %d lines, want 50", name, len(lines))
		}
		for _, l := range lines {
			if len(l) != 100 || strings.Trim(l, l[:1]) != "" {
				t.Fatalf("%s: a line was interleaved: %q", name, l)
			}
		}
	}
}

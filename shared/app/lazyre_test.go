package app

import (
	"testing"

	"secscan/shared/lazyre"
)

// The service's regular expressions are compiled on first use (lazyre), so
// an invalid one would panic only when a request reaches it. This package
// links every one of them: compiling them all here finds it first.
func TestEveryLazyRegularExpressionCompiles(t *testing.T) {
	if n := lazyre.CompileAll(); n < 150 {
		t.Fatalf("compiled %d expressions; the scanners, report and summary declare more than 150", n)
	}
}

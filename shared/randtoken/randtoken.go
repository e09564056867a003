// Package randtoken makes the random strings behind credentials (API tokens,
// webhook secrets, verification tokens): crypto/rand bytes written in base62
// at a fixed width, so every value of a kind has the same length.
package randtoken

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
)

// Base62 returns n random bytes as base62 (0-9a-zA-Z), left-padded to the
// width n bytes always need: ceil(8n / log2 62).
func Base62(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random bytes: %w", err)
	}
	width := (n*8*1000 + 5953) / 5954 // log2(62) ≈ 5.954
	digits := new(big.Int).SetBytes(b).Text(62)
	return strings.Repeat("0", width-len(digits)) + digits, nil
}

package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"secscan/shared/randtoken"
)

// TokenPrefix starts every API token value.
const TokenPrefix = "pt_"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIToken mints a token value: pt_ + 32 random bytes in base62.
func NewAPIToken() (string, error) {
	body, err := randtoken.Base62(32)
	if err != nil {
		return "", err
	}
	return TokenPrefix + body, nil
}

// HashToken is the stored form of a token: its SHA-256, hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// DisplayPrefix is the part of a token shown in listings (its first 10 characters).
func DisplayPrefix(token string) string {
	if len(token) < 10 {
		return token
	}
	return token[:10]
}

// plausibleAPIToken rejects values that cannot be tokens without a database
// round trip: wrong prefix, wrong alphabet, absurd length.
func plausibleAPIToken(v string) bool {
	body, ok := strings.CutPrefix(v, TokenPrefix)
	if !ok || len(body) < 20 || len(body) > 200 {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	return true
}

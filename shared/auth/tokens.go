package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
)

// TokenPrefix starts every API token value.
const TokenPrefix = "pt_"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// tokenBodyLen is the base62 length of 32 random bytes (62^43 > 2^256).
const tokenBodyLen = 43

// RandomBase62 returns n random bytes as a fixed-width base62 string.
func RandomBase62(nBytes int) (string, error) {
	b := make([]byte, nBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	width := (nBytes*8*1000 + 5953) / 5954 // ceil(bits / log2(62))
	v := new(big.Int).SetBytes(b)
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		v.DivMod(v, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return string(out), nil
}

// NewAPIToken mints a token value: pt_ + 32 random bytes in base62.
func NewAPIToken() (string, error) {
	body, err := RandomBase62(32)
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

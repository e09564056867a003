// Package ids mints the public identifiers of the service: a type prefix and a
// ULID body, so ids say what they name (usr_, tgt_, scn_, tok_, fnd_, sch_) and sort by
// creation time, which lets the store list "newest first" from the key alone.
package ids

import (
	"crypto/rand"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Prefixes of the identifier kinds.
const (
	User    = "usr_"
	Target  = "tgt_"
	Scan    = "scn_"
	Token   = "tok_"
	Finding = "fnd_"
	// Schedule names a scheduled scan (and its EventBridge Scheduler schedule).
	Schedule = "sch_"
	// Retest names a retest of one issue.
	Retest = "rt_"
)

// New returns prefix + a ULID made at now with crypto-random entropy.
func New(prefix string, now time.Time) string {
	return prefix + ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
}

// Valid reports whether id has the prefix and a well-formed ULID body.
// Handlers check ids before querying so garbage never reaches the store.
func Valid(prefix, id string) bool {
	body, ok := strings.CutPrefix(id, prefix)
	if !ok || len(body) != ulid.EncodedSize {
		return false
	}
	_, err := ulid.ParseStrict(body)
	return err == nil
}

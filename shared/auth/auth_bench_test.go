package auth_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/shared/auth"
	"secscan/shared/ids"
	"secscan/shared/store"
)

// benchAuth measures Authenticate end to end against DynamoDB Local: token or
// identity lookup, admission under the per-user limit and the user read. The
// clock advances 1.1 s per request, so the limiter runs in its steady state
// (a full log pruned as it goes) instead of refusing.
func benchAuth(b *testing.B, session bool) {
	db, table := dynamotest.NewTable(b)
	st := store.New(db, table)
	idp, _ := devidp.New("https://idp.test/", "bench")
	keys, _ := idp.Keyfunc()
	a := auth.New(st, auth.NewJWTVerifier(keys, idp.Issuer, idp.Audience), slog.New(slog.NewTextHandler(io.Discard, nil)))
	var tick atomic.Int64
	start := time.Now()
	a.Now = func() time.Time { return start.Add(time.Duration(tick.Add(1)) * 1100 * time.Millisecond) }

	now := time.Now().UTC()
	value, _ := auth.NewAPIToken()
	u := store.User{ID: ids.New(ids.User, now), Email: "bench@example.com", Plan: "starter", CreatedAt: now}
	tok := store.Token{ID: ids.New(ids.Token, now), Name: "b", Prefix: auth.DisplayPrefix(value), Hash: auth.HashToken(value), CreatedAt: now}
	if err := st.CreateUser(context.Background(), store.NewUser{User: u, ClaimEmail: true, IdentityISS: idp.Issuer,
		IdentitySub: "dev|bench@example.com", FirstToken: &tok}); err != nil {
		b.Fatal(err)
	}
	bearer := value
	if session {
		bearer, _ = idp.SessionToken("bench@example.com", true)
	}
	req := httptest.NewRequest("GET", "/api/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p, d, err := a.Authenticate(context.Background(), req, "bench-"+strconv.Itoa(i))
		if err != nil || !d.Allowed || p.User.ID != u.ID {
			b.Fatalf("iteration %d: %v %+v", i, err, d)
		}
	}
}

func BenchmarkAuthenticateAPIToken(b *testing.B) { benchAuth(b, false) }
func BenchmarkAuthenticateSession(b *testing.B)  { benchAuth(b, true) }

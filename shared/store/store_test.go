package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secscan/infra/local/dynamotest"
	"secscan/shared/ids"
	"secscan/shared/store"
)

func newStore(t *testing.T) *store.Store {
	db, table := dynamotest.NewTable(t)
	return store.New(db, table)
}

func newUser(t *testing.T, st *store.Store, email string) store.User {
	t.Helper()
	u := store.User{ID: ids.New(ids.User, time.Now()), Email: email, Plan: "free", CreatedAt: time.Now().UTC()}
	if err := st.CreateUser(context.Background(), store.NewUser{User: u, ClaimEmail: true}); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestUsersAndIdentities(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "a@example.com")
	dup := store.User{ID: ids.New(ids.User, time.Now()), Email: "a@example.com", Plan: "free", CreatedAt: time.Now()}
	if err := st.CreateUser(ctx, store.NewUser{User: dup, ClaimEmail: true}); !store.IsConflict(err) {
		t.Fatalf("second user with the same email: %v, want conflict", err)
	}
	if _, err := st.GetUser(ctx, dup.ID); !store.IsNotFound(err) {
		t.Fatal("a failed transaction left the user behind")
	}
	// A user that was not created by an admin as linkable is never linked.
	if err := st.LinkIdentity(ctx, "iss", "sub", u.Email, u.ID); !errors.Is(err, store.ErrNotLinkable) {
		t.Fatalf("linking a self-registered user: %v, want ErrNotLinkable", err)
	}
	if _, err := st.UserIDByIdentity(ctx, "iss", "sub"); !store.IsNotFound(err) {
		t.Fatal("a refused link left the identity behind")
	}
	admin := store.User{ID: ids.New(ids.User, time.Now()), Email: "b@example.com", Plan: "pro", CreatedAt: time.Now()}
	if err := st.CreateUser(ctx, store.NewUser{User: admin, ClaimEmail: true, Linkable: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.LinkIdentity(ctx, "iss", "sub", admin.Email, u.ID); !errors.Is(err, store.ErrNotLinkable) {
		t.Fatalf("linking to a user that does not hold the email: %v, want ErrNotLinkable", err)
	}
	if err := st.LinkIdentity(ctx, "iss", "sub", admin.Email, admin.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.LinkIdentity(ctx, "iss", "sub", admin.Email, admin.ID); !store.IsConflict(err) {
		t.Fatalf("relinking an identity: %v, want conflict", err)
	}
	// The flag is one-shot: a second identity with the same email is refused.
	if err := st.LinkIdentity(ctx, "iss", "other", admin.Email, admin.ID); !errors.Is(err, store.ErrNotLinkable) {
		t.Fatalf("second link of one admin-created user: %v, want ErrNotLinkable", err)
	}
	if id, err := st.UserIDByIdentity(ctx, "iss", "sub"); err != nil || id != admin.ID {
		t.Fatalf("identity -> %q %v", id, err)
	}
	plan := "pro"
	got, err := st.UpdateUser(ctx, u.ID, &plan, nil)
	if err != nil || got.Plan != "pro" || got.Email != u.Email {
		t.Fatalf("update = %+v %v", got, err)
	}
	if _, err := st.UpdateUser(ctx, ids.New(ids.User, time.Now()), &plan, nil); !store.IsNotFound(err) {
		t.Fatalf("updating a missing user: %v (and it must not create one)", err)
	}
}

func TestTargetsAreScopedAndUnique(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	alice, bob := newUser(t, st, "alice@example.com"), newUser(t, st, "bob@example.com")
	tgt := store.Target{ID: ids.New(ids.Target, time.Now()), UserID: alice.ID, Domain: "example.com", Method: "dns_txt", CreatedAt: time.Now()}
	if err := st.CreateTarget(ctx, tgt); err != nil {
		t.Fatal(err)
	}
	again := tgt
	again.ID = ids.New(ids.Target, time.Now())
	var dup *store.DuplicateTargetError
	if err := st.CreateTarget(ctx, again); !errors.As(err, &dup) || dup.ExistingID != tgt.ID {
		t.Fatalf("duplicate domain: %v, want the existing id %s", err, tgt.ID)
	}
	if _, err := st.GetTarget(ctx, bob.ID, tgt.ID); !store.IsNotFound(err) {
		t.Fatalf("bob reads alice's target: %v", err)
	}
	if err := st.DeleteTarget(ctx, bob.ID, tgt.ID); !store.IsNotFound(err) {
		t.Fatalf("bob deletes alice's target: %v", err)
	}
	at := time.Now()
	v, err := st.MarkTargetVerified(ctx, alice.ID, tgt.ID, at)
	if err != nil || !v.Verified || v.VerifiedAt == nil {
		t.Fatalf("verified = %+v %v", v, err)
	}
	v2, err := st.MarkTargetVerified(ctx, alice.ID, tgt.ID, at.Add(time.Hour))
	if err != nil || !v2.VerifiedAt.Equal(*v.VerifiedAt) {
		t.Fatalf("second verification changed verified_at: %v %v", v2.VerifiedAt, err)
	}
	if err := st.DeleteTarget(ctx, alice.ID, tgt.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateTarget(ctx, again); err != nil {
		t.Fatalf("the domain claim outlived its target: %v", err)
	}
}

func TestPagesAndCursors(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "p@example.com")
	for i := range 7 {
		tgt := store.Target{ID: ids.New(ids.Target, time.Now().Add(time.Duration(i)*time.Second)), UserID: u.ID,
			Domain: fmt.Sprintf("d%d.example.com", i), Method: "dns_txt", CreatedAt: time.Now()}
		if err := st.CreateTarget(ctx, tgt); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	page := store.Page{Limit: 3}
	for range 5 {
		items, next, err := st.ListTargets(ctx, u.ID, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			got = append(got, it.Domain)
		}
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if fmt.Sprint(got) != "[d6.example.com d5.example.com d4.example.com d3.example.com d2.example.com d1.example.com d0.example.com]" {
		t.Fatalf("pages = %v", got)
	}
	for _, bad := range []string{"!!", "VE9LRU4jMDFI" /* TOKEN#01H: another kind */, "dGFyZ2V0"} {
		if _, _, err := st.ListTargets(ctx, u.ID, store.Page{Limit: 3, Cursor: bad}); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestTokenRevocationAndLastUsed(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "t@example.com")
	tok := store.Token{ID: ids.New(ids.Token, time.Now()), UserID: u.ID, Name: "ci", Prefix: "pt_abc", Hash: "h1", CreatedAt: time.Now()}
	if err := st.CreateToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := st.TouchToken(ctx, tok, now, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	seen, _ := st.TokenByHash(ctx, "h1")
	if seen.LastUsedAt == nil || !seen.LastUsedAt.Equal(now.UTC()) {
		t.Fatalf("last_used_at = %v", seen.LastUsedAt)
	}
	// Within the granularity nothing is written, even if asked concurrently.
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() { _ = st.TouchToken(ctx, tok, now.Add(time.Duration(i+1)*time.Second), 5*time.Minute) })
	}
	wg.Wait()
	if again, _ := st.TokenByHash(ctx, "h1"); !again.LastUsedAt.Equal(now.UTC()) {
		t.Fatalf("last_used_at rewritten within the granularity: %v", again.LastUsedAt)
	}
	listed, _, err := st.ListTokens(ctx, u.ID, store.Page{Limit: 10})
	if err != nil || len(listed) != 1 || listed[0].LastUsedAt == nil {
		t.Fatalf("listed = %+v %v", listed, err)
	}
	if err := st.DeleteToken(ctx, u.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TokenByHash(ctx, "h1"); !store.IsNotFound(err) {
		t.Fatalf("revoked token still authenticates: %v", err)
	}
	if err := st.DeleteToken(ctx, u.ID, tok.ID); !store.IsNotFound(err) {
		t.Fatalf("second revoke: %v", err)
	}
}

func TestWebhookSecretFirstUseAndRotation(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "w@example.com")
	// Concurrent first uses agree on one secret.
	results := make([]string, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			s, err := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: fmt.Sprint("whsec_", i), CreatedAt: time.Now()})
			if err != nil {
				t.Error(err)
			}
			results[i] = s.Secret
		})
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] {
			t.Fatalf("first uses disagree: %v", results)
		}
	}
	if _, err := st.RotateWebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_new", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if s, _ := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_unused"}); s.Secret != "whsec_new" {
		t.Fatalf("after rotation: %q", s.Secret)
	}

	// Concurrent rotations never both succeed from the same version (the
	// loser would hand out a secret that is already dead): the winners form
	// a chain of distinct versions ending in the secret in force, and every
	// other rotation gets ErrConflict. Repeated, so a race shows.
	version := 1
	for round := range 5 {
		won := make([]store.WebhookSecret, 8)
		var conflicts atomic.Int32
		var wg sync.WaitGroup
		for i := range won {
			wg.Go(func() {
				got, err := st.RotateWebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: fmt.Sprint("whsec_r", round, "_", i), CreatedAt: time.Now()})
				switch {
				case store.IsConflict(err):
					conflicts.Add(1)
				case err != nil:
					t.Error(err)
				default:
					won[i] = got
				}
			})
		}
		wg.Wait()
		current, _ := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_unused"})
		seen, last := map[int]bool{}, store.WebhookSecret{}
		for _, w := range won {
			if w.Secret == "" {
				continue
			}
			if seen[w.Version] {
				t.Fatalf("round %d: two rotations succeeded from the same version %d", round, w.Version-1)
			}
			seen[w.Version] = true
			if w.Version > last.Version {
				last = w
			}
		}
		if len(seen) < 1 || len(seen)+int(conflicts.Load()) != len(won) || current.Version != version+len(seen) || last.Secret != current.Secret {
			t.Fatalf("round %d: %d winners, %d conflicts; version %d -> %d; in force %q, last winner %q",
				round, len(seen), conflicts.Load(), version, current.Version, current.Secret, last.Secret)
		}
		version = current.Version
	}
}

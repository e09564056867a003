package localstack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamotest"
	"secscan/infra/local/localstack"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// TestDataDirKeepsKeyAndTokenAndLocks: the signing key and the admin token
// are made once (0600) and read back unchanged (same key id), so sessions
// signed before a restart verify after it (TestRestartKeepsSessionsAndData); a second stack on the same folder is refused
// with what to do.
func TestDataDirKeepsKeyAndTokenAndLocks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	d, err := localstack.OpenDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := localstack.OpenDataDir(dir); err == nil || !strings.Contains(err.Error(), "another local stack is using") {
		t.Fatalf("second open of a locked folder: %v, want refused", err)
	}
	key1, err := d.SigningKey()
	if err != nil {
		t.Fatal(err)
	}
	tok1, err := d.AdminToken()
	if err != nil || !strings.HasPrefix(tok1, "pt_") {
		t.Fatalf("admin token %q, %v", tok1, err)
	}
	for _, name := range []string{"devidp-key.pem", "admin-token"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", name, err, fi.Mode())
		}
	}
	before, err := devidp.NewWithKey("http://127.0.0.1:3000/dev", "secscan-local", key1)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()

	// "Restart": the folder opens again and yields the same key and token.
	d, err = localstack.OpenDataDir(dir)
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	defer d.Close()
	key2, err := d.SigningKey()
	if err != nil {
		t.Fatal(err)
	}
	tok2, _ := d.AdminToken()
	if !key2.Equal(key1) || tok2 != tok1 {
		t.Fatal("the key or the token changed across a restart")
	}
	after, err := devidp.NewWithKey("http://127.0.0.1:3000/dev", "secscan-local", key2)
	if err != nil {
		t.Fatal(err)
	}
	if string(after.JWKS()) != string(before.JWKS()) {
		t.Error("the provider's key set (kid) changed across a restart")
	}
}

// TestEndUnfinishedScans fails what a previous stack left queued or
// running, with a reason that says to start it again, and leaves ended
// scans alone.
func TestEndUnfinishedScans(t *testing.T) {
	t.Parallel()
	ctx, now := context.Background(), time.Now().UTC()
	db, table := dynamotest.NewTable(t)
	st := store.New(db, table)
	u := store.User{ID: ids.New(ids.User, now), Email: "restart@example.com", Plan: "starter", CreatedAt: now}
	if err := st.CreateUser(ctx, store.NewUser{User: u, ClaimEmail: true}); err != nil {
		t.Fatal(err)
	}
	mk := func() scans.Scan {
		sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: u.ID, Target: "example.com", Type: scans.Web, Tier: plans.Quick,
			Status: scans.Queued, MaxCredits: 50, CreatedAt: now}
		if _, _, err := st.CreateScan(ctx, sc, nil, now); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	queued, running, done := mk(), mk(), mk()
	if _, err := st.StartScan(ctx, u.ID, running.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndScan(ctx, u.ID, done.ID, scans.Cancelled, "", nil, now); err != nil {
		t.Fatal(err)
	}
	n, err := localstack.EndUnfinishedScans(ctx, db, table, st, now)
	if err != nil || n != 2 {
		t.Fatalf("ended %d, %v; want 2", n, err)
	}
	for _, id := range []string{queued.ID, running.ID} {
		got, err := st.GetScan(ctx, u.ID, id)
		if err != nil || got.Status != scans.Failed || got.Error != localstack.UnfinishedReason {
			t.Errorf("scan %s: %s %q, %v; want failed with the restart reason", id, got.Status, got.Error, err)
		}
	}
	if got, _ := st.GetScan(ctx, u.ID, done.ID); got.Status != scans.Cancelled {
		t.Errorf("an ended scan became %s", got.Status)
	}
	if n, err := localstack.EndUnfinishedScans(ctx, db, table, st, now); n != 0 || err != nil {
		t.Errorf("second pass ended %d, %v; want 0", n, err)
	}
}

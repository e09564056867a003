// Package dynamotest gives tests a fresh table on DynamoDB Local: the one
// named by DYNAMODB_ENDPOINT (make test starts one for the whole run), or one
// this test process starts itself on first use. Tables are created from
// template.yaml, so tests exercise the deployed key schema and TTL.
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"secscan/infra/local/dynamolocal"
	"secscan/shared/samtemplate"
	"secscan/shared/store"
)

var (
	once     sync.Once
	endpoint string
	startErr error
)

// RepoRoot is the folder holding go.mod, found from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Template is the repository's root (RepoRoot) and its template.yaml,
// failing the test when either cannot be read.
func Template(t testing.TB) (root string, tpl *samtemplate.Template) {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if tpl, err = samtemplate.Load(filepath.Join(root, "template.yaml")); err != nil {
		t.Fatal(err)
	}
	return root, tpl
}

// Endpoint returns a DynamoDB Local endpoint, failing the test with an
// install hint when none can be had.
func Endpoint(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		if endpoint = os.Getenv("DYNAMODB_ENDPOINT"); endpoint != "" {
			return
		}
		root, err := RepoRoot()
		if err != nil {
			startErr = err
			return
		}
		// Lives as long as the test process (Pdeathsig ends it with us).
		srv, err := dynamolocal.Start(context.Background(), filepath.Join(root, "infra", "local"), io.Discard)
		if err != nil {
			startErr = err
			return
		}
		endpoint = srv.Endpoint
	})
	if startErr != nil {
		t.Fatalf("DynamoDB Local is needed for this test: %v", startErr)
	}
	return endpoint
}

// NewTable creates a uniquely named table from template.yaml and returns a
// client and its name; the table is deleted when the test ends.
func NewTable(t testing.TB) (*dynamodb.Client, string) {
	t.Helper()
	return NewTableAt(t, Endpoint(t))
}

// NewTableAt is NewTable on the DynamoDB Local at endpoint (one a fault
// test started, to pause it without disturbing other tests).
func NewTableAt(t testing.TB, endpoint string) (*dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.NewClient(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	_, tpl := Template(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "test-" + hex.EncodeToString(b)
	if err := dynamolocal.CreateTables(ctx, db, tpl, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name})
	})
	return db, name
}

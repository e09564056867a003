package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"secscan/infra/local/devidp"
	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/localstack"
	"secscan/shared/auth"
	"secscan/shared/config"
	"secscan/shared/store"
)

// openData opens the stack's data folder: LOCAL_DATA, by default .local at
// the repository root; LOCAL_DATA=memory keeps nothing (nil).
func openData(root string) (*localstack.DataDir, error) {
	dir := strings.TrimSpace(os.Getenv("LOCAL_DATA"))
	switch dir {
	case "memory":
		return nil, nil
	case "":
		dir = filepath.Join(root, ".local")
	}
	return localstack.OpenDataDir(dir)
}

// newIdP is the development identity provider, signing with the data
// folder's key when there is one (sessions survive a restart).
func newIdP(cfg config.Config, data *localstack.DataDir) (*devidp.Provider, error) {
	if data == nil {
		return devidp.New(cfg.JWTIssuer, cfg.JWTAudience)
	}
	key, err := data.SigningKey()
	if err != nil {
		return nil, err
	}
	return devidp.NewWithKey(cfg.JWTIssuer, cfg.JWTAudience, key)
}

// defaultAdminEmail is the local admin's when BOOTSTRAP_ADMIN_EMAIL is unset.
const defaultAdminEmail = "admin@example.com"

// adminInfo is what the banner says about the local admin.
type adminInfo struct {
	email, tokenFile string
	given            bool // BOOTSTRAP_ADMIN_* named it
}

// localAdmin fills cfg's bootstrap admin when unset: admin@example.com with
// a token kept in the data folder (made on first start; in memory, a new
// one each start).
func localAdmin(cfg *config.Config, data *localstack.DataDir) (adminInfo, error) {
	if cfg.BootstrapAdminEmail != "" {
		return adminInfo{email: cfg.BootstrapAdminEmail, given: true}, nil
	}
	info := adminInfo{email: defaultAdminEmail}
	var err error
	if data != nil {
		cfg.BootstrapAdminToken, err = data.AdminToken()
		info.tokenFile = data.AdminTokenPath()
	} else {
		cfg.BootstrapAdminToken, err = auth.NewAPIToken()
	}
	cfg.BootstrapAdminEmail = defaultAdminEmail
	return info, err
}

// print tells how to act as the admin: in the browser and from a script.
func (a adminInfo) print(w io.Writer, base string, token string) {
	fmt.Fprintf(w, "\nLocal admin: %s (plan enterprise).\n", a.email)
	fmt.Fprintf(w, "  Browser: open %s/ and sign in with that email (the development provider asks no password).\n", base)
	switch {
	case a.given:
		fmt.Fprintf(w, "  Scripts: its API token is the BOOTSTRAP_ADMIN_TOKEN you set.\n")
	case a.tokenFile != "":
		fmt.Fprintf(w, "  Scripts: export TOKEN=$(cat %s)\n", a.tokenFile)
	default:
		fmt.Fprintf(w, "  Scripts: export TOKEN=%s   (in memory: a new token each start)\n", token)
	}
}

// startDynamoDB starts DynamoDB Local with its data in the data folder (in
// memory without one) and its log in logDir; stop ends it.
func startDynamoDB(ctx context.Context, root, logDir string, data *localstack.DataDir) (endpoint string, stop func(), err error) {
	ddbLog, err := os.Create(filepath.Join(logDir, "dynamodb-local.log"))
	if err != nil {
		return "", nil, err
	}
	dbPath := ""
	if data != nil {
		dbPath = data.DynamoDBPath()
		fmt.Printf("Starting DynamoDB Local (data in %s, 127.0.0.1 only)…\n", dbPath)
	} else {
		fmt.Println("Starting DynamoDB Local (in memory, 127.0.0.1 only)…")
	}
	ddb, err := dynamolocal.StartAt(ctx, filepath.Join(root, "infra", "local"), dbPath, ddbLog)
	if err != nil {
		ddbLog.Close()
		return "", nil, err
	}
	return ddb.Endpoint, func() { ddb.Stop(); ddbLog.Close() }, nil
}

// prepareUsers makes the local admin (BootstrapAdmin) and, on a kept data
// folder, ends the scans the previous run left unfinished: their executions
// lived in that process's runner, so nothing would drive them again.
func prepareUsers(ctx context.Context, cfg *config.Config, data *localstack.DataDir, db *dynamodb.Client, st *store.Store) (adminInfo, error) {
	admin, err := localAdmin(cfg, data)
	if err != nil {
		return admin, err
	}
	if _, err := localstack.BootstrapAdmin(ctx, st, cfg.BootstrapAdminEmail, cfg.BootstrapAdminToken, time.Now()); err != nil {
		return admin, err
	}
	if data == nil {
		return admin, nil
	}
	n, err := localstack.EndUnfinishedScans(ctx, db, cfg.TableName, st, time.Now())
	if n > 0 {
		fmt.Printf("Marked %d scan(s) the previous run left unfinished as failed.\n", n)
	}
	return admin, err
}

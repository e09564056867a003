package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"secscan/infra/local/devidp"
	"secscan/infra/local/localstack"
	"secscan/shared/auth"
	"secscan/shared/config"
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

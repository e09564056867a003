package cli

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"secscan/cmd/secscan/internal/client"
)

// fileConfig is the configuration file written by login.
type fileConfig struct {
	APIURL string `json:"api_url"`
	Token  string `json:"token"`
}

// configPath is --config, else <user config dir>/secscan/config.json.
func (a *app) configPath() (string, error) {
	if a.cfgPath != "" {
		return a.cfgPath, nil
	}
	if a.env.ConfigDir == nil {
		return "", errors.New("no user configuration directory")
	}
	dir, err := a.env.ConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the user configuration directory: %w", err)
	}
	return filepath.Join(dir, "secscan", "config.json"), nil
}

// loadConfig fills what the flags left empty from the environment, then
// from the configuration file.
func (a *app) loadConfig() error {
	a.apiURL = cmp.Or(a.apiURL, a.env.Getenv("SECSCAN_API_URL"))
	a.token = cmp.Or(a.token, a.env.Getenv("SECSCAN_TOKEN"))
	if a.apiURL == "" || a.token == "" {
		if err := a.loadConfigFile(); err != nil {
			return err
		}
	}
	a.apiURL = strings.TrimRight(strings.TrimSpace(a.apiURL), "/")
	a.token = strings.TrimSpace(a.token)
	if a.apiURL == "" {
		return nil
	}
	return a.checkAPIURL()
}

// checkAPIURL rejects an API URL that is not an absolute http(s) URL, and
// warns when the token would cross the network over plain http.
func (a *app) checkAPIURL() error {
	u, err := url.Parse(a.apiURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return usageError("the API URL must be an absolute http(s) URL, got %q", a.apiURL)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		a.info("warning: %s is plain http; the token crosses the network unencrypted", a.apiURL)
	}
	return nil
}

// loadConfigFile fills the API URL and token still empty from the
// configuration file, when there is one.
func (a *app) loadConfigFile() error {
	path, err := a.configPath()
	if err != nil {
		return nil
	}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageError("reading %s: %v", path, err)
	}
	var fc fileConfig
	if err := json.Unmarshal(raw, &fc); err != nil {
		return usageError("%s is not a secscan configuration: %v", path, err)
	}
	if a.apiURL == "" {
		a.apiURL = fc.APIURL
	}
	// The saved token belongs to the URL it was saved for: it never goes
	// to another API (bindingMismatch says why).
	if a.token == "" && fc.Token != "" {
		if sameAPI(a.apiURL, fc.APIURL) {
			a.token = fc.Token
		} else {
			a.savedFor = fc.APIURL
		}
	}
	return nil
}

// sameAPI says whether two API URLs name the same service: scheme, host and
// port (default ports explicit) and path, compared without case in scheme
// and host and without a trailing slash. A login is bound to its URL.
func sameAPI(a, b string) bool {
	norm := func(raw string) string {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" {
			return "\x00" + raw // never equal to a parsed URL
		}
		scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[scheme]
		}
		return scheme + "://" + net.JoinHostPort(host, port) + strings.TrimRight(u.EscapedPath(), "/")
	}
	return norm(a) == norm(b)
}

func isLoopback(host string) bool {
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1"
}

// saveConfig writes the configuration file with mode 0600 (its directory
// 0700), replacing it atomically.
func saveConfig(path string, fc fileConfig) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(fc, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}

func (a *app) loginCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Check an API token and save it with the API URL",
		Long: `login checks an API token against the service (GET /api/auth/me) and saves the
API URL and the token in secscan/config.json under your user configuration
directory, readable by you only (mode 0600). Without --token it reads the token
from the terminal without echo, or from the first line of standard input.

API tokens are created in the dashboard (or POST /api/tokens with a browser
session); they start with pt_.`,
		Example: `  secscan login --api-url https://scan.example.com
  echo "$SECSCAN_TOKEN" | secscan login --api-url https://scan.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.apiURL == "" {
				return usageError("login needs --api-url (or SECSCAN_API_URL)")
			}
			if err := a.loginToken(cmd.Flags().Changed("token")); err != nil {
				return err
			}
			me, err := call(a, func(c *client.Client) (client.User, error) { return c.Me(a.ctx) })
			if err != nil {
				return err
			}
			path, err := a.saveLogin()
			if err != nil {
				return err
			}
			return a.showf(map[string]any{"email": me.Email, "plan": me.Plan, "api_url": a.apiURL, "config": path},
				"Logged in to %s as %s (plan %s).\nSaved to %s (mode 0600).\n", a.apiURL, me.Email, me.Plan, path)
		},
	}
	return cmd
}

// loginToken settles the token login checks: the one given by --token or
// SECSCAN_TOKEN, else one read from the terminal or stdin; it must look
// like an API token.
func (a *app) loginToken(flagGiven bool) error {
	if a.token == "" || !flagGiven && a.env.Getenv("SECSCAN_TOKEN") == "" {
		tok, err := a.readToken()
		if err != nil {
			return usageError("reading the token: %v", err)
		}
		a.token = tok
	}
	if !strings.HasPrefix(a.token, "pt_") {
		return usageError("an API token starts with pt_")
	}
	return nil
}

// saveLogin saves the API URL and the token in the configuration file and
// returns its path.
func (a *app) saveLogin() (string, error) {
	path, err := a.configPath()
	if err != nil {
		return "", withCode(ExitError, err)
	}
	if err := saveConfig(path, fileConfig{APIURL: a.apiURL, Token: a.token}); err != nil {
		return "", withCode(ExitError, fmt.Errorf("saving %s: %w", path, err))
	}
	return path, nil
}

// readToken reads the token from the terminal (no echo) or stdin.
func (a *app) readToken() (string, error) {
	if a.env.StdinTerminal && a.env.ReadSecret != nil {
		fmt.Fprint(a.env.Stderr, "API token: ")
		tok, err := a.env.ReadSecret()
		fmt.Fprintln(a.env.Stderr)
		return strings.TrimSpace(tok), err
	}
	line, err := bufio.NewReader(a.env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New("no token on standard input")
	}
	return strings.TrimSpace(line), nil
}

// Package dashboard serves the browser side of the service from the service's
// own origin (so no CORS): index.html, never cached, and the script and style
// sheet under content-hashed names, cached for a year. The files are
// embedded with go:embed and written by hand (no build step): the dashboard
// is plain DOM code that renders every string as text.
//
// Sign-in is the OpenID Connect authorization code flow with PKCE against the
// configured identity provider (the Cognito hosted UI when the template
// creates the user pool, the development identity provider locally); the
// page gets the provider's endpoints from its <meta> tags.
package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"secscan/shared/httpapi"
)

// web/gz holds each style sheet and script gzipped at build time (gzip.go).
//
//go:generate go run gzip.go
//go:embed web
var files embed.FS

// Config names the identity provider the dashboard signs in with.
type Config struct {
	// Each endpoint is an absolute URL, or a path on the page's own origin.
	AuthorizeURL string // OIDC_AUTHORIZE_URL: the authorization endpoint
	TokenURL     string // OIDC_TOKEN_URL: the token endpoint
	LogoutURL    string // OIDC_LOGOUT_URL: optional; Cognito's /logout
	ClientID     string // OIDC_CLIENT_ID: the public client (its ID tokens' aud)
	Scope        string // OIDC_SCOPE: "openid email" when empty
}

// ConfigFromEnv reads the dashboard's settings through getenv.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		AuthorizeURL: strings.TrimSpace(getenv("OIDC_AUTHORIZE_URL")),
		TokenURL:     strings.TrimSpace(getenv("OIDC_TOKEN_URL")),
		LogoutURL:    strings.TrimSpace(getenv("OIDC_LOGOUT_URL")),
		ClientID:     strings.TrimSpace(getenv("OIDC_CLIENT_ID")),
		Scope:        strings.TrimSpace(getenv("OIDC_SCOPE")),
	}
}

// asset is one embedded file under its hashed name.
type asset struct {
	body, gzipped []byte
	contentType   string
}

// scripts are the page's scripts in the order they run: app.js (sign-in, the
// API, the shared helpers and most pages) first, then the pages it does not
// hold, which register their routes with it.
var scripts = []string{"app.js", "monitor.js"}

// Dashboard is the handler of the dashboard's routes.
type Dashboard struct {
	index  []byte
	assets map[string]asset // by hashed name
	csp    string
}

// New checks cfg and prepares the pages.
func New(cfg Config) (*Dashboard, error) {
	if cfg.Scope == "" {
		cfg.Scope = "openid email"
	}
	origins, err := connectOrigins(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.ClientID == "" {
		return nil, errors.New("OIDC_CLIENT_ID is required")
	}
	d := &Dashboard{assets: map[string]asset{}}
	names, err := d.load()
	if err != nil {
		return nil, err
	}
	if d.index, err = indexPage(cfg, names); err != nil {
		return nil, err
	}
	// Scripts and styles only from the page's own files (no inline code, no
	// third party); the page talks to its own API and the token endpoint.
	d.csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src " + strings.Join(origins, " ") + "; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	return d, nil
}

// connectOrigins checks the provider's URLs and returns the origins the page
// may connect to: its own, and the token endpoint's, which it posts the code to.
func connectOrigins(cfg Config) ([]string, error) {
	origins := []string{"'self'"}
	for _, e := range []struct {
		name, raw string
		optional  bool
	}{{"OIDC_AUTHORIZE_URL", cfg.AuthorizeURL, false}, {"OIDC_TOKEN_URL", cfg.TokenURL, false}, {"OIDC_LOGOUT_URL", cfg.LogoutURL, true}} {
		origin, err := endpointOrigin(e.name, e.raw, e.optional)
		if err != nil {
			return nil, err
		}
		if e.name == "OIDC_TOKEN_URL" && origin != "" {
			origins = append(origins, origin)
		}
	}
	return origins, nil
}

// endpointOrigin checks one of the provider's URLs (the setting name): an
// absolute http(s) URL, whose origin it returns, or a path on the page's own
// origin (the local development provider), or nothing when optional.
func endpointOrigin(name, raw string, optional bool) (string, error) {
	if (raw == "" && optional) || ownPath(raw) {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || !webURL(u) {
		return "", fmt.Errorf("%s must be an absolute http(s) URL or a path on this origin, got %q", name, raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

// ownPath reports whether raw is a path on the page's own origin ("/x",
// not the scheme-relative "//host/x").
func ownPath(raw string) bool { return strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "//") }

// webURL reports whether u is an absolute http(s) URL with a host.
func webURL(u *url.URL) bool {
	return u.IsAbs() && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// indexPage renders index.html with the hashed asset paths and the
// provider's settings.
func indexPage(cfg Config, names map[string]string) ([]byte, error) {
	page, err := template.ParseFS(files, "web/index.html")
	if err != nil {
		return nil, err
	}
	oidc, err := json.Marshal(map[string]string{"authorize": cfg.AuthorizeURL, "token": cfg.TokenURL,
		"logout": cfg.LogoutURL, "client_id": cfg.ClientID, "scope": cfg.Scope})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	hashed := make([]string, len(scripts))
	for i, js := range scripts {
		hashed[i] = names[js]
	}
	if err := page.Execute(&buf, map[string]any{"Scripts": hashed, "Style": names["app.css"], "OIDC": string(oidc)}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// load reads the style sheet and the scripts with their gzipped copies and
// files them under their hashed names; it returns each file's hashed path.
func (d *Dashboard) load() (map[string]string, error) {
	type file struct{ file, contentType string }
	list := []file{{"app.css", "text/css; charset=utf-8"}}
	for _, js := range scripts {
		list = append(list, file{js, "text/javascript; charset=utf-8"})
	}
	names := map[string]string{}
	for _, f := range list {
		body, err := files.ReadFile("web/" + f.file)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(f.file)
		hashed := strings.TrimSuffix(f.file, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		gz, err := files.ReadFile("web/gz/" + f.file + ".gz")
		if err != nil {
			return nil, fmt.Errorf("%w: run go generate ./shared/dashboard", err)
		}
		d.assets[hashed] = asset{body: body, gzipped: gz, contentType: f.contentType}
		names[f.file] = "/assets/" + hashed
	}
	return names, nil
}

// CSP is the Content-Security-Policy of every dashboard response.
func (d *Dashboard) CSP() string { return d.csp }

func (d *Dashboard) secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", d.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: nothing goes to other sites, and the
	// page's own POSTs carry its real Origin (no-referrer makes browsers send
	// "Origin: null"), which the local stack's identity provider checks.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Strict-Transport-Security", "max-age=31536000")
}

// Index answers GET /: the page, never cached so a deployment takes effect
// at the next load (the assets it names are cached forever).
func (d *Dashboard) Index() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.secure(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Content-Length", strconv.Itoa(len(d.index)))
		_, _ = w.Write(d.index)
	})
}

// Asset answers GET /assets/{name}: a hashed name never changes content.
func (d *Dashboard) Asset() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := d.assets[r.PathValue("name")]
		if !ok {
			httpapi.WriteJSON(w, http.StatusNotFound, map[string]string{"detail": "Not found"})
			return
		}
		d.secure(w)
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("Vary", "Accept-Encoding")
		body := a.body
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			w.Header().Set("Content-Encoding", "gzip")
			body = a.gzipped
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

// Handler serves both routes (the Lambda gets both from API Gateway).
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", d.Index())
	mux.Handle("GET /assets/{name}", d.Asset())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, http.StatusNotFound, map[string]string{"detail": "Not found"})
	})
	return mux
}

// GzipSize is the gzipped size of the scripts and style sheet together: what
// a first load transfers besides index.html.
func (d *Dashboard) GzipSize() int {
	n := 0
	for _, a := range d.assets {
		n += len(a.gzipped)
	}
	return n
}

func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if v, err := strconv.ParseFloat(q, 64); found && err == nil && v == 0 {
			return false
		}
		return true
	}
	return false
}

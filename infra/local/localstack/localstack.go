// Package localstack assembles the local stack's HTTP server: the routes of
// template.yaml mounted on the very handlers the Lambdas run, the development
// identity provider, and the bootstrap admin. `go run ./infra/local` and the
// end-to-end tests both use it.
package localstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"time"

	"secscan/infra/local/devidp"
	"secscan/shared/api"
	"secscan/shared/app"
	"secscan/shared/auth"
	"secscan/shared/dashboard"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/samtemplate"
	"secscan/shared/store"
)

// DashboardFunction is the template's function of the dashboard's routes; its
// handler is not an API endpoint, so callers add it to app.Handlers' table.
const DashboardFunction = "DashboardFunction"

// DashboardConfig is the dashboard's sign-in configuration: the development
// identity provider's endpoints when idp is on (paths on the page's origin,
// so http://localhost:3000 works as well as http://127.0.0.1:3000),
// otherwise the OIDC_* variables of getenv (client id defaulting to the JWT
// audience).
func DashboardConfig(idp *devidp.Provider, getenv func(string) string, audience string) dashboard.Config {
	if idp != nil {
		return dashboard.Config{AuthorizeURL: "/dev/authorize", TokenURL: "/dev/token",
			LogoutURL: "/dev/logout", ClientID: idp.Audience}
	}
	c := dashboard.ConfigFromEnv(getenv)
	if c.ClientID == "" {
		c.ClientID = audience
	}
	return c
}

// Mount is the local API Gateway: every route of tpl on its function's
// handler (app.Handlers of a), the dashboard's routes on dash (nil: none,
// they answer 404), through NewRouter with idp. wrap, when set, wraps each
// function's handler (a test's probe).
func Mount(tpl *samtemplate.Template, a *api.API, dash http.Handler, idp *devidp.Provider,
	wrap func(function string, h http.Handler) http.Handler) (http.Handler, error) {
	routes, err := tpl.Routes()
	if err != nil {
		return nil, err
	}
	handlers := app.Handlers(a)
	handlers[DashboardFunction] = http.NotFoundHandler()
	if dash != nil {
		handlers[DashboardFunction] = dash
	}
	if wrap != nil {
		for name, h := range handlers {
			handlers[name] = wrap(name, h)
		}
	}
	return NewRouter(routes, handlers, idp)
}

// NewRouter mounts every template route on its function's handler. A route
// whose function has no handler, or a handler no route uses, is an error:
// the template and the code must agree. idp (optional) adds /dev/session,
// /dev/jwks.json and the sign-in flow (/dev/authorize, /dev/token, /dev/logout).
// Only requests whose Host is loopback are answered (LoopbackHostOnly: 421).
func NewRouter(routes []samtemplate.Route, endpoints map[string]http.Handler, idp *devidp.Provider) (http.Handler, error) {
	mux := http.NewServeMux()
	used := map[string]bool{}
	methods := map[string][]string{}
	for _, rt := range routes {
		h, ok := endpoints[rt.Function]
		if !ok {
			return nil, fmt.Errorf("template route %s: no handler for %s", rt.Pattern(), rt.Function)
		}
		mux.Handle(rt.Pattern(), h)
		used[rt.Function] = true
		methods[rt.Path] = append(methods[rt.Path], rt.Method)
	}
	for name := range endpoints {
		if !used[name] {
			return nil, fmt.Errorf("handler %s has no route in template.yaml", name)
		}
	}
	// A known path with another method is a JSON 405, an unknown path a JSON
	// 404, like the API Gateway in front of the Lambdas would refuse them.
	for path, ms := range methods {
		sort.Strings(ms)
		allow := strings.Join(ms, ", ")
		if path == "/" {
			path = "/{$}" // only the page itself, as on API Gateway
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			httpapi.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method " + r.Method + " not allowed; use " + allow})
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, http.StatusNotFound, map[string]string{"detail": "Not found"})
	})
	if idp != nil {
		mux.HandleFunc("POST /dev/session", idp.ServeSession)
		mux.HandleFunc("GET /dev/jwks.json", idp.ServeJWKS)
		mux.HandleFunc("GET /dev/authorize", idp.ServeAuthorize)
		mux.HandleFunc("POST /dev/authorize", idp.ServeAuthorize)
		mux.HandleFunc("GET /dev/authorize.css", idp.ServeStyle)
		mux.HandleFunc("POST /dev/token", idp.ServeToken)
		mux.HandleFunc("GET /dev/logout", idp.ServeLogout)
	}
	return LoopbackHostOnly(mux), nil
}

// BootstrapAdmin makes sure an admin user with email exists and that token
// (a pt_ value) authenticates as that user, so scripts can drive a fresh stack.
func BootstrapAdmin(ctx context.Context, st *store.Store, rawEmail, token string, now time.Time) (string, error) {
	email, err := auth.NormalizeEmail(rawEmail)
	if err != nil {
		return "", fmt.Errorf("bootstrap admin %q: %w", rawEmail, err)
	}
	userID, err := ensureAdmin(ctx, st, email, now)
	if err != nil {
		return "", fmt.Errorf("bootstrap admin: %w", err)
	}
	if err := ensureToken(ctx, st, userID, token, now); err != nil {
		return "", fmt.Errorf("bootstrap token: %w", err)
	}
	return userID, nil
}

// ensureAdmin makes the user with email an admin, creating it (enterprise
// plan) when there is none: its id.
func ensureAdmin(ctx context.Context, st *store.Store, email string, now time.Time) (string, error) {
	userID, err := st.UserIDByEmail(ctx, email)
	switch {
	case store.IsNotFound(err):
		userID = ids.New(ids.User, now)
		return userID, st.CreateUser(ctx, store.NewUser{
			User:       store.User{ID: userID, Email: email, Plan: string(plans.Enterprise), IsAdmin: true, CreatedAt: now.UTC()},
			ClaimEmail: true,
			Linkable:   true, // its first development-IdP sign-in becomes its browser session
		})
	case err != nil:
		return "", err
	}
	yes := true
	_, err = st.UpdateUser(ctx, userID, nil, &yes)
	return userID, err
}

// ensureToken gives the user the API token unless it exists (another
// start's, or a concurrent one's).
func ensureToken(ctx context.Context, st *store.Store, userID, token string, now time.Time) error {
	hash := auth.HashToken(token)
	if _, err := st.TokenByHash(ctx, hash); err == nil {
		return nil
	} else if !store.IsNotFound(err) {
		return err
	}
	err := st.CreateToken(ctx, store.Token{ID: ids.New(ids.Token, now), UserID: userID, Name: "bootstrap",
		Prefix: auth.DisplayPrefix(token), Hash: hash, CreatedAt: now.UTC()})
	if store.IsConflict(err) {
		return nil
	}
	return err
}

// LoopbackOnly refuses a listen address that other machines could reach:
// its host must be a loopback IP literal or "localhost".
func LoopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("not a host:port address: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return errors.New("must be a loopback address such as 127.0.0.1:3000")
	}
	return nil
}

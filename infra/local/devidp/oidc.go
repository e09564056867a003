package devidp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"secscan/shared/httpapi"
	"secscan/shared/randtoken"
)

// The authorization code flow with PKCE (RFC 6749 + RFC 7636), as the
// Cognito hosted UI runs it for a public client: GET /dev/authorize shows a
// page with an email field instead of a password form, POST /dev/authorize
// sends the browser back to the client with a one-time code, and POST
// /dev/token exchanges the code (with its verifier) or a refresh token for an
// ID token. The dashboard signs in through exactly the same requests locally
// and on AWS; only the endpoints' addresses differ.

const (
	codeTTL = 60 * time.Second
	// maxPending bounds the codes and refresh tokens kept in memory: the
	// oldest go first, a development provider needs no more.
	maxPending = 1000
)

type grant struct {
	email     string
	clientID  string
	redirect  string
	challenge string
	expires   time.Time
}

// flows keeps the codes and refresh tokens a Provider has issued.
type flows struct {
	mu      sync.Mutex
	codes   map[string]grant
	refresh map[string]string // refresh token -> email
	order   []string          // refresh tokens, oldest first
}

func (f *flows) addCode(code string, g grant) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.codes == nil {
		f.codes = map[string]grant{}
	}
	now := time.Now()
	for c, old := range f.codes {
		if now.After(old.expires) || len(f.codes) >= maxPending {
			delete(f.codes, c)
		}
	}
	f.codes[code] = g
}

// takeCode returns the grant of code once: a code is good for one exchange.
func (f *flows) takeCode(code string) (grant, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.codes[code]
	delete(f.codes, code)
	if !ok || time.Now().After(g.expires) {
		return grant{}, false
	}
	return g, true
}

func (f *flows) addRefresh(token, email string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refresh == nil {
		f.refresh = map[string]string{}
	}
	for len(f.order) >= maxPending {
		delete(f.refresh, f.order[0])
		f.order = f.order[1:]
	}
	f.refresh[token] = email
	f.order = append(f.order, token)
}

func (f *flows) refreshEmail(token string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	email, ok := f.refresh[token]
	return email, ok
}

// authorizeRequest is the query (GET) or form (POST) of /dev/authorize.
type authorizeRequest struct {
	ClientID, RedirectURI, State, Challenge, Email string
}

// checkAuthorize validates an authorization request; the error is shown to
// the person at the browser (never a redirect to an unchecked address).
func (p *Provider) checkAuthorize(v url.Values) (authorizeRequest, string) {
	req := authorizeRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		State: v.Get("state"), Challenge: v.Get("code_challenge"), Email: v.Get("email")}
	switch {
	case v.Get("response_type") != "code":
		return req, "response_type must be code"
	case req.ClientID != p.Audience:
		return req, "unknown client_id"
	case !loopbackURL(req.RedirectURI):
		return req, "redirect_uri must be an http(s) URL on a loopback address"
	case v.Get("code_challenge_method") != "S256":
		return req, "code_challenge_method must be S256 (PKCE)"
	case len(req.Challenge) < 43 || len(req.Challenge) > 128:
		return req, "code_challenge must be 43 to 128 characters"
	case len(req.State) > 512:
		return req, "state is too long"
	}
	return req, ""
}

// loopbackURL says whether raw is an http(s) URL whose host is loopback:
// the development provider only ever sends codes back to this machine.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Fragment != "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// securePage sets the headers of the provider's HTML page: no script at all.
func securePage(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// same-origin: the form's POST carries the page's Origin (with
	// no-referrer browsers send "Origin: null", refused by origin.go).
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
}

var authorizePage = template.Must(template.New("authorize").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in - development identity provider</title>
<link rel="stylesheet" href="authorize.css"></head>
<body>
<main>
<h1>Sign in</h1>
<p>Development identity provider of the local stack: any email signs in, no password. Never deployed.</p>
{{if .Problem}}<p role="alert"><strong>{{.Problem}}</strong></p>{{end}}
{{if .Form}}<form method="post" action="authorize">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.RedirectURI}}">
<input type="hidden" name="state" value="{{.State}}">
<input type="hidden" name="code_challenge" value="{{.Challenge}}">
<input type="hidden" name="code_challenge_method" value="S256">
<p><label for="email">Email</label><br>
<input id="email" name="email" type="email" autocomplete="email" required value="{{.Email}}"></p>
<p><button type="submit">Sign in</button></p>
</form>{{end}}
</main>
</body>
</html>`))

// pageStyle makes the page legible at phone and desktop widths (no inline
// style: the page's CSP admits only files).
const pageStyle = `body{font-family:system-ui,sans-serif;color:#1a1f29;background:#f5f7fa;margin:0;line-height:1.45}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #c9d0dc;border-radius:8px}
input{font:inherit;width:100%;padding:.5rem;border:1px solid #6b7485;border-radius:6px}
button{font:inherit;padding:.5rem 1rem;border:1px solid #0b57d0;background:#0b57d0;color:#fff;border-radius:6px}
label{font-weight:600}:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}[role=alert]{color:#a4161a}
`

// ServeStyle answers GET /dev/authorize.css.
func (p *Provider) ServeStyle(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, pageStyle)
}

// ServeAuthorize answers GET and POST /dev/authorize; a POST from another
// origin's page is refused (403; origin.go).
func (p *Provider) ServeAuthorize(w http.ResponseWriter, r *http.Request) {
	if refuseForeignOrigin(w, r) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, httpapi.MaxBodyBytes)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed request", http.StatusBadRequest)
		return
	}
	values := r.URL.Query()
	if r.Method == http.MethodPost {
		values = r.PostForm
	}
	req, problem := p.checkAuthorize(values)
	view := authorizeView{authorizeRequest: req, Problem: problem, Form: problem == ""}
	switch {
	case problem != "":
		view.show(w, http.StatusBadRequest)
	case r.Method == http.MethodPost:
		p.signIn(w, r, view)
	default:
		// Signed in here already: back to the client at once (silent sign-in).
		if email, ok := p.browserSession(r); ok {
			p.sendCode(w, r, req, email)
			return
		}
		view.show(w, http.StatusOK)
	}
}

// authorizeView is what the sign-in page shows: the request, a problem
// with it, and whether to show the form.
type authorizeView struct {
	authorizeRequest
	Problem string
	Form    bool
}

// show writes the sign-in page with status.
func (v authorizeView) show(w http.ResponseWriter, status int) {
	securePage(w)
	if status != http.StatusOK {
		w.WriteHeader(status)
	}
	_ = authorizePage.Execute(w, v)
}

// signIn answers the sign-in form: a valid email starts the provider's
// browser session and goes back to the client with a code; another shows
// the form again (422).
func (p *Provider) signIn(w http.ResponseWriter, r *http.Request, view authorizeView) {
	email := strings.ToLower(strings.TrimSpace(view.Email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		view.Problem = "Enter an email address."
		view.show(w, http.StatusUnprocessableEntity)
		return
	}
	if err := p.setBrowserSession(w, email); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	p.sendCode(w, r, view.authorizeRequest, email)
}

// sendCode sends the browser back to the client with a one-time code for email.
func (p *Provider) sendCode(w http.ResponseWriter, r *http.Request, req authorizeRequest, email string) {
	code, err := randtoken.Base62(32)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	p.flows.addCode(code, grant{email: email, clientID: req.ClientID, redirect: req.RedirectURI,
		challenge: req.Challenge, expires: time.Now().Add(codeTTL)})
	back, _ := url.Parse(req.RedirectURI)
	q := back.Query()
	q.Set("code", code)
	if req.State != "" {
		q.Set("state", req.State)
	}
	back.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, back.String(), http.StatusSeeOther)
}

// tokenError answers an OAuth 2.0 token error (RFC 6749 section 5.2).
func tokenError(w http.ResponseWriter, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}

// ServeToken answers POST /dev/token (application/x-www-form-urlencoded):
// grant_type authorization_code (code, redirect_uri, client_id,
// code_verifier) or refresh_token (refresh_token, client_id).
// A POST from another origin's page is refused (403; origin.go).
func (p *Provider) ServeToken(w http.ResponseWriter, r *http.Request) {
	if refuseForeignOrigin(w, r) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, httpapi.MaxBodyBytes)
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", "the body must be a form")
		return
	}
	f := r.PostForm
	if f.Get("client_id") != p.Audience {
		tokenError(w, "invalid_client", "unknown client_id")
		return
	}
	email, refresh, gerr := p.grant(f)
	if gerr != nil {
		tokenError(w, gerr.code, gerr.description)
		return
	}
	idToken, err := p.SessionToken(email, true)
	if err != nil {
		tokenError(w, "server_error", "cannot sign")
		return
	}
	out := map[string]any{"id_token": idToken, "token_type": "Bearer", "expires_in": int(p.ttl().Seconds())}
	if refresh != "" {
		out["refresh_token"] = refresh
	}
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// grantError is the OAuth error a token request gets: its code and
// description.
type grantError struct{ code, description string }

// grant redeems the token request's grant: the email the session is for
// and, for a code grant, the new refresh token.
func (p *Provider) grant(f url.Values) (email, refresh string, _ *grantError) {
	switch f.Get("grant_type") {
	case "authorization_code":
		return p.codeGrant(f)
	case "refresh_token":
		email, gerr := p.refreshGrant(f)
		return email, "", gerr
	default:
		return "", "", &grantError{"unsupported_grant_type", "grant_type must be authorization_code or refresh_token"}
	}
}

// codeGrant redeems an authorization code (its redirect_uri and PKCE
// verifier checked): the email it was issued for and, unless refresh tokens
// are off, a new refresh token.
func (p *Provider) codeGrant(f url.Values) (email, refresh string, _ *grantError) {
	g, ok := p.flows.takeCode(f.Get("code"))
	if !ok || g.clientID != f.Get("client_id") || g.redirect != f.Get("redirect_uri") {
		return "", "", &grantError{"invalid_grant", "unknown, used or expired code, or another redirect_uri"}
	}
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.challenge)) != 1 {
		return "", "", &grantError{"invalid_grant", "code_verifier does not match the code_challenge"}
	}
	if p.noRefresh.Load() {
		return g.email, "", nil
	}
	refresh, err := randtoken.Base62(32)
	if err != nil {
		return "", "", &grantError{"server_error", "no randomness"}
	}
	p.flows.addRefresh(refresh, g.email)
	return g.email, refresh, nil
}

// refreshGrant is the email a refresh token was issued for.
func (p *Provider) refreshGrant(f url.Values) (string, *grantError) {
	email, ok := p.flows.refreshEmail(f.Get("refresh_token"))
	if !ok {
		return "", &grantError{"invalid_grant", "unknown refresh_token"}
	}
	return email, nil
}

// ServeLogout answers GET /dev/logout?client_id=…&logout_uri=… like the
// Cognito hosted UI: it ends the provider's browser session and sends the
// browser back.
func (p *Provider) ServeLogout(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("logout_uri")
	if r.URL.Query().Get("client_id") != p.Audience || !loopbackURL(target) {
		http.Error(w, "unknown client_id or a logout_uri that is not on loopback", http.StatusBadRequest)
		return
	}
	endBrowserSession(w)
	http.Redirect(w, r, target, http.StatusFound)
}

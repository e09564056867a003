package demotarget

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

const (
	httpMaxConns      = 64
	httpMaxHeader     = 16 << 10
	httpMaxBody       = 4 << 10
	httpShutdownWait  = 5 * time.Second
	allowedMethods    = "GET,HEAD,POST,OPTIONS,TRACE" // what Apache advertises, TRACE included
	challengeMethods  = "GET, HEAD, PUT"
	sessionCookieName = "PHPSESSID"
)

// serveHTTP serves h on ln (through TLS when tlsConfig is set) and returns
// the function that shuts the server down.
func serveHTTP(ln net.Listener, h http.Handler, tlsConfig *tls.Config) func() error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second, // also bounds the TLS handshake
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    httpMaxHeader,
		// Scanners produce a stream of broken handshakes and requests; they
		// are expected here, not worth a log line.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	l := netutil.LimitListener(ln, httpMaxConns)
	if tlsConfig != nil {
		l = tls.NewListener(l, tlsConfig)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), httpShutdownWait)
		defer cancel()
		err := srv.Shutdown(ctx)
		if err != nil {
			_ = srv.Close()
		}
		<-done
		return err
	}
}

// webHandler is the demo site, the same on HTTP and HTTPS.
type webHandler struct {
	target  *Target
	started time.Time
}

func newWebHandler(t *Target) *webHandler {
	return &webHandler{target: t, started: time.Now()}
}

func (h *webHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, httpMaxBody)
	if label := subdomainOf(r.Host, h.target.cfg.Domain); label != "" {
		h.serveSubdomain(w, r, label)
		return
	}
	hdr := w.Header()
	// Weakness: version disclosure, and no security headers at all (no
	// HSTS, CSP, X-Frame-Options, X-Content-Type-Options, Referrer-Policy).
	hdr.Set("Server", ServerHeader)
	hdr.Set("X-Powered-By", PoweredByHeader)
	// Weakness: CORS reflects any origin and allows credentials.
	if origin := r.Header.Get("Origin"); origin != "" {
		hdr.Set("Access-Control-Allow-Origin", origin)
		hdr.Set("Access-Control-Allow-Credentials", "true")
	}

	if h.special(w, r) {
		return
	}
	if page, ok := staticPages[r.URL.Path]; ok {
		h.write(w, page.contentType, page.body(h.target.cfg.Domain))
		return
	}
	h.page(w, r)
}

// special answers what is not a page of the site: TRACE, OPTIONS, the
// verification challenge, methods the site refuses and the path traversal.
func (h *webHandler) special(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.Method == http.MethodTrace:
		h.trace(w, r)
	case r.Method == http.MethodOptions:
		h.options(w, r)
	case r.URL.Path == ChallengePath:
		h.challenge(w, r)
	case !siteMethod(r.Method):
		h.methodNotAllowed(w, r, allowedMethods)
	case traversal(r):
		// Weakness: Apache 2.4.49's path traversal (CVE-2021-41773): encoded
		// dot segments reach outside the document root.
		h.write(w, "text/plain", passwdFile)
	default:
		return false
	}
	return true
}

// siteMethod reports whether the site's pages answer method.
func siteMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodPost
}

// traversal reports whether r is CVE-2021-41773's request for /etc/passwd.
func traversal(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.URL.RawPath), ".%2e/") && strings.HasSuffix(r.URL.Path, "/etc/passwd")
}

// staticPage is a page whose body depends only on the demo's domain.
type staticPage struct {
	contentType string
	body        func(domain string) string
}

func constant(body string) func(string) string { return func(string) string { return body } }

// staticPages are the site's fixed files, by path.
var staticPages = map[string]staticPage{
	jqueryPath:             {"application/javascript", constant(jqueryStub)},
	appJSPath:              {"application/javascript", constant(appJS)},
	sourceMapPath:          {"application/json", constant(sourceMap)},
	"/.git/HEAD":           {"text/plain", constant(gitHEAD)},
	"/.git/config":         {"text/plain", gitConfig},
	"/.env":                {"text/plain", dotEnv},
	"/robots.txt":          {"text/plain", constant(robotsTxt)},
	backupDir + backupFile: {"application/octet-stream", constant(sqlDump)},
}

// page answers the site's pages that depend on the request.
func (h *webHandler) page(w http.ResponseWriter, r *http.Request) {
	domain := h.target.cfg.Domain
	switch r.URL.Path {
	case "/", "/index.php", "/index.html":
		h.setSessionCookie(w)
		portal := "https://" + net.JoinHostPort(PortalLabel+"."+domain, strconv.Itoa(portOf(h.target.httpsAddr))) + "/"
		h.write(w, "text/html; charset=UTF-8", homePage(domain, portal))
	case "/login.php":
		h.setSessionCookie(w)
		if r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body) // bounded by MaxBytesReader; nothing is stored
		}
		h.write(w, "text/html; charset=UTF-8", loginPage(domain, r.Method == http.MethodPost))
	case "/server-status":
		h.serverStatus(w, r)
	case "/backup":
		w.Header().Set("Location", backupDir)
		w.WriteHeader(http.StatusMovedPermanently)
	case backupDir:
		h.write(w, "text/html;charset=UTF-8", backupListing(domain, localPort(r)))
	case backupDir + DumpFile:
		w.Header().Set("Content-Type", "application/gzip")
		http.ServeContent(w, r, DumpFile, h.started, bytes.NewReader(gzippedDump()))
	case "/redirect":
		h.openRedirect(w, r)
	default:
		h.notFound(w, r)
	}
}

// serverStatus is mod_status left open, in its machine form with ?auto.
func (h *webHandler) serverStatus(w http.ResponseWriter, r *http.Request) {
	domain, now := h.target.cfg.Domain, time.Now()
	if _, auto := r.URL.Query()["auto"]; auto {
		h.write(w, "text/plain; charset=ISO-8859-1", serverStatusAuto(domain, h.started, now))
		return
	}
	h.write(w, "text/html; charset=ISO-8859-1", serverStatus(domain, h.target.cfg.Host, localPort(r), h.started, now))
}

func (h *webHandler) write(w http.ResponseWriter, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	_, _ = io.WriteString(w, body)
}

func (h *webHandler) notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, notFoundPage(h.target.cfg.Domain, localPort(r)))
}

func (h *webHandler) methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = io.WriteString(w, methodNotAllowedPage(r.Method, h.target.cfg.Domain, localPort(r)))
}

// setSessionCookie issues a PHP-style session id. Weakness: no Secure,
// HttpOnly or SameSite attribute, on HTTP as on HTTPS.
func (h *webHandler) setSessionCookie(w http.ResponseWriter) {
	w.Header().Add("Set-Cookie", sessionCookieName+"="+sessionID()+"; path=/")
}

func sessionID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 26)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// trace echoes the request head back (weakness: TRACE enabled, the basis of
// cross-site tracing). The head is bounded by MaxHeaderBytes.
func (h *webHandler) trace(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString(r.Method + " " + r.RequestURI + " " + r.Proto + "\r\n")
	b.WriteString("Host: " + r.Host + "\r\n")
	_ = r.Header.Write(&b)
	b.WriteString("\r\n")
	h.write(w, "message/http", b.String())
}

// options answers CORS preflights permissively and advertises TRACE.
func (h *webHandler) options(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Allow", allowedMethods)
	if r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		hdr.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
		if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
			hdr.Set("Access-Control-Allow-Headers", asked)
		}
		hdr.Set("Access-Control-Max-Age", "86400")
	}
	hdr.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// openRedirect sends the client wherever ?url= says (weakness: open
// redirect). Go's header writer turns CR/LF into spaces, so the value
// cannot split the response.
func (h *webHandler) openRedirect(w http.ResponseWriter, r *http.Request) {
	dest := r.URL.Query().Get("url")
	if dest == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "missing url parameter\n")
		return
	}
	w.Header().Set("Location", dest)
	w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
	w.WriteHeader(http.StatusFound)
	_, _ = io.WriteString(w, "<html><body>Redirecting…</body></html>\n")
}

// challenge serves the verification file and lets anyone who can reach the
// demo publish a new one, which stands in for "upload the file to your
// server" (and "add the TXT record", as the zone serves the same token).
func (h *webHandler) challenge(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		token := h.target.Challenge()
		if token == "" {
			h.notFound(w, r)
			return
		}
		h.write(w, "text/plain", token+"\n")
	case http.MethodPut:
		body, err := io.ReadAll(io.LimitReader(r.Body, maxChallenge+1))
		if err != nil {
			var tooBig *http.MaxBytesError
			if !errors.As(err, &tooBig) {
				plainError(w, http.StatusBadRequest, "could not read the request body")
				return
			}
			body = make([]byte, maxChallenge+1) // over the limit either way
		}
		if err := h.target.PublishChallenge(string(body)); err != nil {
			plainError(w, http.StatusBadRequest, err.Error())
			return
		}
		h.write(w, "text/plain; charset=utf-8", "published "+h.target.Challenge()+"\n")
	default:
		h.methodNotAllowed(w, r, challengeMethods)
	}
}

func plainError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// localPort is the port the request arrived on, as Apache prints it.
func localPort(r *http.Request) int {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return portOf(addr.String())
	}
	return 0
}

package devidp

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"secscan/infra/local/loopback"
	"secscan/shared/httpapi"
)

// withPort is host:port with HTTP's default port made explicit, lower-cased.
func withPort(hostport string) string {
	hostport = strings.ToLower(hostport)
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return net.JoinHostPort(strings.Trim(hostport, "[]"), "80")
	}
	return hostport
}

// foreignOrigin returns the Origin header of r when it is present and is not
// the stack's own loopback origin (http:// plus the Host it was asked on);
// "" when the request may proceed. Browsers send Origin on every cross-origin
// request and on same-origin POSTs; curl and scripts send none, and stay allowed.
func foreignOrigin(r *http.Request) string {
	values, present := r.Header["Origin"]
	if !present {
		return ""
	}
	origin := strings.Join(values, ",")
	u, err := url.Parse(origin)
	if err == nil && len(values) == 1 && httpOrigin(u) && sameLoopbackHost(u.Host, r.Host) {
		return ""
	}
	if origin == "" {
		origin = `""`
	}
	return origin
}

// httpOrigin says whether u is an http:// origin: a scheme and a host, no
// user, path, query or fragment.
func httpOrigin(u *url.URL) bool {
	return u.Scheme == "http" && u.User == nil && (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == ""
}

// sameLoopbackHost says whether two Host values name the same loopback host
// and port (HTTP's default port made explicit).
func sameLoopbackHost(a, b string) bool {
	return loopback.Host(a, "") && loopback.Host(b, "") && withPort(a) == withPort(b)
}

// refuseForeignOrigin answers 403 and returns true when r is a POST from a
// web page of another origin (see foreignOrigin): a page the developer visits
// must not mint sessions or codes of the development provider.
func refuseForeignOrigin(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	origin := foreignOrigin(r)
	if origin == "" {
		return false
	}
	httpapi.WriteJSON(w, http.StatusForbidden, map[string]string{
		"detail": "Cross-origin request refused: the development identity provider accepts POSTs only from its own origin, not " + origin})
	return true
}

// Package loopback is the one Host check of every HTTP listener the local
// stack opens (the API and development identity provider
// and the local Lambda Invoke API; runner.mjs repeats it in JavaScript and
// LoopbackDynamoDB.java, DynamoDB Local's launcher, in Java).
//
// They all listen on 127.0.0.1, and so are out of other machines' reach, but
// not out of a web page's: a page whose name the attacker rebinds to
// 127.0.0.1 (DNS rebinding) talks to them from the developer's browser as
// same-origin, and the browser then sends the page's own name in Host
// ("rebind.example:8000"). Answering only loopback names and addresses with
// the listener's own port refuses exactly those requests; curl, the SDKs and
// the stack's own clients send the address they dialled.
package loopback

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Host says whether a Host header value names this machine on port:
// "localhost" or a loopback IP literal ("127.0.0.1:3000", "[::1]:3000",
// "LocalHost:3000"), with the port when it carries one (a Host without a
// port passes: HTTP/1.0 tools send none, and the name alone rules out a
// rebound page). port "" accepts any port.
func Host(hostport, port string) bool {
	host, hostPort := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, hostPort = h, p
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1] // "[::1]" without a port
	}
	if port != "" && hostPort != "" && hostPort != port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// Port is the port of the listener r came in on ("" when unknown, e.g. a
// handler called directly by a test).
func Port(r *http.Request) string {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return strconv.Itoa(addr.Port)
	}
	return ""
}

// HostOK says whether r's Host is loopback with the port of the listener
// it came in on.
func HostOK(r *http.Request) bool { return Host(r.Host, Port(r)) }

// DockerHost is the name Docker's containers reach the host by. It is no
// loopback name, but no web page can rebind it either (it is resolved by
// Docker or /etc/hosts, and .internal is never delegated publicly); the
// listeners `make sam-local`'s containers call accept it (names of Refusal).
const DockerHost = "host.docker.internal"

// Refusal is why a listener that only programs call (DynamoDB Local, the
// Lambda Invoke API) refuses r: 421 Misdirected Request for a Host that is
// not loopback on the listener's port (a rebound page), 403 for a request
// carrying an Origin header (browsers send one with every cross-origin
// request and every POST, even a blind "simple" one; the SDKs never do).
// 0 and "" when r may proceed. names are further host names accepted on the
// listener's port (DockerHost, for a listener containers call).
func Refusal(r *http.Request, names ...string) (status int, reason string) {
	if !HostOK(r) && !named(r, names) {
		return http.StatusMisdirectedRequest, "Misdirected request: this local stack listener answers only loopback hosts (127.0.0.1, localhost, [::1]) on its own port, not " + strconv.Quote(r.Host)
	}
	if _, ok := r.Header["Origin"]; ok {
		return http.StatusForbidden, "Cross-origin request refused: this local stack listener answers programs, not web pages (Origin " + strconv.Quote(r.Header.Get("Origin")) + ")"
	}
	return 0, ""
}

// named says whether r's Host is one of names, with the listener's port.
func named(r *http.Request, names []string) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port != Port(r) {
		return false
	}
	for _, name := range names {
		if strings.EqualFold(host, name) {
			return true
		}
	}
	return false
}

// MachineOnly serves h to the requests Refusal (with names) lets through;
// the others get reply's answer (each listener answers in its own
// protocol's error shape).
func MachineOnly(h http.Handler, reply func(w http.ResponseWriter, status int, reason string), names ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, reason := Refusal(r, names...); status != 0 {
			reply(w, status, reason)
			return
		}
		h.ServeHTTP(w, r)
	})
}

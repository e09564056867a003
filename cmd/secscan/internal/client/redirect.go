package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// RedirectError is a redirect the client refused to follow: it led away from
// the API's origin (another scheme, host or port; https to http included).
// Following it would hand the API token to whoever answers there, so the
// request stops instead.
type RedirectError struct {
	From, To string // the origins: scheme://host[:port]
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the API at %s redirected to %s, another origin: not followed, so your token stays with %s "+
		"(if %s is the service, pass it as --api-url and log in there)", e.From, e.To, e.From, e.To)
}

// checkRedirect is the http.Client's redirect policy: follow a redirect only
// within the origin of the first request.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if len(via) == 0 {
		return nil
	}
	if from, to := origin(via[0].URL), origin(req.URL); from != to {
		return &RedirectError{From: from, To: to}
	}
	return nil
}

// origin is scheme://host:port of u, lower-cased, with the scheme's
// default port made explicit so equal origins compare equal.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// IsRedirectRefused reports whether err is a refused cross-origin redirect.
func IsRedirectRefused(err error) bool {
	var re *RedirectError
	return errors.As(err, &re)
}

package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ratelimit"
	"secscan/shared/store"
)

// The authentication and paging of the API's handlers live here, not in
// httpapi, so that httpapi (and the health function that uses only it) links
// neither the store nor the AWS SDK.

// AuthedHandler is an endpoint that needs a principal.
type AuthedHandler func(w http.ResponseWriter, r *http.Request, p auth.Principal) error

// Authenticated authenticates the request, admits it under the per-user
// limit, sets the X-RateLimit-* headers on whatever follows, and runs h.
func Authenticated(a *auth.Authenticator, h AuthedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, d, err := a.Authenticate(r.Context(), r, httpapi.RequestID(r.Context()))
		if d.Limit > 0 {
			SetRateLimitHeaders(w, d)
		}
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		ctx := httpapi.WithLogger(r.Context(), httpapi.Logger(r.Context()).With("user_id", p.User.ID))
		r = r.WithContext(ctx)
		if err := h(w, r, p); err != nil {
			httpapi.WriteError(w, r, err)
		}
	})
}

// SetRateLimitHeaders writes the X-RateLimit-* headers of d.
func SetRateLimitHeaders(w http.ResponseWriter, d ratelimit.Decision) {
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	w.Header().Set("X-RateLimit-Reset", strconv.Itoa(ratelimit.Seconds(d.Reset)))
}

// List paging (CONTRACT "Lists").
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// PageOf reads ?limit= and ?cursor=.
func PageOf(r *http.Request) (store.Page, error) {
	q := r.URL.Query()
	page := store.Page{Limit: DefaultPageSize, Cursor: q.Get("cursor")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return page, apierr.Field("limit", "must be an integer from 1 to %d", MaxPageSize)
		}
		page.Limit = n
	}
	if len(page.Cursor) > 512 {
		return page, apierr.Field("cursor", "is not a cursor this API returned")
	}
	return page, nil
}

// writePage answers 200 with one page of items, each as render gives it,
// and the Link to the next page when there is one (SetNextLink).
func writePage[T, J any](w http.ResponseWriter, r *http.Request, page store.Page, items []T, next string, render func(T) J) error {
	out := make([]J, len(items))
	for i, it := range items {
		out[i] = render(it)
	}
	SetNextLink(w, r, page, next)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// listOwn is the handler of a paged list of the caller's own items: list
// reads one page of them, render shapes each (tokens, targets, schedules).
func listOwn[T, J any](list func(ctx context.Context, userID string, page store.Page) ([]T, string, error), render func(T) J) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		page, err := PageOf(r)
		if err != nil {
			return err
		}
		items, next, err := list(r.Context(), p.User.ID, page)
		if err != nil {
			return err
		}
		return writePage(w, r, page, items, next, render)
	}
}

// SetNextLink adds `Link: <path?cursor=…&limit=…>; rel="next"` when next is set.
func SetNextLink(w http.ResponseWriter, r *http.Request, page store.Page, next string) {
	if next == "" {
		return
	}
	q := url.Values{}
	for k, v := range r.URL.Query() {
		if k != "cursor" && k != "limit" {
			q[k] = v
		}
	}
	q.Set("cursor", next)
	q.Set("limit", strconv.Itoa(page.Limit))
	w.Header().Set("Link", "<"+r.URL.Path+"?"+q.Encode()+`>; rel="next"`)
}

// BadCursor is the 422 of a cursor the store rejected.
func BadCursor() error { return apierr.Field("cursor", "is not a cursor this API returned") }

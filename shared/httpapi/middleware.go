package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/ratelimit"
	"secscan/shared/store"
)

// statusRecorder remembers the status a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Observe gives every request an id (X-Request-Id), a logger carrying it, a
// recovery from panics (500, logged) and one access-log line. Bodies,
// headers and tokens are never logged.
func Observe(base *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := RequestID(r.Context())
		if id == "" {
			id = newRequestID()
		}
		logger := base.With("request_id", id)
		ctx := WithLogger(WithRequestID(r.Context(), id), logger)
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				logger.ErrorContext(ctx, "panic", "panic", p)
				if rec.status == 0 {
					WriteJSON(rec, http.StatusInternalServerError, errorBody{"Internal server error"})
				}
			}
			logger.InfoContext(ctx, "request", "method", r.Method, "path", r.URL.Path,
				"status", rec.status, "duration_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(rec, r)
	})
}

func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AuthedHandler is an endpoint that needs a principal.
type AuthedHandler func(w http.ResponseWriter, r *http.Request, p auth.Principal) error

// Authenticated authenticates the request, admits it under the per-user
// limit, sets the X-RateLimit-* headers on whatever follows, and runs h.
func Authenticated(a *auth.Authenticator, h AuthedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, d, err := a.Authenticate(r.Context(), r, RequestID(r.Context()))
		if d.Limit > 0 {
			SetRateLimitHeaders(w, d)
		}
		if err != nil {
			WriteError(w, r, err)
			return
		}
		ctx := WithLogger(r.Context(), Logger(r.Context()).With("user_id", p.User.ID))
		r = r.WithContext(ctx)
		if err := h(w, r, p); err != nil {
			WriteError(w, r, err)
		}
	})
}

// SetRateLimitHeaders writes the X-RateLimit-* headers of d.
func SetRateLimitHeaders(w http.ResponseWriter, d ratelimit.Decision) {
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	w.Header().Set("X-RateLimit-Reset", strconv.Itoa(ratelimit.Seconds(d.Reset)))
}

// Public wraps a handler that needs no authentication.
func Public(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	})
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

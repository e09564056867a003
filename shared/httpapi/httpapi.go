// Package httpapi is the HTTP layer shared by every endpoint: JSON in and out,
// the one mapping from errors to status codes, request ids, structured logs,
// panic recovery, authentication and the rate-limit headers.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"secscan/shared/apierr"
)

// MaxBodyBytes bounds every request body (413 beyond).
const MaxBodyBytes = 64 << 10

// WriteJSON writes v as the JSON body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"detail":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// statusOf is the one place an error becomes an HTTP status.
var statusOf = map[apierr.Kind]int{
	apierr.BadRequest:      http.StatusBadRequest,
	apierr.Unauthenticated: http.StatusUnauthorized,
	apierr.Forbidden:       http.StatusForbidden,
	apierr.NotFound:        http.StatusNotFound,
	apierr.Conflict:        http.StatusConflict,
	apierr.Gone:            http.StatusGone,
	apierr.TooLarge:        http.StatusRequestEntityTooLarge,
	apierr.Unprocessable:   http.StatusUnprocessableEntity,
	apierr.RateLimited:     http.StatusTooManyRequests,
	apierr.Unavailable:     http.StatusServiceUnavailable,
}

type errorBody struct {
	Detail string `json:"detail"`
}

// WriteError answers with err: an *apierr.Error's status and detail, or a
// 500 whose cause is logged with the request id and never shown.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apierr.As(err)
	if !ok {
		Logger(r.Context()).ErrorContext(r.Context(), "internal error", "error", err.Error())
		WriteJSON(w, http.StatusInternalServerError, errorBody{"Internal server error"})
		return
	}
	status := statusOf[e.Kind]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if e.Err != nil && status >= 500 {
		Logger(r.Context()).ErrorContext(r.Context(), "dependency error", "error", e.Err.Error())
	}
	switch e.Kind {
	case apierr.Unauthenticated:
		w.Header().Set("WWW-Authenticate", "Bearer")
	case apierr.RateLimited, apierr.Unavailable:
		w.Header().Set("Retry-After", strconv.Itoa(max(1, e.RetryAfter)))
	}
	WriteJSON(w, status, errorBody{e.Detail})
}

// DecodeJSON reads r's body, a JSON object, into dst (a struct whose fields
// carry json tags). Unknown fields and wrong types are 422 naming the field;
// anything that is not one JSON object is 400; more than 64 KiB is 413.
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return apierr.New(apierr.TooLarge, "Request body is larger than %d KiB", MaxBodyBytes>>10)
	}
	if err != nil {
		return apierr.New(apierr.BadRequest, "Request body could not be read")
	}
	trimmed := strings.TrimSpace(string(body))
	if trimmed == "" {
		return apierr.New(apierr.BadRequest, "Request body must be a JSON object")
	}
	if !strings.HasPrefix(trimmed, "{") {
		return apierr.New(apierr.BadRequest, "Request body must be a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return apierr.New(apierr.BadRequest, "Request body must be a single JSON object")
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return apierr.New(apierr.BadRequest, "Request body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.New(apierr.BadRequest, "Request body is not valid JSON (unexpected end)")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return apierr.New(apierr.BadRequest, "Request body must be a JSON object")
		}
		return apierr.Field(field, "must be %s, not %s", jsonKind(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Field(name, "unknown field")
	}
	return apierr.New(apierr.BadRequest, "Request body is not valid JSON")
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "of another type"
}

type ctxKey int

const (
	loggerKey ctxKey = iota
	requestIDKey
)

// NewLogger returns the functions' JSON logger, on standard error, at level
// (DEBUG, INFO, WARN, ERROR; INFO when level is none of them).
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// Logger is the request's logger (request id and, once known, user id).
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// WithLogger stores l in ctx.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey, l)
}

// RequestID is the request's id.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// WithRequestID stores id in ctx; the Lambda adapter uses API Gateway's id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// PathID returns the {id} path value, or a 404 when it is not of the kind
// prefix names: a malformed id cannot name anything.
func PathID(r *http.Request, prefix string, valid func(prefix, id string) bool, what string) (string, error) {
	id := r.PathValue("id")
	if !valid(prefix, id) {
		return "", apierr.New(apierr.NotFound, "%s %s not found", what, quoteShort(id))
	}
	return id, nil
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

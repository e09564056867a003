// Package apispec validates HTTP responses (and webhook deliveries) against the project's
// openapi.yaml, for tests: an end-to-end test hands each response it receives to
// ValidateResponse so that drift between the handlers and the published contract fails a test.
package apispec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Spec is a loaded, validated openapi.yaml with a router over its paths.
// It is safe for concurrent use.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
}

// registerTextDecoders teaches openapi3filter to read the report media types it has no decoder
// for (it only knows text/plain and text/csv), so their `type: string` schemas can be applied.
// Registration is process-wide, hence done once and only where no decoder exists.
var registerTextDecoders = sync.OnceFunc(func() {
	for _, mediaType := range []string{"text/markdown", "text/html"} {
		if openapi3filter.RegisteredBodyDecoder(mediaType) == nil {
			openapi3filter.RegisterBodyDecoder(mediaType, openapi3filter.PlainBodyDecoder)
		}
	}
})

// Load reads the OpenAPI document at path, checks it is a valid OpenAPI 3.1 document
// (schemas included, with JSON Schema 2020-12 semantics) and prepares a router over its paths.
func Load(path string) (*Spec, error) {
	registerTextDecoders()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("load %s: openapi %q, want 3.1", path, doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	// The router matches servers against the request URL; the document's server is the
	// deployment's base URL, and tests talk to whatever address their server bound, so
	// route on the path alone.
	routed := *doc
	routed.Servers = nil
	router, err := legacy.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", path, err)
	}
	return &Spec{doc: doc, router: router}, nil
}

// LoadRepoSpec loads openapi.yaml from the root of the repository the test runs in.
func LoadRepoSpec() (*Spec, error) {
	path, err := FindRepoFile("openapi.yaml")
	if err != nil {
		return nil, err
	}
	return Load(path)
}

// Doc returns the parsed document, for tests that inspect it (operations, extensions).
func (s *Spec) Doc() *openapi3.T { return s.doc }

// FindRepoFile walks up from the working directory to the folder holding go.mod (tests run
// from their package folder) and returns the path of name there; name must exist.
func FindRepoFile(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				return "", fmt.Errorf("find %s: %w", name, err)
			}
			return path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find %s: no go.mod above the working directory", name)
		}
		dir = parent
	}
}

// ValidateResponse checks a response to req against the operation req maps to: the status must
// be documented for that operation, the Content-Type must be one documented for that status
// (a charset parameter, when present, must be utf-8), documented headers must match (required
// ones present), and the body must match the schema. A status documented without content must
// come with an empty body. Authentication is not checked.
func (s *Spec) ValidateResponse(req *http.Request, status int, header http.Header, body []byte) error {
	route, pathParams, err := s.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: no documented operation: %w", req.Method, req.URL.Path, err)
	}
	where := fmt.Sprintf("%s %s (%s) status %d", route.Method, route.Path, route.Operation.OperationID, status)
	if header == nil {
		header = http.Header{}
	}

	responseRef := route.Operation.Responses.Status(status)
	if responseRef == nil {
		return fmt.Errorf("%s: status not documented for the operation (documented: %s)",
			where, strings.Join(documentedStatuses(route.Operation), ", "))
	}
	if err := checkResponseContent(responseRef.Value, header, body); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}

	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: pathParams,
			Route:      route,
			Options:    validationOptions(),
		},
		Status:  status,
		Header:  header,
		Options: validationOptions(),
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := checkPDFBody(header, body); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// checkResponseContent checks a response's Content-Type against those its
// documentation lists, or, documented without content, that it has no body.
func checkResponseContent(response *openapi3.Response, header http.Header, body []byte) error {
	if len(response.Content) == 0 {
		if len(body) != 0 {
			return fmt.Errorf("documented without a body, got %d bytes", len(body))
		}
		return nil
	}
	return checkContentType(response.Content, header.Get("Content-Type"))
}

// checkPDFBody checks that a body sent as application/pdf is a PDF.
func checkPDFBody(header http.Header, body []byte) error {
	if mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type")); mediaType == "application/pdf" &&
		!bytes.HasPrefix(body, []byte("%PDF-")) {
		return errors.New("application/pdf body does not start with %PDF-")
	}
	return nil
}

// ValidateWebhook checks one delivery of the scanFinished webhook as a receiver got it: the
// Content-Type is exactly application/json, the documented headers match, and the body is one
// of the documented payloads. The signature itself is not verified.
func (s *Spec) ValidateWebhook(header http.Header, body []byte) error {
	const where = "webhook scanFinished"
	pathItem := s.doc.Webhooks["scanFinished"]
	if pathItem == nil || pathItem.Post == nil {
		return fmt.Errorf("%s: not documented", where)
	}
	operation := pathItem.Post
	if got := header.Get("Content-Type"); got != "application/json" {
		return fmt.Errorf("%s: Content-Type %q, want exactly application/json", where, got)
	}
	// The webhook is a request the service sends, so it is checked with request validation
	// against a synthetic route; the URL is irrelevant as the webhook has no path parameters.
	req, err := http.NewRequest(http.MethodPost, "https://receiver.invalid/", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	req.Header = header.Clone()
	input := &openapi3filter.RequestValidationInput{
		Request: req,
		Route: &routers.Route{
			Spec: s.doc, Path: "/", PathItem: pathItem, Method: http.MethodPost, Operation: operation,
		},
		Options: validationOptions(),
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

func validationOptions() *openapi3filter.Options {
	options := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		// A request or response must never be rewritten by the check itself.
		SkipSettingDefaults: true,
	}
	options.WithCustomSchemaErrorFunc(conciseSchemaError)
	return options
}

// checkContentType requires a media type documented for the response and, when the response
// names a charset, utf-8 (the contract's `application/json; charset=utf-8`).
func checkContentType(content openapi3.Content, got string) error {
	if got == "" {
		return fmt.Errorf("no Content-Type, want one of %s", strings.Join(mediaTypes(content), ", "))
	}
	mediaType, params, err := mime.ParseMediaType(got)
	if err != nil {
		return fmt.Errorf("Content-Type %q: %w", got, err)
	}
	if content.Get(mediaType) == nil {
		return fmt.Errorf("Content-Type %q, want one of %s", got, strings.Join(mediaTypes(content), ", "))
	}
	if charset, ok := params["charset"]; ok && !strings.EqualFold(charset, "utf-8") {
		return fmt.Errorf("Content-Type %q: charset must be utf-8", got)
	}
	return nil
}

func mediaTypes(content openapi3.Content) []string {
	return slices.Sorted(maps.Keys(content))
}

func documentedStatuses(operation *openapi3.Operation) []string {
	return slices.Sorted(maps.Keys(operation.Responses.Map()))
}

// schemaCauses are the causes a schema error's reason lists. Errors of the
// JSON Schema 2020-12 validator come as a header line and an indented list
// of causes, some of which only say that a wrapper (allOf, the array item)
// failed. When an allOf branch fails, every property of the record becomes
// "unevaluated": the unknown-property reports are then noise, and only mean
// something on their own.
func schemaCauses(reason string) []string {
	var causes, unknown []string
	for _, line := range strings.Split(reason, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		switch {
		case line == "", strings.HasPrefix(line, "jsonschema validation failed"),
			strings.HasSuffix(line, ": validation failed"), strings.HasSuffix(line, ": 'allOf' failed"):
		case strings.HasSuffix(line, ": false schema"):
			// unevaluatedProperties: false reports an unknown property as a "false schema".
			unknown = append(unknown, strings.TrimSuffix(line, "false schema")+"unknown property")
		default:
			causes = append(causes, line)
		}
	}
	if len(causes) == 0 {
		return unknown
	}
	return causes
}

// conciseSchemaError names the failing value and the reason on one line; kin-openapi's default
// message appends the whole schema and value, which buries the mismatch in test output.
func conciseSchemaError(err *openapi3.SchemaError) string {
	pointer := "/" + strings.Join(err.JSONPointer(), "/")
	reason := err.Reason
	if reason == "" {
		reason = fmt.Sprintf("does not match schema keyword %q", err.SchemaField)
	}
	reason = strings.Join(schemaCauses(reason), "; ")
	if strings.HasPrefix(reason, "at '") {
		return reason
	}
	if strings.Contains(reason, "'"+pointer+"'") {
		return reason
	}
	return fmt.Sprintf("at %q: %s", pointer, reason)
}

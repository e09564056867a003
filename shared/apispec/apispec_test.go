package apispec

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// loadSpec loads the repository's openapi.yaml once for all tests: it is read-only afterwards.
var loadSpec = sync.OnceValues(LoadRepoSpec)

// validate checks a response to method path on the local API against s.
func validate(t *testing.T, s *Spec, method, path string, status int, header http.Header, body []byte) error {
	t.Helper()
	req, err := http.NewRequest(method, "http://127.0.0.1:8080"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.ValidateResponse(req, status, header, body)
}

func spec(t *testing.T) *Spec {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("load spec: %v", err)
	}
	return s
}

const (
	scanID   = "scn_01HZX5V8M2K9Q3R4S5T6V7W8X9"
	targetID = "tgt_01HZX5V8M2K9Q3R4S5T6V7W8X9"
	tokenID  = "tok_01HZX5V8M2K9Q3R4S5T6V7W8X9"
	userID   = "usr_01HZX5V8M2K9Q3R4S5T6V7W8X9"
	apiToken = "pt_0123456789abcdefghijABCDEFGHIJ0123456789abc"
)

func jsonHeader() http.Header {
	return http.Header{
		"Content-Type":          {"application/json; charset=utf-8"},
		"X-Ratelimit-Limit":     {"60"},
		"X-Ratelimit-Remaining": {"59"},
		"X-Ratelimit-Reset":     {"1"},
	}
}

func targetJSON() map[string]any {
	return map[string]any{
		"id":                 targetID,
		"target":             "example.com",
		"method":             "dns_txt",
		"verification_token": "service-verify-0123456789abcdefghijAB",
		"instructions":       "Add a TXT record at _service-challenge.example.com with value service-verify-0123456789abcdefghijAB",
		"verified":           true,
		"verified_at":        "2025-01-02T03:04:05Z",
		"verification_error": nil,
		"created_at":         "2025-01-02T03:00:00Z",
	}
}

func scanJSON() map[string]any {
	return map[string]any{
		"id":                 scanID,
		"target":             "example.com",
		"target_id":          targetID,
		"scan_type":          "web",
		"tier":               "quick",
		"status":             "queued",
		"cancel_requested":   false,
		"credits_used":       0,
		"max_credits":        50,
		"callback_url":       "https://hooks.example.com/scan",
		"findings_count":     0,
		"issues_count":       0,
		"risk_rating":        nil,
		"schedule_id":        nil,
		"baseline_scan_id":   nil,
		"issues_by_severity": nil,
		"new_issues_count":   nil,
		"fixed_issues_count": nil,
		"error":              nil,
		"created_at":         "2025-01-02T03:00:00Z",
		"started_at":         nil,
		"finished_at":        nil,
	}
}

func scanDetailJSON() map[string]any {
	scan := scanJSON()
	scan["status"] = "completed"
	scan["credits_used"] = 12
	scan["findings_count"] = 1
	scan["issues_count"] = 1
	scan["risk_rating"] = "medium"
	scan["issues_by_severity"] = map[string]any{"critical": 0, "high": 0, "medium": 1, "low": 0, "info": 0}
	scan["new_issues_count"] = 0
	scan["fixed_issues_count"] = 0
	scan["started_at"] = "2025-01-02T03:00:01Z"
	scan["finished_at"] = "2025-01-02T03:05:00Z"
	scan["findings"] = []any{map[string]any{
		"id":          "fnd_1",
		"check":       "tls.protocol.tls10",
		"issue":       "tls.protocol.tls10",
		"title":       "TLS 1.0 enabled",
		"severity":    "medium",
		"category":    "ssl",
		"host":        "example.com",
		"port":        443,
		"evidence":    "TLSv1.0 handshake accepted",
		"description": "Legacy protocol.",
		"remediation": "Disable TLS 1.0.",
		"references":  []any{"https://www.rfc-editor.org/rfc/rfc8996"},
		"cwe":         "CWE-319",
		"cve":         nil,
		"cvss":        5.3,
		"confidence":  "certain",
		"fingerprint": "0f1e2d3c4b5a69788796a5b4",
		"proof": map[string]any{"kind": "transcript", "request": "TLS ClientHello offering only TLS 1.0",
			"response": "ServerHello: TLS 1.0", "observed_at": "2026-11-20T10:00:00Z", "curl": nil},
	}}
	scan["issues"] = []any{issueJSON()}
	scan["fixed_issues"] = []any{}
	scan["agent_steps"] = []any{map[string]any{
		"seq": 1, "tool": "tls_probe", "input": map[string]any{"host": "example.com", "port": 443},
		"status": "ok", "outcome": "1 finding", "findings_added": 1, "credits": 2,
		"started_at": "2025-01-02T03:00:02Z", "duration_ms": 840, "reasoning": "Check TLS first.",
	}}
	scan["summary"] = map[string]any{
		"risk_rating": "medium", "summary": "One medium issue.", "attack_chains": []any{},
	}
	scan["surface"] = map[string]any{
		"hosts":              []any{map[string]any{"name": "example.com", "addresses": []any{"192.0.2.1"}, "sources": []any{"apex"}}},
		"services":           []any{map[string]any{"host": "example.com", "address": "192.0.2.1", "port": 443, "transport": "tcp", "protocol": "https", "product": "", "version": ""}},
		"web":                []any{map[string]any{"origin": "https://example.com/", "title": "Home", "server": "nginx", "technologies": []any{}}},
		"out_of_scope_names": 2,
	}
	scan["webhook_deliveries"] = []any{map[string]any{
		"attempt": 1, "at": "2025-01-02T03:05:01Z", "status_code": 204, "error": nil,
	}}
	return scan
}

func issueJSON() map[string]any {
	return map[string]any{
		"key": "tls.protocol.tls10", "check": "tls.protocol.tls10", "cve": nil,
		"title": "TLS 1.0 enabled", "severity": "medium", "confidence": "certain", "category": "ssl",
		"cwe": "CWE-319", "cvss": 5.3, "count": 1,
		"locations":   []any{map[string]any{"finding_id": "fnd_1", "host": "example.com", "port": 443}},
		"description": "Legacy protocol.", "remediation": "Disable TLS 1.0.",
		"references": []any{"https://www.rfc-editor.org/rfc/rfc8996"}, "change": nil, "triage": nil,
	}
}

func checkJSON() map[string]any {
	return map[string]any{
		"check": "web.header.csp", "title": "Content-Security-Policy header missing", "category": "web",
		"severity": "low", "cwe": "CWE-693", "description": "No CSP.", "remediation": "Send a CSP.",
		"references": []any{"https://developer.mozilla.org/docs/Web/HTTP/CSP"},
	}
}

// withIssue is the detail fixture with its one issue changed by edit.
func withIssue(edit func(map[string]any)) map[string]any {
	scan := scanDetailJSON()
	issue := issueJSON()
	edit(issue)
	scan["issues"] = []any{issue}
	return scan
}

func tokenJSON() map[string]any {
	return map[string]any{
		"id": tokenID, "name": "ci", "token_prefix": apiToken[:10],
		"created_at": "2025-01-02T03:00:00Z", "expires_at": nil, "last_used_at": nil,
	}
}

func userJSON() map[string]any {
	return map[string]any{
		"id": userID, "email": "a@example.com", "plan": "free", "is_admin": false,
		"created_at": "2025-01-02T03:00:00Z",
	}
}

func with(base map[string]any, key string, value any) map[string]any {
	out := maps.Clone(base)
	out[key] = value
	return out
}

func without(base map[string]any, key string) map[string]any {
	out := maps.Clone(base)
	delete(out, key)
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSpecIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	doc := spec(t).Doc()
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("doc.Validate: %v", err)
	}
	for _, name := range []string{
		"Error", "User", "Target", "TargetCreate", "Token", "TokenCreated", "TokenCreate",
		"WebhookSecret", "Scan", "ScanDetail", "ScanCreate", "Finding", "AgentStep", "Summary",
		"WebhookDelivery", "AdminUserCreate", "AdminUserCreated", "AdminUserUpdate", "Health",
		"WebhookPayload", "Check", "CheckCode", "Issue", "IssueKey", "FixedIssue",
	} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("components.schemas.%s missing", name)
		}
	}
	for _, name := range []string{"id", "limit", "cursor", "status", "target"} {
		if doc.Components.Parameters[name] == nil {
			t.Errorf("components.parameters.%s missing", name)
		}
	}
	for _, name := range []string{
		"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
		"Link", "Location", "WWW-Authenticate",
	} {
		if doc.Components.Headers[name] == nil {
			t.Errorf("components.headers.%s missing", name)
		}
	}
	if doc.Components.SecuritySchemes["bearerAuth"] == nil || len(doc.Security) == 0 {
		t.Error("global bearerAuth security missing")
	}
	webhook := doc.Webhooks["scanFinished"]
	if webhook == nil || webhook.Post == nil {
		t.Error("webhooks.scanFinished POST missing")
	}
}

// TestEveryEndpointDocumented pins the operations of SPEC and CONTRACT, their success status and
// the issue that owns them.
func TestEveryEndpointDocumented(t *testing.T) {
	t.Parallel()
	doc := spec(t).Doc()
	cases := []struct {
		method, path, success, issue string
		public                       bool
	}{
		{"GET", "/health", "200", "", true},
		{"GET", "/api/health", "200", "", true},
		{"GET", "/api/auth/me", "200", "", false},
		{"GET", "/api/targets", "200", "", false},
		{"POST", "/api/targets", "201", "", false},
		{"POST", "/api/targets/{id}/verify", "200", "", false},
		{"DELETE", "/api/targets/{id}", "204", "", false},
		{"POST", "/api/scans", "202", "", false},
		{"GET", "/api/scans", "200", "", false},
		{"GET", "/api/scans/{id}", "200", "", false},
		{"DELETE", "/api/scans/{id}", "202", "", false},
		{"GET", "/api/scans/{id}/report.md", "200", "", false},
		{"GET", "/api/scans/{id}/report.html", "200", "", false},
		{"GET", "/api/scans/{id}/report.pdf", "200", "", false},
		{"GET", "/api/scans/{id}/findings.csv", "200", "", false},
		{"GET", "/api/checks", "200", "", false},
		{"POST", "/api/tokens", "201", "", false},
		{"GET", "/api/tokens", "200", "", false},
		{"DELETE", "/api/tokens/{id}", "204", "", false},
		{"GET", "/api/webhook-secret", "200", "", false},
		{"POST", "/api/webhook-secret/rotate", "200", "", false},
		{"POST", "/api/admin/users", "201", "", false},
		{"PATCH", "/api/admin/users/{id}", "200", "", false},
		{"POST", "/dev/session", "200", "", true},
		{"GET", "/", "200", "", true},
		{"GET", "/assets/{name}", "200", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			item := doc.Paths.Value(tc.path)
			if item == nil {
				t.Fatalf("path %s missing", tc.path)
			}
			op := item.GetOperation(tc.method)
			if op == nil {
				t.Fatalf("%s %s missing", tc.method, tc.path)
			}
			if op.OperationID == "" {
				t.Error("operationId missing")
			}
			if op.Responses.Value(tc.success) == nil {
				t.Errorf("success status %s not documented", tc.success)
			}
			if got, _ := op.Extensions["x-issue"].(string); got != tc.issue {
				t.Errorf("x-issue = %q, want %q", got, tc.issue)
			}
			if tc.issue != "" && !strings.Contains(op.Description, "the "+tc.issue+" issue") {
				t.Errorf("description does not say it is built by the %s issue", tc.issue)
			}
			isPublic := op.Security != nil && len(*op.Security) == 0
			if isPublic != tc.public {
				t.Errorf("public (security: []) = %v, want %v", isPublic, tc.public)
			}
			if !tc.public && op.Responses.Value("401") == nil {
				t.Error("401 not documented on an authenticated operation")
			}
		})
	}
}

func TestValidResponses(t *testing.T) {
	t.Parallel()
	s := spec(t)
	reportHeader := func(contentType, ext string) http.Header {
		h := jsonHeader()
		h.Set("Content-Type", contentType)
		h.Set("Content-Disposition", `attachment; filename="demo.secscan.test-2026-11-20-`+scanID+"."+ext+`"`)
		return h
	}
	errorHeader := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               []byte
	}{
		{"health", "GET", "/health", 200, errorHeader, []byte(`{"status":"ok","version":"1.2.3"}`)},
		{"api health", "GET", "/api/health", 200, errorHeader, []byte(`{"status":"ok","version":"dev"}`)},
		{"me", "GET", "/api/auth/me", 200, jsonHeader(), mustJSON(t, with(userJSON(), "credits",
			map[string]any{"used": 42, "reserved": 200, "allowance": 2000, "renews_at": "2026-12-01T00:00:00Z"}))},
		{"me, unlimited", "GET", "/api/auth/me", 200, jsonHeader(), mustJSON(t, with(userJSON(), "credits",
			map[string]any{"used": 0, "reserved": 0, "allowance": nil, "renews_at": "2026-12-01T00:00:00Z"}))},
		{"target list", "GET", "/api/targets?limit=1", 200,
			func() http.Header {
				h := jsonHeader()
				h.Set("Link", `</api/targets?cursor=abc&limit=1>; rel="next"`)
				return h
			}(),
			mustJSON(t, []any{targetJSON()})},
		{"empty target list", "GET", "/api/targets", 200, jsonHeader(), []byte(`[]`)},
		{"target created unverified", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, with(with(targetJSON(), "verified", false), "verified_at", nil))},
		{"target verified", "POST", "/api/targets/" + targetID + "/verify", 200, jsonHeader(), mustJSON(t, targetJSON())},
		{"verification failed", "POST", "/api/targets/" + targetID + "/verify", 400, errorHeader,
			[]byte(`{"detail":"TXT _service-challenge.example.com: NXDOMAIN"}`)},
		{"target deleted", "DELETE", "/api/targets/" + targetID, 204, jsonHeader(), nil},
		{"unauthorized", "GET", "/api/targets", 401,
			http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {"Bearer"}},
			[]byte(`{"detail":"Invalid or expired token"}`)},
		{"rate limited", "GET", "/api/targets", 429,
			http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Retry-After": {"12"}},
			[]byte(`{"detail":"Rate limit exceeded: 60 requests per minute"}`)},
		{"unavailable", "GET", "/api/scans", 503,
			http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Retry-After": {"1"}},
			[]byte(`{"detail":"Service temporarily unavailable"}`)},
		{"scan created", "POST", "/api/scans", 202,
			func() http.Header { h := jsonHeader(); h.Set("Location", "/api/scans/"+scanID); return h }(),
			mustJSON(t, scanJSON())},
		{"scan list", "GET", "/api/scans?status=queued", 200, jsonHeader(), mustJSON(t, []any{scanJSON()})},
		{"scan detail", "GET", "/api/scans/" + scanID, 200, jsonHeader(), mustJSON(t, scanDetailJSON())},
		{"scan detail running", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, with(with(with(scanDetailJSON(), "summary", nil), "status", "running"), "finished_at", nil))},
		{"scan list completed", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(with(with(scanJSON(), "status", "completed"), "issues_count", 7), "risk_rating", "high"),
				with(with(scanJSON(), "schedule_id", "sch_01HZX5V8M2K9Q3R4S5T6V7W8X9"), "baseline_scan_id", scanID)})},
		{"scan detail with a CVE issue of two locations", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, withIssue(func(is map[string]any) {
				is["key"], is["check"], is["cve"] = "vuln.known-cve:CVE-2021-41773", "vuln.known-cve", "CVE-2021-41773"
				is["count"] = 2
				is["locations"] = []any{
					map[string]any{"finding_id": "fnd_1", "host": "example.com", "port": 443},
					map[string]any{"finding_id": "fnd_2", "host": "www.example.com", "port": nil},
				}
				is["change"] = "regressed"
				is["triage"] = map[string]any{"state": "accepted_risk", "reason": "Behind a VPN", "expires_at": nil,
					"updated_at": "2025-01-02T03:00:00Z", "updated_by": "a@example.com"}
			}))},
		{"scan detail with fixed issues", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, with(scanDetailJSON(), "fixed_issues", []any{map[string]any{
				"key": "web.header.csp", "check": "web.header.csp", "cve": nil, "title": "CSP missing",
				"severity": "low", "last_seen_scan_id": scanID,
			}}))},
		{"checks", "GET", "/api/checks", 200, jsonHeader(),
			mustJSON(t, []any{checkJSON(), with(with(checkJSON(), "check", "ssh.kex.weak"), "cwe", nil)})},
		{"checks unauthorized", "GET", "/api/checks", 401,
			http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {"Bearer"}},
			[]byte(`{"detail":"Invalid or expired token"}`)},
		{"scan cancel", "DELETE", "/api/scans/" + scanID, 202, jsonHeader(),
			mustJSON(t, with(scanJSON(), "cancel_requested", true))},
		{"scan already ended", "DELETE", "/api/scans/" + scanID, 409, errorHeader, []byte(`{"detail":"Scan is completed"}`)},
		{"report md", "GET", "/api/scans/" + scanID + "/report.md", 200,
			reportHeader("text/markdown; charset=utf-8", "md"), []byte("# Report\n")},
		{"report html", "GET", "/api/scans/" + scanID + "/report.html", 200,
			reportHeader("text/html; charset=utf-8", "html"), []byte("<!doctype html><h1>Report</h1>")},
		{"report pdf", "GET", "/api/scans/" + scanID + "/report.pdf", 200,
			reportHeader("application/pdf", "pdf"), []byte("%PDF-1.7\n\x00\xff binary")},
		{"findings csv", "GET", "/api/scans/" + scanID + "/findings.csv", 200,
			reportHeader("text/csv; charset=utf-8", "csv"),
			[]byte("id,severity,title,category,host,port,cve,cwe,cvss,evidence,remediation,references,description,confidence,check,issue\r\nf1,medium,TLS,ssl,example.com,443,,CWE-319,5.3,x,y,https://a.example,d,certain,tls.protocol.tls10,tls.protocol.tls10\r\n")},
		{"report expired", "GET", "/api/scans/" + scanID + "/report.md", 410, errorHeader, []byte(`{"detail":"Report expired"}`)},
		{"token created", "POST", "/api/tokens", 201, jsonHeader(), mustJSON(t, with(tokenJSON(), "token", apiToken))},
		{"token created with expiry", "POST", "/api/tokens", 201, jsonHeader(),
			mustJSON(t, with(with(tokenJSON(), "token", apiToken), "expires_at", "2025-04-02T03:00:00Z"))},
		{"token list", "GET", "/api/tokens", 200, jsonHeader(), mustJSON(t, []any{tokenJSON()})},
		{"token revoked", "DELETE", "/api/tokens/" + tokenID, 204, jsonHeader(), nil},
		{"browser session required", "POST", "/api/tokens", 403, errorHeader,
			[]byte(`{"detail":"This action requires a browser session"}`)},
		{"webhook secret", "GET", "/api/webhook-secret", 200, jsonHeader(),
			[]byte(`{"secret":"whsec_abcdefABCDEF0123456789","created_at":"2025-01-02T03:00:00Z"}`)},
		{"webhook secret rotated", "POST", "/api/webhook-secret/rotate", 200, jsonHeader(),
			[]byte(`{"secret":"whsec_zyxw","created_at":"2025-01-02T03:00:00+00:00"}`)},
		{"admin user created", "POST", "/api/admin/users", 201, jsonHeader(), mustJSON(t, with(userJSON(), "token", apiToken))},
		{"admin user updated", "PATCH", "/api/admin/users/" + userID, 200, jsonHeader(),
			mustJSON(t, with(userJSON(), "plan", "enterprise"))},
		{"dev session", "POST", "/dev/session", 200, errorHeader, []byte(`{"token":"eyJh.eyJz.c2ln"}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(t, s, tc.method, tc.path, tc.status, tc.header, tc.body); err != nil {
				t.Errorf("ValidateResponse: %v", err)
			}
		})
	}
}

func TestInvalidResponses(t *testing.T) {
	t.Parallel()
	s := spec(t)
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               []byte
		want               string // a part of the error
	}{
		{"missing required field", "GET", "/api/targets", 200, jsonHeader(),
			mustJSON(t, []any{without(targetJSON(), "verification_token")}), "verification_token"},
		{"unknown field", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, with(targetJSON(), "owner", userID)), "owner"},
		{"wrong enum", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, with(targetJSON(), "method", "email")), "method"},
		{"wrong type", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, with(targetJSON(), "verified", "yes")), "verified"},
		{"undocumented status", "POST", "/api/targets", 200, jsonHeader(),
			mustJSON(t, targetJSON()), "status not documented"},
		{"timestamp not date-time", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, with(targetJSON(), "created_at", "yesterday")), "created_at"},
		{"omitted nullable timestamp", "POST", "/api/targets", 201, jsonHeader(),
			mustJSON(t, without(targetJSON(), "verified_at")), "verified_at"},
		{"id without prefix", "GET", "/api/auth/me", 200, jsonHeader(),
			mustJSON(t, with(userJSON(), "id", "01HZX5V8M2K9Q3R4S5T6V7W8X9")), "id"},
		{"wrong plan", "GET", "/api/auth/me", 200, jsonHeader(),
			mustJSON(t, with(userJSON(), "plan", "Free")), "plan"},
		{"error with extra field", "GET", "/api/scans/" + scanID, 404, jsonHeader(),
			[]byte(`{"detail":"Not found","request_id":"abc"}`), "request_id"},
		{"error without detail", "GET", "/api/auth/me", 503,
			http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}},
			[]byte(`{"message":"down"}`), ""},
		{"401 with other detail", "GET", "/api/auth/me", 401,
			http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {"Bearer"}},
			[]byte(`{"detail":"token expired"}`), "detail"},
		{"401 without WWW-Authenticate", "GET", "/api/auth/me", 401,
			http.Header{"Content-Type": {"application/json"}},
			[]byte(`{"detail":"Invalid or expired token"}`), "WWW-Authenticate"},
		{"429 without Retry-After", "GET", "/api/auth/me", 429,
			http.Header{"Content-Type": {"application/json"}},
			[]byte(`{"detail":"Rate limit exceeded: 60 requests per minute"}`), "Retry-After"},
		{"missing rate limit headers", "GET", "/api/auth/me", 200,
			http.Header{"Content-Type": {"application/json"}}, mustJSON(t, userJSON()), "X-RateLimit"},
		{"wrong content type", "GET", "/api/auth/me", 200,
			func() http.Header { h := jsonHeader(); h.Set("Content-Type", "text/plain"); return h }(),
			mustJSON(t, userJSON()), "Content-Type"},
		{"wrong charset", "GET", "/api/auth/me", 200,
			func() http.Header {
				h := jsonHeader()
				h.Set("Content-Type", "application/json; charset=latin1")
				return h
			}(),
			mustJSON(t, userJSON()), "charset"},
		{"not json", "GET", "/api/auth/me", 200, jsonHeader(), []byte(`{"id":`), ""},
		{"body on 204", "DELETE", "/api/targets/" + targetID, 204, jsonHeader(), []byte(`{}`), "without a body"},
		{"undocumented path", "GET", "/api/nothing", 200, jsonHeader(), []byte(`{}`), "no documented operation"},
		{"undocumented method", "PUT", "/api/targets", 200, jsonHeader(), []byte(`{}`), "no documented operation"},
		{"scan list item with findings", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "findings", []any{})}), "findings"},
		{"scan detail missing summary", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, without(scanDetailJSON(), "summary")), "summary"},
		{"scan detail unknown field", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, with(scanDetailJSON(), "owner_id", userID)), "owner_id"},
		{"scan wrong status", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "status", "done")}), "status"},
		{"scan credits as string", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "credits_used", "0")}), "credits_used"},
		{"scan list item with issues", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "issues", []any{})}), "issues"},
		{"scan list item without issues_count", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{without(scanJSON(), "issues_count")}), "issues_count"},
		{"scan list item without risk_rating", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{without(scanJSON(), "risk_rating")}), "risk_rating"},
		{"scan wrong risk rating", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "risk_rating", "info")}), "risk_rating"},
		{"scan list item with severities missing one", "GET", "/api/scans", 200, jsonHeader(),
			mustJSON(t, []any{with(scanJSON(), "issues_by_severity", map[string]any{"critical": 0, "high": 1, "medium": 0, "low": 0})}), "issues_by_severity"},
		{"scan detail without issues", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, without(scanDetailJSON(), "issues")), "issues"},
		{"scan detail without fixed_issues", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, without(scanDetailJSON(), "fixed_issues")), "fixed_issues"},
		{"scan detail without baseline_scan_id", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, without(scanDetailJSON(), "baseline_scan_id")), "baseline_scan_id"},
		{"issue without locations", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, withIssue(func(is map[string]any) { is["locations"] = []any{} })), "locations"},
		{"issue with omitted change", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, withIssue(func(is map[string]any) { delete(is, "change") })), "change"},
		{"issue wrong change", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, withIssue(func(is map[string]any) { is["change"] = "fixed" })), "change"},
		{"issue check not a code", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, withIssue(func(is map[string]any) { is["check"] = "Missing CSP header" })), "check"},
		{"finding without check", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			func() []byte {
				scan := scanDetailJSON()
				finding := maps.Clone(scan["findings"].([]any)[0].(map[string]any))
				delete(finding, "check")
				scan["findings"] = []any{finding}
				return mustJSON(t, scan)
			}(), "check"},
		{"finding without issue", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			func() []byte {
				scan := scanDetailJSON()
				finding := maps.Clone(scan["findings"].([]any)[0].(map[string]any))
				delete(finding, "issue")
				scan["findings"] = []any{finding}
				return mustJSON(t, scan)
			}(), "issue"},
		{"check without references", "GET", "/api/checks", 200, jsonHeader(),
			mustJSON(t, []any{without(checkJSON(), "references")}), "references"},
		{"check with empty cwe", "GET", "/api/checks", 200, jsonHeader(),
			mustJSON(t, []any{with(checkJSON(), "cwe", "")}), "cwe"},
		{"check with rationale", "GET", "/api/checks", 200, jsonHeader(),
			mustJSON(t, []any{with(checkJSON(), "rationale", "x")}), "rationale"},
		{"finding wrong severity", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			func() []byte {
				scan := scanDetailJSON()
				finding := maps.Clone(scan["findings"].([]any)[0].(map[string]any))
				finding["severity"] = "severe"
				scan["findings"] = []any{finding}
				return mustJSON(t, scan)
			}(), "severity"},
		{"summary wrong risk rating", "GET", "/api/scans/" + scanID, 200, jsonHeader(),
			mustJSON(t, with(scanDetailJSON(), "summary", map[string]any{
				"risk_rating": "info", "summary": "x", "attack_chains": []any{},
			})), "summary"},
		{"created scan without Location", "POST", "/api/scans", 202, jsonHeader(),
			mustJSON(t, scanJSON()), "Location"},
		{"token list leaks secret", "GET", "/api/tokens", 200, jsonHeader(),
			mustJSON(t, []any{with(tokenJSON(), "token", apiToken)}), "token"},
		{"token created without secret", "POST", "/api/tokens", 201, jsonHeader(),
			mustJSON(t, tokenJSON()), "token"},
		{"token secret too short", "POST", "/api/tokens", 201, jsonHeader(),
			mustJSON(t, with(tokenJSON(), "token", "pt_short")), "token"},
		{"webhook secret without prefix", "GET", "/api/webhook-secret", 200, jsonHeader(),
			[]byte(`{"secret":"abc","created_at":"2025-01-02T03:00:00Z"}`), "secret"},
		{"health not ok", "GET", "/health", 200, http.Header{"Content-Type": {"application/json"}},
			[]byte(`{"status":"degraded","version":"1"}`), "status"},
		{"report without Content-Disposition", "GET", "/api/scans/" + scanID + "/report.md", 200,
			func() http.Header { h := jsonHeader(); h.Set("Content-Type", "text/markdown"); return h }(),
			[]byte("# Report"), "Content-Disposition"},
		{"report served as JSON", "GET", "/api/scans/" + scanID + "/report.html", 200,
			func() http.Header {
				h := jsonHeader()
				h.Set("Content-Disposition", `attachment; filename="demo.secscan.test-2026-11-20-`+scanID+`.html"`)
				return h
			}(), []byte(`{}`), "Content-Type"},
		{"pdf that is not a PDF", "GET", "/api/scans/" + scanID + "/report.pdf", 200,
			func() http.Header {
				h := jsonHeader()
				h.Set("Content-Type", "application/pdf")
				h.Set("Content-Disposition", `attachment; filename="demo.secscan.test-2026-11-20-`+scanID+`.pdf"`)
				return h
			}(), []byte("<html>"), "%PDF-"},
		{"csv with wrong header row", "GET", "/api/scans/" + scanID + "/findings.csv", 200,
			func() http.Header {
				h := jsonHeader()
				h.Set("Content-Type", "text/csv")
				h.Set("Content-Disposition", `attachment; filename="demo.secscan.test-2026-11-20-`+scanID+`.csv"`)
				return h
			}(), []byte("id,title\nf1,x\n"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := validate(t, s, tc.method, tc.path, tc.status, tc.header, tc.body)
			if err == nil {
				t.Fatal("ValidateResponse accepted an invalid response")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			// Errors name the operation and status so a failing e2e test says where.
			if !strings.Contains(err.Error(), tc.method) {
				t.Errorf("error %q does not name the operation", err)
			}
		})
	}
}

func TestNullableTimestamps(t *testing.T) {
	t.Parallel()
	s := spec(t)
	cases := []struct {
		name, method, path string
		status             int
		body               map[string]any
	}{
		{"token never used, no expiry", "GET", "/api/tokens", 200, tokenJSON()},
		{"token used", "GET", "/api/tokens", 200,
			with(with(tokenJSON(), "last_used_at", "2025-01-03T00:00:00Z"), "expires_at", "2025-04-01T00:00:00Z")},
		{"queued scan", "GET", "/api/scans", 200, scanJSON()},
		{"unverified target", "GET", "/api/targets", 200, with(targetJSON(), "verified_at", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(t, s, tc.method, tc.path, tc.status, jsonHeader(), mustJSON(t, []any{tc.body})); err != nil {
				t.Errorf("ValidateResponse: %v", err)
			}
		})
	}
}

// TestRequestSchemas checks the request-body schemas the handlers document, with the same JSON
// Schema 2020-12 validator the response checks use.
func TestRequestSchemas(t *testing.T) {
	t.Parallel()
	schemas := spec(t).Doc().Components.Schemas
	cases := []struct {
		schema string
		body   string
		valid  bool
	}{
		{"ScanCreate", `{"target":"example.com","scan_type":"web","tier":"quick"}`, true},
		{"ScanCreate", `{"target":"example.com","scan_type":"full","tier":"deep","callback_url":"https://h.example/x","max_credits":5,"options":{"anything":[1,2]}}`, true},
		{"ScanCreate", `{"target":"example.com","scan_type":"full","tier":"quick"}`, false},
		{"ScanCreate", `{"target":"example.com","scan_type":"web","tier":"quick","priority":1}`, false},
		{"ScanCreate", `{"target":"example.com","scan_type":"web","tier":"quick","max_credits":0}`, false},
		{"ScanCreate", `{"target":"example.com","scan_type":"web","tier":"quick","max_credits":1.5}`, false},
		{"ScanCreate", `{"target":"example.com","scan_type":"web","tier":"quick","options":[]}`, false},
		{"ScanCreate", `{"target":"example.com","scan_type":"web"}`, false},
		{"TargetCreate", `{"target":"example.com","method":"http_file"}`, true},
		{"TargetCreate", `{"target":"example.com","method":"http_file","verified":true}`, false},
		{"TokenCreate", `{"name":"ci","expires_in_days":90}`, true},
		{"TokenCreate", `{"name":""}`, false},
		{"TokenCreate", `{"name":"ci","expires_in_days":366}`, false},
		{"AdminUserCreate", `{"email":"b@example.com","plan":"pro","is_admin":false}`, true},
		{"AdminUserUpdate", `{"plan":"starter"}`, true},
		{"AdminUserUpdate", `{"plan":"gold"}`, false},
		{"AdminUserUpdate", `{"email":"c@example.com"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.schema+" "+tc.body, func(t *testing.T) {
			t.Parallel()
			var value any
			if err := json.Unmarshal([]byte(tc.body), &value); err != nil {
				t.Fatal(err)
			}
			err := schemas[tc.schema].Value.VisitJSON(value, openapi3.EnableJSONSchema2020())
			if tc.valid && err != nil {
				t.Errorf("rejected a valid body: %v", err)
			}
			if !tc.valid && err == nil {
				t.Error("accepted an invalid body")
			}
		})
	}
}

func TestValidateWebhook(t *testing.T) {
	t.Parallel()
	s := spec(t)
	headers := func() http.Header {
		return http.Header{
			"Content-Type":                {"application/json"},
			"User-Agent":                  {"Service/1.0"},
			"X-Service-Webhook-Timestamp": {"1735786800"},
			"X-Service-Signature":         {"t=1735786800,v1=" + strings.Repeat("0a", 32)},
			"X-Service-Delivery":          {"dlv_01HZX5V8M2K9Q3R4S5T6V7W8X9"},
		}
	}
	completed := `{"scan_id":"` + scanID + `","status":"completed","target":"example.com","tier":"quick","credits_used":12,"findings_count":1,"issues_count":1,"new_issues_count":1,"fixed_issues_count":2,"schedule_id":null,"summary":{"risk_rating":"medium","summary":"x","attack_chains":["a then b"]}}`
	cases := []struct {
		name   string
		header http.Header
		body   string
		valid  bool
	}{
		{"completed", headers(), completed, true},
		{"failed", headers(), `{"scan_id":"` + scanID + `","status":"failed","error":"Credit budget exceeded: 48 of 50 credits used"}`, true},
		{"cancelled", headers(), `{"scan_id":"` + scanID + `","status":"cancelled","target":"example.com","tier":"deep","credits_used":3,"findings_count":0}`, true},
		{"failed with extra fields", headers(), `{"scan_id":"` + scanID + `","status":"failed","error":"x","target":"example.com"}`, false},
		{"completed without the issue counts", headers(), `{"scan_id":"` + scanID + `","status":"completed","target":"example.com","tier":"quick","credits_used":12,"findings_count":1,"summary":{"risk_rating":"medium","summary":"x","attack_chains":[]}}`, false},
		{"completed without summary", headers(), `{"scan_id":"` + scanID + `","status":"completed","target":"example.com","tier":"quick","credits_used":1,"findings_count":0}`, false},
		{"unknown status", headers(), `{"scan_id":"` + scanID + `","status":"running"}`, false},
		{"content type with charset", func() http.Header {
			h := headers()
			h.Set("Content-Type", "application/json; charset=utf-8")
			return h
		}(), completed, false},
		{"uppercase signature", func() http.Header {
			h := headers()
			h.Set("X-Service-Signature", "t=1735786800,v1="+strings.Repeat("0A", 32))
			return h
		}(), completed, false},
		{"missing delivery id", func() http.Header { h := headers(); h.Del("X-Service-Delivery"); return h }(), completed, false},
		{"other user agent", func() http.Header { h := headers(); h.Set("User-Agent", "Go-http-client/1.1"); return h }(), completed, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := s.ValidateWebhook(tc.header, []byte(tc.body))
			if tc.valid && err != nil {
				t.Errorf("rejected a valid delivery: %v", err)
			}
			if !tc.valid && err == nil {
				t.Error("accepted an invalid delivery")
			}
			if err != nil {
				t.Log(err)
			}
		})
	}
}

func TestFindRepoFile(t *testing.T) {
	t.Parallel()
	path, err := FindRepoFile("openapi.yaml")
	if err != nil {
		t.Fatalf("FindRepoFile: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "go.mod")); err != nil {
		t.Errorf("%s is not beside go.mod: %v", path, err)
	}
	if _, err := FindRepoFile("no-such-file.yaml"); err == nil {
		t.Error("FindRepoFile found a file that does not exist")
	}
}

func TestLoadRejectsBadDocuments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := map[string]string{
		"not 3.1":       "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
		"invalid":       "openapi: 3.1.0\ninfo: {title: t}\npaths: {}\n",
		"not yaml":      "openapi: [3.1.0\n",
		"broken schema": "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {A: {type: strin}}}\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".yaml")
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path); err == nil {
				t.Error("Load accepted a bad document")
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("Load accepted a missing file")
	}
}

package lambdahttp

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// The handler sees the same request through the adapter as through the local
// ServeMux: method, path values from API Gateway, headers, body, source IP.
func TestHandlerThroughTheProxyEvent(t *testing.T) {
	t.Parallel()
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete || r.URL.Path != "/api/targets/tgt_1" || r.PathValue("id") != "tgt_1" {
			t.Errorf("request %s %s id=%q", r.Method, r.URL.Path, r.PathValue("id"))
		}
		if r.Header.Get("Authorization") != "Bearer pt_x" || r.RemoteAddr != "198.51.100.7" {
			t.Errorf("headers %v remote %q", r.Header, r.RemoteAddr)
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte{0x25, 0x50, 0xff, 0xfe}) // not UTF-8: must come back base64
	}))
	res, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "DELETE /api/targets/{id}", RawPath: "/api/targets/tgt_1",
		Headers:        map[string]string{"authorization": "Bearer pt_x"},
		PathParameters: map[string]string{"id": "tgt_1"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "req-1",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "DELETE", Path: "/api/targets/tgt_1", SourceIP: "198.51.100.7"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := base64.StdEncoding.DecodeString(res.Body)
	if res.StatusCode != http.StatusTeapot || !res.IsBase64Encoded || string(body) != "\x25\x50\xff\xfe" {
		t.Fatalf("response %d base64=%v body=%q", res.StatusCode, res.IsBase64Encoded, body)
	}
}

package health

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHealthAnswersOKWithTheVersionAndARequestID(t *testing.T) {
	srv := httptest.NewServer(Handler("v1.2.3", slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || body["status"] != "ok" || body["version"] != "v1.2.3" || len(body) != 2 {
		t.Fatalf("%d %v, want 200 {status: ok, version: v1.2.3}", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
}

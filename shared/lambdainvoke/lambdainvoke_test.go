package lambdainvoke

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"secscan/shared/retest"
)

// An asynchronous invocation is a signed POST to the Invoke API with
// InvocationType Event and the request as its event; anything but 202 is
// an error.
func TestLaunchRetestInvokesAsynchronously(t *testing.T) {
	t.Parallel()
	var got struct {
		path, kind, auth string
		body             retest.Request
	}
	status := http.StatusAccepted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.kind, got.auth = r.URL.EscapedPath(), r.Header.Get("X-Amz-Invocation-Type"), r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got.body)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	inv, err := New(context.Background(), "arn:aws:lambda:us-east-1:123456789012:function:RunRetest", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	req := retest.Request{RetestID: "rt_1", UserID: "usr_1"}
	if err := inv.LaunchRetest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got.path != "/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:RunRetest/invocations" ||
		got.kind != "Event" || !strings.HasPrefix(got.auth, "AWS4-HMAC-SHA256 Credential=local/") || got.body != req {
		t.Errorf("invocation %+v", got)
	}
	status = http.StatusTooManyRequests
	if err := inv.LaunchRetest(context.Background(), req); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("a refused invocation gave %v", err)
	}
}

package webhookverify_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/webhook"
	"secscan/shared/webhookverify"
)

const secret = "whsec_test"

func signed(ts int64, body string, sig string) http.Header {
	h := http.Header{}
	h.Set("X-Service-Webhook-Timestamp", strconv.FormatInt(ts, 10))
	if sig == "" {
		sig = webhook.Sign(secret, ts, []byte(body))
	}
	h.Set("X-Service-Signature", sig)
	return h
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	body := `{"scan_id":"scn_1","status":"completed"}`
	good := webhook.Sign(secret, now.Unix(), []byte(body))
	v1 := good[strings.Index(good, "v1="):]
	cases := []struct {
		name   string
		header http.Header
		body   string
		want   error
	}{
		{"valid", signed(now.Unix(), body, ""), body, nil},
		{"valid at the edge of the tolerance", signed(now.Add(-300*time.Second).Unix(), body, ""), body, nil},
		{"a second, unknown scheme is ignored", signed(now.Unix(), body, good+",v0=abc"), body, nil},
		{"one of two v1 matches (rotation overlap)", signed(now.Unix(), body, "t="+strconv.FormatInt(now.Unix(), 10)+",v1=00ff,"+v1), body, nil},
		{"no signature header", http.Header{}, body, webhookverify.ErrMissing},
		{"no v1", signed(now.Unix(), body, "t="+strconv.FormatInt(now.Unix(), 10)), body, webhookverify.ErrMissing},
		{"garbage header", signed(now.Unix(), body, "garbage"), body, webhookverify.ErrMissing},
		{"stale", signed(now.Add(-301*time.Second).Unix(), body, ""), body, webhookverify.ErrStale},
		{"from the future", signed(now.Add(301*time.Second).Unix(), body, ""), body, webhookverify.ErrStale},
		{"body changed", signed(now.Unix(), body, ""), body + " ", webhookverify.ErrMismatch},
		{"re-serialised JSON", signed(now.Unix(), body, ""), `{"status":"completed","scan_id":"scn_1"}`, webhookverify.ErrMismatch},
		{"wrong secret", signed(now.Unix(), body, webhook.Sign("whsec_other", now.Unix(), []byte(body))), body, webhookverify.ErrMismatch},
		{"timestamp header differs from t", func() http.Header {
			h := signed(now.Unix(), body, "")
			h.Set("X-Service-Webhook-Timestamp", strconv.FormatInt(now.Unix()-1, 10))
			return h
		}(), body, webhookverify.ErrMismatch},
		{"v1 not hex", signed(now.Unix(), body, "t="+strconv.FormatInt(now.Unix(), 10)+",v1=zz"), body, webhookverify.ErrMismatch},
	}
	for _, tc := range cases {
		if err := webhookverify.Verify(secret, tc.header, []byte(tc.body), now); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// The example receiver's answers: 204, 400 (missing or stale), 401 (mismatch).
func TestHandler(t *testing.T) {
	t.Parallel()
	var got []webhookverify.Delivery
	srv := httptest.NewServer(webhookverify.Handler(secret, func(d webhookverify.Delivery) { got = append(got, d) }))
	defer srv.Close()
	body := `{"scan_id":"scn_1","status":"failed","error":"Credit budget exceeded: 48 of 50 credits used"}`
	now := time.Now().Unix()
	post := func(h http.Header, b string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(b))
		for k, v := range h {
			req.Header[k] = v
		}
		req.Header.Set("X-Service-Delivery", "dlv_1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		name string
		h    http.Header
		body string
		want int
	}{
		{"valid", signed(now, body, ""), body, 204},
		{"missing", http.Header{}, body, 400},
		{"stale", signed(now-600, body, ""), body, 400},
		{"mismatch", signed(now, body, ""), strings.Replace(body, "48", "49", 1), 401},
	} {
		if code := post(c.h, c.body); code != c.want {
			t.Errorf("%s: %d, want %d", c.name, code, c.want)
		}
	}
	if len(got) != 1 || got[0].ScanID != "scn_1" || got[0].Status != "failed" || got[0].ID != "dlv_1" || !strings.Contains(got[0].Error, "48 of 50") {
		t.Fatalf("handled %+v", got)
	}
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", res.StatusCode)
	}
}

package httpprobe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"secscan/shared/tools"
)

func TestPageInput(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	if err := json.Unmarshal(PageSchema(" to read"), &schema); err != nil || schema["additionalProperties"] != false {
		t.Fatalf("PageSchema is not a closed JSON schema: %v %v", schema, err)
	}
	env := tools.Env{Domain: "example.com"}
	cases := []struct {
		in      string
		want    string // "" means no URL
		refused bool
	}{
		{``, "", false},
		{`{}`, "", false},
		{`{"url":"https://www.example.com"}`, "https://www.example.com/", false},
		{`{"url":"https://evil.example/"}`, "", true},
		{`{"url":"ftp://example.com/"}`, "", true},
		{`{"url":"https://example.com/","depth":1}`, "", true},
	}
	for _, tc := range cases {
		u, err := PageInput(env, json.RawMessage(tc.in))
		if tc.refused != tools.IsInputError(err) || (!tc.refused && err != nil) {
			t.Errorf("%s: %v, refused want %v", tc.in, err, tc.refused)
			continue
		}
		if got := ""; u != nil {
			got = u.String()
			if got != tc.want {
				t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%s: no URL, want %s", tc.in, tc.want)
		}
	}
}

// TestToolSessionNamesTheTool: a call that cannot open its client fails
// with the tool's name in the error, and nothing to close.
func TestToolSessionNamesTheTool(t *testing.T) {
	t.Parallel()
	tool := NewTool("some_tool", 1, 10*time.Second, nil)
	ctx, client, done, err := tool.Session(context.Background(), tools.Env{Domain: "example.com"})
	if err == nil || !strings.HasPrefix(err.Error(), "some_tool: ") || ctx != nil || client != nil || done != nil {
		t.Fatalf("Session without a dialer = %v, %v, done set %v, %v; want an error naming the tool", ctx, client, done != nil, err)
	}
}

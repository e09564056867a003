package httpprobe

import (
	"encoding/json"
	"testing"

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
